package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Row is one measured (backend, mode, op[, bucket]) in report.json's results.
type Row struct {
	Backend string `json:"backend"`
	Mode    string `json:"mode"`
	// Loop is "closed" or "open" for load-driven ops, "" for one-at-a-time
	// measures (publish, fanout_lag, rebuild_first_home).
	Loop string `json:"loop,omitempty"`
	// Bucket is the followers (publish, fanout_lag) or followings
	// (home_followings, rebuild_first_home) bucket, X the bucket's mean.
	Bucket string  `json:"bucket,omitempty"`
	X      float64 `json:"x,omitempty"`
	Result
}

// Measure is one non-latency number: inserts per post, inbox memory, bytes
// per edge, load and activation times.
type Measure struct {
	Backend string  `json:"backend"`
	Mode    string  `json:"mode"` // "-" when it does not depend on the mode
	Name    string  `json:"name"`
	Bucket  string  `json:"bucket,omitempty"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
	Note    string  `json:"note,omitempty"`
}

// Ratio compares two modes on one backend.
type Ratio struct {
	Backend string  `json:"backend"`
	Name    string  `json:"name"`
	Value   float64 `json:"value"`
	// Infinite is set (and Value 0) when the denominator is 0 and the
	// numerator is not, e.g. inserts per post of hot authors in hybrid mode.
	Infinite bool   `json:"infinite,omitempty"`
	Note     string `json:"note,omitempty"`
}

// String formats the ratio's value: 2 decimals, or ∞.
func (x Ratio) String() string {
	if x.Infinite {
		return "∞"
	}
	return fmt.Sprintf("%.2f", x.Value)
}

// Target is one of the goals, checked against a measured value.
type Target struct {
	Backend string  `json:"backend"`
	Name    string  `json:"name"`
	Goal    string  `json:"goal"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
	Met     bool    `json:"met"`
}

// Report is everything one `sparrow bench run` measured.
type Report struct {
	Machine  string         `json:"machine"`
	Date     string         `json:"date"`
	Command  string         `json:"command"`
	Preset   string         `json:"preset"`
	Dataset  map[string]any `json:"dataset"`
	Backends []string       `json:"backends"`
	Modes    []string       `json:"modes"`
	Results  []Row          `json:"results"`
	Measures []Measure      `json:"measures"`
	Ratios   []Ratio        `json:"ratios"`
	Targets  []Target       `json:"targets"`
	Notes    []string       `json:"notes,omitempty"`
}

// find returns the row of (backend, mode, op, loop, bucket), if any.
func (r *Report) find(backend, mode, op, loop, bucket string) (Row, bool) {
	for _, x := range r.Results {
		if x.Backend == backend && x.Mode == mode && x.Op == op && x.Loop == loop && x.Bucket == bucket {
			return x, true
		}
	}
	return Row{}, false
}

// measure returns the value of (backend, mode, name, bucket), if any.
func (r *Report) measure(backend, mode, name, bucket string) (float64, bool) {
	for _, m := range r.Measures {
		if m.Backend == backend && m.Mode == mode && m.Name == name && m.Bucket == bucket {
			return m.Value, true
		}
	}
	return 0, false
}

// bigHomeBucket returns the home_followings bucket used for "users with ≥
// 1000 followings": 1k if measured in both modes, else the largest bucket
// measured in both (the note says so).
func (r *Report) bigHomeBucket(backend, a, b string) (string, string) {
	best, bestX := "", -1.0
	for _, x := range r.Results {
		if x.Backend != backend || x.Mode != a || x.Op != OpHomeFollowings {
			continue
		}
		if _, ok := r.find(backend, b, OpHomeFollowings, x.Loop, x.Bucket); !ok {
			continue
		}
		if x.Bucket == "1k" {
			return x.Bucket, fmt.Sprintf("readers with %.0f followings", x.X)
		}
		if x.X > bestX {
			best, bestX = x.Bucket, x.X
		}
	}
	if best == "" {
		return "", ""
	}
	return best, fmt.Sprintf("no 1k bucket in this data set: largest bucket, readers with %.0f followings", bestX)
}

// Compute fills Ratios and Targets from Results and Measures.
func (r *Report) Compute() {
	r.Ratios, r.Targets = nil, nil
	div := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	ratio := func(be, name string, a, b float64, note string) Ratio {
		return Ratio{Backend: be, Name: name, Value: div(a, b), Infinite: b == 0 && a != 0, Note: note}
	}
	for _, be := range r.Backends {
		if bucket, note := r.bigHomeBucket(be, "pull", "hybrid"); bucket != "" {
			p, _ := r.find(be, "pull", OpHomeFollowings, "closed", bucket)
			h, _ := r.find(be, "hybrid", OpHomeFollowings, "closed", bucket)
			r.Ratios = append(r.Ratios,
				ratio(be, "pull/hybrid home p50, ≥1000 followings", p.P50, h.P50, note),
				ratio(be, "pull/hybrid home p99, ≥1000 followings", p.P99, h.P99, note))
		}
		h, okH := r.find(be, "hybrid", OpHome, "closed", "")
		p, okP := r.find(be, "push", OpHome, "closed", "")
		if okH && okP {
			r.Ratios = append(r.Ratios, ratio(be, "hybrid/push home p99 (mixed workload)", h.P99, p.P99, "target ≤ 1.2"))
		}
		ho, okHO := r.find(be, "hybrid", OpHomeOnly, "closed", "")
		po, okPO := r.find(be, "push", OpHomeOnly, "closed", "")
		if okHO && okPO {
			r.Ratios = append(r.Ratios, ratio(be, "hybrid/push home p99 (home only)", ho.P99, po.P99, "target ≤ 1.2"))
		}
		ih, okIH := r.measure(be, "hybrid", "inserts_per_post", "")
		ip, okIP := r.measure(be, "push", "inserts_per_post", "")
		if okIH && okIP {
			r.Ratios = append(r.Ratios, ratio(be, "push/hybrid inserts per post (mixed workload)", ip, ih, fmt.Sprintf("push %.1f, hybrid %.1f", ip, ih)))
		}
		for _, b := range FollowersBuckets {
			l := bucketLabel(b)
			ih, okIH := r.measure(be, "hybrid", "inserts_per_post", l)
			ip, okIP := r.measure(be, "push", "inserts_per_post", l)
			if okIH && okIP {
				r.Ratios = append(r.Ratios, ratio(be, "push/hybrid inserts per post, authors with "+l+"+ followers", ip, ih, fmt.Sprintf("push %.1f, hybrid %.1f", ip, ih)))
			}
		}
		if ceil, ok := r.measure(RedisCeilingBackend, "-", "get_rps", ""); ok && okHO {
			r.Ratios = append(r.Ratios, ratio(be, "hybrid home req/s (home only) / redis-benchmark GET req/s", ho.RPS, ceil,
				fmt.Sprintf("%.0f / %.0f req/s: the ceiling of one Redis read on this box, same run", ho.RPS, ceil)))
		}
		r.computeTargets(be, okH && okP, h, p, okHO, ho)
	}
}

// RedisCeilingBackend is the backend label of the redis-benchmark measures.
const RedisCeilingBackend = "redis-benchmark"

// AddRedisCeiling records c's rates as measures (Compute then relates the
// home throughput to them).
func (r *Report) AddRedisCeiling(c RedisCeiling) {
	note := fmt.Sprintf("%d clients, same machine, same run: %s", c.Clients, c.Command)
	r.Measures = append(r.Measures,
		Measure{Backend: RedisCeilingBackend, Mode: "-", Name: "get_rps", Value: c.GetRPS, Unit: "req/s", Note: note},
		Measure{Backend: RedisCeilingBackend, Mode: "-", Name: "zrevrange20_rps", Value: c.RangeRPS, Unit: "req/s", Note: "one inbox-page-shaped read"})
}

func (r *Report) computeTargets(be string, both bool, h, p Row, okHO bool, ho Row) {
	if okHO {
		r.Targets = append(r.Targets,
			Target{be, "hybrid home throughput (home only)", "≥ 10000 req/s", ho.RPS, "req/s", ho.RPS >= 10000},
			Target{be, "hybrid home p99 (home only)", "≤ 20 ms", ho.P99, "ms", ho.P99 <= 20})
	}
	if post, ok := r.find(be, "hybrid", OpPost, "closed", ""); ok {
		r.Targets = append(r.Targets, Target{be, "hybrid publish p99 (mixed workload)", "≤ 10 ms", post.P99, "ms", post.P99 <= 10})
	}
	worstPub, worstLag := -1.0, -1.0
	for _, x := range r.Results {
		if x.Backend != be || x.Mode != "hybrid" {
			continue
		}
		if x.Op == OpPublish {
			worstPub = max(worstPub, x.P99)
		}
		if x.Op == OpFanoutLag && x.X <= 10000 {
			worstLag = max(worstLag, x.P99)
		}
	}
	if worstPub >= 0 {
		r.Targets = append(r.Targets, Target{be, "hybrid publish p99 (quiet, worst followers bucket)", "≤ 10 ms", worstPub, "ms", worstPub <= 10})
	}
	if worstLag >= 0 {
		r.Targets = append(r.Targets, Target{be, "hybrid fan-out delivery p99, authors ≤ 10k followers (worst bucket)", "≤ 1000 ms", worstLag, "ms", worstLag <= 1000})
	}
	if both && p.P99 > 0 {
		v := h.P99 / p.P99
		r.Targets = append(r.Targets, Target{be, "hybrid/push home p99 (mixed workload)", "≤ 1.2", v, "×", v <= 1.2})
	}
}

// Validate checks the report's shape: every op of the suite present for
// every (backend, mode) with requests and no errors, and inserts per post
// measured. Open-loop rows must have no errors, but a rare op may get no
// request in a short open-loop run; the ops mixed in at a few percent
// (follow, unfollow) may get none in a short closed-loop run either. It is
// what the tests assert.
func (r *Report) Validate() error {
	want := []string{OpHome, OpAccount, OpPost, OpRelationships, OpFollow, OpUnfollow, OpPublish, OpFanoutLag, OpHomeFollowings, OpRebuild, OpHomeOnly}
	rare := map[string]bool{OpFollow: true, OpUnfollow: true}
	for _, be := range r.Backends {
		for _, mode := range r.Modes {
			for _, op := range want {
				found := false
				for _, x := range r.Results {
					if x.Backend != be || x.Mode != mode || x.Op != op {
						continue
					}
					if x.Errors > 0 || x.Requests <= 0 && x.Loop != "open" && !rare[op] {
						return fmt.Errorf("%s/%s %s %s %s: %d requests, %d errors", be, mode, op, x.Loop, x.Bucket, x.Requests, x.Errors)
					}
					found = found || x.Requests > 0 || rare[op]
				}
				if !found {
					return fmt.Errorf("%s/%s: no %s results", be, mode, op)
				}
			}
			if _, ok := r.measure(be, mode, "inserts_per_post", ""); !ok {
				return fmt.Errorf("%s/%s: no inserts_per_post", be, mode)
			}
		}
	}
	return nil
}

// WriteFiles writes report.json, report.md and the SVG plots into dir.
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err = os.WriteFile(filepath.Join(dir, "report.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	plots := r.Plots()
	names := make([]string, 0, len(plots))
	for name, chart := range plots {
		if err = os.WriteFile(filepath.Join(dir, name), []byte(chart.SVG()), 0o644); err != nil {
			return err
		}
		names = append(names, name)
	}
	slices.Sort(names)
	f, err := os.Create(filepath.Join(dir, "report.md"))
	if err != nil {
		return err
	}
	r.Markdown(f, names)
	return f.Close()
}
