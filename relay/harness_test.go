package relay_test

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sparrow"
	"sparrow/nats"
	"sparrow/relay"
)

// waitTimeout only turns a hang into a failure; no test depends on it.
const waitTimeout = 15 * time.Second

func testLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// env is an embedded bus with a consumer that records every event.
type env struct {
	t    *testing.T
	bus  *nats.Bus
	sink *sink
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	bus, err := nats.Open(ctx, nats.Config{DataDir: t.TempDir(), Logger: testLogger()})
	if err != nil {
		t.Fatalf("nats.Open: %v", err)
	}
	t.Cleanup(func() { bus.Close() })
	s := &sink{counts: map[sparrow.ID]int{}, changed: make(chan struct{}, 1)}
	sctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	if err := bus.Subscribe(sctx, "relaytest", nil, s.handle); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	return &env{t: t, bus: bus, sink: s}
}

// start runs r until the returned stop is called (or the test ends).
func (e *env) start(r *relay.Relay) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	return e.run(ctx, cancel, r)
}

// run runs r with ctx, which cancel ends.
func (e *env) run(ctx context.Context, cancel context.CancelFunc, r *relay.Relay) (stop func()) {
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					e.t.Errorf("Run: %v", err)
				}
			case <-time.After(waitTimeout):
				e.t.Errorf("Run did not return after its context ended")
			}
		})
	}
	e.t.Cleanup(stop)
	return stop
}

// streamMsgs is the number of messages in the bus's stream: the events the
// bus kept, duplicates excluded.
func (e *env) streamMsgs() uint64 {
	e.t.Helper()
	n, err := e.bus.StoredEvents(context.Background())
	if err != nil {
		e.t.Fatalf("stream info: %v", err)
	}
	return n
}

// exactlyOnce checks that the consumer got every event of want, once, and
// nothing else, and that the stream holds nothing else. A sentinel relayed
// through ob last proves that no duplicate is still on its way: the
// consumer receives events in stream order.
func (e *env) exactlyOnce(r *relay.Relay, ob *fakeOutbox, want []sparrow.Event) {
	e.t.Helper()
	sentinel := newEvents(1, time.Now())
	ob.add(sentinel...)
	r.Poke()
	e.sink.wait(e.t, idsOf(sentinel)...)
	all := append(slices.Clone(want), sentinel...)
	e.sink.exactlyOnce(e.t, all)
	if n := e.streamMsgs(); n != uint64(len(all)) {
		e.t.Errorf("the stream holds %d events, want %d", n, len(all))
	}
}

var ids = sparrow.NewIDGen(3, nil)

// newEvents returns n events created at the given time, spread over shards.
func newEvents(n int, created time.Time) []sparrow.Event {
	types := []sparrow.EventType{sparrow.EvStatusCreated, sparrow.EvAccountUpdated, sparrow.EvStatusDeleted}
	evs := make([]sparrow.Event, n)
	for i := range evs {
		id := ids.NextBalanced()
		evs[i] = sparrow.NewEvent(id, types[i%len(types)], id, map[string]int{"i": i}, created)
	}
	return evs
}

func idsOf(evs []sparrow.Event) []sparrow.ID {
	out := make([]sparrow.ID, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// sink counts the events a consumer receives.
type sink struct {
	mu      sync.Mutex
	counts  map[sparrow.ID]int
	changed chan struct{}
}

func (s *sink) handle(_ context.Context, e sparrow.Event) error {
	s.mu.Lock()
	s.counts[e.ID]++
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return nil
}

func (s *sink) wait(t *testing.T, ids ...sparrow.ID) {
	t.Helper()
	timeout := time.After(waitTimeout)
	for {
		s.mu.Lock()
		missing := 0
		for _, id := range ids {
			if s.counts[id] == 0 {
				missing++
			}
		}
		s.mu.Unlock()
		if missing == 0 {
			return
		}
		select {
		case <-s.changed:
		case <-timeout:
			t.Fatalf("%d of %d events never reached the consumer", missing, len(ids))
		}
	}
}

func (s *sink) exactlyOnce(t *testing.T, want []sparrow.Event) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	wanted := map[sparrow.ID]bool{}
	for _, e := range want {
		wanted[e.ID] = true
		if n := s.counts[e.ID]; n != 1 {
			t.Errorf("event %v reached the consumer %d times, want 1", e.ID, n)
		}
	}
	for id, n := range s.counts {
		if !wanted[id] {
			t.Errorf("unexpected event %v reached the consumer %d times", id, n)
		}
	}
}

// publisherFunc adapts a function to sparrow.Publisher.
type publisherFunc func(ctx context.Context, evs []sparrow.Event) error

func (f publisherFunc) Publish(ctx context.Context, evs []sparrow.Event) error { return f(ctx, evs) }

// recorder publishes through pub and remembers what it tried to publish.
// It records before publishing: the consumer may receive an event before
// Publish returns, and a test that waited for the consumer must then find
// the event recorded.
type recorder struct {
	pub sparrow.Publisher
	mu  sync.Mutex
	ids map[sparrow.ID]bool
}

func newRecorder(pub sparrow.Publisher) *recorder {
	return &recorder{pub: pub, ids: map[sparrow.ID]bool{}}
}

func (r *recorder) Publish(ctx context.Context, evs []sparrow.Event) error {
	r.mu.Lock()
	for _, e := range evs {
		r.ids[e.ID] = true
	}
	r.mu.Unlock()
	return r.pub.Publish(ctx, evs)
}

// published counts how many of evs r tried to publish.
func (r *recorder) published(evs []sparrow.Event) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range evs {
		if r.ids[e.ID] {
			n++
		}
	}
	return n
}

// metric returns the value of the gauge or counter name{store=store} in reg.
func metric(t *testing.T, reg *prometheus.Registry, name, store string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "store" && l.GetValue() == store {
					switch {
					case m.GetGauge() != nil:
						return m.GetGauge().GetValue()
					case m.GetCounter() != nil:
						return m.GetCounter().GetValue()
					case m.GetHistogram() != nil:
						return float64(m.GetHistogram().GetSampleCount())
					}
				}
			}
		}
	}
	t.Fatalf("no metric %s{store=%q}", name, store)
	return 0
}

// count returns how many times the consumer received id.
func (s *sink) count(id sparrow.ID) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[id]
}
