package stream

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sparrow"
)

var bg = context.Background()

// Accounts of the tests: alice follows bob; carol follows nobody.
const (
	alice sparrow.ID = 1001
	bob   sparrow.ID = 1002
	carol sparrow.ID = 1003
)

// fakePolicy admits into a home the statuses of the account itself and of
// those it follows, and onto public streams the public statuses, except for
// viewers in hide. It counts its decisions.
type fakePolicy struct {
	mu      sync.Mutex
	follows map[sparrow.ID][]sparrow.ID
	hide    map[sparrow.ID]bool
	calls   map[string]int
	block   chan struct{} // if set, Home waits for it
	fail    bool
	running int // Home calls under way, and the most at once
	most    int
}

func newFakePolicy() *fakePolicy {
	return &fakePolicy{follows: map[sparrow.ID][]sparrow.ID{alice: {bob}}, hide: map[sparrow.ID]bool{}, calls: map[string]int{}}
}

func (p *fakePolicy) count(what string) {
	p.mu.Lock()
	p.calls[what]++
	p.mu.Unlock()
}

func (p *fakePolicy) called(what string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[what]
}

func (p *fakePolicy) InHome(ctx context.Context, user, author sparrow.ID) (bool, error) {
	p.count(fmt.Sprintf("InHome %d", user))
	if p.fail {
		return false, errors.New("policy down")
	}
	if user == author {
		return true, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.follows[user] {
		if f == author {
			return true, nil
		}
	}
	return false, nil
}

func (p *fakePolicy) Home(ctx context.Context, v sparrow.Viewer, s *sparrow.Status) (*sparrow.StatusView, error) {
	p.count(fmt.Sprintf("Home %d", v.AccountID))
	p.mu.Lock()
	p.running++
	p.most = max(p.most, p.running)
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.running--
		p.mu.Unlock()
	}()
	if p.block != nil {
		<-p.block
	}
	ok, err := p.InHome(ctx, v.AccountID, s.AccountID)
	if err != nil || !ok {
		return nil, err
	}
	return &sparrow.StatusView{Status: s}, nil
}

func (p *fakePolicy) Public(ctx context.Context, v sparrow.Viewer, s *sparrow.Status) (*sparrow.StatusView, error) {
	p.count(fmt.Sprintf("Public %d", v.AccountID))
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.OnPublic(s) || p.hide[v.AccountID] {
		return nil, nil
	}
	return &sparrow.StatusView{Status: s}, nil
}

func (p *fakePolicy) OnPublic(s *sparrow.Status) bool { return s.Visibility == sparrow.Public }

// fakeNotifications holds notifications by id.
type fakeNotifications map[sparrow.ID]*sparrow.Notification

func (f fakeNotifications) Get(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.NotificationView, error) {
	n := f[id]
	if n == nil || n.Recipient != v.AccountID {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	return &sparrow.NotificationView{Notification: n}, nil
}

func newTestHub(t *testing.T, p *fakePolicy, buffer int) *Hub {
	t.Helper()
	h := NewHub(Options{Policy: p, Notifications: fakeNotifications{
		7: {ID: 7, Recipient: alice, Type: sparrow.NotifyMention, From: bob},
	}, Buffer: buffer})
	t.Cleanup(h.Close)
	return h
}

func connect(t *testing.T, h *Hub, v sparrow.ID, streams ...string) *Conn {
	t.Helper()
	c, err := h.Connect(sparrow.Viewer{AccountID: v}, streams...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

var seq atomic.Int64

func statusEvent(typ sparrow.EventType, author sparrow.ID, vis sparrow.Visibility) (sparrow.Event, *sparrow.Status) {
	s := &sparrow.Status{ID: sparrow.ID(5000 + seq.Add(1)), AccountID: author, Visibility: vis}
	return sparrow.NewEvent(sparrow.ID(9000+seq.Add(1)), typ, s.ID, sparrow.StatusPayload{Status: s}, time.Now()), s
}

// received returns what c has queued, without waiting.
func received(c *Conn) []string {
	var out []string
	for {
		select {
		case m := <-c.Messages():
			x := m.StatusID
			switch {
			case m.Status != nil:
				x = m.Status.Status.ID
			case m.Notification != nil:
				x = m.Notification.Notification.ID
			}
			out = append(out, fmt.Sprintf("%s %s %d", m.Stream, m.Event, x))
		default:
			return out
		}
	}
}

func wantReceived(t *testing.T, name string, c *Conn, want ...string) {
	t.Helper()
	got := received(c)
	slices.Sort(got) // the streams of one event are served in any order
	slices.Sort(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s received %q, want %q", name, got, want)
	}
}

// TestFanOut: one event reaches every stream it belongs on, on every
// connection, with one decision per account.
func TestFanOut(t *testing.T) {
	p := newFakePolicy()
	h := newTestHub(t, p, 16)
	alice1 := connect(t, h, alice, User)
	alice2 := connect(t, h, alice, User, Public, PublicLocal)
	bobC := connect(t, h, bob, UserNotification)
	carolC := connect(t, h, carol, User)
	anon1 := connect(t, h, 0, Public)
	anon2 := connect(t, h, 0, PublicLocal)

	e, s := statusEvent(sparrow.EvStatusCreated, bob, sparrow.Public)
	h.HandleEvent(bg, e)
	up := func(stream string) string { return fmt.Sprintf("%s update %d", stream, s.ID) }
	wantReceived(t, "alice1", alice1, up(User))
	wantReceived(t, "alice2", alice2, up(User), up(Public), up(PublicLocal))
	wantReceived(t, "bob (notifications only)", bobC)
	wantReceived(t, "carol (follows nobody)", carolC)
	wantReceived(t, "anonymous public", anon1, up(Public))
	wantReceived(t, "anonymous public:local", anon2, up(PublicLocal))
	if n := p.called(fmt.Sprintf("Home %d", alice)); n != 1 {
		t.Errorf("%d home decisions for alice's two connections, want 1", n)
	}
	if n := p.called("Public 0"); n != 1 {
		t.Errorf("%d public decisions for two anonymous connections, want 1", n)
	}

	// A private status: homes only. An edit: status.update.
	e, s = statusEvent(sparrow.EvStatusEdited, bob, sparrow.Private)
	h.HandleEvent(bg, e)
	wantReceived(t, "alice1", alice1, fmt.Sprintf("user status.update %d", s.ID))
	wantReceived(t, "alice2", alice2, fmt.Sprintf("user status.update %d", s.ID))
	wantReceived(t, "anonymous public", anon1)

	// A deletion: the homes that may hold it, and the public streams if it
	// was public; one InHome per account.
	e, s = statusEvent(sparrow.EvStatusDeleted, bob, sparrow.Public)
	h.HandleEvent(bg, e)
	del := func(stream string) string { return fmt.Sprintf("%s delete %d", stream, s.ID) }
	wantReceived(t, "alice1", alice1, del(User))
	wantReceived(t, "alice2", alice2, del(User), del(Public), del(PublicLocal))
	wantReceived(t, "carol", carolC)
	wantReceived(t, "anonymous", anon1, del(Public))

	// Notifications: the recipient's user and user:notification streams.
	alice3 := connect(t, h, alice, UserNotification)
	h.HandleNotification(bg, alice, 7)
	wantReceived(t, "alice1", alice1, "user notification 7")
	wantReceived(t, "alice3 (user:notification)", alice3, "user:notification notification 7")
	wantReceived(t, "alice2 (public streams get none)", alice2, "user notification 7")
	h.HandleNotification(bg, bob, 7) // not bob's: Get says not found
	h.HandleNotification(bg, alice, 8)
	wantReceived(t, "bob", bobC)
	wantReceived(t, "alice1", alice1)

	// Ignored events and payloads.
	h.HandleEvent(bg, sparrow.Event{Type: sparrow.EvStatusCreated, Payload: []byte(`"nope"`)})
	h.HandleEvent(bg, sparrow.NewEvent(1, sparrow.EvAccountCreated, alice, sparrow.AccountPayload{}, time.Now()))
	wantReceived(t, "alice1", alice1)
}

// TestPolicyFilters: a viewer the policy hides gets nothing, others do; a
// failed decision costs only that account its message.
func TestPolicyFilters(t *testing.T) {
	p := newFakePolicy()
	p.hide[alice] = true
	h := newTestHub(t, p, 16)
	a := connect(t, h, alice, Public)
	c := connect(t, h, carol, Public)
	e, s := statusEvent(sparrow.EvStatusCreated, bob, sparrow.Public)
	h.HandleEvent(bg, e)
	wantReceived(t, "alice (hidden)", a)
	wantReceived(t, "carol", c, fmt.Sprintf("public update %d", s.ID))

	p.fail = true
	u := connect(t, h, alice, User)
	e, _ = statusEvent(sparrow.EvStatusDeleted, bob, sparrow.Private)
	h.HandleEvent(bg, e)
	wantReceived(t, "alice after a failed decision", u)
}

// TestSlowClient: a connection whose buffer is full is dropped with
// ErrSlowClient, without slowing down the producer or the others.
func TestSlowClient(t *testing.T) {
	h := newTestHub(t, newFakePolicy(), 2)
	slow := connect(t, h, 0, Public)
	fast := connect(t, h, 0, PublicLocal)
	for i := 0; i < 3; i++ {
		e, _ := statusEvent(sparrow.EvStatusCreated, bob, sparrow.Public)
		done := make(chan struct{})
		go func() { h.HandleEvent(bg, e); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("HandleEvent blocked on a slow client")
		}
		if i < 2 {
			if got := received(fast); len(got) != 1 {
				t.Fatalf("fast client got %v", got)
			}
		}
	}
	select {
	case <-slow.Done():
	default:
		t.Fatal("slow client not dropped")
	}
	if !errors.Is(slow.Err(), ErrSlowClient) {
		t.Errorf("Err = %v, want ErrSlowClient", slow.Err())
	}
	if err := slow.Subscribe(Public); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscribe on a dropped connection = %v", err)
	}
	if h.Len() != 1 {
		t.Errorf("Len = %d after the drop, want 1", h.Len())
	}
	select {
	case <-fast.Done():
		t.Fatal("the fast client was dropped too")
	default:
	}
}

// TestUnsubscribeAndCloseCleanUp: the indexes forget streams and
// connections as they go.
func TestUnsubscribeAndCloseCleanUp(t *testing.T) {
	h := newTestHub(t, newFakePolicy(), 4)
	c := connect(t, h, alice, User, Public)
	if got := fmt.Sprint(c.Streams()); got != "[public user]" {
		t.Fatalf("Streams = %s", got)
	}
	c.Unsubscribe(User)
	c.Unsubscribe(User) // twice is fine
	e, s := statusEvent(sparrow.EvStatusCreated, bob, sparrow.Public)
	h.HandleEvent(bg, e)
	wantReceived(t, "after unsubscribing user", c, fmt.Sprintf("public update %d", s.ID))
	h.mu.RLock()
	users, public := len(h.users), len(h.public)
	h.mu.RUnlock()
	if users != 0 || public != 1 {
		t.Errorf("indexes: %d users, %d public, want 0 and 1", users, public)
	}
	c.Unsubscribe(Public)
	c2 := connect(t, h, alice, User)
	c2.Close()
	c2.Close()
	if c2.Err() != nil {
		t.Errorf("Err after Close = %v, want nil", c2.Err())
	}
	c.Close()
	h.mu.RLock()
	defer h.mu.RUnlock()
	if len(h.conns) != 0 || len(h.users) != 0 || len(h.public) != 0 {
		t.Errorf("indexes not empty after closing everything: %d conns, %d users, %d public", len(h.conns), len(h.users), len(h.public))
	}
}

// TestSubscribeErrors: unknown streams and anonymous user streams, at
// Connect (which then opens nothing) and at Subscribe.
func TestSubscribeErrors(t *testing.T) {
	h := newTestHub(t, newFakePolicy(), 4)
	if _, err := h.Connect(sparrow.Viewer{AccountID: alice}, Public, "hashtag"); sparrow.ErrorKind(err) != sparrow.EBadRequest {
		t.Errorf("Connect with an unknown stream: %v", err)
	}
	if _, err := h.Connect(sparrow.Viewer{}, User); sparrow.ErrorKind(err) != sparrow.EUnauthorized {
		t.Errorf("anonymous Connect to user: %v", err)
	}
	if h.Len() != 0 {
		t.Errorf("failed Connects left %d connections", h.Len())
	}
	anon := connect(t, h, 0)
	if err := anon.Subscribe("hashtag"); sparrow.ErrorKind(err) != sparrow.EBadRequest {
		t.Errorf("unknown stream: %v", err)
	}
	for _, s := range []string{User, UserNotification} {
		if err := anon.Subscribe(s); sparrow.ErrorKind(err) != sparrow.EUnauthorized {
			t.Errorf("anonymous %s: %v", s, err)
		}
	}
}

// TestHubClose drops every connection, refuses new ones and is idempotent.
func TestHubClose(t *testing.T) {
	h := newTestHub(t, newFakePolicy(), 4)
	c := connect(t, h, alice, User)
	h.Close()
	h.Close()
	select {
	case <-c.Done():
	default:
		t.Fatal("connection still open after Close")
	}
	if !errors.Is(c.Err(), ErrClosed) {
		t.Errorf("Err = %v, want ErrClosed", c.Err())
	}
	if _, err := h.Connect(sparrow.Viewer{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Connect after Close = %v", err)
	}
	if h.Len() != 0 {
		t.Errorf("Len = %d after Close", h.Len())
	}
}

// TestConcurrentChurn: connections come and go while events flow (run with
// -race); nothing is left behind.
func TestConcurrentChurn(t *testing.T) {
	p := newFakePolicy()
	h := newTestHub(t, p, 8)
	stop := make(chan struct{})
	var producers sync.WaitGroup
	producers.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			e, _ := statusEvent(sparrow.EvStatusCreated, bob, sparrow.Public)
			h.HandleEvent(bg, e)
			h.HandleNotification(bg, alice, 7)
		}
	})
	var clients sync.WaitGroup
	for i := range 32 {
		clients.Go(func() {
			for j := 0; j < 50; j++ {
				c, err := h.Connect(sparrow.Viewer{AccountID: []sparrow.ID{alice, bob, 0}[i%3]})
				if err != nil {
					t.Error(err)
					return
				}
				_ = c.Subscribe(Public)
				if !c.Viewer().Anonymous() {
					_ = c.Subscribe(User)
				}
				received(c)
				c.Unsubscribe(Public)
				c.Close()
			}
		})
	}
	clients.Wait()
	close(stop)
	producers.Wait()
	if h.Len() != 0 {
		t.Errorf("Len = %d after every client left", h.Len())
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	if len(h.users) != 0 || len(h.public) != 0 {
		t.Errorf("indexes not empty: %d users, %d public", len(h.users), len(h.public))
	}
}

// TestBoundedDecisions: an event runs at most Workers decisions at a time,
// and waits for all of them.
func TestBoundedDecisions(t *testing.T) {
	p := newFakePolicy()
	p.block = make(chan struct{})
	h := NewHub(Options{Policy: p, Notifications: fakeNotifications{}, Workers: 2})
	defer h.Close()
	for id := sparrow.ID(1); id <= 5; id++ {
		c, _ := h.Connect(sparrow.Viewer{AccountID: id})
		c.Subscribe(User)
	}
	e, _ := statusEvent(sparrow.EvStatusCreated, 3, sparrow.Public)
	done := make(chan struct{})
	go func() { h.HandleEvent(bg, e); close(done) }()
	started := func() int {
		n := 0
		for id := 1; id <= 5; id++ {
			n += p.called(fmt.Sprintf("Home %d", id))
		}
		return n
	}
	for deadline := time.Now().Add(10 * time.Second); started() < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("%d decisions started, want 2", started())
		}
		runtime.Gosched()
	}
	select {
	case <-done:
		t.Fatal("HandleEvent returned before its decisions")
	default:
	}
	close(p.block)
	<-done
	n := started()
	p.mu.Lock()
	most := p.most
	p.mu.Unlock()
	if most != 2 || n != 5 {
		t.Errorf("%d decisions at most at once, %d in all; want 2 and 5", most, n)
	}
}

// leaked returns the stacks of the goroutines running one of frames.
func leaked(frames ...string) []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, f := range frames {
			if strings.Contains(g, f) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// noLeaks fails t if goroutines running one of frames remain after a grace
// period.
func noLeaks(t *testing.T, frames ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		gs := leaked(frames...)
		if len(gs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left behind:\n%s", len(gs), strings.Join(gs, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
