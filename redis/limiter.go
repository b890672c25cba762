package redis

import (
	"context"
	"errors"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"sparrow"
)

// hitScript increments KEYS[1] and, if it has no expiry (it was just
// created), gives it one of ARGV[1] milliseconds: INCR then PEXPIRE NX, run
// atomically, so that no key is ever left counting without a window and
// later hits never extend the window. It returns the new count.
var hitScript = goredis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) == -1 then
	redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return n
`)

// Limiter is a sparrow.Limiter on Redis counters with fixed windows: the
// first hit of a key opens a window of the duration passed to that hit
// (rounded up to a whole millisecond), later hits only increment the count, and
// Redis drops the key when the window ends. Hits from any number of processes
// sharing the server and prefix are counted exactly. Get a Limiter from
// [Client.Limiter].
type Limiter struct {
	rdb    *goredis.Client
	prefix string
}

var _ sparrow.Limiter = (*Limiter)(nil)

// Hit adds one hit to key and returns the count in the current window,
// opening a window if none is open. A window that is not positive is a
// caller bug and yields an EInternal error.
func (l *Limiter) Hit(ctx context.Context, key string, window time.Duration) (int64, error) {
	if window <= 0 {
		return 0, sparrow.Errorf(sparrow.EInternal, "redis: non-positive window %v for key %q", window, key)
	}
	ms := ceilMillisecond(window).Milliseconds()
	n, err := hitScript.Run(ctx, l.rdb, []string{l.prefix + key}, ms).Int64()
	if err != nil {
		return 0, wrap(err, "hit %q", key)
	}
	return n, nil
}

// Count returns the hits of key in its current window and how long until
// the window ends (0, 0 if none is open), in one round trip.
func (l *Limiter) Count(ctx context.Context, key string) (int64, time.Duration, error) {
	var get *goredis.StringCmd
	var ttl *goredis.DurationCmd
	_, err := l.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		get, ttl = p.Get(ctx, l.prefix+key), p.PTTL(ctx, l.prefix+key)
		return nil
	})
	if errors.Is(err, goredis.Nil) || errors.Is(get.Err(), goredis.Nil) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, wrap(err, "count %q", key)
	}
	n, err := strconv.ParseInt(get.Val(), 10, 64)
	if err != nil {
		return 0, 0, sparrow.WrapError(sparrow.EInternal, err, "redis: count %q: not a counter", key)
	}
	return n, max(ttl.Val(), 0), nil
}

// Reset forgets key, closing its window.
func (l *Limiter) Reset(ctx context.Context, key string) error {
	return wrap(l.rdb.Del(ctx, l.prefix+key).Err(), "reset %q", key)
}
