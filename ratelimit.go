package sparrow

import (
	"context"
	"sync"
	"time"
)

// RateLimit is what a rate-limited request learns of its limits, for
// Mastodon's X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset
// headers: of the limits that apply to it, the one closest to refusing it.
// The HTTP layer puts one in the context of the routes it limits
// (WithRateLimit); services note their limits in it (NoteRateLimit).
type RateLimit struct {
	mu               sync.Mutex
	set              bool
	Limit, Remaining int64
	Reset            time.Time
}

type rateLimitKey struct{}

// WithRateLimit returns ctx carrying a RateLimit for the limits noted in it.
func WithRateLimit(ctx context.Context) (context.Context, *RateLimit) {
	rl := &RateLimit{}
	return context.WithValue(ctx, rateLimitKey{}, rl), rl
}

// NoteRateLimit notes a limit that applies to ctx's request: limit requests
// per window, remaining of them (never below 0), the window ending at
// reset. Of several, the one with the fewest remaining is kept.
func NoteRateLimit(ctx context.Context, limit, remaining int64, reset time.Time) {
	rl, _ := ctx.Value(rateLimitKey{}).(*RateLimit)
	if rl == nil {
		return
	}
	remaining = max(remaining, 0)
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if !rl.set || remaining < rl.Remaining {
		rl.set, rl.Limit, rl.Remaining, rl.Reset = true, limit, remaining, reset
	}
}

// Get returns the limit noted, and false if none was.
func (rl *RateLimit) Get() (limit, remaining int64, reset time.Time, ok bool) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.Limit, rl.Remaining, rl.Reset, rl.set
}
