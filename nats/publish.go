package nats

import (
	"context"
	"encoding/json"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"sparrow"
)

// maxPendingPublishes bounds the publishes awaiting their acknowledgement on a
// Bus (all Publish calls together); a Publish that would exceed it waits for
// room, within its deadline.
const maxPendingPublishes = 8192

// Publish publishes events to the stream, pipelined, and returns once the
// server has durably stored every one of them (or dropped it as a duplicate:
// each message carries the event id as its Nats-Msg-Id, so republishing an
// event within Config.DupWindow is a no-op). The body of a message is the JSON
// encoding of the sparrow.Event, its subject Subject(e.Type).
//
// If any event is not acknowledged, Publish returns an EUnavailable error and
// the caller must retry the whole batch: some events may already be stored,
// and the dedupe window makes their second publication harmless. A ctx without
// deadline is bounded by Config.PublishTimeout.
func (b *Bus) Publish(ctx context.Context, events []sparrow.Event) error {
	if len(events) == 0 {
		return nil
	}
	if b.isClosed() {
		return errClosed
	}
	msgs := make([]*natsgo.Msg, len(events))
	for i, e := range events {
		if !validType(e.Type) {
			return sparrow.Errorf(sparrow.EInternal, "nats: event %v has an invalid type %q", e.ID, e.Type)
		}
		data, err := json.Marshal(e)
		if err != nil {
			return sparrow.WrapError(sparrow.EInternal, err, "nats: encode event %v", e.ID)
		}
		msgs[i] = &natsgo.Msg{Subject: b.Subject(e.Type), Data: data, Header: natsgo.Header{}}
	}

	ctx, cancel := withDefaultTimeout(ctx, b.cfg.PublishTimeout)
	defer cancel()
	stall := b.cfg.PublishTimeout
	if dl, ok := ctx.Deadline(); ok {
		stall = max(time.Until(dl), time.Millisecond)
	}
	acks := make([]jetstream.PubAckFuture, len(events))
	for i, m := range msgs {
		f, err := b.js.PublishMsgAsync(m,
			jetstream.WithMsgID(events[i].ID.String()),
			jetstream.WithExpectStream(b.cfg.Stream),
			jetstream.WithStallWait(stall),
		)
		if err != nil {
			return sparrow.WrapError(sparrow.EUnavailable, err, "nats: publish event %v", events[i].ID)
		}
		acks[i] = f
	}
	for i, f := range acks {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return sparrow.WrapError(sparrow.EUnavailable, err, "nats: publish event %v", events[i].ID)
		case <-ctx.Done():
			return sparrow.WrapError(sparrow.EUnavailable, ctx.Err(), "nats: publish event %v: no acknowledgement", events[i].ID)
		}
	}
	return nil
}
