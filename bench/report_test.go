package bench

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// syntheticReport has every op of one backend in three modes; home latency
// and inserts per post scale per mode as given.
func syntheticReport() *Report {
	r := &Report{Preset: "test", Backends: []string{"embedded"}, Modes: []string{"hybrid", "push", "pull"}}
	scale := map[string]float64{"hybrid": 1, "push": 0.8, "pull": 10}
	inserts := map[string]float64{"hybrid": 40, "push": 60, "pull": 0}
	for _, mode := range r.Modes {
		add := func(op, loop, bucket string, x, p50, p99 float64) {
			r.Results = append(r.Results, Row{Backend: "embedded", Mode: mode, Loop: loop, Bucket: bucket, X: x,
				Result: Result{Op: op, Requests: 10, Seconds: 1, RPS: 10, P50: p50, P95: p99, P99: p99, P999: p99}})
		}
		for _, op := range mixOps {
			add(op, "closed", "", 0, 2*scale[mode], 4*scale[mode])
		}
		add(OpHomeOnly, "closed", "", 0, scale[mode], 5*scale[mode])
		add(OpPublish, "", "10", 50, 2, 5)
		add(OpFanoutLag, "", "10", 50, 3, 30)
		add(OpPublish, "", "10k", 20000, 2, 5)
		add(OpFanoutLag, "", "10k", 20000, 3, 3000) // above 10k followers: not a target
		add(OpHomeFollowings, "closed", "100", 100, scale[mode], 2*scale[mode])
		add(OpHomeFollowings, "closed", "1k", 990, 3*scale[mode], 6*scale[mode])
		add(OpRebuild, "", "1k", 1000, 8, 20)
		r.Measures = append(r.Measures, Measure{Backend: "embedded", Mode: mode, Name: "inserts_per_post", Value: inserts[mode]},
			Measure{Backend: "embedded", Mode: mode, Name: "inserts_per_post", Bucket: "10k", Value: map[string]float64{"hybrid": 0, "push": 20000, "pull": 0}[mode]})
	}
	return r
}

func TestReportCompute(t *testing.T) {
	r := syntheticReport()
	r.Compute()
	got := map[string]Ratio{}
	for _, x := range r.Ratios {
		got[x.Name] = x
	}
	near := func(name string, want float64) {
		t.Helper()
		x, ok := got[name]
		if !ok || math.Abs(x.Value-want) > 1e-9 {
			t.Errorf("%s = %+v, want %v", name, x, want)
		}
	}
	near("pull/hybrid home p50, ≥1000 followings", 10)
	near("pull/hybrid home p99, ≥1000 followings", 10)
	near("hybrid/push home p99 (mixed workload)", 1/0.8)
	near("push/hybrid inserts per post (mixed workload)", 1.5)
	if x := got["push/hybrid inserts per post, authors with 10k+ followers"]; !x.Infinite || x.String() != "∞" {
		t.Errorf("hot authors' insert ratio = %+v, want ∞", x)
	}
	targets := map[string]Target{}
	for _, x := range r.Targets {
		targets[x.Name] = x
	}
	if x := targets["hybrid/push home p99 (mixed workload)"]; x.Met || math.Abs(x.Value-1.25) > 1e-9 {
		t.Errorf("hybrid/push target = %+v, want 1.25, missed", x)
	}
	if x := targets["hybrid fan-out delivery p99, authors ≤ 10k followers (worst bucket)"]; !x.Met || x.Value != 30 {
		t.Errorf("fan-out target = %+v, want 30 ms (the 10k+ bucket excluded), met", x)
	}
	if x := targets["hybrid home throughput (home only)"]; x.Met {
		t.Errorf("throughput target met at %v req/s", x.Value)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
}

func TestReportValidateFails(t *testing.T) {
	r := syntheticReport()
	r.Results[3].Errors = 1
	if err := r.Validate(); err == nil {
		t.Error("Validate accepted a row with errors")
	}
	r = syntheticReport()
	var kept []Row
	for _, x := range r.Results {
		if !(x.Mode == "push" && x.Op == OpRebuild) {
			kept = append(kept, x)
		}
	}
	r.Results = kept
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), OpRebuild) {
		t.Errorf("Validate with a missing op: %v", err)
	}
	r = syntheticReport()
	r.Results[0].Requests = 0
	if err := r.Validate(); err == nil {
		t.Error("Validate accepted a row without requests")
	}
}

func TestReportWriteFiles(t *testing.T) {
	r := syntheticReport()
	r.Compute()
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"report.md", "report.json", "home_vs_followings_embedded.svg", "publish_vs_followers_embedded.svg", "fanout_lag_vs_followers_embedded.svg"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	var doc struct {
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Results) != len(r.Results) {
		t.Fatalf("report.json: %v, %d results", err, len(doc.Results))
	}
	for _, key := range []string{"backend", "mode", "op", "requests", "rps", "p50_ms", "p95_ms", "p99_ms", "p999_ms"} {
		if _, ok := doc.Results[0][key]; !ok {
			t.Errorf("results[0] has no %q: %v", key, doc.Results[0])
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"## Ratios", "| embedded | pull/hybrid home p99, ≥1000 followings | **10.00** |", "![home_vs_followings_embedded.svg]"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
