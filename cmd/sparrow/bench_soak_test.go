package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	goredis "github.com/redis/go-redis/v9"

	"sparrow/bench"
	"sparrow/internal/testenv"
	"sparrow/mysql"
)

// tinySoak are the settings of the test soaks: a 200-user data set, a 2 s
// capacity run, 3 s of open loop sampled every second, 1 s of warm-up.
var tinySoak = []string{"--users", "200", "--clients", "4", "--capacity-duration", "2s", "--duration", "3s", "--interval", "1s", "--warmup", "1s"}

// runSoakBinary runs `bin bench soak --out out args…` with TMPDIR set to
// tmp (where its temporary stores go) and returns soak.json.
func runSoakBinary(t *testing.T, bin, out, tmp string, args ...string) *bench.SoakReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"bench", "soak", "--quiet", "--out", out}, args...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bench soak %v: %v\n%s", args, err, output)
	}
	b, err := os.ReadFile(filepath.Join(out, bench.SoakJSON))
	if err != nil {
		t.Fatal(err)
	}
	var r bench.SoakReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("soak.json: %v", err)
	}
	return &r
}

// checkSoakReport checks that every output file is there and that every
// load sample has requests, no errors and the server's memory.
func checkSoakReport(t *testing.T, out string, r *bench.SoakReport, minSamples int) {
	t.Helper()
	for _, name := range []string{bench.SoakJSON, bench.SoakMD, bench.SoakSVG} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if len(r.Samples) < minSamples || r.Summary.Samples != len(r.Samples) {
		t.Fatalf("%d samples (summary: %d), want at least %d", len(r.Samples), r.Summary.Samples, minSamples)
	}
	for i, x := range r.Samples {
		if x.Phase != "load" || x.Requests == 0 || x.Errors != 0 || x.P99 <= 0 || x.Server.RSS <= 0 || x.Server.HeapInuse <= 0 || x.Server.Goroutines <= 0 {
			t.Errorf("sample %d: %+v", i, x)
		}
	}
	s := r.Summary
	if s.SteadySamples == 0 || s.SteadySamples == s.Samples || s.RSSEndMB <= 0 || s.RSSWarmupEndMB <= 0 || s.P99MedianMs <= 0 || s.Errors != 0 {
		t.Errorf("summary %+v", s)
	}
	md, _ := os.ReadFile(filepath.Join(out, bench.SoakMD))
	svg, _ := os.ReadFile(filepath.Join(out, bench.SoakSVG))
	if !strings.Contains(string(md), "RSS slope after warm-up") || !strings.Contains(string(svg), "Server memory") || strings.Count(string(svg), "<polyline") < 4 {
		t.Errorf("soak.md or soak.svg incomplete:\n%s", md)
	}
}

// TestBenchSoakEmbedded runs `sparrow bench soak` end to end on the embedded
// backend (a child server process on a generated data set) with tiny
// settings, then drives a server on the kept stores with --target.
func TestBenchSoakEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs two short soaks (about 15 s)")
	}
	bin := buildBinary(t)
	out, data, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	r := runSoakBinary(t, bin, out, tmp, append([]string{"--keep", "--data", data}, tinySoak...)...)
	checkSoakReport(t, out, r, 3)
	if r.Capacity == nil || r.Capacity.RPS <= 0 || r.Capacity.Errors != 0 || !r.RateIsHalfCapacity || r.Rate != r.Capacity.RPS/2 {
		t.Errorf("capacity %+v, rate %v", r.Capacity, r.Rate)
	}
	if r.Config["backend"] != "embedded" || r.Config["duration"] != "3s" || r.WarmupSeconds != 1 {
		t.Errorf("config %v, warm-up %v s", r.Config, r.WarmupSeconds)
	}
	if log, err := os.ReadFile(filepath.Join(out, bench.SoakServerLog)); err != nil {
		t.Error(err)
	} else if len(log) > 0 {
		t.Logf("server log:\n%s", log)
	}

	// The kept stores served by hand, soaked over --target at a given rate.
	addr := freeAddr(t)
	startServeWith(t, bin, addr, filepath.Join(data, "embedded"), "--hot-threshold", "200")
	out2 := t.TempDir()
	r2 := runSoakBinary(t, bin, out2, tmp, "--target", "http://"+addr, "--accounts", filepath.Join(out, "accounts.csv"),
		"--capacity-duration", "0", "--rate", "50", "--duration", "2s", "--interval", "1s", "--warmup", "1s")
	checkSoakReport(t, out2, r2, 2)
	if r2.Capacity != nil || r2.Rate != 50 || r2.RateIsHalfCapacity || r2.Config["target"] != "http://"+addr {
		t.Errorf("target run: capacity %+v, rate %v, config %v", r2.Capacity, r2.Rate, r2.Config)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in TMPDIR: %v", entries)
	}
}

// TestBenchSoakMariaDB runs the soak on the mariadb backend and checks that
// its databases, Redis prefix and NATS streams are gone afterwards.
func TestBenchSoakMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a short soak on MariaDB")
	}
	mysqlURL, redisURL, natsURL := testenv.MySQLURL(t), testenv.RedisURL(t), testenv.NATSURL(t)
	bin := buildBinary(t)
	out, tmp := t.TempDir(), t.TempDir()
	r := runSoakBinary(t, bin, out, tmp, append([]string{"--backend", "mariadb", "--mysql-url", mysqlURL, "--redis-url", redisURL, "--nats-url", natsURL}, tinySoak...)...)
	checkSoakReport(t, out, r, 3)

	stores, _ := r.Config["stores"].(map[string]any)
	shards, _ := stores["shards"].(string)
	prefix, _ := stores["redis_prefix"].(string)
	stream, _ := stores["stream"].(string)
	if !strings.Contains(shards, "mysql://") || !strings.HasPrefix(prefix, "sparrowbench") || !strings.HasPrefix(stream, "SPARROWBENCH") {
		t.Fatalf("stores %v", stores)
	}
	ctx := context.Background()
	for _, part := range strings.Split(shards, ",") {
		_, dsn, _ := strings.Cut(part, "=")
		if databaseExists(t, dsn) {
			t.Errorf("database of %s left behind", dsn)
			mysql.DropDatabase(ctx, dsn)
		}
	}
	opt, err := goredis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := goredis.NewClient(opt)
	defer rdb.Close()
	if keys, _, serr := rdb.Scan(ctx, 0, prefix+"*", 1000).Result(); serr != nil || len(keys) > 0 {
		t.Errorf("Redis keys left under %s: %v (%v)", prefix, keys, serr)
	}
	nc, err := natsgo.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{stream, stream + "_DEAD"} {
		if _, err := js.Stream(ctx, name); !errors.Is(err, jetstream.ErrStreamNotFound) {
			t.Errorf("stream %s: %v, want not found", name, err)
			js.DeleteStream(ctx, name)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in TMPDIR: %v", entries)
	}
}

// databaseExists reports whether the database named by the mysql:// dsn exists.
func databaseExists(t *testing.T, dsn string) bool {
	t.Helper()
	c, err := mysql.Config(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := c.DBName
	c.DBName = ""
	conn, err := gomysql.NewConnector(c)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// parseBenchSoak runs `bench soak args…` with a stand-in for bench.RunSoak
// and returns the options it was given.
func parseBenchSoak(t *testing.T, args ...string) bench.SoakOptions {
	t.Helper()
	var o bench.SoakOptions
	called := false
	cmd := newBenchSoakCmd(func(ctx context.Context, got bench.SoakOptions, _, _ io.Writer) error {
		o, called = got, true
		if ctx.Err() != nil {
			t.Errorf("context already done: %v", ctx.Err())
		}
		return nil
	})
	var output bytes.Buffer
	cmd.SetOut(&output)
	cmd.SetErr(&output)
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(context.Background()); err != nil || !called {
		t.Fatalf("bench soak %v: called %v, %v\n%s", args, called, err, output.String())
	}
	return o
}

// TestBenchSoakFlags checks what `bench soak` hands bench.RunSoak: the
// preset's data set, the default warm-up (2m, or a fifth of a shorter
// --duration), this binary as the server, the flags as given.
func TestBenchSoakFlags(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o := parseBenchSoak(t, "--duration", "40s", "--users", "200")
	want := bench.Presets["small"]
	want.Users = 200
	l := o.Load
	if o.Data != want || l.Duration != 40*time.Second || l.Warmup != 8*time.Second || l.Clients != 16 || l.CapacityDuration != 15*time.Second ||
		l.Interval != 10*time.Second || l.Rate != 0 || l.Inflight != 0 || l.Cooldown != 0 {
		t.Errorf("data set %+v, load %+v", o.Data, l)
	}
	if o.Backend != "embedded" || o.FeedMode != "hybrid" || o.ServerBinary != self || o.Out != "soak-out" || o.Quiet || o.Bar == nil ||
		o.Keep || o.DataDir != "" || len(o.ServerFlags) != 0 || !strings.HasPrefix(o.Command, "sparrow bench ") {
		t.Errorf("options %+v", o)
	}
	if long := parseBenchSoak(t, "--duration", "1h"); long.Load.Warmup != 2*time.Minute {
		t.Errorf("--duration 1h: warm-up %v", long.Load.Warmup)
	}
	o = parseBenchSoak(t, "--duration", "1h", "--warmup", "30s", "--quiet", "--backend", "mariadb", "--feed-mode", "pull",
		"--server-flag=--inbox-cap=400", "--server-flag", "--recent-cap=10", "--preset", "medium", "--nats-url", "nats://n:1")
	if o.Load.Warmup != 30*time.Second || !o.Quiet || o.Bar != nil || o.Backend != "mariadb" || o.FeedMode != "pull" ||
		strings.Join(o.ServerFlags, " ") != "--inbox-cap=400 --recent-cap=10" || o.Data != bench.Presets["medium"] || o.Services.NATSURL != "nats://n:1" {
		t.Errorf("options %+v", o)
	}
	if target := parseBenchSoak(t, "--target", "http://x", "--accounts", "a.csv"); target.Target != "http://x" || target.Accounts != "a.csv" || target.ServerBinary != "" {
		t.Errorf("target: options %+v", target)
	}
}
