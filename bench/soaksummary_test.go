package bench

import (
	"math"
	"testing"
	"time"
)

func TestLeastSquaresSlope(t *testing.T) {
	for _, c := range []struct {
		name   string
		xs, ys []float64
		want   float64
		ok     bool
	}{
		{"line", []float64{0, 1, 2, 3}, []float64{5, 7, 9, 11}, 2, true},
		{"flat", []float64{0, 1, 2}, []float64{4, 4, 4}, 0, true},
		{"noisy", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 0.8, true}, // Σdxdy = 4, Σdx² = 5
		{"one point", []float64{1}, []float64{1}, 0, false},
		{"vertical", []float64{2, 2, 2}, []float64{1, 2, 3}, 0, false},
	} {
		got, ok := LeastSquaresSlope(c.xs, c.ys)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: slope %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// soakSample is a load sample ending at t seconds of a 10 s window.
func soakSample(t, rssMB, heapMB, goroutines, p99 float64, reqs, errs int64) SoakSample {
	return SoakSample{T: t, Phase: "load", WindowStats: WindowStats{Seconds: 10, Requests: reqs, Errors: errs, P99: p99},
		Server: ServerStats{RSS: rssMB * bytesPerMB, HeapInuse: heapMB * bytesPerMB, Goroutines: goroutines, GoSys: 30 * bytesPerMB}}
}

func TestSummarizeSoak(t *testing.T) {
	// Warm-up 20 s: the windows ending at 10 and 20 s (midpoints 5 and 15 s)
	// are warm-up; those ending at 30…60 s are steady, with RSS rising 1 MB
	// per 10 s (360 MB/hour) from 100 MB.
	samples := []SoakSample{
		soakSample(10, 50, 20, 30, 90, 100, 1),
		soakSample(20.01, 90, 30, 35, 40, 100, 0), // a late tick is still warm-up
		soakSample(30, 100, 40, 41, 5, 100, 0),
		soakSample(40, 101, 41, 44, 3, 100, 2),
		soakSample(50, 102, 39, 40, 9, 100, 0),
		soakSample(60, 103, 40, 42, 4, 0, 0), // no requests: no p99
		{T: 70, Phase: "cooldown", Server: ServerStats{RSS: 80 * bytesPerMB, HeapInuse: -1, Goroutines: -1}},
	}
	s := SummarizeSoak(samples, 20*time.Second)
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if s.Samples != 6 || s.SteadySamples != 4 {
		t.Errorf("samples %d, steady %d; want 6, 4", s.Samples, s.SteadySamples)
	}
	near("RSS at end of warm-up", s.RSSWarmupEndMB, 90)
	near("RSS min", s.RSSMinMB, 100)
	near("RSS max", s.RSSMaxMB, 103)
	near("RSS end", s.RSSEndMB, 103)
	near("RSS growth", s.RSSGrowthMB, 13)
	near("RSS slope", s.RSSSlopeMBPerHour, 360)
	if !s.SlopeOK || !s.HeapSlopeOK {
		t.Error("slopes not computed")
	}
	near("heap end", s.HeapInuseEndMB, 40)
	near("RSS beyond Go at end", s.NonGoEndMB, 73)
	near("goroutines min", s.GoroutinesMin, 40)
	near("goroutines max", s.GoroutinesMax, 44)
	near("p99 median", s.P99MedianMs, 5) // of 5, 3, 9
	near("p99 max", s.P99MaxMs, 9)
	near("cool-down RSS", s.RSSCooldownEndMB, 80)
	near("load seconds", s.LoadSeconds, 60)
	if s.Requests != 500 || s.Errors != 3 {
		t.Errorf("requests %d, errors %d; want 500, 3", s.Requests, s.Errors)
	}
	near("mean rps", s.MeanRPS, 500.0/60)
}

func TestSummarizeSoakEdges(t *testing.T) {
	// No warm-up: the first sample stands for the end of warm-up.
	s := SummarizeSoak([]SoakSample{soakSample(10, 70, 1, 1, 1, 1, 0), soakSample(20, 75, 1, 1, 2, 1, 0)}, 0)
	if s.RSSWarmupEndMB != 70 || s.RSSGrowthMB != 5 || s.SteadySamples != 2 {
		t.Errorf("no warm-up: %+v", s)
	}
	// Everything is warm-up: steady figures unknown, totals still counted.
	s = SummarizeSoak([]SoakSample{soakSample(10, 70, 1, 1, 1, 7, 1)}, time.Minute)
	if s.SteadySamples != 0 || s.RSSEndMB != -1 || s.RSSGrowthMB != -1 || s.P99MedianMs != -1 || s.SlopeOK || s.Requests != 7 || s.Errors != 1 {
		t.Errorf("all warm-up: %+v", s)
	}
	if s.RSSWarmupEndMB != 70 {
		t.Errorf("RSS at end of warm-up %v, want 70", s.RSSWarmupEndMB)
	}
	// A server without process metrics.
	x := soakSample(30, 0, 0, 0, 1, 1, 0)
	x.Server = ServerStats{RSS: -1, HeapInuse: -1, Goroutines: -1}
	s = SummarizeSoak([]SoakSample{x, x}, 0)
	if s.RSSMinMB != -1 || s.GoroutinesMax != -1 || s.SlopeOK || s.HeapInuseEndMB != -1 {
		t.Errorf("no metrics: %+v", s)
	}
	if s := SummarizeSoak(nil, time.Minute); s.Samples != 0 || s.RSSCooldownEndMB != -1 {
		t.Errorf("no samples: %+v", s)
	}
}
