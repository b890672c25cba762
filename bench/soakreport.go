package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// SoakReport is what a soak measured, as written to soak.json.
type SoakReport struct {
	Machine string         `json:"machine"`
	Date    string         `json:"date"`
	Command string         `json:"command"`
	Config  map[string]any `json:"config"` // the command's settings

	Capacity           *SoakCapacity `json:"capacity,omitempty"` // nil: not measured (rate given)
	Rate               float64       `json:"rate"`               // open-loop rate used, requests/s
	RateIsHalfCapacity bool          `json:"rate_is_half_capacity"`
	WarmupSeconds      float64       `json:"warmup_s"`
	ActivationSeconds  float64       `json:"activation_s"`
	// ServerAtStart is scraped before the activation, ServerBeforeLoad
	// after the capacity run, right before the open loop.
	ServerAtStart    ServerStats  `json:"server_at_start"`
	ServerBeforeLoad ServerStats  `json:"server_before_load"`
	Samples          []SoakSample `json:"samples"`
	Posts            int64        `json:"posts"` // statuses the workload posted (capacity run included)
	// ErrorKinds counts every window's errors by "op: kind".
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`
	Summary    SoakSummary      `json:"summary"`
	Notes      []string         `json:"notes,omitempty"`

	loadStart time.Time
}

// Soak output files in the --out directory.
const (
	SoakJSON = "soak.json"
	SoakMD   = "soak.md"
	SoakSVG  = "soak.svg"
)

// WriteFiles writes soak.json, soak.md and soak.svg into dir (created if
// missing).
func (r *SoakReport) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("soak report: %w", err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("soak report: %w", err)
	}
	var md strings.Builder
	r.Markdown(&md)
	for name, data := range map[string][]byte{SoakJSON: append(b, '\n'), SoakMD: []byte(md.String()), SoakSVG: []byte(StackSVG(r.Charts()...))} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("soak report: %w", err)
		}
	}
	return nil
}

// Markdown writes the summary of the soak: its settings, the RSS over the
// steady part, the goroutines, the latency and the errors.
func (r *SoakReport) Markdown(w io.Writer) {
	s := r.Summary
	mb := func(v float64) string {
		if v < 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f MB", v)
	}
	num := func(v float64, unit string) string {
		if v < 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.0f%s", v, unit)
	}
	fmt.Fprintf(w, "# Soak\n\n%s, %s\n\n`%s`\n\n", r.Date, r.Machine, r.Command)
	if len(r.Config) > 0 {
		fmt.Fprintf(w, "Settings: %s\n\n", settingsText(r.Config))
	}
	fmt.Fprintf(w, "| | |\n|---|---|\n")
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "| %s | %s |\n", k, fmt.Sprintf(format, args...)) }
	row("open loop", "%s, %d samples", time.Duration(s.LoadSeconds*float64(time.Second)).Round(time.Second), s.Samples)
	if c := r.Capacity; c != nil {
		row("capacity", "%.0f req/s (mixed workload, closed loop, %d clients, %.0f s, %d errors)", c.RPS, c.Clients, c.Seconds, c.Errors)
	}
	how := "given"
	if r.RateIsHalfCapacity {
		how = "half the capacity"
	}
	row("rate", "%.0f req/s (%s), open loop; achieved %.0f req/s", r.Rate, how, s.MeanRPS)
	row("warm-up", "%s (%d samples); %d steady samples after it", time.Duration(s.WarmupSeconds*float64(time.Second)), s.Samples-s.SteadySamples, s.SteadySamples)
	row("RSS at start / before the open loop", "%s / %s", mb(mbOf(r.ServerAtStart.RSS)), mb(mbOf(r.ServerBeforeLoad.RSS)))
	row("RSS at end of warm-up", "%s", mb(s.RSSWarmupEndMB))
	row("RSS min / max after warm-up", "%s / %s", mb(s.RSSMinMB), mb(s.RSSMaxMB))
	row("RSS at end", "%s (%s since the end of warm-up)", mb(s.RSSEndMB), signedMB(s.RSSGrowthMB, s.RSSEndMB >= 0))
	row("RSS slope after warm-up", "%s", slopeText(s.RSSSlopeMBPerHour, s.SlopeOK))
	row("Go heap in use at end, slope", "%s, %s", mb(s.HeapInuseEndMB), slopeText(s.HeapSlopeMBPerHour, s.HeapSlopeOK))
	row("RSS beyond the Go runtime at end (RSS − Go sys)", "%s", mb(s.NonGoEndMB))
	if s.SQLiteEndMB >= 0 {
		row("SQLite memory at end (sparrow_sqlite_memory_bytes)", "%s", mb(s.SQLiteEndMB))
	}
	if s.LocalCacheEndMB >= 0 {
		row("in-process cache at end (sparrow_local_cache_bytes)", "%s", mb(s.LocalCacheEndMB))
	}
	if s.RSSCooldownEndMB >= 0 {
		row("RSS at end of cool-down (no load)", "%s", mb(s.RSSCooldownEndMB))
	}
	row("goroutines min / max after warm-up", "%s / %s", num(s.GoroutinesMin, ""), num(s.GoroutinesMax, ""))
	p99 := "n/a"
	if s.P99MedianMs >= 0 {
		p99 = fmt.Sprintf("median %.2f ms, max %.2f ms", s.P99MedianMs, s.P99MaxMs)
	}
	row("window p99 after warm-up", "%s", p99)
	row("requests / errors", "%d / %d", s.Requests, s.Errors)
	row("statuses posted", "%d", r.Posts)
	if len(r.ErrorKinds) > 0 {
		fmt.Fprintf(w, "\nErrors by kind:\n\n")
		for _, k := range slices.Sorted(maps.Keys(r.ErrorKinds)) {
			fmt.Fprintf(w, "- %s: %d\n", k, r.ErrorKinds[k])
		}
	}
	fmt.Fprintf(w, "\nA window is warm-up when its midpoint is within the warm-up. MB = 10⁶ bytes. The slope is the least-squares fit of RSS against time over the steady samples.\n")
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	fmt.Fprintf(w, "\n![RSS, heap, goroutines and p99 over time](%s)\n", SoakSVG)
}

// settingsText renders settings as "k=v, …" sorted by key, nested maps as
// "k: (k2=v2, …)".
func settingsText(m map[string]any) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if sub, ok := m[k].(map[string]any); ok {
			kv = append(kv, fmt.Sprintf("%s: (%s)", k, settingsText(sub)))
		} else {
			kv = append(kv, fmt.Sprintf("%s=%v", k, m[k]))
		}
	}
	return strings.Join(kv, ", ")
}

func mbOf(bytes float64) float64 {
	if bytes < 0 {
		return -1
	}
	return bytes / bytesPerMB
}

func signedMB(v float64, ok bool) string {
	if !ok {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f MB", v)
}

func slopeText(v float64, ok bool) string {
	if !ok {
		return "n/a (fewer than 2 steady samples)"
	}
	return fmt.Sprintf("%+.2f MB/hour", v)
}

// Charts returns the soak's plots over time: RSS, Go heap in use and RSS
// beyond the Go runtime's memory (MB),
// goroutines, and each window's p99 and p50 (ms), with the end of the
// warm-up marked. Time is in seconds for runs under 5 minutes, else minutes.
func (r *SoakReport) Charts() []LineChart {
	unit, div := "minutes", 60.0
	if last := len(r.Samples); last == 0 || r.Samples[last-1].T < 300 {
		unit, div = "seconds", 1
	}
	xlabel := unit + " since the open loop started"
	var rss, heap, nonGo, sqlite, local, gor, p99, p50 []Point
	for _, x := range r.Samples {
		t := x.T / div
		if x.Server.RSS >= 0 {
			rss = append(rss, Point{t, x.Server.RSS / bytesPerMB})
			if x.Server.GoSys >= 0 {
				nonGo = append(nonGo, Point{t, (x.Server.RSS - x.Server.GoSys) / bytesPerMB})
			}
		}
		if x.Server.HeapInuse >= 0 {
			heap = append(heap, Point{t, x.Server.HeapInuse / bytesPerMB})
		}
		if x.Server.SQLite >= 0 {
			sqlite = append(sqlite, Point{t, x.Server.SQLite / bytesPerMB})
		}
		if x.Server.LocalCache >= 0 {
			local = append(local, Point{t, x.Server.LocalCache / bytesPerMB})
		}
		if x.Server.Goroutines >= 0 {
			gor = append(gor, Point{t, x.Server.Goroutines})
		}
		if x.Requests > 0 {
			p99 = append(p99, Point{t, x.P99})
			p50 = append(p50, Point{t, x.P50})
		}
	}
	charts := []LineChart{
		{Title: "Server memory", XLabel: xlabel, YLabel: "MB", Series: []Series{
			{Name: "RSS", Color: "#1f77b4", Points: rss}, {Name: "Go heap in use", Color: "#2ca02c", Points: heap},
			{Name: "RSS − Go sys", Color: "#1f77b4", Dashed: true, Points: nonGo},
			{Name: "SQLite", Color: "#ff7f0e", Points: sqlite}, {Name: "in-process cache", Color: "#2ca02c", Dashed: true, Points: local}}},
		{Title: "Server goroutines", XLabel: xlabel, YLabel: "goroutines", Series: []Series{{Name: "goroutines", Color: "#9467bd", Points: gor}}},
		{Title: fmt.Sprintf("Latency per window (open loop, %.0f req/s)", r.Rate), XLabel: xlabel, YLabel: "ms", Series: []Series{
			{Name: "p99", Color: "#d62728", Points: p99}, {Name: "p50", Color: "#d62728", Dashed: true, Points: p50}}},
	}
	for i := range charts { // a server that does not report a figure (no SQLite, Redis for the cache) has no line for it
		charts[i].Series = slices.DeleteFunc(charts[i].Series, func(s Series) bool { return len(s.Points) == 0 })
	}
	if r.WarmupSeconds > 0 && len(r.Samples) > 0 {
		x := r.WarmupSeconds / div
		for i := range charts {
			top := 0.0
			for _, s := range charts[i].Series {
				for _, p := range s.Points {
					top = max(top, p.Y)
				}
			}
			charts[i].Series = append(charts[i].Series, Series{Name: "end of warm-up", Color: "#888888", Dashed: true, Points: []Point{{x, 0}, {x, top}}})
		}
	}
	return charts
}
