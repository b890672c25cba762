package sparrow

import "context"

// LiveFeed carries what the streaming API shows as it happens, to every
// process of a deployment: the status events (status.created, status.edited,
// status.deleted) and announcements that a notification was stored. It is a
// feed of the moment, not a log: what is published while a listener is away
// is not replayed (streaming clients catch up through the REST timelines, as
// after any reconnection). Package nats implements it on the bus; package
// inmem in process, for one process and for tests.
type LiveFeed interface {
	// Listen hands each status event published from now on to onStatus
	// and each announcement to onNotification, one at a time per kind, until
	// ctx ends; then done is closed once no callback runs. name identifies
	// the listener (in logs and server-side names). Listen returns once
	// both kinds are subscribed, so that what is published afterwards
	// reaches the callbacks.
	Listen(ctx context.Context, name string, onStatus func(Event), onNotification func(recipient, id ID)) (done <-chan struct{}, err error)
	// AnnounceNotification tells every listener that notification id of
	// recipient was stored. Best effort: it does not wait for listeners.
	AnnounceNotification(recipient, id ID) error
}
