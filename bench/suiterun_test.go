package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sparrow/app"
)

// runSuite runs RunSuite with o (quiet, into out) and returns the report it
// wrote.
func runSuite(t *testing.T, out string, o SuiteOptions) *Report {
	t.Helper()
	o.Out, o.Quiet = out, true
	var output bytes.Buffer
	if err := RunSuite(context.Background(), o, &output, &output); err != nil {
		t.Fatalf("RunSuite %+v: %v\n%s", o, err, output.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	return &r
}

// tinyRun are the load settings of the test runs: a smaller small preset
// (`bench run --preset small --users 300 --clients 8 --duration 600ms
// --rate 150 --open-duration 400ms --probe-duration 120ms
// --posts-per-bucket 3`).
func tinyRun() (DatasetConfig, SuiteConfig) {
	d := Presets["small"]
	d.Users = 300
	return d, SuiteConfig{Clients: 8, Duration: 600 * time.Millisecond, Rate: 150, OpenDuration: 400 * time.Millisecond,
		ProbeDuration: 120 * time.Millisecond, ProbeClients: 2, PostsPerBucket: 3}
}

// TestRunSuiteSmall runs the suite on the embedded backend in the three
// modes and checks the report's shape: every op present for every mode with
// requests and no errors, the ratios computed, the files written; then it
// drives a server on the kept stores with Target and the accounts file.
func TestRunSuiteSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark suite (about 30 s)")
	}
	out, data := t.TempDir(), t.TempDir()
	d, run := tinyRun()
	r := runSuite(t, out, SuiteOptions{Preset: "small", Data: d, Backends: []string{"embedded"}, Modes: []string{"hybrid", "push", "pull"},
		Run: run, DataDir: data, Keep: true, Command: "test",
		// --redis-url's default: the Redis ceiling is measured if it answers, noted if not
		Services: Services{RedisURL: "redis://127.0.0.1:6379/0"}})
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

	// The same accounts against a server on the kept stores, over Target.
	dir := filepath.Join(data, "embedded")
	a, base, err := startInProcess(context.Background(), app.Config{DataDir: filepath.Join(dir, "nats-target"), Shards: app.DefaultShards(dir), HotThreshold: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	out2 := t.TempDir()
	r2 := runSuite(t, out2, SuiteOptions{Preset: "small", Data: d, Modes: []string{"hybrid", "push", "pull"}, Run: run,
		Target: base, Accounts: filepath.Join(out, "accounts.csv"), Label: "target", ModeLabel: "hybrid", Command: "test"})
	if err := r2.Validate(); err != nil {
		t.Fatal(err)
	}
	if r2.Backends[0] != "target" || r2.Modes[0] != "hybrid" {
		t.Errorf("target run labelled %v/%v", r2.Backends, r2.Modes)
	}
}
