package nats_test

import (
	"context"
	"testing"
	"time"

	"sparrow"
	"sparrow/internal/livetest"
	"sparrow/nats"
)

// TestLiveFeed runs the live-feed suite on each kind of server.
func TestLiveFeed(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			livetest.Run(t, func(t *testing.T) (sparrow.LiveFeed, func(sparrow.Event)) {
				b := (&harness{t: t, cfg: be.setup(t)}).open()
				return b, func(e sparrow.Event) { publish(t, b, []sparrow.Event{e}) }
			})
		})
	}
}

// TestLiveFeedSkipsOtherEvents: only status events reach the live feed.
func TestLiveFeedSkipsOtherEvents(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		b := h.open()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		got := make(chan sparrow.Event, 4)
		if _, err := b.Listen(ctx, "live-test", func(e sparrow.Event) { got <- e }, func(_, _ sparrow.ID) {}); err != nil {
			t.Fatal(err)
		}
		evs := newEvents(2, sparrow.EvAccountUpdated, sparrow.EvStatusCreated)
		publish(t, b, evs)
		select {
		case e := <-got:
			if e.ID != evs[1].ID {
				t.Fatalf("got %s %d, want the status event %d", e.Type, e.ID, evs[1].ID)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no status event within 10 s")
		}
	})
}

// TestLiveFeedRecovers: the status consumer survives its deletion on the
// server (as after a server restart), and a listener stops promptly when
// its context ends even once the stream is gone (its consumer cannot be
// recreated).
func TestLiveFeedRecovers(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		b := h.open()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		got := make(chan sparrow.ID, 64)
		done, err := b.Listen(ctx, "live-test", func(e sparrow.Event) { got <- e.ID }, func(_, _ sparrow.ID) {})
		if err != nil {
			t.Fatal(err)
		}
		send := func() sparrow.ID {
			e := newEvents(1)[0]
			publish(t, b, []sparrow.Event{e})
			return e.ID
		}
		if id := send(); <-got != id {
			t.Fatal("first event lost")
		}

		js := nats.JetStreamOf(b)
		st, err := js.Stream(ctx, b.Stream())
		if err != nil {
			t.Fatal(err)
		}
		names := st.ConsumerNames(ctx)
		for name := range names.Name() {
			if err := st.DeleteConsumer(ctx, name); err != nil {
				t.Fatal(err)
			}
		}
		// Events published from now on arrive once the consumer is back.
		deadline := time.Now().Add(20 * time.Second)
		for back := false; !back; {
			if time.Now().After(deadline) {
				t.Fatal("no event after the consumer was deleted")
			}
			id := send()
			select {
			case g := <-got:
				back = g <= id
			case <-time.After(200 * time.Millisecond):
			}
		}

		if err := b.DeleteStreams(ctx); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("listener still running 10 s after its context ended")
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("the listener took %v to stop with the stream gone", d)
		}
	})
}

func TestNotificationSubject(t *testing.T) {
	b := (&harness{t: t, cfg: nats.Config{DataDir: t.TempDir(), Logger: testLogger()}}).open()
	if got := b.NotificationSubject("*"); got != "sparrow.stream.notification.*" {
		t.Errorf("default stream: %s", got)
	}
}
