package service

import (
	"context"
	"time"

	"sparrow"
)

// touchEvery is how often a user's last-seen mark is written at most, so that
// reads do not become writes.
const touchEvery = 5 * time.Minute

// Touch marks user as seen now, at most once every touchEvery per process
// (every authenticated request calls it; see touch for what it does). An
// unavailable cache tier is not an error (see cacheTier): the mark is
// derived data, and the user's next home read, which touches again, finds
// its inbox rebuilt by pull.
func (f *Feed) Touch(ctx context.Context, user sparrow.ID) error {
	if user == 0 {
		return nil
	}
	if last, ok := f.touched.Load(user); ok && f.now().Unix()-last.(int64) < int64(touchEvery/time.Second) {
		return nil
	}
	return f.cacheTier(f.touch(ctx, user))
}

// touch reads user's last-seen mark and moves it to now if it is older than
// touchEvery. A user who returns after being inactive, or whose mark is gone
// (a lost cache), has received no pushes meanwhile, so their inbox is dropped
// first: their next home read rebuilds it by pull. Home calls touch on every
// read, unthrottled, so that an inbox is never used while its owner's mark is
// missing (the fan-out would skip them).
func (f *Feed) touch(ctx context.Context, user sparrow.ID) error {
	now := f.now()
	seen, err := f.d.Activity.LastSeen(ctx, []sparrow.ID{user})
	if err != nil {
		return err
	}
	prev, ok := seen[user]
	if !ok || prev.Before(f.activeSince()) {
		if err := f.d.Inboxes.Drop(ctx, user); err != nil {
			return err
		}
	}
	if !ok || now.Sub(prev) >= touchEvery {
		if err := f.d.Activity.Touch(ctx, user, now); err != nil {
			return err
		}
	}
	f.touched.Store(user, now.Unix())
	return nil
}

// pruneTouched forgets throttle entries older than touchEvery.
func (f *Feed) pruneTouched() {
	cut := f.now().Add(-touchEvery).Unix()
	f.touched.Range(func(k, v any) bool {
		if v.(int64) < cut {
			f.touched.Delete(k)
		}
		return true
	})
}
