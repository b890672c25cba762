package bench

import (
	"slices"
	"time"
)

// bytesPerMB is the MB of the soak's figures: 10^6 bytes.
const bytesPerMB = 1e6

// SoakSummary is the steady-state view of a soak's samples. Samples of the
// open loop ("load" phase) whose window's midpoint falls within the warm-up
// are warm-up samples; the later ones are the steady samples the RSS,
// goroutine and p99 figures are computed on. A figure with nothing to
// compute it on (no steady sample, a metric the server does not export) is
// -1.
type SoakSummary struct {
	Samples       int     `json:"samples"`        // load samples
	SteadySamples int     `json:"steady_samples"` // load samples after the warm-up
	LoadSeconds   float64 `json:"load_s"`         // end of the last load sample
	WarmupSeconds float64 `json:"warmup_s"`

	// RSSWarmupEndMB is the RSS of the last warm-up sample (of the first
	// steady sample if the warm-up has none); RSSEndMB that of the last
	// steady sample; RSSGrowthMB their difference.
	RSSWarmupEndMB float64 `json:"rss_warmup_end_mb"`
	RSSMinMB       float64 `json:"rss_min_mb"`
	RSSMaxMB       float64 `json:"rss_max_mb"`
	RSSEndMB       float64 `json:"rss_end_mb"`
	RSSGrowthMB    float64 `json:"rss_growth_mb"`
	// RSSSlopeMBPerHour is the least-squares slope of RSS against time over
	// the steady samples; HeapSlopeMBPerHour that of the Go heap in use.
	// Each needs two steady samples with the metric (SlopeOK, HeapSlopeOK).
	RSSSlopeMBPerHour  float64 `json:"rss_slope_mb_per_hour"`
	SlopeOK            bool    `json:"rss_slope_ok"`
	HeapSlopeMBPerHour float64 `json:"heap_inuse_slope_mb_per_hour"`
	HeapSlopeOK        bool    `json:"heap_inuse_slope_ok"`
	HeapInuseEndMB     float64 `json:"heap_inuse_end_mb"`
	// NonGoEndMB is RSS − go_memstats_sys_bytes of the last steady sample:
	// resident memory the Go runtime did not allocate (C or mmap'd, e.g. a
	// cgo-free SQLite's page caches), at least.
	NonGoEndMB float64 `json:"non_go_end_mb"`
	// SQLiteEndMB and LocalCacheEndMB are the server's SQLite memory and
	// in-process cache fill in the last steady sample (-1: not reported).
	SQLiteEndMB     float64 `json:"sqlite_end_mb"`
	LocalCacheEndMB float64 `json:"local_cache_end_mb"`

	GoroutinesMin float64 `json:"goroutines_min"`
	GoroutinesMax float64 `json:"goroutines_max"`

	// P99MedianMs and P99MaxMs are the median and the maximum of the steady
	// windows' p99 latencies (windows with requests).
	P99MedianMs float64 `json:"p99_median_ms"`
	P99MaxMs    float64 `json:"p99_max_ms"`

	Requests int64   `json:"requests"` // every load window, warm-up included
	Errors   int64   `json:"errors"`
	MeanRPS  float64 `json:"mean_rps"`

	// RSSCooldownEndMB is the RSS of the last cool-down sample (-1: none).
	RSSCooldownEndMB float64 `json:"rss_cooldown_end_mb"`
}

// SummarizeSoak summarizes samples (in time order) with the first warmup of
// the open loop left out of the steady-state figures.
func SummarizeSoak(samples []SoakSample, warmup time.Duration) SoakSummary {
	s := SoakSummary{WarmupSeconds: warmup.Seconds(), RSSWarmupEndMB: -1, RSSMinMB: -1, RSSMaxMB: -1, RSSEndMB: -1, RSSGrowthMB: -1,
		HeapInuseEndMB: -1, NonGoEndMB: -1, SQLiteEndMB: -1, LocalCacheEndMB: -1, GoroutinesMin: -1, GoroutinesMax: -1, P99MedianMs: -1, P99MaxMs: -1, RSSCooldownEndMB: -1}
	var warm, steady []SoakSample
	for _, x := range samples {
		switch {
		case x.Phase == "cooldown":
			if x.Server.RSS >= 0 {
				s.RSSCooldownEndMB = x.Server.RSS / bytesPerMB
			}
			continue
		case x.T-x.Seconds/2 < warmup.Seconds():
			warm = append(warm, x)
		default:
			steady = append(steady, x)
		}
		s.Samples++
		s.LoadSeconds = x.T
		s.Requests += x.Requests
		s.Errors += x.Errors
	}
	s.SteadySamples = len(steady)
	if s.LoadSeconds > 0 {
		s.MeanRPS = float64(s.Requests) / s.LoadSeconds
	}

	for _, x := range warm {
		if x.Server.RSS >= 0 {
			s.RSSWarmupEndMB = x.Server.RSS / bytesPerMB
		}
	}
	var ts, rss, heapTs, heap, p99 []float64
	for _, x := range steady {
		if v := x.Server.RSS; v >= 0 {
			mb := v / bytesPerMB
			ts, rss = append(ts, x.T/3600), append(rss, mb)
			if s.RSSWarmupEndMB < 0 {
				s.RSSWarmupEndMB = mb
			}
			s.RSSMinMB, s.RSSMaxMB = minKnown(s.RSSMinMB, mb), max(s.RSSMaxMB, mb)
			s.RSSEndMB = mb
			if x.Server.GoSys >= 0 {
				s.NonGoEndMB = (v - x.Server.GoSys) / bytesPerMB
			}
		}
		if v := x.Server.HeapInuse; v >= 0 {
			heapTs, heap = append(heapTs, x.T/3600), append(heap, v/bytesPerMB)
			s.HeapInuseEndMB = v / bytesPerMB
		}
		if v := x.Server.SQLite; v >= 0 {
			s.SQLiteEndMB = v / bytesPerMB
		}
		if v := x.Server.LocalCache; v >= 0 {
			s.LocalCacheEndMB = v / bytesPerMB
		}
		if v := x.Server.Goroutines; v >= 0 {
			s.GoroutinesMin, s.GoroutinesMax = minKnown(s.GoroutinesMin, v), max(s.GoroutinesMax, v)
		}
		if x.Requests > 0 {
			p99 = append(p99, x.P99)
		}
	}
	if s.RSSEndMB >= 0 {
		s.RSSGrowthMB = s.RSSEndMB - s.RSSWarmupEndMB
	}
	s.RSSSlopeMBPerHour, s.SlopeOK = LeastSquaresSlope(ts, rss)
	s.HeapSlopeMBPerHour, s.HeapSlopeOK = LeastSquaresSlope(heapTs, heap)
	if len(p99) > 0 {
		s.P99MedianMs, s.P99MaxMs = median(p99), slices.Max(p99)
	}
	return s
}

// minKnown is the minimum of a figure that is -1 until known and v ≥ 0.
func minKnown(cur, v float64) float64 {
	if cur < 0 {
		return v
	}
	return min(cur, v)
}

// LeastSquaresSlope returns the slope b of the least-squares line y = a + b·x
// through the points (xs[i], ys[i]), and false (slope 0) if there are fewer
// than two points or all xs are equal.
func LeastSquaresSlope(xs, ys []float64) (float64, bool) {
	n := min(len(xs), len(ys))
	if n < 2 {
		return 0, false
	}
	var mx, my float64
	for i := range n {
		mx += xs[i]
		my += ys[i]
	}
	mx, my = mx/float64(n), my/float64(n)
	var sxy, sxx float64
	for i := range n {
		dx := xs[i] - mx
		sxy += dx * (ys[i] - my)
		sxx += dx * dx
	}
	if sxx == 0 {
		return 0, false
	}
	return sxy / sxx, true
}

// median returns the median of vs (the mean of the middle two for an even
// count); vs must not be empty. vs is not modified.
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
