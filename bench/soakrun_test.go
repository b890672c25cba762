package bench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sparrow/app"
)

// TestRunSoakChecksFirst checks that RunSoak refuses bad settings before it
// creates anything (not even its output directory).
func TestRunSoakChecksFirst(t *testing.T) {
	good := SoakOptions{Data: Presets["small"], Backend: "embedded", FeedMode: "hybrid", ServerBinary: "/bin/false",
		Load: SoakConfig{Clients: 1, CapacityDuration: time.Second, Duration: time.Second, Interval: time.Second}}
	for name, bad := range map[string]func(o *SoakOptions){
		"duration":      func(o *SoakOptions) { o.Load.Duration = 0 },
		"interval":      func(o *SoakOptions) { o.Load.Interval = 0 },
		"warmup":        func(o *SoakOptions) { o.Load.Warmup = -time.Second },
		"rate":          func(o *SoakOptions) { o.Load.CapacityDuration = 0 },
		"clients":       func(o *SoakOptions) { o.Load.Clients = 0 },
		"accounts":      func(o *SoakOptions) { o.Target = "http://127.0.0.1:1" },
		"backend":       func(o *SoakOptions) { o.Backend = "postgres" },
		"feed mode":     func(o *SoakOptions) { o.FeedMode = "fast" },
		"server binary": func(o *SoakOptions) { o.ServerBinary = "" },
	} {
		o := good
		o.Out = filepath.Join(t.TempDir(), "out")
		bad(&o)
		if err := RunSoak(context.Background(), o, io.Discard, io.Discard); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := os.Stat(o.Out); !os.IsNotExist(err) {
			t.Errorf("%s: %s created (%v)", name, o.Out, err)
		}
	}
}

// TestSoakServeArgs checks the server's flags: the stores, the hot threshold
// and feed mode, the services of an external backend, the extra flags last.
func TestSoakServeArgs(t *testing.T) {
	o := &SoakOptions{FeedMode: "push", ServerFlags: []string{"--inbox-cap=400"}}
	got := soakServeArgs(o, app.Config{DataDir: "d"}, "d", 200)
	want := []string{"--data", "d", "--hot-threshold", "200", "--feed-mode", "push", "--log-level", "warn", "--inbox-cap=400"}
	if !slices.Equal(got, want) {
		t.Errorf("embedded: %q, want %q", got, want)
	}
	// backendConfig only names the databases, prefix and stream: there is
	// nothing to clean up (its cleanup would dial the made-up host).
	c, _, err := backendConfig("mariadb", "d", Services{MySQLURL: "mysql://u:p@h/", RedisURL: "redis://r/0", NATSURL: "nats://n"})
	if err != nil {
		t.Fatal(err)
	}
	got = soakServeArgs(o, c, "d", 200)
	joined := strings.Join(got, " ")
	for _, part := range []string{"--shards 0-127=mysql://u:p@h/sparrow_bench_", "--redis-url redis://r/0", "--redis-prefix sparrowbench",
		"--nats-url nats://n", "--stream SPARROWBENCH"} {
		if !strings.Contains(joined, part) {
			t.Errorf("mariadb: %q has no %q", joined, part)
		}
	}
	if got[len(got)-1] != "--inbox-cap=400" {
		t.Errorf("mariadb: extra flags not last: %q", got)
	}
}

// TestServerEnv checks that the server process gets no SPARROW_* variable.
func TestServerEnv(t *testing.T) {
	got := serverEnv([]string{"PATH=/bin", "SPARROW_REDIS_URL=redis://x", "HOME=/root", "SPARROW_DATA=/d"})
	if !slices.Equal(got, []string{"PATH=/bin", "HOME=/root"}) {
		t.Errorf("serverEnv = %q", got)
	}
}
