package app

import (
	"context"
	"fmt"

	"sparrow"
)

// consumer is one bus consumer: its durable name, the event types it takes
// and its handler (idempotent: delivery is at least once).
type consumer struct {
	name  string
	types []sparrow.EventType
	h     sparrow.Handler
}

// consumers is the table of every bus consumer of a server: adding one is a
// line here. Durable consumers are shared by every process (each event is
// handled once); the cache-invalidation consumer is per node when caches are
// per process, and shared with a shared Redis (the writer invalidates at
// once, best effort; the consumer retries until the cache answers).
func (a *App) consumers() []consumer {
	s, c := a.Services, a.Services.Consumers
	relcache := "relcache"
	if a.Config.RedisURL == "" {
		relcache = fmt.Sprintf("relcache-node%d", a.Config.Node)
	}
	types := func(t ...sparrow.EventType) []sparrow.EventType { return t }
	return []consumer{
		// The reverse tables, and what follows from a follow, block or request.
		{"follower-sync", types(sparrow.EvEdges), c.FollowerSync},
		// Account search terms.
		{"account-index", types(sparrow.EvAccountCreated, sparrow.EvAccountUpdated), c.AccountIndex},
		// Pending follow requests of an account just unlocked.
		{"follow-requests", types(sparrow.EvAccountUpdated), c.FollowRequestsOnUnlock},
		// Home inboxes and recent lists.
		{"feed-fanout", types(sparrow.EvStatusCreated, sparrow.EvStatusDeleted, sparrow.EvEdges), s.Feed.HandleFeedEvent},
		// Comment and repost relations and their counters.
		{"references", types(sparrow.EvStatusCreated, sparrow.EvStatusDeleted), s.Interactions.HandleReferences},
		// Mentions, replies, reblogs, favourites, follows and follow requests.
		{"notifications", types(sparrow.EvStatusCreated, sparrow.EvEdges), s.Notifications.Handle},
		// Tag, object and public feeds.
		{"keyed-feeds", types(sparrow.EvStatusCreated, sparrow.EvStatusDeleted), s.KeyedFeeds.Handle},
		// Cached following sets.
		{relcache, types(sparrow.EvEdges), c.CacheInvalidation},
	}
}

// subscribe starts every consumer of the table.
func (a *App) subscribe(ctx context.Context) error {
	for _, s := range a.consumers() {
		if err := a.Bus.Subscribe(ctx, s.name, s.types, s.h); err != nil {
			return fmt.Errorf("subscribe %s: %w", s.name, err)
		}
	}
	return nil
}
