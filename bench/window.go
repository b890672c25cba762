package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// WindowStats is what a WindowRecorder measured between two Swaps: every
// request that completed in the window, whatever its op.
type WindowStats struct {
	Seconds  float64 `json:"window_s"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	RPS      float64 `json:"rps"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
	// ErrorKinds counts the window's errors by "op: kind" (kind is "HTTP
	// 503", "timeout", or the error's text cut to 100 bytes); at most
	// maxErrorKinds distinct keys, the rest under "other".
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`
}

// maxErrorKinds bounds the distinct error keys of one window.
const maxErrorKinds = 20

// WindowRecorder is a thread-safe latency recorder cut into consecutive
// windows: Record adds to the current window, Swap closes it and opens the
// next with a fresh histogram (1 µs to 60 s, 3 significant digits), so each
// window's percentiles are its own.
type WindowRecorder struct {
	mu    sync.Mutex
	h     *hdrhistogram.Histogram
	reqs  int64
	errs  int64
	kinds map[string]int64
	start time.Time
}

// NewWindowRecorder returns a recorder whose first window starts now.
func NewWindowRecorder() *WindowRecorder {
	return &WindowRecorder{h: newWindowHistogram(), start: time.Now()}
}

func newWindowHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, 60_000_000, 3) }

// Record adds one request of op that took d (from when it was due) and
// failed with err if not nil.
func (r *WindowRecorder) Record(op string, d time.Duration, err error) {
	us := max(d.Microseconds(), 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.h.RecordValue(us) // beyond 60 s: counted, not in the percentiles
	r.reqs++
	if err == nil {
		return
	}
	r.errs++
	if r.kinds == nil {
		r.kinds = map[string]int64{}
	}
	key := op + ": " + errorKind(err)
	if _, seen := r.kinds[key]; !seen && len(r.kinds) >= maxErrorKinds {
		key = "other"
	}
	r.kinds[key]++
}

// Swap closes the current window, returns its stats and starts the next one.
func (r *WindowRecorder) Swap() WindowStats {
	now := time.Now()
	r.mu.Lock()
	h, reqs, errs, kinds, start := r.h, r.reqs, r.errs, r.kinds, r.start
	r.h, r.reqs, r.errs, r.kinds, r.start = newWindowHistogram(), 0, 0, nil, now
	r.mu.Unlock()
	secs := now.Sub(start).Seconds()
	st := WindowStats{Seconds: secs, Requests: reqs, Errors: errs, ErrorKinds: kinds}
	if secs > 0 {
		st.RPS = float64(reqs) / secs
	}
	if h.TotalCount() > 0 {
		st.P50 = float64(h.ValueAtQuantile(50)) / 1000
		st.P99 = float64(h.ValueAtQuantile(99)) / 1000
		st.Max = float64(h.Max()) / 1000
	}
	return st
}

// errorKind names an error for counting: the HTTP status, "timeout", or its
// text cut to 100 bytes.
func errorKind(err error) string {
	var se *StatusError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("HTTP %d", se.Code)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	s := err.Error()
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}

// OpenLoopMixWindowed is OpenLoopMix recording into rec instead of per-op
// results: the workload is sent at rate requests per second for d whatever
// the latency, at most inflight at once, each request timed from when it was
// due (coordinated omission corrected as in OpenLoopMix) and recorded in the
// window in which it completes. Requests the caller's ctx cut off are not
// recorded. It returns the loop's elapsed time once every request has
// finished; the caller swaps rec's windows concurrently.
func (w *Workload) OpenLoopMixWindowed(ctx context.Context, rate float64, d time.Duration, inflight int, rec *WindowRecorder) time.Duration {
	rng := rand.New(rand.NewPCG(13, uint64(time.Now().UnixNano())))
	return openSchedule(ctx, rate, d, inflight, func(ctx context.Context, slot int) func(time.Time) {
		op, call := w.do(ctx, rng, 1_000_000+slot, w.pick(rng))
		return func(due time.Time) {
			err := call(ctx)
			if !(ctx.Err() != nil && err != nil) {
				rec.Record(op, time.Since(due), err)
			}
		}
	})
}
