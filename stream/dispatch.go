package stream

import (
	"context"
	"sync"

	"sparrow"
)

// eventNames maps the status event types to the message events.
var eventNames = map[sparrow.EventType]string{
	sparrow.EvStatusCreated: EventUpdate,
	sparrow.EvStatusEdited:  EventStatusUpdate,
	sparrow.EvStatusDeleted: EventDelete,
}

// HandleEvent delivers a status event to the connections it concerns:
//   - status.created (update) and status.edited (status.update): each
//     account with a user stream here gets the status if Policy.Home admits
//     it for that account; each viewer of a public stream here gets it if
//     Policy.Public admits it for that viewer;
//   - status.deleted (delete, with the status id): the user streams of the
//     accounts for which Policy.InHome holds of its author, and every public
//     stream if Policy.OnPublic held of it.
//
// One decision is made per account (not per connection), up to
// Options.Workers at a time, all within Options.Timeout; the messages of one
// event are queued before HandleEvent returns, so each connection gets events
// in the order they are handled. A decision that fails is logged and that
// account misses the event. Other event types and malformed payloads are
// ignored. It always returns nil (a sparrow.Handler: nothing is redelivered).
func (h *Hub) HandleEvent(ctx context.Context, e sparrow.Event) error {
	name, ok := eventNames[e.Type]
	if !ok {
		return nil
	}
	var p sparrow.StatusPayload
	if err := e.Decode(&p); err != nil || p.Status == nil {
		return nil
	}
	s := p.Status
	users, public := h.userTargets(0, User), h.publicTargets()
	if len(users) == 0 && len(public) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, h.o.Timeout)
	defer cancel()
	g := newGroup(h.o.Workers)
	defer g.wait()
	if e.Type == sparrow.EvStatusDeleted {
		m := Message{Event: EventDelete, StatusID: s.ID}
		for id, ts := range users {
			g.do(func() {
				if ok, err := h.o.Policy.InHome(ctx, id, s.AccountID); h.failed(err, e, id) == nil && ok {
					deliver(ts, m)
				}
			})
		}
		if h.o.Policy.OnPublic(s) {
			for _, ts := range public {
				deliver(ts, m)
			}
		}
		return nil
	}
	decide := func(ts []target, v sparrow.Viewer, admit func(context.Context, sparrow.Viewer, *sparrow.Status) (*sparrow.StatusView, error)) {
		g.do(func() {
			if sv, err := admit(ctx, v, s); h.failed(err, e, v.AccountID) == nil && sv != nil {
				deliver(ts, Message{Event: name, Status: sv})
			}
		})
	}
	for id, ts := range users {
		decide(ts, sparrow.Viewer{AccountID: id}, h.o.Policy.Home)
	}
	for id, ts := range public {
		decide(ts, sparrow.Viewer{AccountID: id}, h.o.Policy.Public)
	}
	return nil
}

// HandleNotification delivers notification id of recipient to recipient's
// user and user:notification streams here, if it has any: the notification
// is loaded through Options.Notifications, so that it is filtered as the
// REST API filters it. A notification that is not found (an announcement of
// a replayed duplicate, or one dismissed or hidden since) is skipped.
func (h *Hub) HandleNotification(ctx context.Context, recipient, id sparrow.ID) {
	ts := h.userTargets(recipient, User, UserNotification)[recipient]
	if len(ts) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, h.o.Timeout)
	defer cancel()
	nv, err := h.o.Notifications.Get(ctx, sparrow.Viewer{AccountID: recipient}, id)
	if sparrow.IsKind(err, sparrow.ENotFound) {
		return
	}
	if err != nil {
		h.log.Warn("stream: load notification", "notification", id, "account", recipient, "err", err)
		return
	}
	deliver(ts, Message{Event: EventNotification, Notification: nv})
}

// failed logs a failed decision and returns err.
func (h *Hub) failed(err error, e sparrow.Event, account sparrow.ID) error {
	if err != nil && h.ctx.Err() == nil {
		h.log.Warn("stream: policy decision failed", "event", e.ID, "type", e.Type, "account", account, "err", err)
	}
	return err
}

// group runs functions concurrently, at most n at a time.
type group struct {
	sem chan struct{}
	wg  sync.WaitGroup
}

func newGroup(n int) *group { return &group{sem: make(chan struct{}, n)} }

func (g *group) do(f func()) {
	g.sem <- struct{}{}
	g.wg.Go(func() {
		defer func() { <-g.sem }()
		f()
	})
}

func (g *group) wait() { g.wg.Wait() }
