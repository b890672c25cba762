package stream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"sparrow"
	"sparrow/internal/testenv"
	"sparrow/nats"
)

// busConfigs are the embedded server and the external one (nats-server 2.9+).
var busConfigs = []struct {
	name string
	cfg  func(t *testing.T) nats.Config
}{
	{"embedded", func(t *testing.T) nats.Config { return nats.Config{DataDir: t.TempDir()} }},
	{"external", func(t *testing.T) nats.Config {
		b := make([]byte, 6)
		rand.Read(b)
		return nats.Config{URL: testenv.NATSURL(t), Stream: "SPARROWSTREAMTEST" + hex.EncodeToString(b)}
	}},
}

func openBus(t *testing.T, cfg nats.Config) *nats.Bus {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	b, err := nats.Open(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cfg.URL != "" {
			b.DeleteStreams(context.Background())
		}
		b.Close()
	})
	return b
}

// fakeStore is the part of a NotificationStore the Announcer calls.
type fakeStore struct {
	sparrow.NotificationStore
	added []sparrow.Notification
	err   error
}

func (f *fakeStore) AddNotifications(ctx context.Context, ns []sparrow.Notification) error {
	if f.err != nil {
		return f.err
	}
	f.added = append(f.added, ns...)
	return nil
}

// next waits for c's next message.
func next(t *testing.T, c *Conn) Message {
	t.Helper()
	select {
	case m := <-c.Messages():
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message within 10s")
		return Message{}
	}
}

// TestListen: status events published after Listen, and announced
// notifications, reach the hub's connections through the bus; events
// published before it do not; Close stops the listeners.
func TestListen(t *testing.T) {
	for _, bc := range busConfigs {
		t.Run(bc.name, func(t *testing.T) {
			bus := openBus(t, bc.cfg(t))
			h := newTestHub(t, newFakePolicy(), 16)
			conn := connect(t, h, alice, User)

			old, _ := statusEvent(sparrow.EvStatusCreated, bob, sparrow.Public)
			if err := bus.Publish(bg, []sparrow.Event{old}); err != nil {
				t.Fatal(err)
			}
			if err := h.Listen(bg, bus, "stream-test"); err != nil {
				t.Fatal(err)
			}
			var want []sparrow.ID
			for _, typ := range []sparrow.EventType{sparrow.EvStatusCreated, sparrow.EvStatusEdited, sparrow.EvStatusDeleted} {
				e, s := statusEvent(typ, bob, sparrow.Public)
				want = append(want, s.ID)
				other := sparrow.NewEvent(e.ID+1, sparrow.EvAccountUpdated, bob, sparrow.AccountPayload{}, time.Now())
				if err := bus.Publish(bg, []sparrow.Event{e, other}); err != nil {
					t.Fatal(err)
				}
			}
			for i, ev := range []string{EventUpdate, EventStatusUpdate, EventDelete} {
				m := next(t, conn)
				id := m.StatusID
				if m.Status != nil {
					id = m.Status.Status.ID
				}
				if m.Event != ev || id != want[i] {
					t.Fatalf("message %d: %s %d, want %s %d (an event from before Listen?)", i, m.Event, id, ev, want[i])
				}
			}

			store := &fakeStore{}
			a := NewAnnouncer(store, bus, nil)
			if err := a.AddNotifications(bg, []sparrow.Notification{{ID: 7, Recipient: alice}, {ID: 8, Recipient: carol}}); err != nil {
				t.Fatal(err)
			}
			if m := next(t, conn); m.Event != EventNotification || m.Notification.Notification.ID != 7 {
				t.Fatalf("got %+v, want notification 7", m)
			}
			if len(store.added) != 2 {
				t.Errorf("store got %d notifications", len(store.added))
			}

			h.Close() // returns once the listeners have stopped
			select {
			case <-conn.Done():
			default:
				t.Fatal("connection open after Close")
			}
			if err := h.Listen(bg, bus, "stream-test"); !errors.Is(err, ErrClosed) {
				t.Errorf("Listen after Close = %v", err)
			}
			noLeaks(t, "sparrow/stream.(*Hub)", "sparrow/stream.(*statusListener)", "jetstream.(*pullSubscription)", "jetstream.(*pullConsumer)")
		})
	}
}

// TestAnnouncer: announcements follow successful stores only, one per
// notification, on the recipient's subject.
func TestAnnouncer(t *testing.T) {
	var sent []string
	store := &fakeStore{}
	a := &Announcer{NotificationStore: store,
		Publish: func(subject string, data []byte) error {
			sent = append(sent, subject+" "+string(data))
			return errors.New("ignored: announcements are best effort")
		},
		Subject: func(r sparrow.ID) string { return fmt.Sprintf("root.stream.notification.%d", r) },
	}
	if err := a.AddNotifications(bg, []sparrow.Notification{{ID: 7, Recipient: alice}, {ID: 8, Recipient: bob}}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]string{"root.stream.notification.1001 7", "root.stream.notification.1002 8"})
	if fmt.Sprint(sent) != want {
		t.Errorf("sent %v, want %v", sent, want)
	}
	sent = nil
	store.err = errors.New("store down")
	if err := a.AddNotifications(bg, []sparrow.Notification{{ID: 9, Recipient: alice}}); err == nil || len(sent) != 0 {
		t.Errorf("failed store: err %v, sent %v", err, sent)
	}
}

func TestNotificationSubject(t *testing.T) {
	bus := openBus(t, nats.Config{DataDir: t.TempDir()})
	if got := NotificationSubject(bus, "*"); got != "sparrow.stream.notification.*" {
		t.Errorf("default stream: %s", got)
	}
}

// TestListenRecovers: the status consumer survives its deletion on the
// server (as after a server restart), and Close is prompt even when the
// stream is gone and the consumer cannot be recreated.
func TestListenRecovers(t *testing.T) {
	for _, bc := range busConfigs {
		t.Run(bc.name, func(t *testing.T) {
			bus := openBus(t, bc.cfg(t))
			h := newTestHub(t, newFakePolicy(), 64)
			conn := connect(t, h, alice, User)
			if err := h.Listen(bg, bus, "stream-test"); err != nil {
				t.Fatal(err)
			}
			publish := func() sparrow.ID {
				e, s := statusEvent(sparrow.EvStatusCreated, bob, sparrow.Public)
				if err := bus.Publish(bg, []sparrow.Event{e}); err != nil {
					t.Fatal(err)
				}
				return s.ID
			}
			if id := publish(); next(t, conn).Status.Status.ID != id {
				t.Fatal("first event lost")
			}

			st, err := bus.JetStream().Stream(bg, bus.Stream())
			if err != nil {
				t.Fatal(err)
			}
			names := st.ConsumerNames(bg)
			for name := range names.Name() {
				if err := st.DeleteConsumer(bg, name); err != nil {
					t.Fatal(err)
				}
			}
			// Events published from now on arrive once the consumer is back.
			deadline := time.Now().Add(20 * time.Second)
			for got := false; !got; {
				if time.Now().After(deadline) {
					t.Fatal("no event after the consumer was deleted")
				}
				id := publish()
				select {
				case m := <-conn.Messages():
					got = m.Status.Status.ID <= id
				case <-time.After(200 * time.Millisecond):
				}
			}

			if err := bus.DeleteStreams(bg); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // let the listener notice
			start := time.Now()
			h.Close()
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Close took %v with the stream gone", d)
			}
			noLeaks(t, "sparrow/stream.(*Hub)", "sparrow/stream.(*statusListener)", "jetstream.(*pullSubscription)")
		})
	}
}
