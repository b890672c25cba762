package cachetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"sparrow"
)

// TestLimiter checks that the Limiters made by newLimiter meet the
// sparrow.Limiter contract with fixed windows: the first hit of a key opens a
// window, later hits do not extend it, and when it ends the count restarts.
// newLimiter is called once per subtest, possibly from parallel subtests, and
// must return a Limiter with no hits, isolated from the others. To let the
// suite move time instantly, return a [ClockedLimiter].
func TestLimiter(t *testing.T, newLimiter func(t *testing.T) sparrow.Limiter) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, l sparrow.Limiter, tl *timeline)
	}{
		{"NoHits", limNoHits},
		{"WindowCounting", limCounting},
		{"KeysAreIndependent", limIndependent},
		{"Reset", limReset},
		{"WindowExpiry", limExpiry},
		{"WindowIsFixed", limFixed},
		{"InvalidWindow", limInvalidWindow},
		{"ConcurrentHitsCountedExactly", limConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newLimiter(t)
			tc.fn(t, l, newTimeline(t, l))
		})
	}
}

func hit(t *testing.T, l sparrow.Limiter, key string, window time.Duration) int64 {
	t.Helper()
	n, err := l.Hit(ctx(t), key, window)
	if err != nil {
		t.Fatalf("Hit(%q, %v): %v", key, window, err)
	}
	return n
}

func wantHit(t *testing.T, l sparrow.Limiter, key string, window time.Duration, want int64) {
	t.Helper()
	if n := hit(t, l, key, window); n != want {
		t.Fatalf("Hit(%q) = %d, want %d", key, n, want)
	}
}

// wantCount checks the count of key, and that an open window ends within
// a minute (every hit of the suite opens windows of at most a minute) and a
// closed one reports no end.
func wantCount(t *testing.T, l sparrow.Limiter, key string, want int64) {
	t.Helper()
	n, reset, err := l.Count(ctx(t), key)
	if err != nil {
		t.Fatalf("Count(%q): %v", key, err)
	}
	if n != want {
		t.Fatalf("Count(%q) = %d, want %d", key, n, want)
	}
	if (n == 0) != (reset == 0) || reset < 0 || reset > time.Minute {
		t.Fatalf("Count(%q) = %d with the window ending in %v", key, n, reset)
	}
}

func reset(t *testing.T, l sparrow.Limiter, key string) {
	t.Helper()
	if err := l.Reset(ctx(t), key); err != nil {
		t.Fatalf("Reset(%q): %v", key, err)
	}
}

func limNoHits(t *testing.T, l sparrow.Limiter, _ *timeline) {
	wantCount(t, l, "k", 0)
	reset(t, l, "k")
	wantCount(t, l, "k", 0)
}

func limCounting(t *testing.T, l sparrow.Limiter, _ *timeline) {
	for want := int64(1); want <= 5; want++ {
		wantHit(t, l, "k", time.Minute, want)
		wantCount(t, l, "k", want)
	}
}

func limIndependent(t *testing.T, l sparrow.Limiter, _ *timeline) {
	wantHit(t, l, "a", time.Minute, 1)
	wantHit(t, l, "a", time.Minute, 2)
	wantHit(t, l, "b", time.Minute, 1)
	wantHit(t, l, "a:", time.Minute, 1)
	wantCount(t, l, "a", 2)
	wantCount(t, l, "b", 1)
	reset(t, l, "a")
	wantCount(t, l, "a", 0)
	wantCount(t, l, "b", 1)
	wantCount(t, l, "a:", 1)
}

func limReset(t *testing.T, l sparrow.Limiter, _ *timeline) {
	wantHit(t, l, "k", time.Minute, 1)
	wantHit(t, l, "k", time.Minute, 2)
	reset(t, l, "k")
	wantCount(t, l, "k", 0)
	wantHit(t, l, "k", time.Minute, 1)
	reset(t, l, "k")
	reset(t, l, "k") // resetting twice is not an error
}

func limExpiry(t *testing.T, l sparrow.Limiter, tl *timeline) {
	m := tl.at(func() { wantHit(t, l, "k", unit, 1) })
	wantHit(t, l, "k", unit, 2)
	if tl.beforeExpiry(m) {
		wantCount(t, l, "k", 2)
	}
	tl.waitExpiry(m)
	wantCount(t, l, "k", 0)
	wantHit(t, l, "k", unit, 1) // a new window
	wantCount(t, l, "k", 1)
}

func limFixed(t *testing.T, l sparrow.Limiter, tl *timeline) {
	m := tl.at(func() { wantHit(t, l, "k", unit, 1) })
	tl.wait(unit / 2)
	if !tl.beforeExpiry(m) {
		t.Skip("machine stalled; cannot place a hit inside the window")
	}
	n := hit(t, l, "k", unit)
	if !tl.fake() && time.Since(m.before) >= unit {
		t.Skip("machine stalled; the second hit may have opened a new window")
	}
	if n != 2 {
		t.Fatalf("second hit in the window: got %d, want 2", n)
	}
	// The second hit must not have extended the window.
	tl.waitExpiry(m)
	wantCount(t, l, "k", 0)
}

func limInvalidWindow(t *testing.T, l sparrow.Limiter, _ *timeline) {
	for _, w := range []time.Duration{0, -time.Second} {
		if _, err := l.Hit(ctx(t), "k", w); !sparrow.IsKind(err, sparrow.EInternal) {
			t.Errorf("Hit with window %v: err = %v, want kind %s", w, err, sparrow.EInternal)
		}
	}
	wantCount(t, l, "k", 0)
}

func limConcurrent(t *testing.T, l sparrow.Limiter, _ *timeline) {
	const workers, hits = 32, 25
	c := ctx(t)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen []int64
	)
	for range workers {
		wg.Go(func() {
			mine := make([]int64, 0, hits)
			for range hits {
				n, err := l.Hit(c, "k", time.Minute)
				if err != nil {
					t.Errorf("Hit: %v", err)
					return
				}
				mine = append(mine, n)
			}
			mu.Lock()
			seen = append(seen, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// Every count from 1 to the total was returned exactly once.
	slices.Sort(seen)
	for i, n := range seen {
		if n != int64(i+1) {
			t.Fatalf("sorted hit results: position %d holds %d, want %d (lost or duplicated hits)", i, n, i+1)
		}
	}
	wantCount(t, l, "k", workers*hits)
}
