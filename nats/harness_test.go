package nats_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"sparrow"
	"sparrow/internal/testenv"
	"sparrow/nats"
)

// backend opens buses on one kind of server. Every subtest gets its own
// store (embedded) or its own throwaway stream (external).
type backend struct {
	name  string
	setup func(t *testing.T) nats.Config
}

var backends = []backend{
	{"embedded", func(t *testing.T) nats.Config {
		// The default stream, hence the default subject prefix.
		return nats.Config{DataDir: t.TempDir(), Logger: testLogger()}
	}},
	{"external", func(t *testing.T) nats.Config {
		url := testenv.NATSURL(t)
		stream := "SPARROWTEST_" + randomHex(6)
		t.Cleanup(func() {
			deleteStream(t, url, stream)
			deleteStream(t, url, stream+"_DEAD")
		})
		return nats.Config{URL: url, Stream: stream, Logger: testLogger()}
	}},
}

// forEachBackend runs test once per backend.
func forEachBackend(t *testing.T, test func(t *testing.T, h *harness)) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			test(t, &harness{t: t, cfg: be.setup(t)})
		})
	}
}

// harness opens buses that all use the same configuration (same DataDir or
// same stream), as a process restarting would.
type harness struct {
	t   *testing.T
	cfg nats.Config
}

// open opens a bus, closed at the end of the test at the latest.
func (h *harness) open() *nats.Bus {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := nats.Open(ctx, h.cfg)
	if err != nil {
		h.t.Fatalf("Open: %v", err)
	}
	h.t.Cleanup(func() { b.Close() })
	return b
}

func deleteStream(t *testing.T, url, stream string) {
	nc, err := natsgo.Connect(url)
	if err != nil {
		t.Errorf("cleanup: connect: %v", err)
		return
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := js.DeleteStream(ctx, stream); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Errorf("cleanup: delete stream %s: %v", stream, err)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// testLogger discards logs unless the tests run verbosely.
func testLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

var ids = sparrow.NewIDGen(1, nil)

// newEvents returns n events of the given types, in turn.
func newEvents(n int, types ...sparrow.EventType) []sparrow.Event {
	if len(types) == 0 {
		types = []sparrow.EventType{sparrow.EvStatusCreated}
	}
	evs := make([]sparrow.Event, n)
	for i := range evs {
		id := ids.NextBalanced()
		evs[i] = sparrow.NewEvent(id, types[i%len(types)], id, map[string]int{"n": i}, time.Now().UTC())
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

func publish(t *testing.T, b *nats.Bus, evs []sparrow.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Publish(ctx, evs); err != nil {
		t.Fatalf("Publish: %v", err)
	}
}

// sink records what a handler receives.
type sink struct {
	mu     sync.Mutex
	counts map[sparrow.ID]int
	events map[sparrow.ID]sparrow.Event
	// fail, if set, decides whether a delivery fails; attempt counts from 1.
	fail    func(e sparrow.Event, attempt int) error
	attempt map[sparrow.ID]int
	changed chan struct{}
}

func newSink() *sink {
	return &sink{
		counts:  map[sparrow.ID]int{},
		events:  map[sparrow.ID]sparrow.Event{},
		attempt: map[sparrow.ID]int{},
		changed: make(chan struct{}, 1),
	}
}

func (s *sink) handle(_ context.Context, e sparrow.Event) error {
	defer s.notify()
	s.mu.Lock()
	s.attempt[e.ID]++
	attempt := s.attempt[e.ID]
	s.mu.Unlock()
	if s.fail != nil {
		if err := s.fail(e, attempt); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.counts[e.ID]++
	s.events[e.ID] = e
	s.mu.Unlock()
	return nil
}

func (s *sink) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// event returns the event handled with the given id.
func (s *sink) event(id sparrow.ID) sparrow.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events[id]
}

// wait waits until every id has been handled successfully.
func (s *sink) wait(t *testing.T, ids ...sparrow.ID) {
	t.Helper()
	deadline := time.After(15 * time.Second)
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
		case <-deadline:
			t.Fatalf("%d of %d events never arrived", missing, len(ids))
		}
	}
}

// count returns how many times id was handled successfully.
func (s *sink) count(id sparrow.ID) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[id]
}

func (s *sink) attempts(id sparrow.ID) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempt[id]
}

// seen returns the ids handled, sorted.
func (s *sink) seen() []sparrow.ID {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]sparrow.ID, 0, len(s.counts))
	for id := range s.counts {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// exactlyOnce fails t unless the sink handled exactly the events want, once each.
func (s *sink) exactlyOnce(t *testing.T, want []sparrow.Event) {
	t.Helper()
	wantIDs := idsOf(want)
	slices.Sort(wantIDs)
	if got := s.seen(); !slices.Equal(got, wantIDs) {
		t.Fatalf("handled %d distinct events %v, want %d %v", len(got), got, len(wantIDs), wantIDs)
	}
	for _, id := range wantIDs {
		if n := s.count(id); n != 1 {
			t.Errorf("event %v handled %d times, want 1", id, n)
		}
	}
}

// subscribe subscribes the sink until the end of the test.
func subscribe(t *testing.T, b *nats.Bus, name string, types []sparrow.EventType, s *sink, opts nats.SubOptions) context.CancelFunc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := b.SubscribeWith(ctx, name, types, s.handle, opts); err != nil {
		t.Fatalf("Subscribe %s: %v", name, err)
	}
	return cancel
}

// streamMsgs returns the number of messages the bus's stream holds.
func streamMsgs(t *testing.T, b *nats.Bus) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := nats.JetStreamOf(b).Stream(ctx, b.Stream())
	if err != nil {
		t.Fatalf("stream info: %v", err)
	}
	return s.CachedInfo().State.Msgs
}
