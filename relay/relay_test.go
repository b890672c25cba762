package relay_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sparrow"
	"sparrow/relay"
)

func TestRelayDeliversEveryEventAndDrainsTheOutboxes(t *testing.T) {
	e := newEnv(t)
	a, b := newOutbox("a"), newOutbox("b")
	first := newEvents(300, time.Now())
	a.add(first[:200]...) // several full batches
	b.add(first[200:]...)
	r := relay.New([]sparrow.Outbox{a, b}, e.bus, relay.Options{Holder: "solo", Batch: 64, Logger: testLogger()})
	reg := prometheus.NewRegistry()
	if err := r.Register(reg); err != nil {
		t.Fatalf("Register: %v", err)
	}
	r.Poke() // pokes before Run are harmless
	r.Poke()
	e.start(r)
	e.sink.wait(t, idsOf(first)...)
	waitFor(t, "the outboxes are empty", func() bool { return a.pending() == 0 && b.pending() == 0 })

	// Events committed while the relay runs: the writer pokes it.
	second := newEvents(40, time.Now())
	b.add(second...)
	r.Poke()
	e.sink.wait(t, idsOf(second)...)
	waitFor(t, "the outboxes are empty", func() bool { return a.pending() == 0 && b.pending() == 0 })
	e.exactlyOnce(r, a, append(first, second...))

	waitFor(t, "the sentinel is marked published", func() bool { return a.pending() == 0 })
	for store, want := range map[string]float64{"a": 201, "b": 140} {
		if got := metric(t, reg, "sparrow_outbox_published_total", store); got != want {
			t.Errorf("published_total{store=%s} = %v, want %v", store, got, want)
		}
		if got := metric(t, reg, "sparrow_outbox_lag_seconds", store); got != 0 {
			t.Errorf("lag_seconds{store=%s} = %v, want 0 (empty outbox)", store, got)
		}
		if got := metric(t, reg, "sparrow_outbox_lease_held", store); got != 1 {
			t.Errorf("lease_held{store=%s} = %v, want 1", store, got)
		}
		if got := metric(t, reg, "sparrow_outbox_publish_duration_seconds", store); got == 0 {
			t.Errorf("publish_duration_seconds{store=%s} has no sample", store)
		}
	}
}

func TestLagMetricIsTheAgeOfTheOldestPendingEvent(t *testing.T) {
	clock := newClock()
	a, b := newOutbox("a"), newOutbox("b")
	a.add(newEvents(3, clock.Now().Add(-90*time.Second))...)
	a.add(newEvents(3, clock.Now().Add(-10*time.Second))...)
	r := relay.New([]sparrow.Outbox{a, b}, nil, relay.Options{Clock: clock, Logger: testLogger()})
	reg := prometheus.NewRegistry()
	if err := r.Register(reg); err != nil {
		t.Fatalf("Register: %v", err)
	}
	if got := metric(t, reg, "sparrow_outbox_lag_seconds", "a"); got != 90 {
		t.Errorf("lag{a} = %v, want 90", got)
	}
	if got := metric(t, reg, "sparrow_outbox_lag_seconds", "b"); got != 0 {
		t.Errorf("lag{b} = %v, want 0", got)
	}
	if got := metric(t, reg, "sparrow_outbox_published_total", "a"); got != 0 {
		t.Errorf("published_total{a} = %v, want 0", got)
	}
}

// TestKilledRelayLosesNothingAndDuplicatesNothing kills a relay in the
// middle of a batch, then starts another on the same outboxes: every event
// reaches the consumer exactly once, thanks to the bus's dedupe by event id.
func TestKilledRelayLosesNothingAndDuplicatesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		// crashing returns the publisher of the relay that dies, and a
		// channel closed once it has died; the relay runs with ctx.
		crashing func(e *env, cancel context.CancelFunc) (sparrow.Publisher, <-chan struct{})
	}{
		{"publish fails after part of the batch", func(e *env, cancel context.CancelFunc) (sparrow.Publisher, <-chan struct{}) {
			died := make(chan struct{})
			var once atomic.Bool
			return publisherFunc(func(ctx context.Context, evs []sparrow.Event) error {
				if err := e.bus.Publish(ctx, evs[:10]); err != nil {
					return err
				}
				if once.CompareAndSwap(false, true) {
					close(died)
				}
				return errors.New("connection reset after 10 events")
			}), died
		}},
		{"crash between publish and mark", func(e *env, cancel context.CancelFunc) (sparrow.Publisher, <-chan struct{}) {
			died := make(chan struct{})
			var once atomic.Bool
			return publisherFunc(func(ctx context.Context, evs []sparrow.Event) error {
				err := e.bus.Publish(ctx, evs)
				// The process dies now: MarkPublished sees a dead context.
				cancel()
				if once.CompareAndSwap(false, true) {
					close(died)
				}
				return err
			}), died
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			clock := newClock()
			a, b := newOutbox("a"), newOutbox("b")
			evs := newEvents(200, time.Now())
			a.add(evs[:100]...)
			b.add(evs[100:]...)
			opts := relay.Options{Batch: 32, Clock: clock, LeaseTTL: time.Minute, Logger: testLogger()}

			ctx, cancel := context.WithCancel(context.Background())
			pub, died := tc.crashing(e, cancel)
			opts.Holder = "doomed"
			doomed := relay.New([]sparrow.Outbox{a, b}, pub, opts)
			stop := e.run(ctx, cancel, doomed)
			<-died
			stop()
			if n := a.pending() + b.pending(); n != len(evs) {
				t.Fatalf("%d events pending after the crash, want all %d (nothing was marked)", n, len(evs))
			}
			if e.streamMsgs() == 0 {
				t.Fatalf("the dead relay published nothing: the test proves nothing")
			}

			// Its lease expires; a new relay takes over and republishes.
			clock.advance(opts.LeaseTTL + time.Second)
			opts.Holder = "successor"
			successor := relay.New([]sparrow.Outbox{a, b}, e.bus, opts)
			e.start(successor)
			e.sink.wait(t, idsOf(evs)...)
			waitFor(t, "the outboxes are empty", func() bool { return a.pending() == 0 && b.pending() == 0 })
			e.exactlyOnce(successor, b, evs)
		})
	}
}

func TestOnlyTheLeaseHolderPublishes(t *testing.T) {
	e := newEnv(t)
	clock := newClock()
	ob := newOutbox("a")
	// The clock moves only when the test says, so the first relay's lease
	// lasts until then; LeaseTTL only sets how often the other one retries.
	opts := relay.Options{Clock: clock, LeaseTTL: 150 * time.Millisecond, Logger: testLogger()}
	pubA, pubB := newRecorder(e.bus), newRecorder(e.bus)
	opts.Holder = "A"
	ra := relay.New([]sparrow.Outbox{ob}, pubA, opts)
	opts.Holder = "B"
	rb := relay.New([]sparrow.Outbox{ob}, pubB, opts)

	stopA := e.start(ra)
	phase1 := newEvents(50, time.Now())
	ob.add(phase1...)
	ra.Poke()
	e.sink.wait(t, idsOf(phase1)...)

	e.start(rb)
	waitFor(t, "B has been refused the lease", func() bool { return ob.deniedTo("B") >= 2 })
	phase2 := newEvents(50, time.Now())
	ob.add(phase2...)
	ra.Poke()
	rb.Poke()
	e.sink.wait(t, idsOf(phase2)...)
	if n := pubA.published(append(phase1, phase2...)); n != 100 {
		t.Errorf("A, the holder, published %d of 100 events", n)
	}
	if n := pubB.published(append(phase1, phase2...)); n != 0 {
		t.Errorf("B published %d events without the lease", n)
	}

	// A stops; once its lease expires, B takes over.
	stopA()
	phase3 := newEvents(50, time.Now())
	ob.add(phase3...)
	clock.advance(time.Second)
	e.sink.wait(t, idsOf(phase3)...)
	if n := pubB.published(phase3); n != 50 {
		t.Errorf("B published %d of the 50 events after taking over", n)
	}
	if n := pubA.published(phase3); n != 0 {
		t.Errorf("A published %d events after it stopped", n)
	}
	waitFor(t, "the outbox is empty", func() bool { return ob.pending() == 0 })
	e.exactlyOnce(rb, ob, append(append(phase1, phase2...), phase3...))
}

func TestRunMisuse(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := relay.New(nil, nil, relay.Options{}).Run(ctx); !sparrow.IsKind(err, sparrow.EInternal) {
		t.Errorf("Run without publisher = %v, want EInternal", err)
	}
	ob := newOutbox("a")
	r := relay.New([]sparrow.Outbox{ob}, publisherFunc(func(context.Context, []sparrow.Event) error { return nil }), relay.Options{Holder: "h", Logger: testLogger()})
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	waitFor(t, "the first Run takes the lease", func() bool { return ob.holder(relay.LeaseName) == "h" })
	if err := r.Run(ctx); !sparrow.IsKind(err, sparrow.EInternal) {
		t.Errorf("second Run = %v, want EInternal", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
	if err := relay.New([]sparrow.Outbox{newOutbox("a"), newOutbox("a")}, nil, relay.Options{}).Register(prometheus.NewRegistry()); !sparrow.IsKind(err, sparrow.EInvalid) {
		t.Errorf("Register with duplicate store names = %v, want EInvalid", err)
	}
}

// TestPauseHoldsEventsBackUntilResume: after Pause returns, nothing reaches
// the bus, events committed meanwhile wait in the outbox, and Resume
// delivers them.
func TestPauseHoldsEventsBackUntilResume(t *testing.T) {
	e := newEnv(t)
	a := newOutbox("a")
	r := relay.New([]sparrow.Outbox{a}, e.bus, relay.Options{Holder: "solo", Batch: 16, Interval: 10 * time.Millisecond, Logger: testLogger()})
	e.start(r)
	before := newEvents(20, time.Now())
	a.add(before...)
	r.Poke()
	e.sink.wait(t, idsOf(before)...)

	r.Pause()
	held := newEvents(10, time.Now())
	a.add(held...)
	r.Poke()
	time.Sleep(200 * time.Millisecond) // twenty poll intervals
	if n := a.pending(); n != len(held) {
		t.Fatalf("%d events pending while paused, want %d", n, len(held))
	}
	for _, ev := range held {
		if e.sink.count(ev.ID) != 0 {
			t.Fatalf("event %d reached the bus while the relay was paused", ev.ID)
		}
	}
	r.Resume()
	e.sink.wait(t, idsOf(held)...)
	waitFor(t, "the outbox is empty", func() bool { return a.pending() == 0 })
}
