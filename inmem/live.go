package inmem

import (
	"context"
	"sync"

	"sparrow"
)

// liveQueue bounds what waits for one listener of a LiveFeed; past it,
// what is published is dropped for that listener (as NATS drops messages for
// a slow consumer).
const liveQueue = 4096

// LiveFeed is a sparrow.LiveFeed within one process: what PublishStatus and
// AnnounceNotification publish reaches the listeners of this value. It is
// safe for concurrent use; the zero value is not: use NewLiveFeed.
type LiveFeed struct {
	mu        sync.Mutex
	listeners map[*liveListener]struct{}
}

type liveListener struct {
	status chan sparrow.Event
	notes  chan [2]sparrow.ID
}

var _ sparrow.LiveFeed = (*LiveFeed)(nil)

// NewLiveFeed returns a feed without listeners.
func NewLiveFeed() *LiveFeed {
	return &LiveFeed{listeners: map[*liveListener]struct{}{}}
}

// PublishStatus hands a status event to every listener, without waiting.
func (f *LiveFeed) PublishStatus(e sparrow.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for l := range f.listeners {
		select {
		case l.status <- e:
		default:
		}
	}
}

// AnnounceNotification implements sparrow.LiveFeed, without waiting.
func (f *LiveFeed) AnnounceNotification(recipient, id sparrow.ID) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for l := range f.listeners {
		select {
		case l.notes <- [2]sparrow.ID{recipient, id}:
		default:
		}
	}
	return nil
}

// Listen implements sparrow.LiveFeed.
func (f *LiveFeed) Listen(ctx context.Context, _ string, onStatus func(sparrow.Event), onNotification func(recipient, id sparrow.ID)) (<-chan struct{}, error) {
	l := &liveListener{status: make(chan sparrow.Event, liveQueue), notes: make(chan [2]sparrow.ID, liveQueue)}
	f.mu.Lock()
	f.listeners[l] = struct{}{}
	f.mu.Unlock()
	var wg sync.WaitGroup
	wg.Go(func() { pump(ctx, l.status, onStatus) })
	wg.Go(func() { pump(ctx, l.notes, func(n [2]sparrow.ID) { onNotification(n[0], n[1]) }) })
	done := make(chan struct{})
	go func() {
		wg.Wait()
		f.mu.Lock()
		delete(f.listeners, l)
		f.mu.Unlock()
		close(done)
	}()
	return done, nil
}

// pump hands what arrives on ch to fn, one at a time, until ctx ends.
func pump[T any](ctx context.Context, ch <-chan T, fn func(T)) {
	for {
		select {
		case <-ctx.Done():
			return
		case v := <-ch:
			fn(v)
		}
	}
}
