package stream

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"sparrow"
)

// Policy decides which statuses a viewer's streams get. service.StreamFilter
// implements it with the timelines' rules. Its methods must be safe for
// concurrent use.
type Policy interface {
	// Home returns s hydrated for v if it belongs in v's home, nil otherwise.
	Home(ctx context.Context, v sparrow.Viewer, s *sparrow.Status) (*sparrow.StatusView, error)
	// Public returns s hydrated for v (maybe anonymous) if it belongs on v's
	// public stream, nil otherwise.
	Public(ctx context.Context, v sparrow.Viewer, s *sparrow.Status) (*sparrow.StatusView, error)
	// InHome reports whether author's statuses can be in user's home, so
	// that user's home streams are told of their deletion.
	InHome(ctx context.Context, user, author sparrow.ID) (bool, error)
	// OnPublic reports whether s, as it was, belongs on the public timeline,
	// so that the public streams are told of its deletion.
	OnPublic(s *sparrow.Status) bool
}

// Notifications loads a notification for its recipient, or fails with
// ENotFound if the recipient should not see it (sparrow.NotificationService
// implements it).
type Notifications interface {
	Get(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.NotificationView, error)
}

// Defaults of Options.
const (
	DefaultBuffer  = 256
	DefaultWorkers = 16
	DefaultTimeout = 10 * time.Second
)

// Options configure a Hub. Policy and Notifications are required; every
// other zero field selects its default.
type Options struct {
	Policy        Policy
	Notifications Notifications
	// Buffer is how many messages a connection may have queued; a
	// connection that falls further behind is dropped (DefaultBuffer).
	Buffer int
	// Workers is how many policy decisions an event may run concurrently
	// (DefaultWorkers).
	Workers int
	// Timeout bounds the handling of one event or announcement
	// (DefaultTimeout).
	Timeout time.Duration
	// Logger receives dropped connections and policy failures; nil discards.
	Logger *slog.Logger
}

// Hub holds the streams of the clients connected to this process and
// delivers events to them. It is safe for concurrent use. Close it to drop
// every connection and stop its bus listeners.
type Hub struct {
	o   Options
	log *slog.Logger

	mu     sync.RWMutex
	closed bool
	conns  map[*Conn]struct{}                // every open connection
	users  map[sparrow.ID]map[*Conn]struct{} // connections with a user stream, by account
	public map[*Conn]struct{}                // connections with a public stream

	ctx    context.Context // ends at Close; parent of the listeners
	cancel context.CancelFunc
	wg     sync.WaitGroup // listeners
}

// NewHub returns an empty hub.
func NewHub(o Options) *Hub {
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{o: o, log: log.With("component", "stream"), conns: map[*Conn]struct{}{},
		users: map[sparrow.ID]map[*Conn]struct{}{}, public: map[*Conn]struct{}{}, ctx: ctx, cancel: cancel}
}

// ErrClosed is returned by Connect and Subscribe after Close, and is the Err
// of the connections Close dropped.
var ErrClosed = sparrow.Errorf(sparrow.EUnavailable, "Streaming is unavailable")

// ErrSlowClient is the Err of a connection dropped because its buffer was full.
var ErrSlowClient = sparrow.Errorf(sparrow.EUnavailable, "Stream dropped: the client is too slow")

// Connect opens a connection for v, subscribed to streams at once (so that
// it is either fully subscribed or absent: Len never counts it half-open).
// The caller must Close it. It fails as Conn.Subscribe does for a bad
// stream, and with ErrClosed after Close.
func (h *Hub) Connect(v sparrow.Viewer, streams ...string) (*Conn, error) {
	c := &Conn{hub: h, viewer: v, ch: make(chan Message, h.o.Buffer), done: make(chan struct{}), streams: map[string]bool{}}
	for _, name := range streams {
		if err := c.check(name); err != nil {
			return nil, err
		}
		c.streams[name] = true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	h.conns[c] = struct{}{}
	h.index(c)
	return c, nil
}

// Len returns the number of open connections.
func (h *Hub) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.conns)
}

// Close drops every connection (their Err is ErrClosed), refuses new ones,
// and stops the listeners started by Listen, waiting for them to return. It
// is idempotent.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	conns := make([]*Conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	h.cancel()
	for _, c := range conns {
		c.close(ErrClosed)
	}
	h.wg.Wait()
}

// index updates the indexes for c's streams. h.mu must be held.
func (h *Hub) index(c *Conn) {
	var user, public bool
	for name := range c.streams {
		user = user || NeedsUser(name)
		public = public || isPublic(name)
	}
	id := c.viewer.AccountID
	if user {
		if h.users[id] == nil {
			h.users[id] = map[*Conn]struct{}{}
		}
		h.users[id][c] = struct{}{}
	} else if set := h.users[id]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(h.users, id)
		}
	}
	if public {
		h.public[c] = struct{}{}
	} else {
		delete(h.public, c)
	}
}

// remove forgets c.
func (h *Hub) remove(c *Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.conns, c)
	clear(c.streams)
	h.index(c)
}

// target is a connection and the streams on which it gets a message.
type target struct {
	conn    *Conn
	streams []string
}

// userTargets returns the connections with one of the streams in want, by
// account: of every account, or of only that account if only is not 0.
func (h *Hub) userTargets(only sparrow.ID, want ...string) map[sparrow.ID][]target {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := map[sparrow.ID][]target{}
	add := func(id sparrow.ID, set map[*Conn]struct{}) {
		for c := range set {
			if t := c.targetLocked(want); t != nil {
				out[id] = append(out[id], *t)
			}
		}
	}
	if only != 0 {
		add(only, h.users[only])
		return out
	}
	for id, set := range h.users {
		add(id, set)
	}
	return out
}

// publicTargets returns the connections with a public stream, by viewer
// account (0 for anonymous viewers).
func (h *Hub) publicTargets() map[sparrow.ID][]target {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := map[sparrow.ID][]target{}
	for c := range h.public {
		if t := c.targetLocked([]string{Public, PublicLocal}); t != nil {
			out[c.viewer.AccountID] = append(out[c.viewer.AccountID], *t)
		}
	}
	return out
}

// deliver sends m to each target, once per stream of the target.
func deliver(ts []target, m Message) {
	for _, t := range ts {
		for _, name := range t.streams {
			m.Stream = name
			t.conn.send(m)
		}
	}
}
