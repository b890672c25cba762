package nats

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"sparrow"
)

var _ sparrow.LiveFeed = (*Bus)(nil)

// announceQueue bounds the notification announcements waiting for a
// listener; past it the NATS client drops them (and logs a slow consumer).
const announceQueue = 4096

// Bounds of the pause before a status consumer is recreated.
const (
	minReopen = 100 * time.Millisecond
	maxReopen = 10 * time.Second
)

// NotificationSubject returns the core NATS subject on which the
// notifications of recipient (a decimal account id, or "*" for all) are
// announced: "<root>.stream.notification.<recipient>", where <root> is the
// first token of the bus's event subjects ("sparrow" for the default stream,
// whose events are "sparrow.ev.<type>"). It lies outside the JetStream
// stream's subjects, so announcements are never stored, and differs between
// streams, so deployments sharing a NATS server do not hear each other.
func (b *Bus) NotificationSubject(recipient string) string {
	root := strings.TrimSuffix(b.prefix, ".ev")
	return root + ".stream.notification." + recipient
}

// AnnounceNotification publishes id on NotificationSubject(recipient), a
// core NATS publish that does not wait.
func (b *Bus) AnnounceNotification(recipient, id sparrow.ID) error {
	if err := b.nc.Publish(b.NotificationSubject(recipient.String()), []byte(id.String())); err != nil {
		return sparrow.WrapError(sparrow.EUnavailable, err, "nats: announce notification")
	}
	return nil
}

// Listen implements sparrow.LiveFeed:
//
//   - Status events come from an ordered JetStream consumer of this process
//     alone: ephemeral, in memory, without acknowledgements, filtered on the
//     status subjects ("<root>.ev.status.>", one filter subject, as
//     nats-server 2.9 allows) and starting at new messages (DeliverNew), so
//     that a process never replays history to its clients. After a gap (a
//     missed heartbeat, a reconnection) the client library recreates it once,
//     resuming after the last event seen; if that fails, Listen recreates it
//     from new messages, retrying with backoff (what was published meanwhile
//     is not delivered). The server deletes a consumer left behind after five
//     minutes. Nothing is shared between processes: each sees every event,
//     and a durable consumer per node would keep a position nobody needs.
//     name prefixes the consumer's server-side name (e.g. "stream-node3"),
//     followed by a random suffix so that processes never share one.
//   - Announcements come from a core NATS subscription on
//     NotificationSubject("*").
//
// Events that do not decode are skipped. When ctx ends both stop promptly,
// except that a consumer being recreated by the client library during a
// NATS outage finishes its attempt first (at most its 10 s timeout).
func (b *Bus) Listen(ctx context.Context, name string, onStatus func(sparrow.Event), onNotification func(recipient, id sparrow.ID)) (<-chan struct{}, error) {
	sl := &statusListener{bus: b, name: name, filter: b.prefix + ".status.>"}
	it, err := sl.open(ctx)
	if err != nil {
		return nil, err
	}
	announcements := make(chan *natsgo.Msg, announceQueue)
	sub, err := b.nc.ChanSubscribe(b.NotificationSubject("*"), announcements)
	if err != nil {
		it.Stop()
		return nil, sparrow.WrapError(sparrow.EUnavailable, err, "nats: subscribe to notification announcements")
	}
	var wg sync.WaitGroup
	wg.Go(func() { sl.run(ctx, it, onStatus) })
	wg.Go(func() {
		defer sub.Unsubscribe()
		pumpAnnouncements(ctx, announcements, onNotification)
	})
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done, nil
}

// statusListener is the ordered consumer of status events of Listen.
type statusListener struct {
	bus    *Bus
	name   string
	filter string
}

// open creates an ordered consumer of new status events and starts
// iterating over it.
func (sl *statusListener) open(ctx context.Context) (jetstream.MessagesContext, error) {
	cons, err := sl.bus.js.OrderedConsumer(ctx, sl.bus.cfg.Stream, jetstream.OrderedConsumerConfig{
		NamePrefix:     fmt.Sprintf("%s_%08x", sl.name, rand.Uint32()),
		FilterSubjects: []string{sl.filter},
		DeliverPolicy:  jetstream.DeliverNewPolicy,
		// One attempt per gap: run's loop retries, interruptibly.
		MaxResetAttempts: 1,
	})
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EUnavailable, err, "nats: consumer of %s", sl.filter)
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EUnavailable, err, "nats: consume %s", sl.filter)
	}
	return it, nil
}

// run hands the status events of it to onStatus until ctx ends, recreating
// the consumer when it fails.
func (sl *statusListener) run(ctx context.Context, it jetstream.MessagesContext, onStatus func(sparrow.Event)) {
	log := sl.bus.log
	// Only Stop interrupts an iterator that is recreating its consumer.
	stop := context.AfterFunc(ctx, it.Stop)
	defer func() {
		stop()
		it.Stop()
	}()
	wait := minReopen
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			wait = minReopen
			var e sparrow.Event
			if json.Unmarshal(m.Data(), &e) == nil {
				onStatus(e)
			}
			continue
		}
		log.Warn("live feed: status events interrupted; recreating the consumer", "err", err, "retry_in", wait)
		stop()
		it.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, maxReopen)
			next, err := sl.open(ctx)
			if err == nil {
				it = next
				break
			}
			if ctx.Err() != nil {
				return
			}
			log.Warn("live feed: status consumer not recreated", "err", err, "retry_in", wait)
		}
		stop = context.AfterFunc(ctx, it.Stop)
	}
}

// pumpAnnouncements hands the announcements of ch to onNotification until
// ctx ends.
func pumpAnnouncements(ctx context.Context, ch <-chan *natsgo.Msg, onNotification func(recipient, id sparrow.ID)) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-ch:
			if recipient, id, ok := parseAnnouncement(m.Subject, m.Data); ok {
				onNotification(recipient, id)
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
