package bench

// The plots are written as plain SVG by hand: two or three line charts with
// log axes need about 150 lines, while gonum.org/v1/plot would bring a
// plotting stack, fonts and image encoders into the module for them.

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

// Point is one (x, y) of a series.
type Point struct{ X, Y float64 }

// Series is one line of a chart. Dashed draws it dashed.
type Series struct {
	Name   string
	Color  string
	Dashed bool
	Points []Point
}

// LineChart is a line chart with optional log axes. Points with a
// non-positive coordinate on a log axis are left out.
type LineChart struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Series                []Series
}

const (
	plotW, plotH                   = 760, 440
	padL, padR, padT, padB         = 70, 200, 44, 56
	innerW, innerH         float64 = plotW - padL - padR, plotH - padT - padB
)

// axis maps data values onto [0, 1] on a linear or log scale.
type axis struct {
	log      bool
	min, max float64
}

func (a axis) t(v float64) float64 {
	if a.log {
		v = math.Log10(v)
	}
	if a.max == a.min {
		return 0.5
	}
	return (v - a.min) / (a.max - a.min)
}

// ticks returns tick values: decades (with 2 and 5 when the range is short)
// on a log axis, 1-2-5 steps on a linear one.
func (a axis) ticks() []float64 {
	var out []float64
	if a.log {
		short := a.max-a.min < 2
		for e := math.Floor(a.min); e <= math.Ceil(a.max); e++ {
			for _, m := range []float64{1, 2, 5} {
				if m != 1 && !short {
					continue
				}
				v := m * math.Pow(10, e)
				if lv := math.Log10(v); lv >= a.min-1e-9 && lv <= a.max+1e-9 {
					out = append(out, v)
				}
			}
		}
		return out
	}
	span := a.max - a.min
	step := math.Pow(10, math.Floor(math.Log10(span/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 6 {
			step *= m
			break
		}
	}
	for v := math.Ceil(a.min/step) * step; v <= a.max+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

// fmtTick formats a tick: 1k, 10k, 1M for large values, few digits otherwise.
func fmtTick(v float64) string {
	switch {
	case v >= 1e6:
		return trimZero(fmt.Sprintf("%.1f", v/1e6)) + "M"
	case v >= 1e3:
		return trimZero(fmt.Sprintf("%.1f", v/1e3)) + "k"
	case v >= 1 || v == 0:
		return trimZero(fmt.Sprintf("%.1f", v))
	}
	return trimZero(fmt.Sprintf("%.3f", v))
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// bounds returns the axis of the values vs, padded a little.
func bounds(vs []float64, log bool) axis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if log {
			v = math.Log10(v)
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	if log {
		if hi-lo < 1 { // at least one decade
			mid := (lo + hi) / 2
			lo, hi = mid-0.5, mid+0.5
		}
		return axis{log: true, min: lo - 0.05, max: hi + 0.05}
	}
	if lo > 0 {
		lo = 0
	}
	if hi == lo {
		hi = lo + 1
	}
	return axis{min: lo, max: hi * 1.05}
}

// SVG renders the chart as a standalone SVG document.
func (c LineChart) SVG() string {
	ok := func(v float64, log bool) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && (!log || v > 0) }
	var xs, ys []float64
	series := make([]Series, 0, len(c.Series))
	for _, s := range c.Series {
		keep := s
		keep.Points = nil
		for _, pt := range s.Points {
			if ok(pt.X, c.LogX) && ok(pt.Y, c.LogY) {
				keep.Points = append(keep.Points, pt)
				xs, ys = append(xs, pt.X), append(ys, pt.Y)
			}
		}
		slices.SortFunc(keep.Points, func(a, b Point) int { return cmpFloat(a.X, b.X) })
		series = append(series, keep)
	}
	ax, ay := bounds(xs, c.LogX), bounds(ys, c.LogY)
	px := func(v float64) float64 { return padL + ax.t(v)*innerW }
	py := func(v float64) float64 { return padT + (1-ay.t(v))*innerH }
	esc := html.EscapeString

	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", plotW, plotH, plotW, plotH)
	w(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	w(`<text x="%d" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", padL, esc(c.Title))
	for _, v := range ax.ticks() {
		x := px(v)
		w(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", x, padT, x, padT+innerH)
		w(`<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, padT+innerH+16, fmtTick(v))
	}
	for _, v := range ay.ticks() {
		y := py(v)
		w(`<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", padL, y, padL+innerW, y)
		w(`<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", padL-6, y, fmtTick(v))
	}
	w(`<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#333"/>`+"\n", padL, padT, innerW, innerH)
	w(`<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", padL+innerW/2, plotH-14, esc(c.XLabel))
	w(`<text x="18" y="%.1f" text-anchor="middle" transform="rotate(-90 18 %.1f)">%s</text>`+"\n", padT+innerH/2, padT+innerH/2, esc(c.YLabel))
	for i, s := range series {
		color := s.Color
		if color == "" {
			color = palette[i%len(palette)]
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		var pts []string
		for _, pt := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(pt.X), py(pt.Y)))
		}
		if len(pts) > 1 {
			w(`<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", color, dash, strings.Join(pts, " "))
		}
		for _, pt := range s.Points {
			w(`<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s, %s</title></circle>`+"\n", px(pt.X), py(pt.Y), color, esc(s.Name), fmtTick(pt.X), trimZero(fmt.Sprintf("%.3f", pt.Y)))
		}
		ly := float64(padT + 10 + 20*i)
		lx := padL + innerW + 16
		w(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", lx, ly, lx+24, ly, color, dash)
		w(`<text x="%.1f" y="%.1f" dominant-baseline="middle">%s</text>`+"\n", lx+30, ly, esc(s.Name))
	}
	w("</svg>\n")
	return b.String()
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"}

// modeColors keeps a mode's color the same across plots.
var modeColors = map[string]string{"hybrid": "#1f77b4", "push": "#d62728", "pull": "#2ca02c"}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Plots returns the report's charts by file name, per backend: home latency
// against followings, publish latency and fan-out lag against followers,
// each with p50 (dashed) and p99 per mode.
func (r *Report) Plots() map[string]LineChart {
	out := map[string]LineChart{}
	for _, be := range r.Backends {
		for _, spec := range []struct{ file, op, title, x string }{
			{"home_vs_followings", OpHomeFollowings, "Home read latency by followings", "followings of the reader"},
			{"publish_vs_followers", OpPublish, "Publish (POST) latency by followers", "followers of the author"},
			{"fanout_lag_vs_followers", OpFanoutLag, "Fan-out lag (publish → visible in a follower's home)", "followers of the author"},
		} {
			chart := LineChart{Title: spec.title + " (" + be + ")", XLabel: spec.x, YLabel: "latency (ms)", LogX: true, LogY: true}
			for _, mode := range r.Modes {
				var p50, p99 []Point
				for _, x := range r.Results {
					if x.Backend == be && x.Mode == mode && x.Op == spec.op {
						p50 = append(p50, Point{x.X, x.P50})
						p99 = append(p99, Point{x.X, x.P99})
					}
				}
				if len(p99) == 0 {
					continue
				}
				chart.Series = append(chart.Series,
					Series{Name: mode + " p99", Color: modeColors[mode], Points: p99},
					Series{Name: mode + " p50", Color: modeColors[mode], Dashed: true, Points: p50})
			}
			if len(chart.Series) > 0 {
				out[spec.file+"_"+be+".svg"] = chart
			}
		}
	}
	return out
}
