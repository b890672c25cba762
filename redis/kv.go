package redis

import (
	"context"
	"errors"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"sparrow"
)

// KV is a sparrow.KV on Redis strings. It is safe for concurrent use. Get a
// KV from [Client.KV].
type KV struct {
	rdb    *goredis.Client
	prefix string
}

var _ sparrow.KV = (*KV)(nil)

// Get returns the value of key, or ok=false if it is absent or expired.
func (kv *KV) Get(ctx context.Context, key string) ([]byte, bool, error) {
	val, err := kv.rdb.Get(ctx, kv.prefix+key).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, wrap(err, "get %q", key)
	}
	if val == nil {
		val = []byte{}
	}
	return val, true, nil
}

// Set stores val under key for ttl (0: no expiry), replacing any previous
// value and expiry. Redis keeps expiries in milliseconds: ttl is rounded up
// to a whole millisecond. A negative ttl is a caller bug and yields
// an EInternal error.
func (kv *KV) Set(ctx context.Context, key string, val []byte, ttl time.Duration) error {
	if ttl < 0 {
		return sparrow.Errorf(sparrow.EInternal, "redis: negative ttl %v for key %q", ttl, key)
	}
	if ttl > 0 {
		ttl = ceilMillisecond(ttl)
	}
	return wrap(kv.rdb.Set(ctx, kv.prefix+key, val, ttl).Err(), "set %q", key)
}

// Delete removes keys in one command; absent keys are ignored.
func (kv *KV) Delete(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	full := make([]string, len(keys))
	for i, k := range keys {
		full[i] = kv.prefix + k
	}
	return wrap(kv.rdb.Del(ctx, full...).Err(), "delete %d keys", len(keys))
}

// ceilMillisecond rounds a positive d up to a whole millisecond, the
// resolution of Redis expiries.
func ceilMillisecond(d time.Duration) time.Duration {
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}
