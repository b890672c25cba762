package inmem

import (
	"context"
	"errors"
	"testing"
	"time"

	"sparrow"
)

// downLimiter fails every call as an unreachable Redis would, while down.
type downLimiter struct {
	*Limiter
	down bool
}

func (d *downLimiter) err() error {
	if d.down {
		return sparrow.WrapError(sparrow.EUnavailable, errors.New("dial tcp: connection refused"), "redis: down")
	}
	return nil
}

func (d *downLimiter) Hit(ctx context.Context, key string, w time.Duration) (int64, error) {
	if err := d.err(); err != nil {
		return 0, err
	}
	return d.Limiter.Hit(ctx, key, w)
}

func (d *downLimiter) Count(ctx context.Context, key string) (int64, time.Duration, error) {
	if err := d.err(); err != nil {
		return 0, 0, err
	}
	return d.Limiter.Count(ctx, key)
}

// TestFallbackLimiterCountsLocallyWhilePrimaryIsDown: hits while the primary
// is down are counted in the local limiter, so limits still hold; when the
// primary is back, it counts again.
func TestFallbackLimiterCountsLocallyWhilePrimaryIsDown(t *testing.T) {
	ctx := context.Background()
	primary := &downLimiter{Limiter: NewLimiter(Options{})}
	f := &FallbackLimiter{Primary: primary, Local: NewLimiter(Options{})}
	if n, err := f.Hit(ctx, "k", time.Minute); n != 1 || err != nil {
		t.Fatalf("hit on the primary: %d %v", n, err)
	}
	primary.down = true
	for want := int64(1); want <= 3; want++ {
		if n, err := f.Hit(ctx, "k", time.Minute); n != want || err != nil {
			t.Fatalf("hit while down: %d %v, want %d counted locally", n, err, want)
		}
	}
	if n, reset, err := f.Count(ctx, "k"); n != 3 || reset <= 0 || err != nil {
		t.Fatalf("count while down: %d %v %v", n, reset, err)
	}
	primary.down = false
	if n, _, err := f.Count(ctx, "k"); n != 1 || err != nil {
		t.Fatalf("count when back: %d %v, want the primary's 1", n, err)
	}
}
