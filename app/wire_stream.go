package app

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"sparrow"
	"sparrow/service"
	"sparrow/stream"
)

// Streaming API wiring (package stream, http/streaming.go). Open calls, in
// this order:
//
//   - streamNotifications around the notification store given to the
//     services, so that the notifications consumer announces what it stores;
//   - openStreams once the services exist, giving the hub to the HTTP server
//     (http.Server.Streams) and keeping it in App.streams;
//
// and Close closes App.streams first, before the HTTP server shuts down:
// streams never end by themselves, so they must be ended for Shutdown to
// finish (and WebSockets, hijacked, are not even waited for).

// streamNotifications returns store decorated with announcements on the
// bus's live feed (stream.Announcer, sparrow.LiveFeed): after
// AddNotifications succeeds, each notification is announced to the hub of
// whichever process the recipient is connected to. Reads pass through
// unchanged.
func (a *App) streamNotifications(store sparrow.NotificationStore) sparrow.NotificationStore {
	return stream.NewAnnouncer(store, a.Bus, a.Logger)
}

// openStreams builds this process's streaming hub over the services (the
// timelines' routing policy, service.StreamFilter, and the notification
// service), starts feeding it from the bus's live feed (named after the
// node; see nats.Bus.Listen), and
// registers the gauge sparrow_stream_connections. The caller closes the hub.
func (a *App) openStreams(ctx context.Context) (*stream.Hub, error) {
	hub := stream.NewHub(stream.Options{
		Policy:        service.NewStreamFilter(a.Services.Timelines),
		Notifications: a.Services.Notifications,
		Logger:        a.Logger,
	})
	if err := hub.Listen(ctx, a.Bus, fmt.Sprintf("stream-node%d", a.Config.Node)); err != nil {
		hub.Close()
		return nil, err
	}
	gauge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "sparrow_stream_connections",
		Help: "Streaming API connections open on this process.",
	}, func() float64 { return float64(hub.Len()) })
	if err := a.Registry.Register(gauge); err != nil {
		hub.Close()
		return nil, fmt.Errorf("stream metrics: %w", err)
	}
	return hub, nil
}
