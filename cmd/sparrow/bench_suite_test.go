package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sparrow/app"
	"sparrow/bench"
)

// runBenchSuite runs `sparrow bench run` with args and returns the report it wrote to out.
func runBenchSuite(t *testing.T, out string, args ...string) *bench.Report {
	t.Helper()
	cmd := benchCmd()
	var stdout bytes.Buffer
	cmd.SetOut(&stdout)
	cmd.SetErr(&stdout)
	cmd.SetArgs(append([]string{"run", "--quiet", "--out", out}, args...))
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("bench run %v: %v\n%s", args, err, stdout.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r bench.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	return &r
}

// tinyRun are the load settings of the test runs: a smaller small preset.
var tinyRun = []string{"--users", "300", "--clients", "8", "--duration", "600ms", "--rate", "150", "--open-duration", "400ms",
	"--probe-duration", "120ms", "--posts-per-bucket", "3"}

// TestBenchRunSmall runs the suite on the embedded backend in the three modes
// and checks the report's shape: every op present for every mode with
// requests and no errors, the ratios computed, the files written; then it
// drives a server on the kept stores with --target and the accounts file.
func TestBenchRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark suite (about 30 s)")
	}
	out, data := t.TempDir(), t.TempDir()
	r := runBenchSuite(t, out, append([]string{"--preset", "small", "--backend", "embedded", "--keep", "--data", data}, tinyRun...)...)
	if strings.Join(r.Backends, ",") != "embedded" || strings.Join(r.Modes, ",") != "hybrid,push,pull" {
		t.Fatalf("backends %v, modes %v", r.Backends, r.Modes)
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	ratios := map[string]bool{}
	for _, x := range r.Ratios {
		ratios[x.Name] = true
	}
	for _, want := range []string{"pull/hybrid home p50, ≥1000 followings", "pull/hybrid home p99, ≥1000 followings",
		"hybrid/push home p99 (mixed workload)", "push/hybrid inserts per post (mixed workload)"} {
		if !ratios[want] {
			t.Errorf("no ratio %q in %v", want, r.Ratios)
		}
	}
	var pushHot, hybridHot float64 = -1, -1
	for _, m := range r.Measures {
		if m.Name == "inserts_per_post" && m.Bucket == "100" {
			switch m.Mode {
			case "push":
				pushHot = m.Value
			case "hybrid":
				hybridHot = m.Value
			}
		}
	}
	// hot threshold 200: authors with 100+ followers (the most followed, ≥ 200) are hot
	if !(pushHot >= 100 && hybridHot == 0) {
		t.Errorf("inserts per post of the most followed authors: push %v, hybrid %v; want ≥ 100 and 0", pushHot, hybridHot)
	}
	for _, name := range []string{"report.md", "accounts.csv", "home_vs_followings_embedded.svg", "publish_vs_followers_embedded.svg"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}

	// The same accounts against a server on the kept stores, over --target.
	dir := filepath.Join(data, "embedded")
	a, base, err := startInProcess(context.Background(), app.Config{DataDir: filepath.Join(dir, "nats-target"), Shards: app.DefaultShards(dir), HotThreshold: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	out2 := t.TempDir()
	r2 := runBenchSuite(t, out2, append([]string{"--target", base, "--accounts", filepath.Join(out, "accounts.csv"), "--label", "target", "--mode-label", "hybrid"}, tinyRun...)...)
	if err := r2.Validate(); err != nil {
		t.Fatal(err)
	}
	if r2.Backends[0] != "target" || r2.Modes[0] != "hybrid" {
		t.Errorf("target run labelled %v/%v", r2.Backends, r2.Modes)
	}
}
