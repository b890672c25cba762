package bench

import (
	"context"
	"fmt"
	"time"

	"sparrow"
)

// SoakConfig is one soak run: the capacity measure, then the mixed workload
// open loop for Duration, sampled every Interval.
type SoakConfig struct {
	Clients int // workers of the activation and of the capacity run
	// CapacityDuration is the closed-loop run of the mixed workload that
	// measures the server's capacity (req/s); 0 skips it (Rate must be set).
	CapacityDuration time.Duration
	// Rate is the open-loop rate in requests/s; ≤ 0 means half the capacity.
	Rate     float64
	Duration time.Duration // open loop
	Interval time.Duration // one sample per interval (the last one may be shorter)
	// Warmup is the beginning of the open loop that the summary leaves out
	// of the steady-state figures.
	Warmup time.Duration
	// Cooldown, if > 0, keeps sampling the server without load for that
	// long after the open loop (samples of phase "cooldown").
	Cooldown time.Duration
	Inflight int // requests in flight at most (0: 4 × Clients)

	OnSample func(SoakSample)                 // called with each sample as it is taken (nil: none)
	Logf     func(format string, args ...any) // phase log (nil: none)
}

// SoakSample is one window of a soak: the driver's view of the requests that
// completed in it, and the server's memory and goroutines at its end.
type SoakSample struct {
	T     float64 `json:"t_s"`   // end of the window, seconds since the open loop started
	Phase string  `json:"phase"` // "load" or "cooldown"
	WindowStats
	Server ServerStats `json:"server"`
}

// SoakCapacity is the closed-loop capacity measure of a soak.
type SoakCapacity struct {
	Clients  int      `json:"clients"`
	Seconds  float64  `json:"seconds"`
	Requests int64    `json:"requests"`
	Errors   int64    `json:"errors"`
	RPS      float64  `json:"rps"`
	Results  []Result `json:"results"` // per op
}

// scrapeTimeout bounds one /metrics scrape of a soak.
const scrapeTimeout = 5 * time.Second

// DriveSoak drives the server at base with the mixed workload (DefaultMix):
// readers (active users with tokens) read and post, targets are read and
// followed. It activates every reader with a first home read and waits for
// the inbox rebuilds, measures the capacity closed loop for
// cfg.CapacityDuration with cfg.Clients workers, then runs the open loop at
// cfg.Rate (or half the capacity) for cfg.Duration, taking a sample every
// cfg.Interval, then samples the idle server for cfg.Cooldown. The report it
// returns is never nil: on an error (ctx cancelled, no capacity) it holds
// what was measured until then, summarized. Machine, Date, Command and
// Config are the caller's to fill.
func DriveSoak(ctx context.Context, base string, readers []User, targets []sparrow.ID, cfg SoakConfig) (*SoakReport, error) {
	cfg.Clients = max(1, cfg.Clients)
	if cfg.Inflight <= 0 {
		cfg.Inflight = 4 * cfg.Clients
	}
	r := &SoakReport{WarmupSeconds: cfg.Warmup.Seconds()}
	defer func() { r.Summary = SummarizeSoak(r.Samples, cfg.Warmup) }()
	if len(readers) == 0 || len(targets) == 0 {
		return r, fmt.Errorf("soak: need active users and target accounts")
	}
	if cfg.Interval <= 0 || cfg.Duration <= 0 {
		return r, fmt.Errorf("soak: need a positive duration and interval")
	}
	if cfg.CapacityDuration <= 0 && cfg.Rate <= 0 {
		return r, fmt.Errorf("soak: without a capacity run the rate must be given")
	}
	logf := func(format string, args ...any) {
		if cfg.Logf != nil {
			cfg.Logf(format, args...)
		}
	}
	c := NewClient(base, cfg.Inflight+cfg.Clients+8)
	mc := NewClient(base, 2) // scrapes never wait for a connection behind the load
	r.ServerAtStart = mc.ServerStats(ctx, scrapeTimeout)

	t0 := time.Now()
	rebuildsBefore, _, _ := c.Metric(ctx, metricRebuilds)
	s := &suite{c: c, cfg: SuiteConfig{Clients: cfg.Clients, Logf: cfg.Logf}}
	if err := s.activate(ctx, readers); err != nil {
		return r, fmt.Errorf("soak: %w", err)
	}
	c.settle(ctx, metricRebuilds, rebuildsBefore+float64(len(readers)), time.Second, 5*time.Minute)
	r.ActivationSeconds = time.Since(t0).Seconds()

	w := &Workload{Client: c, Readers: readers, Targets: targets, Mix: DefaultMix}
	defer func() { r.Posts = w.Posts() }()
	// undoFollows leaves the graph as loaded, even when interrupted (but
	// does not wait long for a server that no longer answers).
	undoFollows := func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		w.UndoFollows(uctx)
	}
	if cfg.CapacityDuration > 0 {
		logf("capacity: mixed workload, closed loop, %d clients, %v", cfg.Clients, cfg.CapacityDuration)
		capa := SoakCapacity{Clients: cfg.Clients, Results: w.ClosedLoopMix(ctx, cfg.Clients, cfg.CapacityDuration)}
		for _, x := range capa.Results {
			capa.Requests += x.Requests
			capa.Errors += x.Errors
			capa.Seconds = x.Seconds
		}
		if capa.Seconds > 0 {
			capa.RPS = float64(capa.Requests) / capa.Seconds
		}
		r.Capacity = &capa
		undoFollows()
		if err := ctx.Err(); err != nil {
			return r, fmt.Errorf("soak: capacity run: %w", err)
		}
		logf("capacity: %.0f req/s (%d requests, %d errors)", capa.RPS, capa.Requests, capa.Errors)
	}
	r.Rate = cfg.Rate
	if r.Rate <= 0 {
		if r.Capacity.RPS <= 0 {
			return r, fmt.Errorf("soak: the capacity run completed no request")
		}
		r.Rate, r.RateIsHalfCapacity = r.Capacity.RPS/2, true
	}
	r.ServerBeforeLoad = mc.ServerStats(ctx, scrapeTimeout)

	logf("open loop: mixed workload at %.0f req/s for %v, a sample every %v", r.Rate, cfg.Duration, cfg.Interval)
	err := r.sampleOpenLoop(ctx, w, mc, cfg)
	undoFollows()
	if err != nil {
		return r, fmt.Errorf("soak: open loop: %w", err)
	}
	if cfg.Cooldown > 0 {
		logf("cool-down: no load for %v", cfg.Cooldown)
		if err := r.sampleIdle(ctx, mc, cfg); err != nil {
			return r, fmt.Errorf("soak: cool-down: %w", err)
		}
	}
	return r, nil
}

// sampleOpenLoop runs w's open loop for cfg.Duration and appends one sample
// per cfg.Interval to r (the last when the loop has finished). It returns
// ctx's error if ctx ends first, once the loop has stopped.
func (r *SoakReport) sampleOpenLoop(ctx context.Context, w *Workload, mc *Client, cfg SoakConfig) error {
	rec := NewWindowRecorder()
	done := make(chan struct{})
	r.loadStart = time.Now()
	go func() {
		defer close(done)
		w.OpenLoopMixWindowed(ctx, r.Rate, cfg.Duration, cfg.Inflight, rec)
	}()
	n := int((cfg.Duration + cfg.Interval - 1) / cfg.Interval)
	for k := 1; k <= n; k++ {
		var tick <-chan time.Time // the last window ends when the loop has finished
		timer := time.NewTimer(time.Until(r.loadStart.Add(time.Duration(k) * cfg.Interval)))
		if k < n {
			tick = timer.C
		}
		finished := false
		select {
		case <-ctx.Done():
		case <-tick:
		case <-done:
			finished = true
		}
		timer.Stop()
		if ctx.Err() != nil {
			<-done
			return ctx.Err()
		}
		r.addSample(ctx, "load", rec.Swap(), mc, cfg.OnSample)
		if finished {
			break
		}
	}
	return nil
}

// sampleIdle appends one sample of phase "cooldown" per cfg.Interval for
// cfg.Cooldown, with no load.
func (r *SoakReport) sampleIdle(ctx context.Context, mc *Client, cfg SoakConfig) error {
	rec := NewWindowRecorder()
	start := time.Now()
	n := int((cfg.Cooldown + cfg.Interval - 1) / cfg.Interval)
	for k := 1; k <= n; k++ {
		timer := time.NewTimer(time.Until(start.Add(min(time.Duration(k)*cfg.Interval, cfg.Cooldown))))
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
		r.addSample(ctx, "cooldown", rec.Swap(), mc, cfg.OnSample)
	}
	return nil
}

// addSample scrapes the server and appends the sample of window ws.
func (r *SoakReport) addSample(ctx context.Context, phase string, ws WindowStats, mc *Client, onSample func(SoakSample)) {
	s := SoakSample{T: time.Since(r.loadStart).Seconds(), Phase: phase, WindowStats: ws, Server: mc.ServerStats(ctx, scrapeTimeout)}
	r.Samples = append(r.Samples, s)
	for k, n := range ws.ErrorKinds {
		if r.ErrorKinds == nil {
			r.ErrorKinds = map[string]int64{}
		}
		r.ErrorKinds[k] += n
	}
	if onSample != nil {
		onSample(s)
	}
}
