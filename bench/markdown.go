package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Markdown writes the report as Markdown tables, with links to the plots.
func (r *Report) Markdown(w io.Writer, plots []string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# Sparrow benchmark suite: preset %s\n\n", r.Preset)
	p("- machine: %s\n- date: %s\n- command: `%s`\n- backends: %s; modes: %s\n\n", r.Machine, r.Date, r.Command,
		strings.Join(r.Backends, ", "), strings.Join(r.Modes, ", "))

	p("## Data set\n\n| setting | value |\n|---|---|\n")
	keys := make([]string, 0, len(r.Dataset))
	for k := range r.Dataset {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p("| %s | %v |\n", k, r.Dataset[k])
	}
	p("\n")

	if len(r.Ratios) > 0 {
		p("## Ratios\n\n| backend | ratio | value | note |\n|---|---|---|---|\n")
		for _, x := range r.Ratios {
			p("| %s | %s | **%s** | %s |\n", x.Backend, x.Name, x, x.Note)
		}
		p("\n")
	}
	if len(r.Targets) > 0 {
		p("## Targets\n\n| backend | what | goal | measured | met |\n|---|---|---|---|---|\n")
		for _, t := range r.Targets {
			met := "no"
			if t.Met {
				met = "yes"
			}
			p("| %s | %s | %s | %.2f %s | %s |\n", t.Backend, t.Name, t.Goal, t.Value, t.Unit, met)
		}
		p("\n")
	}

	latencyTable := func(title string, keep func(Row) bool, bucketCol string) {
		var rows []Row
		for _, x := range r.Results {
			if keep(x) {
				rows = append(rows, x)
			}
		}
		if len(rows) == 0 {
			return
		}
		p("## %s\n\n| backend | mode | op |", title)
		if bucketCol != "" {
			p(" %s | mean |", bucketCol)
		}
		p(" requests | errors | req/s | p50 ms | p95 ms | p99 ms | p999 ms |\n|---|---|---|")
		if bucketCol != "" {
			p("---|---|")
		}
		p("---|---|---|---|---|---|---|\n")
		for _, x := range rows {
			p("| %s | %s | %s |", x.Backend, x.Mode, x.Op)
			if bucketCol != "" {
				p(" %s | %.0f |", x.Bucket, x.X)
			}
			p(" %d | %d | %.0f | %.2f | %.2f | %.2f | %.2f |\n", x.Requests, x.Errors, x.RPS, x.P50, x.P95, x.P99, x.P999)
		}
		p("\n")
	}
	isMix := func(op string) bool { return slices.Contains(mixOps, op) }
	latencyTable("Mixed workload, closed loop", func(x Row) bool { return x.Loop == "closed" && isMix(x.Op) }, "")
	latencyTable("Mixed workload, open loop (latency from when each request was due)", func(x Row) bool { return x.Loop == "open" && isMix(x.Op) }, "")
	latencyTable("Home reads only, closed loop (home throughput)", func(x Row) bool { return x.Op == OpHomeOnly }, "")
	latencyTable("Publish latency and fan-out lag by the author's followers (one post at a time)",
		func(x Row) bool { return x.Op == OpPublish || x.Op == OpFanoutLag }, "followers")
	latencyTable("Home latency by the reader's followings", func(x Row) bool { return x.Op == OpHomeFollowings }, "followings")
	latencyTable("Returning user without an inbox: first home read", func(x Row) bool { return x.Op == OpRebuild }, "followings")

	if len(r.Measures) > 0 {
		p("## Measures\n\n| backend | mode | what | bucket | value | unit | note |\n|---|---|---|---|---|---|---|\n")
		for _, m := range r.Measures {
			p("| %s | %s | %s | %s | %.2f | %s | %s |\n", m.Backend, m.Mode, m.Name, m.Bucket, m.Value, m.Unit, m.Note)
		}
		p("\n")
	}
	if len(plots) > 0 {
		p("## Plots\n\n")
		for _, name := range plots {
			p("![%s](%s)\n\n", name, name)
		}
	}
	if len(r.Notes) > 0 {
		p("## Notes\n\n")
		for _, n := range r.Notes {
			p("- %s\n", n)
		}
	}
}
