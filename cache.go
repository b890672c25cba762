package sparrow

import (
	"context"
	"time"
)

// Limiter counts hits per key in fixed windows, for rate limits (failed logins).
// It is backed by Redis when scaled out and in-process when embedded.
type Limiter interface {
	// Hit adds one hit to key and returns the count in the current window.
	Hit(ctx context.Context, key string, window time.Duration) (int64, error)
	// Count returns the hits of key in the current window and how long
	// until the window ends (0, 0 if none is open).
	Count(ctx context.Context, key string) (n int64, reset time.Duration, err error)
	// Reset forgets key.
	Reset(ctx context.Context, key string) error
}

// KV is a byte cache with expiry, for derived data that may be lost at any time.
type KV interface {
	// Get returns the value, or ok=false if absent or expired.
	Get(ctx context.Context, key string) (val []byte, ok bool, err error)
	// Set stores val under key for ttl (0 = no expiry).
	Set(ctx context.Context, key string, val []byte, ttl time.Duration) error
	// Delete removes the keys; absent keys are not an error.
	Delete(ctx context.Context, keys ...string) error
}
