package nats_test

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"context"
	"errors"
	"testing"
	"time"

	"sparrow"
	"sparrow/nats"
)

var mixed = []sparrow.EventType{sparrow.EvStatusCreated, sparrow.EvStatusEdited, sparrow.EvAccountCreated, sparrow.EvStatusDeleted}

func TestPublishSubscribeDeliversEveryEventOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		b := h.open()
		evs := newEvents(300, mixed...)
		publish(t, b, evs[:100])
		s := newSink()
		subscribe(t, b, "all", nil, s, nats.SubOptions{})
		publish(t, b, evs[100:]) // while the consumer runs, too
		s.wait(t, idsOf(evs)...)
		s.exactlyOnce(t, evs)
		if n := streamMsgs(t, b); n != uint64(len(evs)) {
			t.Errorf("stream holds %d messages, want %d", n, len(evs))
		}
		for _, e := range evs[:3] {
			got := s.event(e.ID)
			if got.Type != e.Type || got.Subject != e.Subject || string(got.Payload) != string(e.Payload) || !got.CreatedAt.Equal(e.CreatedAt) {
				t.Errorf("event %v arrived as %+v, want %+v", e.ID, got, e)
			}
		}
	})
}

func TestRepublishWithinDupWindowDeliversNothingNew(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		b := h.open()
		evs := newEvents(50, mixed...)
		publish(t, b, evs)
		s := newSink()
		subscribe(t, b, "dedupe", nil, s, nats.SubOptions{})
		s.wait(t, idsOf(evs)...)

		// The relay retries whole batches: the same ids, in other batches.
		publish(t, b, evs[10:30])
		publish(t, b, evs)
		// A single worker handles events in stream order, so once the
		// sentinel published last has arrived, any duplicate would have too.
		sentinel := newEvents(1)
		publish(t, b, sentinel)
		s.wait(t, sentinel[0].ID)
		s.exactlyOnce(t, append(evs, sentinel...))
		if n := streamMsgs(t, b); n != uint64(len(evs)+1) {
			t.Errorf("stream holds %d messages, want %d", n, len(evs)+1)
		}
	})
}

func TestHandlerErrorCausesRedelivery(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		b := h.open()
		evs := newEvents(10, mixed...)
		failing, panicking := evs[3].ID, evs[6].ID
		s := newSink()
		s.fail = func(e sparrow.Event, attempt int) error {
			switch {
			case e.ID == failing && attempt <= 2:
				return errors.New("transient failure")
			case e.ID == panicking && attempt == 1:
				panic("handler bug")
			}
			return nil
		}
		subscribe(t, b, "flaky", nil, s, nats.SubOptions{NakDelay: 20 * time.Millisecond})
		publish(t, b, evs)
		s.wait(t, idsOf(evs)...)
		s.exactlyOnce(t, evs)
		if n := s.attempts(failing); n != 3 {
			t.Errorf("failing event delivered %d times, want 3", n)
		}
		if n := s.attempts(panicking); n != 2 {
			t.Errorf("panicking event delivered %d times, want 2", n)
		}
	})
}

func TestConsumersWithDifferentNamesEachGetEveryEvent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		b := h.open()
		evs := newEvents(100, mixed...)
		a, c := newSink(), newSink()
		subscribe(t, b, "timelines", nil, a, nats.SubOptions{})
		subscribe(t, b, "search", nil, c, nats.SubOptions{Workers: 4})
		publish(t, b, evs)
		a.wait(t, idsOf(evs)...)
		c.wait(t, idsOf(evs)...)
		a.exactlyOnce(t, evs)
		c.exactlyOnce(t, evs)
	})
}

func TestSubscribeFiltersTypes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		b := h.open()
		evs := newEvents(40, mixed...)
		// End with one event of each type: with one worker, events arrive in
		// stream order, so an unwanted one would arrive before the last wanted.
		evs = append(evs, newEvents(4, mixed...)...)
		var created, statusOrAccount []sparrow.Event
		for _, e := range evs {
			if e.Type == sparrow.EvStatusCreated {
				created = append(created, e)
			}
			if e.Type == sparrow.EvStatusCreated || e.Type == sparrow.EvAccountCreated {
				statusOrAccount = append(statusOrAccount, e)
			}
		}
		one, two := newSink(), newSink()
		subscribe(t, b, "one-type", []sparrow.EventType{sparrow.EvStatusCreated}, one, nats.SubOptions{})
		subscribe(t, b, "two-types", []sparrow.EventType{sparrow.EvStatusCreated, sparrow.EvAccountCreated}, two, nats.SubOptions{})
		publish(t, b, evs)
		one.wait(t, idsOf(created)...)
		two.wait(t, idsOf(statusOrAccount)...)
		one.exactlyOnce(t, created)
		two.exactlyOnce(t, statusOrAccount)

		// One type is filtered by the server, several by the client.
		ctx := context.Background()
		for name, want := range map[string]string{"one-type": b.Subject(sparrow.EvStatusCreated), "two-types": b.Subject("") + ">"} {
			c, err := nats.JetStreamOf(b).Consumer(ctx, b.Stream(), name)
			if err != nil {
				t.Fatalf("consumer %s: %v", name, err)
			}
			if got := c.CachedInfo().Config.FilterSubject; got != want {
				t.Errorf("consumer %s filters %q, want %q", name, got, want)
			}
		}
	})
}

func TestDurableConsumerResumesAfterReopen(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		before, during := newEvents(20, mixed...), newEvents(20, mixed...)

		// First run: a consumer handles the first events, then the process stops.
		b := h.open()
		publish(t, b, before)
		s1 := newSink()
		subscribe(t, b, "resume", nil, s1, nats.SubOptions{})
		s1.wait(t, idsOf(before)...)
		if err := b.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}

		// Second run: events are published while the consumer is down.
		b = h.open()
		publish(t, b, during)
		if err := b.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}

		// Third run: the consumer picks up where it left off, and the stream
		// (in the embedded case, the same data directory) kept everything.
		b = h.open()
		s2, fresh := newSink(), newSink()
		subscribe(t, b, "resume", nil, s2, nats.SubOptions{})
		subscribe(t, b, "fresh", nil, fresh, nats.SubOptions{})
		s2.wait(t, idsOf(during)...)
		fresh.wait(t, append(idsOf(before), idsOf(during)...)...)
		s1.exactlyOnce(t, before)
		s2.exactlyOnce(t, during)
		fresh.exactlyOnce(t, append(before, during...))
	})
}

func TestSubscribeStopsWithContext(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		b := h.open()
		first, second := newEvents(5), newEvents(5)
		// The server may still send an event to the stopped subscriber's
		// last pull request after it stopped listening (nats-server 2.9
		// does not check the request's interest); that event comes back
		// after AckWait, the contract's bound, so AckWait is short here.
		opts := nats.SubOptions{AckWait: 3 * time.Second}
		s := newSink()
		cancel := subscribe(t, b, "stoppable", nil, s, opts)
		publish(t, b, first)
		s.wait(t, idsOf(first)...)
		cancel()
		// A new subscription with the same name takes over what follows.
		s2 := newSink()
		subscribe(t, b, "stoppable", nil, s2, opts)
		publish(t, b, second)
		s2.wait(t, idsOf(second)...)
		s2.exactlyOnce(t, second)
	})
}

func TestPingPublishErrorsAndClose(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		b := h.open()
		ctx := context.Background()
		if err := b.Ping(ctx); err != nil {
			t.Fatalf("Ping: %v", err)
		}
		if err := b.Publish(ctx, nil); err != nil {
			t.Errorf("Publish(nil) = %v", err)
		}
		bad := newEvents(1)
		bad[0].Type = "status.*"
		if err := b.Publish(ctx, bad); !sparrow.IsKind(err, sparrow.EInternal) {
			t.Errorf("Publish(bad type) = %v, want EInternal", err)
		}
		if err := b.Subscribe(ctx, "bad.name", nil, newSink().handle); !sparrow.IsKind(err, sparrow.EInvalid) {
			t.Errorf("Subscribe(bad name) = %v, want EInvalid", err)
		}
		if err := b.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := b.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if err := b.Publish(ctx, newEvents(1)); !sparrow.IsKind(err, sparrow.EUnavailable) {
			t.Errorf("Publish after Close = %v, want EUnavailable", err)
		}
		if err := b.Ping(ctx); !sparrow.IsKind(err, sparrow.EUnavailable) {
			t.Errorf("Ping after Close = %v, want EUnavailable", err)
		}
	})
}

func TestOpenValidatesConfig(t *testing.T) {
	ctx := context.Background()
	for name, cfg := range map[string]nats.Config{
		"no data dir":     {},
		"bad stream":      {DataDir: t.TempDir(), Stream: "a.b"},
		"window over age": {DataDir: t.TempDir(), DupWindow: time.Hour, MaxAge: time.Minute},
	} {
		if _, err := nats.Open(ctx, cfg); !sparrow.IsKind(err, sparrow.EInvalid) {
			t.Errorf("%s: Open = %v, want EInvalid", name, err)
		}
	}
	if _, err := nats.Open(ctx, nats.Config{URL: "nats://127.0.0.1:1"}); !sparrow.IsKind(err, sparrow.EUnavailable) {
		t.Errorf("unreachable server: Open = %v, want EUnavailable", err)
	}
}

// TestMalformedEventsBecomeDeadLetters: an event whose handler says it can
// never be handled (sparrow.ErrMalformedEvent) is set aside on the
// dead-letter stream, with its consumer and reason, counted, and not
// redelivered; the events around it are handled as usual.
func TestMalformedEventsBecomeDeadLetters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, h *harness) {
		b := h.open()
		evs := newEvents(5, sparrow.EvStatusCreated)
		bad := evs[2]
		s := newSink()
		s.fail = func(e sparrow.Event, attempt int) error {
			if e.ID == bad.ID {
				return e.Malformed("no status in the payload")
			}
			return nil
		}
		subscribe(t, b, "picky", nil, s, nats.SubOptions{NakDelay: 20 * time.Millisecond})
		publish(t, b, evs)
		s.wait(t, idsOf(slices.Delete(slices.Clone(evs), 2, 3))...)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var dead jetstream.Stream
		for {
			st, err := nats.JetStreamOf(b).Stream(ctx, b.DeadStream())
			if err == nil && st.CachedInfo().State.Msgs > 0 {
				dead = st
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("no dead letter: %v", err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		msg, err := dead.GetMsg(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		var got sparrow.Event
		if err := json.Unmarshal(msg.Data, &got); err != nil || got.ID != bad.ID ||
			msg.Header.Get(nats.DeadConsumerHeader) != "picky" || !strings.Contains(msg.Header.Get(nats.DeadReasonHeader), "no status") {
			t.Fatalf("dead letter %q %v (%v)", msg.Data, msg.Header, err)
		}
		reg := prometheus.NewRegistry()
		if err := b.Register(reg); err != nil {
			t.Fatal(err)
		}
		if n := testutil.ToFloat64(b.DeadLetters().WithLabelValues("picky")); n != 1 {
			t.Fatalf("sparrow_events_dead_total{consumer=picky} = %v", n)
		}
		time.Sleep(100 * time.Millisecond) // five NakDelays: a redelivery would have come
		if n := s.attempts(bad.ID); n != 1 {
			t.Fatalf("the malformed event was delivered %d times, want once", n)
		}
	})
}
