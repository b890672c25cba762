package inmem

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"sparrow"
)

// FallbackLimiter is a sparrow.Limiter that counts in Primary (Redis, shared
// by every process) and, while Primary is unavailable, in Local (this
// process only): the limits still hold, per process, rather than every
// limited request failing with the shared store. Counts made in Local are
// not carried back to Primary. Each switch is logged once.
type FallbackLimiter struct {
	Primary sparrow.Limiter
	Local   sparrow.Limiter
	Log     *slog.Logger // nil: discard

	local atomic.Bool // the last call found Primary unavailable
}

var _ sparrow.Limiter = (*FallbackLimiter)(nil)

// pick runs op on Primary, or on Local if Primary is unavailable.
func (f *FallbackLimiter) pick(op func(sparrow.Limiter) error) error {
	err := op(f.Primary)
	if !sparrow.IsKind(err, sparrow.EUnavailable) {
		if err == nil && f.local.CompareAndSwap(true, false) {
			f.log().Info("rate limits shared again")
		}
		return err
	}
	if f.local.CompareAndSwap(false, true) {
		f.log().Warn("rate limits counted per process while the shared limiter is unavailable", "err", err)
	}
	return op(f.Local)
}

func (f *FallbackLimiter) log() *slog.Logger {
	if f.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return f.Log
}

// Hit adds one hit to key (see pick).
func (f *FallbackLimiter) Hit(ctx context.Context, key string, window time.Duration) (n int64, err error) {
	err = f.pick(func(l sparrow.Limiter) (err error) {
		n, err = l.Hit(ctx, key, window)
		return err
	})
	return n, err
}

// Count returns the hits of key (see pick).
func (f *FallbackLimiter) Count(ctx context.Context, key string) (n int64, reset time.Duration, err error) {
	err = f.pick(func(l sparrow.Limiter) (err error) {
		n, reset, err = l.Count(ctx, key)
		return err
	})
	return n, reset, err
}

// Reset forgets key (see pick).
func (f *FallbackLimiter) Reset(ctx context.Context, key string) error {
	return f.pick(func(l sparrow.Limiter) error { return l.Reset(ctx, key) })
}
