package service

import (
	"context"
	"encoding/binary"
	"log/slog"
	"strconv"
	"time"

	"sparrow"
)

// FollowingCache caches the following sets of active users as sorted packed
// uids (8 bytes big-endian each): docs/seeds.md#seed-000's scheme 2, used deliberately as a
// cache. The rows of the Following table (scheme 1, covering indexes) stay the
// source of truth for everyone. It is backed by Redis when scaled out and
// in-process when embedded; entries expire, so only active users keep one.
type FollowingCache struct {
	kv    sparrow.KV
	store sparrow.RelationStore
	ttl   time.Duration
	log   *slog.Logger
}

// NewFollowingCache returns a cache over store in kv; log (nil: discard)
// receives failed invalidations.
func NewFollowingCache(kv sparrow.KV, store sparrow.RelationStore, ttl time.Duration, log *slog.Logger) *FollowingCache {
	if ttl <= 0 {
		ttl = 30 * time.Minute
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &FollowingCache{kv: kv, store: store, ttl: ttl, log: log}
}

func followingKey(id sparrow.ID) string { return "fset:" + strconv.FormatInt(int64(id), 10) }

// Following returns the ids id actively follows, ascending.
func (c *FollowingCache) Following(ctx context.Context, id sparrow.ID) ([]sparrow.ID, error) {
	if raw, ok, err := c.kv.Get(ctx, followingKey(id)); err == nil && ok && len(raw)%8 == 0 {
		out := make([]sparrow.ID, len(raw)/8)
		for i := range out {
			out[i] = sparrow.ID(binary.BigEndian.Uint64(raw[8*i:]))
		}
		return out, nil
	}
	ids, err := c.store.FollowingIDs(ctx, id)
	if err != nil {
		return nil, err
	}
	raw := make([]byte, 8*len(ids))
	for i, f := range ids {
		binary.BigEndian.PutUint64(raw[8*i:], uint64(f))
	}
	_ = c.kv.Set(ctx, followingKey(id), raw, c.ttl) // a cache: failures only cost latency
	return ids, nil
}

// invalidate drops the cached sets of ids at once, best effort: a failure is
// logged, and the bus consumer CacheInvalidation drops them when the write's
// event arrives. No privacy decision reads this cache (visibility.go), so a
// late invalidation only delays a change of which candidates a home page
// looks at.
func (c *FollowingCache) invalidate(ctx context.Context, ids ...sparrow.ID) {
	if err := c.Invalidate(ctx, ids...); err != nil {
		c.log.Warn("following cache: invalidation failed; the bus consumer retries it", "accounts", ids, "err", err)
	}
}

// Invalidate drops the cached set of id (after its follows change).
func (c *FollowingCache) Invalidate(ctx context.Context, ids ...sparrow.ID) error {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = followingKey(id)
	}
	return c.kv.Delete(ctx, keys...)
}
