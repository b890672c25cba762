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
	// Tag is the public statuses with a hashtag (case-insensitive).
	Tag(ctx context.Context, v Viewer, tag string, p Page) ([]*StatusView, error)
	// Public is the local public timeline.
	Public(ctx context.Context, v Viewer, p Page) ([]*StatusView, error)
	// Object is the statuses posted about an object ("book", "isbn-9787111").
	Object(ctx context.Context, v Viewer, objType, key string, p Page) ([]*StatusView, error)
}
