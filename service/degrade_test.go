package service_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"sparrow"
	"sparrow/service"
)

// cacheTier makes the cache tier's stores fail as an unreachable Redis does
// while down is set.
type cacheTier struct{ down bool }

func (c *cacheTier) err() error {
	if c.down {
		return sparrow.WrapError(sparrow.EUnavailable, errors.New("dial tcp: connection refused"), "redis: down")
	}
	return nil
}

type downActivity struct {
	sparrow.Activity
	c *cacheTier
}

func (a downActivity) Touch(ctx context.Context, u sparrow.ID, at time.Time) error {
	if err := a.c.err(); err != nil {
		return err
	}
	return a.Activity.Touch(ctx, u, at)
}

func (a downActivity) LastSeen(ctx context.Context, us []sparrow.ID) (map[sparrow.ID]time.Time, error) {
	if err := a.c.err(); err != nil {
		return nil, err
	}
	return a.Activity.LastSeen(ctx, us)
}

func (a downActivity) SeenBefore(ctx context.Context, t time.Time, n int) ([]sparrow.ID, error) {
	if err := a.c.err(); err != nil {
		return nil, err
	}
	return a.Activity.SeenBefore(ctx, t, n)
}

type downInboxes struct {
	sparrow.InboxStore
	c *cacheTier
}

func (i downInboxes) Read(ctx context.Context, u sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, sparrow.InboxState, error) {
	if err := i.c.err(); err != nil {
		return nil, sparrow.InboxState{}, err
	}
	return i.InboxStore.Read(ctx, u, p)
}

// TestHomeIsPulledWhileTheCacheTierIsDown: with the cache tier (inboxes,
// activity marks) unavailable, home pages are answered by pull from the
// stores, complete, and the sweeper reports the failure instead of
// succeeding; when the tier is back, homes read their inboxes again.
func TestHomeIsPulledWhileTheCacheTierIsDown(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		tier := &cacheTier{}
		w := newWorldWith(t, service.ModeHybrid, 800, func(d *service.Deps) {
			d.Activity = downActivity{d.Activity, tier}
			d.Inboxes = downInboxes{d.Inboxes, tier}
		})
		reader, author := w.user("reader"), w.user("author")
		w.follow(reader, author)
		w.settle()
		w.home(reader, 20) // an inbox
		w.settle()
		var want []sparrow.ID
		for i := 0; i < 3; i++ {
			want = append(want, w.post(author, "before", sparrow.Public))
		}
		w.settle()

		tier.down = true
		want = append(want, w.post(author, "while the cache tier is down", sparrow.Public))
		slices.Reverse(want)
		if got := w.home(reader, 20); !slices.Equal(got[:len(want)], want) {
			t.Fatalf("home while the cache tier is down = %v, want %v first", got, want)
		}
		if _, _, err := w.svc.Feed.Sweep(context.Background()); !sparrow.IsKind(err, sparrow.EUnavailable) {
			t.Fatalf("Sweep with the cache tier down: %v, want its failure", err)
		}

		tier.down = false
		w.settle() // the fan-out of the post made meanwhile
		if got := w.home(reader, 20); !slices.Equal(got[:len(want)], want) {
			t.Fatalf("home when the cache tier is back = %v, want %v first", got, want)
		}
	})
}
