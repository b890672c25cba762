package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"sparrow"
	"sparrow/nats"
)

// announceQueue bounds the notification announcements waiting for the hub;
// past it the NATS client drops them (and logs a slow consumer).
const announceQueue = 4096

// Bounds of the pause before a status consumer is recreated.
const (
	minReopen = 100 * time.Millisecond
	maxReopen = 10 * time.Second
)

// Listen feeds the hub from bus until Close:
//
//   - Status events come from an ordered JetStream consumer of this process
//     alone: ephemeral, in memory, without acknowledgements, filtered on the
//     status subjects ("<root>.ev.status.>", one filter subject, as
//     nats-server 2.9 allows) and starting at new messages (DeliverNew), so
//     that a process never replays history to its clients. After a gap (a
//     missed heartbeat, a reconnection) the client library recreates it once,
//     resuming after the last event seen; if that fails, Listen recreates it
//     from new messages, retrying with backoff (what was published meanwhile
//     is not streamed: clients catch up through the REST timelines, as after
//     any reconnection). The server deletes a consumer left behind after five
//     minutes. Nothing is shared between processes: each sees every event,
//     and a durable consumer per node would keep a position nobody needs.
//     name prefixes the consumer's server-side name (e.g. "stream-node3"),
//     followed by a random suffix so that processes never share one.
//   - Notification announcements come from a core NATS subscription on
//     NotificationSubject(bus, "*") (see Announcer).
//
// It returns once both exist, so that events published afterwards reach the
// hub. Events are handled one at a time, in stream order. Close stops both
// promptly, except that a consumer being recreated by the client library
// during a NATS outage finishes its attempt first (at most its 10 s timeout).
func (h *Hub) Listen(ctx context.Context, bus *nats.Bus, name string) error {
	if h.ctx.Err() != nil {
		return ErrClosed
	}
	sl := &statusListener{hub: h, bus: bus, name: name,
		filter: strings.TrimSuffix(bus.Subject(sparrow.EvStatusCreated), string(sparrow.EvStatusCreated)) + "status.>"}
	it, err := sl.open(ctx)
	if err != nil {
		return err
	}
	announcements := make(chan *natsgo.Msg, announceQueue)
	sub, err := bus.Conn().ChanSubscribe(NotificationSubject(bus, "*"), announcements)
	if err != nil {
		it.Stop()
		return sparrow.WrapError(sparrow.EUnavailable, err, "stream: subscribe to notifications")
	}
	h.wg.Go(func() { sl.run(it) })
	h.wg.Go(func() {
		defer sub.Unsubscribe()
		h.pumpAnnouncements(announcements)
	})
	return nil
}

// statusListener is the ordered consumer of status events of Listen.
type statusListener struct {
	hub    *Hub
	bus    *nats.Bus
	name   string
	filter string
}

// open creates an ordered consumer of new status events and starts
// iterating over it.
func (sl *statusListener) open(ctx context.Context) (jetstream.MessagesContext, error) {
	cons, err := sl.bus.JetStream().OrderedConsumer(ctx, sl.bus.Stream(), jetstream.OrderedConsumerConfig{
		NamePrefix:     fmt.Sprintf("%s_%08x", sl.name, rand.Uint32()),
		FilterSubjects: []string{sl.filter},
		DeliverPolicy:  jetstream.DeliverNewPolicy,
		// One attempt per gap: Listen's loop retries, interruptibly.
		MaxResetAttempts: 1,
	})
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EUnavailable, err, "stream: consumer of %s", sl.filter)
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EUnavailable, err, "stream: consume %s", sl.filter)
	}
	return it, nil
}

// run hands the status events of it to HandleEvent until Close, recreating
// the consumer when it fails.
func (sl *statusListener) run(it jetstream.MessagesContext) {
	h := sl.hub
	// Only Stop interrupts an iterator that is recreating its consumer.
	stop := context.AfterFunc(h.ctx, it.Stop)
	defer func() {
		stop()
		it.Stop()
	}()
	wait := minReopen
	for {
		m, err := it.Next(jetstream.NextContext(h.ctx))
		if h.ctx.Err() != nil {
			return
		}
		if err == nil {
			wait = minReopen
			var e sparrow.Event
			if json.Unmarshal(m.Data(), &e) == nil {
				h.HandleEvent(h.ctx, e)
			}
			continue
		}
		h.log.Warn("stream: status events interrupted; recreating the consumer", "err", err, "retry_in", wait)
		stop()
		it.Stop()
		for {
			select {
			case <-h.ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, maxReopen)
			next, err := sl.open(h.ctx)
			if err == nil {
				it = next
				break
			}
			if h.ctx.Err() != nil {
				return
			}
			h.log.Warn("stream: status consumer not recreated", "err", err, "retry_in", wait)
		}
		stop = context.AfterFunc(h.ctx, it.Stop)
	}
}

// pumpAnnouncements hands the notification announcements to
// HandleNotification until Close.
func (h *Hub) pumpAnnouncements(ch <-chan *natsgo.Msg) {
	for {
		select {
		case <-h.ctx.Done():
			return
		case m := <-ch:
			recipient, id, ok := parseAnnouncement(m.Subject, m.Data)
			if ok {
				h.HandleNotification(h.ctx, recipient, id)
			}
		}
	}
}

// parseAnnouncement reads the recipient from the last token of subject and
// the notification id from data.
func parseAnnouncement(subject string, data []byte) (recipient, id sparrow.ID, ok bool) {
	r, err1 := strconv.ParseInt(subject[strings.LastIndexByte(subject, '.')+1:], 10, 64)
	n, err2 := strconv.ParseInt(string(data), 10, 64)
	if err1 != nil || err2 != nil || r <= 0 || n <= 0 {
		return 0, 0, false
	}
	return sparrow.ID(r), sparrow.ID(n), true
}
