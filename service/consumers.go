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

// FollowerSync maintains the reverse tables (Follower, blocked-by, follow
// requests by target) from the forward rows in EvEdges events (docs/seeds.md#seed-003's
// pseudo-replica), with their followers_count deltas; versions make replays
// and reordering harmless. Then, on each target's shard:
//   - a new block ends the blocked account's follow of the blocker and its
//     follow request (which emits its own event);
//   - a new follow request to an account that is no longer locked is
//     authorized at once (it was sent while the account was locked, or
//     crossed the unlock).
func (c *Consumers) FollowerSync(ctx context.Context, e sparrow.Event) error {
	if e.Type != sparrow.EvEdges {
		return nil
	}
	var p sparrow.EdgePayload
	if err := e.Decode(&p); err != nil {
		return err
	}
	if err := c.d.Relations.ApplyReverse(ctx, p.Edges, c.d.IDs.Next); err != nil {
		return err
	}
	for _, edge := range p.Edges {
		if !edge.Active {
			continue
		}
		var err error
		switch edge.Kind {
		case sparrow.Follow:
			if c.afterFollow != nil {
				err = c.afterFollow(ctx, edge.From, edge.To)
			}
		case sparrow.Block:
			_, err = setEdges(ctx, c.d, c.cache, edge.To,
				sparrow.EdgeChange{Kind: sparrow.Follow, To: edge.From, Active: false},
				sparrow.EdgeChange{Kind: sparrow.FollowRequest, To: edge.From, Active: false})
		case sparrow.FollowRequest:
			err = c.authorizeIfUnlocked(ctx, edge.From, edge.To)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// authorizeIfUnlocked authorizes requester's pending request to follow
// target if target is not locked (any more).
func (c *Consumers) authorizeIfUnlocked(ctx context.Context, requester, target sparrow.ID) error {
	acct, err := c.d.Accounts.Account(ctx, target)
	if sparrow.IsKind(err, sparrow.ENotFound) {
		return nil
	}
	if err != nil || acct.Locked {
		return err
	}
	if err := authorizeFollow(ctx, c.d, c.d.Relations, c.cache, requester, target); err != nil && !sparrow.IsKind(err, sparrow.ENotFound) {
		return err
	}
	return nil
}

// FollowRequestsOnUnlock authorizes every pending follow request of an
// account that has just been unlocked (account.updated with locked=false),
// as Mastodon does; requests still in flight are authorized by FollowerSync
// when they arrive. Idempotent: an authorized request is no longer pending.
func (c *Consumers) FollowRequestsOnUnlock(ctx context.Context, e sparrow.Event) error {
	if e.Type != sparrow.EvAccountUpdated {
		return nil
	}
	var u sparrow.AccountUpdate
	if err := e.Decode(&u); err != nil {
		return err
	}
	if u.Locked == nil || *u.Locked {
		return nil
	}
	p := sparrow.Page{Limit: fanoutChunk}
	for {
		edges, err := c.d.Relations.ListReverse(ctx, sparrow.FollowRequest, e.Subject, p)
		if err != nil {
			return err
		}
		for _, r := range edges {
			if err := c.authorizeIfUnlocked(ctx, r.From, e.Subject); err != nil {
				return err
			}
		}
		if len(edges) < p.Limit {
			return nil
		}
		p.MaxID = edges[len(edges)-1].EdgeID
	}
}

// CacheInvalidation drops cached following sets whose follows changed. The
// writing process drops them at once (best effort); this consumer is the
// guarantee: it retries until the cache answers, in every process that
// keeps its own cache, and once for a shared Redis. It also drops a set that
// a concurrent read filled with rows read before the write committed.
func (c *Consumers) CacheInvalidation(ctx context.Context, e sparrow.Event) error {
	if e.Type != sparrow.EvEdges {
		return nil
	}
	var p sparrow.EdgePayload
	if err := e.Decode(&p); err != nil {
		return err
	}
	for _, edge := range p.Edges {
		if edge.Kind == sparrow.Follow {
			return c.cache.Invalidate(ctx, edge.From) // every edge of an event has the same source
		}
	}
	return nil
}

// AccountIndex feeds account search (docs/seeds.md#seed-004: search fed through the MQ): it
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
