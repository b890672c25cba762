package relay

import (
	"context"
	"log/slog"
	"time"

	"sparrow"
)

// Bounds of the pause after an error.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// loop relays the events of one outbox.
type loop struct {
	r    *Relay
	ob   sparrow.Outbox
	name string
	poke chan struct{} // capacity 1: at most one pending wake-up
	log  *slog.Logger

	held    bool      // whether this loop holds the lease, as of its last renewal
	renewAt time.Time // when the lease is due for renewal (by opts.Clock)
	backoff time.Duration
}

// run relays until ctx ends.
func (l *loop) run(ctx context.Context) {
	defer l.setHeld(false)
	for ctx.Err() == nil {
		if !l.lease(ctx) {
			continue
		}
		n, err := l.relayBatch(ctx)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			l.fail(ctx, err)
		case n >= l.r.opts.Batch:
			l.backoff = 0 // a full batch: there may be more, go on at once
		default:
			l.backoff = 0
			l.idle(ctx)
		}
	}
}

// lease takes or renews the lease when due and reports whether this loop
// holds it. When it does not, lease waits before returning false.
func (l *loop) lease(ctx context.Context) bool {
	opts := &l.r.opts
	now := opts.Clock.Now()
	if l.held && now.Before(l.renewAt) {
		return true
	}
	ok, err := l.ob.AcquireLease(ctx, LeaseName, opts.Holder, now, opts.LeaseTTL)
	if err != nil {
		if ctx.Err() == nil {
			l.setHeld(false)
			l.r.metrics.errors.WithLabelValues(l.name, "lease").Inc()
			l.fail(ctx, err)
		}
		return false
	}
	if !ok {
		if l.held {
			l.log.Warn("relay: lost the lease to another relay")
		}
		l.setHeld(false)
		sleep(ctx, opts.LeaseTTL/3)
		return false
	}
	if !l.held {
		l.log.Info("relay: holding the lease; publishing", "ttl", opts.LeaseTTL)
	}
	l.setHeld(true)
	l.renewAt = now.Add(opts.LeaseTTL / 3)
	return true
}

// relayBatch publishes the oldest pending events and marks them published.
// It returns how many it moved.
func (l *loop) relayBatch(ctx context.Context) (int, error) {
	l.r.pause.RLock()
	defer l.r.pause.RUnlock()
	if l.r.paused {
		return 0, nil
	}
	m := l.r.metrics
	events, err := l.ob.PendingEvents(ctx, l.r.opts.Batch)
	if err != nil {
		m.errors.WithLabelValues(l.name, "read").Inc()
		return 0, err
	}
	if len(events) == 0 {
		return 0, nil
	}
	start := time.Now()
	if err := l.r.pub.Publish(ctx, events); err != nil {
		m.errors.WithLabelValues(l.name, "publish").Inc()
		return 0, err
	}
	m.publishSeconds.WithLabelValues(l.name).Observe(time.Since(start).Seconds())
	// A crash here leaves the batch pending: it is published again, and the
	// bus drops the duplicates by event id.
	ids := make([]sparrow.ID, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	if err := l.ob.MarkPublished(ctx, ids); err != nil {
		m.errors.WithLabelValues(l.name, "mark").Inc()
		return 0, err
	}
	m.published.WithLabelValues(l.name).Add(float64(len(events)))
	l.log.Debug("relay: published", "events", len(events), "first", events[0].ID, "last", events[len(events)-1].ID)
	return len(events), nil
}

// idle waits for a poke, the poll interval or the lease renewal, whichever
// comes first.
func (l *loop) idle(ctx context.Context) {
	opts := &l.r.opts
	wait := min(opts.Interval, opts.LeaseTTL/3)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-l.poke:
	case <-t.C:
	}
}

// fail logs err and pauses, longer after each consecutive failure.
func (l *loop) fail(ctx context.Context, err error) {
	l.backoff = min(max(2*l.backoff, minBackoff), maxBackoff)
	l.log.Warn("relay: will retry", "err", err, "retry_in", l.backoff)
	sleep(ctx, l.backoff)
}

func (l *loop) setHeld(held bool) {
	l.held = held
	v := 0.0
	if held {
		v = 1
	}
	l.r.metrics.leaseHeld.WithLabelValues(l.name).Set(v)
}

// sleep waits for d or the end of ctx.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
