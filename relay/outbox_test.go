package relay_test

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"sparrow"
)

// fakeOutbox is an in-memory sparrow.Outbox. Like a database, it fails the
// calls whose context has ended.
type fakeOutbox struct {
	name string

	mu     sync.Mutex
	events map[sparrow.ID]sparrow.Event
	leases map[string]lease
	denied map[string]int // refused lease requests by holder
}

type lease struct {
	holder string
	until  time.Time
}

var _ sparrow.Outbox = (*fakeOutbox)(nil)

func newOutbox(name string) *fakeOutbox {
	return &fakeOutbox{name: name, events: map[sparrow.ID]sparrow.Event{}, leases: map[string]lease{}, denied: map[string]int{}}
}

// add appends events, as a committed write would.
func (o *fakeOutbox) add(evs ...sparrow.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range evs {
		o.events[e.ID] = e
	}
}

// pending returns the number of unpublished events.
func (o *fakeOutbox) pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.events)
}

// deniedTo returns how many lease requests of holder were refused.
func (o *fakeOutbox) deniedTo(holder string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.denied[holder]
}

// holder returns the holder of the lease name, expired or not.
func (o *fakeOutbox) holder(name string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.leases[name].holder
}

func (o *fakeOutbox) Name() string { return o.name }

func (o *fakeOutbox) PendingEvents(ctx context.Context, limit int) ([]sparrow.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	ids := slices.Sorted(maps.Keys(o.events))
	if len(ids) > limit {
		ids = ids[:limit]
	}
	out := make([]sparrow.Event, len(ids))
	for i, id := range ids {
		out[i] = o.events[id]
	}
	return out, nil
}

func (o *fakeOutbox) MarkPublished(ctx context.Context, ids []sparrow.ID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, id := range ids {
		delete(o.events, id)
	}
	return nil
}

func (o *fakeOutbox) AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	l, ok := o.leases[name]
	if ok && l.holder != holder && !l.until.Before(now) {
		o.denied[holder]++
		return false, nil
	}
	o.leases[name] = lease{holder: holder, until: now.Add(ttl)}
	return true, nil
}

func (o *fakeOutbox) OldestPending(ctx context.Context) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var oldest time.Time
	for _, e := range o.events {
		if oldest.IsZero() || e.CreatedAt.Before(oldest) {
			oldest = e.CreatedAt
		}
	}
	return oldest, nil
}

// fakeClock is a sparrow.Clock that moves only when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
