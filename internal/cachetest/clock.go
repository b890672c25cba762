package cachetest

import (
	"sync"
	"time"

	"sparrow"
)

// Clock is a fake sparrow.Clock that only moves when told. It is safe for
// concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

var _ sparrow.Clock = (*Clock)(nil)

// NewClock returns a Clock set to a fixed instant in 2030.
func NewClock() *Clock {
	return &Clock{now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// Now returns the current fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Advancer is implemented by a backend under test whose time the suite can
// move forward instead of sleeping.
type Advancer interface{ Advance(d time.Duration) }

// ClockedKV pairs a KV with the fake clock it reads; pass it to TestKV so that
// expiry tests advance Clock instead of sleeping.
type ClockedKV struct {
	sparrow.KV
	Clock *Clock
}

// Advance moves Clock forward by d.
func (c ClockedKV) Advance(d time.Duration) { c.Clock.Advance(d) }

// ClockedLimiter pairs a Limiter with the fake clock it reads; pass it to
// TestLimiter so that window tests advance Clock instead of sleeping.
type ClockedLimiter struct {
	sparrow.Limiter
	Clock *Clock
}

// Advance moves Clock forward by d.
func (c ClockedLimiter) Advance(d time.Duration) { c.Clock.Advance(d) }
