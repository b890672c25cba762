package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Op is one kind of request. Do is called concurrently by many workers;
// worker is the caller's index (0 ≤ worker < clients), for per-client state.
type Op struct {
	Name string
	Do   func(ctx context.Context, worker int) error
	// Prepare, if set, runs before each Do outside the timer, and its result
	// is what Do measures (for requests whose arguments cost reads to build).
	Prepare func(ctx context.Context, worker int) (call func(ctx context.Context) error, err error)
}

// run times one request of op and returns its latency.
func (op Op) run(ctx context.Context, w int) (time.Duration, error) {
	if op.Prepare == nil {
		t0 := time.Now()
		err := op.Do(ctx, w)
		return time.Since(t0), err
	}
	call, err := op.Prepare(ctx, w)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	err = call(ctx)
	return time.Since(t0), err
}

// Result is what one op measured.
type Result struct {
	Op       string  `json:"op"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	Seconds  float64 `json:"seconds"`
	RPS      float64 `json:"rps"`
	P50      float64 `json:"p50_ms"`
	P95      float64 `json:"p95_ms"`
	P99      float64 `json:"p99_ms"`
	P999     float64 `json:"p999_ms"`
	Max      float64 `json:"max_ms"`
}

// recorder is a thread-safe latency histogram in microseconds (1 µs to 60 s,
// 3 significant digits).
type recorder struct {
	mu   sync.Mutex
	h    *hdrhistogram.Histogram
	reqs atomic.Int64
	errs atomic.Int64
}

func newRecorder() *recorder { return &recorder{h: hdrhistogram.New(1, 60_000_000, 3)} }

// record adds one latency. expected > 0 back-fills the samples a stalled
// closed-loop client would have issued (coordinated-omission correction).
func (r *recorder) record(d, expected time.Duration, err error) {
	r.reqs.Add(1)
	if err != nil {
		r.errs.Add(1)
	}
	us := d.Microseconds()
	if us < 1 {
		us = 1
	}
	r.mu.Lock()
	if expected > 0 {
		_ = r.h.RecordCorrectedValue(us, expected.Microseconds())
	} else {
		_ = r.h.RecordValue(us)
	}
	r.mu.Unlock()
}

func (r *recorder) result(op string, elapsed time.Duration) Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	ms := func(q float64) float64 { return float64(r.h.ValueAtQuantile(q)) / 1000 }
	n := r.reqs.Load()
	return Result{Op: op, Requests: n, Errors: r.errs.Load(), Seconds: elapsed.Seconds(), RPS: float64(n) / elapsed.Seconds(),
		P50: ms(50), P95: ms(95), P99: ms(99), P999: ms(99.9), Max: float64(r.h.Max()) / 1000}
}

// ClosedLoop runs op with `clients` workers, each issuing its next request as
// soon as the previous one answers, for d (or until maxRequests, if > 0).
// Latencies are corrected for coordinated omission against the mean service
// time observed in a short warm-up, so a stall counts for the requests that
// would have been sent during it.
func ClosedLoop(ctx context.Context, clients int, d time.Duration, maxRequests int64, op Op) Result {
	rec := newRecorder()
	expected := warmup(ctx, op)
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var issued atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for ctx.Err() == nil && (maxRequests <= 0 || issued.Add(1) <= maxRequests) {
				d, err := op.run(ctx, w)
				if ctx.Err() != nil && err != nil {
					return // cut off by the deadline: not a server error
				}
				rec.record(d, expected*time.Duration(clients), err)
			}
		}(w)
	}
	wg.Wait()
	return rec.result(op.Name, time.Since(start))
}

// warmup issues a few requests and returns their mean latency.
func warmup(ctx context.Context, op Op) time.Duration {
	const n = 20
	var total time.Duration
	for i := 0; i < n; i++ {
		d, _ := op.run(ctx, 0)
		total += d
	}
	return total / n
}

// OpenLoop issues op at a fixed rate (requests per second) for d, whatever
// the latency, measuring each request from when it was due: queueing delay
// counts, so there is no coordinated omission. At most `inflight` requests
// run at once; beyond that, due requests wait (and their wait is measured).
func OpenLoop(ctx context.Context, rate float64, d time.Duration, inflight int, op Op) Result {
	rec := newRecorder()
	elapsed := openSchedule(ctx, rate, d, inflight, func(ctx context.Context, slot int) func(time.Time) {
		return func(due time.Time) {
			_, err := op.run(ctx, slot)
			if !(ctx.Err() != nil && err != nil) {
				rec.record(time.Since(due), 0, err)
			}
		}
	})
	return rec.result(op.Name, elapsed)
}

// openSchedule runs an open loop for d: a request is due every 1/rate
// seconds whatever the latency; prepare is called, with ctx (requests in
// flight at the deadline finish), for each due request with
// a free slot (at most inflight run at once; a due request waits for a slot),
// and the function it returns runs in its own goroutine with the time the
// request was due. It returns the loop's elapsed time once every request has
// finished.
func openSchedule(ctx context.Context, rate float64, d time.Duration, inflight int, prepare func(ctx context.Context, slot int) func(due time.Time)) time.Duration {
	reqCtx := ctx // requests in flight at the deadline finish
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	interval := time.Duration(float64(time.Second) / rate)
	sem := make(chan int, inflight)
	for i := 0; i < inflight; i++ {
		sem <- i
	}
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; ; i++ {
		due := start.Add(time.Duration(i) * interval)
		if wait := time.Until(due); wait > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
		if ctx.Err() != nil {
			break
		}
		var slot int
		select {
		case slot = <-sem:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		run := prepare(reqCtx, slot)
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(due)
			sem <- slot
		}()
	}
	wg.Wait()
	return time.Since(start)
}
