package stream

import (
	"context"
	"log/slog"
	"strings"

	"sparrow"
	"sparrow/nats"
)

// NotificationSubject returns the core NATS subject on which the
// notifications of recipient (a decimal account id, or "*" for all) are
// announced: "<root>.stream.notification.<recipient>", where <root> is the
// first token of the bus's event subjects ("sparrow" for the default stream,
// whose events are "sparrow.ev.<type>"). It lies outside the JetStream
// stream's subjects, so announcements are never stored, and differs between
// streams, so deployments sharing a NATS server do not hear each other.
func NotificationSubject(bus *nats.Bus, recipient string) string {
	root := strings.TrimSuffix(bus.Subject("x"), ".ev.x")
	return root + ".stream.notification." + recipient
}

// Announcer is a sparrow.NotificationStore that announces the notifications
// it stores: after AddNotifications succeeds, it publishes each one's id
// (decimal) on Subject(recipient), for the hubs of every process (Listen).
// Every other method is the wrapped store's. Announcements are best effort:
// a failed publish is logged and AddNotifications still succeeds; a
// notification the store skipped as a duplicate is announced too (the hubs
// do not find it under the announced id, and skip it).
type Announcer struct {
	sparrow.NotificationStore
	// Publish sends data on subject without waiting (core NATS publish).
	Publish func(subject string, data []byte) error
	// Subject names the subject of a recipient's announcements.
	Subject func(recipient sparrow.ID) string
	// Logger receives failed publishes; nil discards them.
	Logger *slog.Logger
}

// NewAnnouncer returns store announcing on bus's core NATS connection.
func NewAnnouncer(store sparrow.NotificationStore, bus *nats.Bus, log *slog.Logger) *Announcer {
	return &Announcer{
		NotificationStore: store,
		Publish:           bus.Conn().Publish,
		Subject:           func(r sparrow.ID) string { return NotificationSubject(bus, r.String()) },
		Logger:            log,
	}
}

var _ sparrow.NotificationStore = (*Announcer)(nil)

// AddNotifications stores ns in the wrapped store, then announces them.
func (a *Announcer) AddNotifications(ctx context.Context, ns []sparrow.Notification) error {
	if err := a.NotificationStore.AddNotifications(ctx, ns); err != nil {
		return err
	}
	for _, n := range ns {
		if err := a.Publish(a.Subject(n.Recipient), []byte(n.ID.String())); err != nil && a.Logger != nil {
			a.Logger.Warn("stream: announce notification", "notification", n.ID, "err", err)
		}
	}
	return nil
}
