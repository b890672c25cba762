package inmem

import (
	"context"
	"time"

	"sparrow"
)

// Limiter is an in-process sparrow.Limiter counting hits per key in fixed
// windows: the first hit of a key opens a window of the duration passed to
// that hit, later hits only increment the count, and when the window ends the
// key is forgotten. It is safe for concurrent use and counts concurrent hits
// exactly. The context arguments are unused.
type Limiter struct {
	s *store[int64]
}

var _ sparrow.Limiter = (*Limiter)(nil)

// limiterEntrySize is the value size charged per key against MaxBytes.
const limiterEntrySize = 8

// NewLimiter returns a Limiter with no hits, configured by o.
func NewLimiter(o Options) *Limiter { return &Limiter{s: newStore[int64](o)} }

// Hit adds one hit to key and returns the count in the current window,
// opening a window of the given duration if none is open. A window that is
// not positive is a caller bug and yields an EInternal error.
func (l *Limiter) Hit(_ context.Context, key string, window time.Duration) (int64, error) {
	if window <= 0 {
		return 0, sparrow.Errorf(sparrow.EInternal, "inmem: non-positive window %v for key %q", window, key)
	}
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	now := l.s.clock.Now()
	e, ok := l.s.getLocked(key, now)
	if !ok {
		e = entry[int64]{expires: now.Add(window)}
	}
	e.val++
	l.s.putLocked(key, e, limiterEntrySize)
	return e.val, nil
}

// Count returns the hits of key in its current window and how long until
// the window ends (0, 0 if none is open).
func (l *Limiter) Count(_ context.Context, key string) (int64, time.Duration, error) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	now := l.s.clock.Now()
	e, ok := l.s.getLocked(key, now)
	if !ok {
		return 0, 0, nil
	}
	return e.val, e.expires.Sub(now), nil
}

// Reset forgets key, closing its window. It never fails.
func (l *Limiter) Reset(_ context.Context, key string) error {
	l.s.remove(key)
	return nil
}

// Len returns the number of keys held, including expired keys not yet dropped.
func (l *Limiter) Len() int { return l.s.len() }
