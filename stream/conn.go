package stream

import (
	"slices"
	"sync"

	"sparrow"
)

// Conn is one client connection to a Hub: a viewer, the streams it is
// subscribed to, and its queue of messages. Its methods are safe for
// concurrent use. The connection ends when the client leaves (Close), when
// it falls too far behind (ErrSlowClient) or when the hub closes
// (ErrClosed); Done is closed then.
type Conn struct {
	hub    *Hub
	viewer sparrow.Viewer
	ch     chan Message
	// streams is guarded by hub.mu (the hub's indexes follow it).
	streams map[string]bool

	mu     sync.Mutex
	closed bool
	err    error
	done   chan struct{}
}

// Viewer returns the viewer the connection was opened for.
func (c *Conn) Viewer() sparrow.Viewer { return c.viewer }

// Messages returns the queue of messages, oldest first. It is never closed:
// select on Done too.
func (c *Conn) Messages() <-chan Message { return c.ch }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended: nil while it is open or if it was
// closed by Close, ErrSlowClient or ErrClosed otherwise.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Subscribe adds stream name to the connection (a no-op if it has it). It
// fails with EBadRequest for an unknown stream, EUnauthorized for a user
// stream without a signed-in viewer, and ErrClosed once the connection or
// the hub has ended. Scopes are the caller's business.
func (c *Conn) Subscribe(name string) error {
	if err := c.check(name); err != nil {
		return err
	}
	h := c.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, open := h.conns[c]; !open {
		return ErrClosed
	}
	c.streams[name] = true
	h.index(c)
	return nil
}

// check validates stream name for c's viewer.
func (c *Conn) check(name string) error {
	if !Known(name) {
		return sparrow.Errorf(sparrow.EBadRequest, "Unknown stream type")
	}
	if NeedsUser(name) && c.viewer.Anonymous() {
		return sparrow.Errorf(sparrow.EUnauthorized, "Missing access token")
	}
	return nil
}

// Unsubscribe removes stream name from the connection; absent is not an
// error. Messages already queued stay queued.
func (c *Conn) Unsubscribe(name string) {
	h := c.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, open := h.conns[c]; !open || !c.streams[name] {
		return
	}
	delete(c.streams, name)
	h.index(c)
}

// Streams returns the streams the connection is subscribed to, sorted.
func (c *Conn) Streams() []string {
	c.hub.mu.RLock()
	defer c.hub.mu.RUnlock()
	out := make([]string, 0, len(c.streams))
	for name := range c.streams {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Close ends the connection and removes it from the hub. It is idempotent.
func (c *Conn) Close() { c.close(nil) }

// close ends the connection with err (nil: closed by its owner), if it is
// still open.
func (c *Conn) close(err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed, c.err = true, err
	close(c.done)
	c.mu.Unlock()
	c.hub.remove(c)
}

// send queues m without ever waiting: if the queue is full, the connection
// is dropped with ErrSlowClient.
func (c *Conn) send(m Message) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	select {
	case c.ch <- m:
		c.mu.Unlock()
		return
	default:
	}
	c.mu.Unlock()
	c.hub.log.Info("stream: dropping a slow client", "account", c.viewer.AccountID, "queued", cap(c.ch))
	c.close(ErrSlowClient)
}

// targetLocked returns c as a target for the streams among want that it is
// subscribed to, or nil if none. hub.mu must be held.
func (c *Conn) targetLocked(want []string) *target {
	var names []string
	for _, name := range want {
		if c.streams[name] {
			names = append(names, name)
		}
	}
	if names == nil {
		return nil
	}
	return &target{conn: c, streams: names}
}
