package service

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"sparrow"
)

// Feed modes (--feed-mode): the same workload measured three ways.
const (
	ModeHybrid = "hybrid" // push to active followers of ordinary authors, pull hot authors at read
	ModePush   = "push"   // push every status to every active follower, hot authors included
	ModePull   = "pull"   // nothing pushed: author IN (followings) merged at read
)

// FeedObserver receives the feed's measurements (wired to Prometheus).
type FeedObserver interface {
	// Delivered reports n inbox insertions of one status, lag after it was posted.
	Delivered(n int, lag time.Duration)
	// Rebuilt reports an inbox rebuilt by pull for a returning or new reader.
	Rebuilt(d time.Duration)
}

type noObserver struct{}

func (noObserver) Delivered(int, time.Duration) {}
func (noObserver) Rebuilt(time.Duration)        {}

// Feed is the home feed (docs/architecture.md, "The home read path"): docs/seeds.md#seed-000's
// hybrid (push for ordinary authors to active followers, pull for hot authors
// at read, rebuild by pull for returning users), docs/seeds.md#seed-001's per-user index
// with tiered fan-out, and docs/seeds.md#seed-002's routing policies.
type Feed struct {
	d        Deps
	c        Config
	statuses *Statuses
	cache    *FollowingCache
	Observer FeedObserver

	touched   sync.Map    // user → unix seconds of the last recorded touch (throttle)
	cacheDown atomic.Bool // the cache tier failed last time it was asked (see cacheTier)
	rebuilds  *rebuilds   // background inbox rebuilds
}

func (f *Feed) now() time.Time { return f.d.Clock.Now().UTC() }

func (f *Feed) activeSince() time.Time {
	return f.now().Add(-time.Duration(f.c.ActiveDays) * 24 * time.Hour)
}

// following returns who v's home shows: v's followings and v itself, ascending.
func (f *Feed) following(ctx context.Context, user sparrow.ID) ([]sparrow.ID, error) {
	ids, err := f.cache.Following(ctx, user)
	if err != nil {
		return nil, err
	}
	out := make([]sparrow.ID, 0, len(ids)+1)
	out = append(out, ids...)
	if i, found := slices.BinarySearch(out, user); !found {
		out = slices.Insert(out, i, user)
	}
	return out, nil
}

// Wait waits for the background inbox rebuilds under way (tests).
func (f *Feed) Wait() { f.rebuilds.wait() }

// Close cancels the background inbox rebuilds and waits for them; the
// feed starts no more.
func (f *Feed) Close() { f.rebuilds.close() }
