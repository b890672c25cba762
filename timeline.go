package sparrow

import "context"

// KeyedFeedStore holds docs/seeds.md#seed-002's per-purpose feeds that are keyed by
// something other than a user: tag feeds ("tag:<name>"), object feeds
// ("obj:<type>:<key>") and the public feed, kept in time buckets
// ("pub:<YYYYMMDD>"). Each feed key lives on the shard of its hash, so a read
// touches one shard per key (never a scan of all shards).
type KeyedFeedStore interface {
	// AddToFeeds adds item to each feed key (idempotent).
	AddToFeeds(ctx context.Context, keys []string, item FeedItem) error
	// RemoveFromFeeds removes status id from each feed key.
	RemoveFromFeeds(ctx context.Context, keys []string, id ID) error
	// ReadFeed pages one feed key, newest first.
	ReadFeed(ctx context.Context, key string, p Page) ([]FeedItem, error)
}

// TimelineService reads the feeds of docs/seeds.md#seed-002 as Mastodon timelines. Every
// page is filtered by the routing policies (visibility, blocks, mutes) and is
// never empty while older visible items exist.
type TimelineService interface {
	// Home is v's home feed (hybrid push/pull, see the feed service).
	Home(ctx context.Context, v Viewer, p Page) ([]*StatusView, error)
	// Keyed is a page of the keyed feed named feed (tag, object, public, and
	// any other registered kind) under key: the public statuses with a
	// hashtag ("tag", key the tag, case-insensitive), the statuses posted
	// about an object ("object", key "type:key"), the local public timeline
	// ("public", key ""). An unknown feed or a key it cannot have is
	// ENotFound.
	Keyed(ctx context.Context, v Viewer, feed, key string, p Page) ([]*StatusView, error)
}
