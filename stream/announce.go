package stream

import (
	"context"
	"log/slog"

	"sparrow"
)

// Announcer is a sparrow.NotificationStore that announces the notifications
// it stores: after AddNotifications succeeds, it announces each one on the
// live feed, for the hubs of every process (Listen). Every other method is
// the wrapped store's. Announcements are best effort: a failed announcement
// is logged and AddNotifications still succeeds; a notification the store
// skipped as a duplicate is announced too (the hubs do not find it under the
// announced id, and skip it).
type Announcer struct {
	sparrow.NotificationStore
	Feed sparrow.LiveFeed
	// Logger receives failed announcements; nil discards them.
	Logger *slog.Logger
}

// NewAnnouncer returns store announcing on feed.
func NewAnnouncer(store sparrow.NotificationStore, feed sparrow.LiveFeed, log *slog.Logger) *Announcer {
	return &Announcer{NotificationStore: store, Feed: feed, Logger: log}
}

var _ sparrow.NotificationStore = (*Announcer)(nil)

// AddNotifications stores ns in the wrapped store, then announces them.
func (a *Announcer) AddNotifications(ctx context.Context, ns []sparrow.Notification) error {
	if err := a.NotificationStore.AddNotifications(ctx, ns); err != nil {
		return err
	}
	for _, n := range ns {
		if err := a.Feed.AnnounceNotification(n.Recipient, n.ID); err != nil && a.Logger != nil {
			a.Logger.Warn("stream: announce notification", "notification", n.ID, "err", err)
		}
	}
	return nil
}
