package stream

import (
	"context"

	"sparrow"
)

// Listen feeds the hub from feed until Close: status events to HandleEvent,
// notification announcements to HandleNotification, one at a time per kind,
// in the feed's order (see sparrow.LiveFeed, and nats.Bus.Listen for the
// bus's). It returns once the feed delivers, so that what is published
// afterwards reaches the hub. Close stops the listener and waits for it.
// name identifies the listener in the feed (e.g. "stream-node3").
func (h *Hub) Listen(ctx context.Context, feed sparrow.LiveFeed, name string) error {
	if h.ctx.Err() != nil {
		return ErrClosed
	}
	done, err := feed.Listen(h.ctx, name,
		func(e sparrow.Event) { h.HandleEvent(h.ctx, e) },
		func(recipient, id sparrow.ID) { h.HandleNotification(h.ctx, recipient, id) })
	if err != nil {
		return err
	}
	h.wg.Go(func() { <-done })
	return nil
}
