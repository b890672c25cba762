package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"sparrow/bench"
)

// parseBenchRun runs `bench run args…` with a stand-in for bench.RunSuite
// and returns the options it was given (ok false if it was not called).
func parseBenchRun(t *testing.T, args ...string) (o bench.SuiteOptions, ok bool, err error) {
	t.Helper()
	cmd := newBenchRunCmd(func(_ context.Context, got bench.SuiteOptions, _, _ io.Writer) error {
		o, ok = got, true
		return nil
	})
	var output bytes.Buffer
	cmd.SetOut(&output)
	cmd.SetErr(&output)
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(context.Background())
	return o, ok, err
}

// TestBenchRunFlags checks what `bench run` hands bench.RunSuite: the
// preset's data set and load settings where no flag was given, the flags
// where one was, and errors before anything runs for a bad preset or data
// set.
func TestBenchRunFlags(t *testing.T) {
	o, ok, err := parseBenchRun(t, "--preset", "small", "--users", "300", "--duration", "600ms", "--quiet", "--out", "somewhere")
	if err != nil || !ok {
		t.Fatalf("small: called %v, %v", ok, err)
	}
	want := bench.Presets["small"]
	want.Users = 300
	if o.Preset != "small" || o.Data != want {
		t.Errorf("small: preset %q, data set %+v, want %+v", o.Preset, o.Data, want)
	}
	small := bench.SuitePresets["small"]
	r := o.Run
	if !slices.Equal(o.Backends, small.Backends) || r.Duration != 600*time.Millisecond || r.OpenDuration != small.OpenDuration ||
		r.ProbeDuration != small.ProbeDuration || r.Rate != small.Rate || r.PostsPerBucket != small.PostsPerBucket ||
		r.Clients != 16 || r.ProbeClients != 2 {
		t.Errorf("small: backends %v, load %+v", o.Backends, r)
	}
	if strings.Join(o.Modes, ",") != "hybrid,push,pull" || o.Out != "somewhere" || !o.Quiet || o.Bar != nil || o.Keep || o.Target != "" ||
		!strings.HasPrefix(o.Command, "sparrow bench ") || o.Services != (bench.Services{MySQLURL: "mysql://root@127.0.0.1:3306/",
		RedisURL: "redis://127.0.0.1:6379/0", NATSURL: "nats://127.0.0.1:4222"}) {
		t.Errorf("small: options %+v", o)
	}

	o, _, err = parseBenchRun(t, "--preset", "medium", "--backend", "embedded", "--rate", "-1", "--modes", "push", "--keep", "--data", "d",
		"--profile-dir", "p", "--redis-url", "redis://r:1/2")
	medium := bench.SuitePresets["medium"]
	if err != nil || o.Data != bench.Presets["medium"] || strings.Join(o.Backends, ",") != "embedded" || o.Run.Rate != -1 ||
		o.Run.Duration != medium.Duration || strings.Join(o.Modes, ",") != "push" || !o.Keep || o.DataDir != "d" || o.ProfileDir != "p" ||
		o.Services.RedisURL != "redis://r:1/2" || o.Quiet || o.Bar == nil || o.Out != "bench-out" {
		t.Errorf("medium: %v, options %+v", err, o)
	}

	o, _, err = parseBenchRun(t, "--target", "http://x", "--accounts", "a.csv", "--label", "L", "--mode-label", "M")
	if err != nil || o.Target != "http://x" || o.Accounts != "a.csv" || o.Label != "L" || o.ModeLabel != "M" {
		t.Errorf("target: %v, options %+v", err, o)
	}

	for _, args := range [][]string{{"--preset", "huge"}, {"--users", "1"}, {"--hot-threshold", "-1"}} {
		if _, called, err := parseBenchRun(t, args...); err == nil || called {
			t.Errorf("%v: called %v, error %v", args, called, err)
		}
	}
}
