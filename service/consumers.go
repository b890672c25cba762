package service

import (
	"context"
	"time"

	"sparrow"
)

// Consumers are the bus handlers that keep derived relation data in step with
// the sources of truth. Every handler is idempotent: events arrive at least
// once and possibly out of order, and applying one twice changes nothing.
type Consumers struct {
	d     Deps
	cache *FollowingCache
	// afterFollow runs for every follow activation once its Follower row is
	// applied (the feed merges the followee's statuses into the inbox).
	afterFollow func(ctx context.Context, follower, followee sparrow.ID) error
}

// FollowerSync maintains the reverse tables (Follower, blocked-by) from the
// forward rows in EvEdges events (seed 003's pseudo-replica), with their
// followers_count deltas; versions make replays and reordering harmless. A new
// block also removes the blocked account's follow of the blocker, on the
// blocked account's own shard (which emits its own event).
func (c *Consumers) FollowerSync(ctx context.Context, e sparrow.Event) error {
	if e.Type != sparrow.EvEdges {
		return nil
	}
	var p sparrow.EdgePayload
	if err := e.Decode(&p); err != nil {
		return nil // not ours to fix: a malformed event is dropped, not retried forever
	}
	if err := c.d.Relations.ApplyReverse(ctx, p.Edges, c.d.IDs.Next); err != nil {
		return err
	}
	for _, edge := range p.Edges {
		if edge.Kind == sparrow.Follow && edge.Active && c.afterFollow != nil {
			if err := c.afterFollow(ctx, edge.From, edge.To); err != nil {
				return err
			}
		}
		if edge.Kind != sparrow.Block || !edge.Active {
			continue
		}
		now := c.d.Clock.Now().UTC()
		blocked := edge.To
		_, err := c.d.Relations.SetEdges(ctx, sparrow.Follow, blocked, []sparrow.EdgeChange{{To: edge.From, Active: false}}, now,
			func(edges []sparrow.Edge) []sparrow.Event {
				return []sparrow.Event{sparrow.NewEvent(c.d.IDs.Next(blocked.Shard()), sparrow.EvEdges, blocked, sparrow.EdgePayload{Edges: edges}, now)}
			})
		if err != nil {
			return err
		}
		_ = c.cache.Invalidate(ctx, blocked)
	}
	return nil
}

// CacheInvalidation drops cached following sets whose follows changed (other
// processes' writes; the writing process invalidates at once).
func (c *Consumers) CacheInvalidation(ctx context.Context, e sparrow.Event) error {
	if e.Type != sparrow.EvEdges {
		return nil
	}
	var p sparrow.EdgePayload
	if err := e.Decode(&p); err != nil {
		return nil
	}
	for _, edge := range p.Edges {
		if edge.Kind == sparrow.Follow {
			return c.cache.Invalidate(ctx, edge.From)
		}
	}
	return nil
}

// AccountIndex feeds account search (seed 004: search fed through the MQ): it
// re-reads the account and records its current terms. Old terms are left to
// be filtered at read time.
func (c *Consumers) AccountIndex(ctx context.Context, e sparrow.Event) error {
	if e.Type != sparrow.EvAccountCreated && e.Type != sparrow.EvAccountUpdated {
		return nil
	}
	a, err := c.d.Accounts.Account(ctx, e.Subject)
	if sparrow.IsKind(err, sparrow.ENotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.d.Relations.IndexAccountTerms(ctx, a.ID, accountTerms(a))
}

// CounterFlusher applies buffered counter deltas of every physical store
// periodically, and refreshes hot flags with hysteresis.
type CounterFlusher struct {
	Store    sparrow.CounterStore
	Stores   int           // number of physical stores
	Interval time.Duration // default 200ms
	Hot      int64         // hot threshold (default 10000); ordinary again below 90%
	Batch    int           // deltas per transaction (default 5000)
	OnError  func(error)
}

// Run flushes until ctx ends.
func (f *CounterFlusher) Run(ctx context.Context) {
	if f.Interval <= 0 {
		f.Interval = 200 * time.Millisecond
	}
	if f.Hot <= 0 {
		f.Hot = 10000
	}
	if f.Batch <= 0 {
		f.Batch = 5000
	}
	cold := f.Hot * 9 / 10
	for {
		for i := 0; i < f.Stores; i++ {
			for ctx.Err() == nil {
				n, err := f.Store.FlushCounters(ctx, i, f.Batch, f.Hot, cold)
				if err != nil && ctx.Err() == nil && f.OnError != nil {
					f.OnError(err)
				}
				if err != nil || n < f.Batch {
					break
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(f.Interval):
		}
	}
}
