package stream

import (
	"context"
	"errors"
	"testing"
	"time"

	"sparrow"
	"sparrow/inmem"
)

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
// notifications, reach the hub's connections through the live feed; Close
// stops the listener and waits for it. (The bus's own feed is checked by
// the live-feed suite in package nats.)
func TestListen(t *testing.T) {
	feed := inmem.NewLiveFeed()
	h := newTestHub(t, newFakePolicy(), 16)
	conn := connect(t, h, alice, User)
	if err := h.Listen(bg, feed, "stream-test"); err != nil {
		t.Fatal(err)
	}
	var want []sparrow.ID
	for _, typ := range []sparrow.EventType{sparrow.EvStatusCreated, sparrow.EvStatusEdited, sparrow.EvStatusDeleted} {
		e, s := statusEvent(typ, bob, sparrow.Public)
		want = append(want, s.ID)
		feed.PublishStatus(e)
	}
	for i, ev := range []string{EventUpdate, EventStatusUpdate, EventDelete} {
		m := next(t, conn)
		id := m.StatusID
		if m.Status != nil {
			id = m.Status.Status.ID
		}
		if m.Event != ev || id != want[i] {
			t.Fatalf("message %d: %s %d, want %s %d", i, m.Event, id, ev, want[i])
		}
	}

	store := &fakeStore{}
	a := NewAnnouncer(store, feed, nil)
	if err := a.AddNotifications(bg, []sparrow.Notification{{ID: 7, Recipient: alice}, {ID: 8, Recipient: carol}}); err != nil {
		t.Fatal(err)
	}
	if m := next(t, conn); m.Event != EventNotification || m.Notification.Notification.ID != 7 {
		t.Fatalf("got %+v, want notification 7", m)
	}
	if len(store.added) != 2 {
		t.Errorf("store got %d notifications", len(store.added))
	}

	h.Close() // returns once the listener has stopped
	select {
	case <-conn.Done():
	default:
		t.Fatal("connection open after Close")
	}
	if err := h.Listen(bg, feed, "stream-test"); !errors.Is(err, ErrClosed) {
		t.Errorf("Listen after Close = %v", err)
	}
	noLeaks(t, "sparrow/stream.(*Hub)", "sparrow/inmem.(*LiveFeed)")
}

// recordingFeed records announcements and fails them (they are best effort).
type recordingFeed struct {
	sparrow.LiveFeed
	sent [][2]sparrow.ID
}

func (f *recordingFeed) AnnounceNotification(recipient, id sparrow.ID) error {
	f.sent = append(f.sent, [2]sparrow.ID{recipient, id})
	return errors.New("ignored: announcements are best effort")
}

// TestAnnouncer: announcements follow successful stores only, one per
// notification, to its recipient.
func TestAnnouncer(t *testing.T) {
	store, feed := &fakeStore{}, &recordingFeed{}
	a := NewAnnouncer(store, feed, nil)
	if err := a.AddNotifications(bg, []sparrow.Notification{{ID: 7, Recipient: alice}, {ID: 8, Recipient: bob}}); err != nil {
		t.Fatal(err)
	}
	if len(feed.sent) != 2 || feed.sent[0] != [2]sparrow.ID{alice, 7} || feed.sent[1] != [2]sparrow.ID{bob, 8} {
		t.Errorf("sent %v", feed.sent)
	}
	feed.sent = nil
	store.err = errors.New("store down")
	if err := a.AddNotifications(bg, []sparrow.Notification{{ID: 9, Recipient: alice}}); err == nil || len(feed.sent) != 0 {
		t.Errorf("failed store: err %v, sent %v", err, feed.sent)
	}
}
