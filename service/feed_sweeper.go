package service

import (
	"context"
	"time"

	"sparrow"
)

// Sweep is docs/seeds.md#seed-000's scheduled job (定时任务), run periodically:
//   - users not seen for --active-days lose their inbox (they get no pushes
//     any more; their next home read rebuilds it by pull) and leave the
//     activity set;
//   - authors that have a recent list but are no longer hot (the counter
//     flusher keeps the hot flags with hysteresis) are cooled down: their
//     recent items are pushed to their active followers' inboxes, and only
//     then is the list dropped, so no reader misses a post in the transition.
//
// It returns how many inboxes it dropped and lists it retired.
func (f *Feed) Sweep(ctx context.Context) (dropped, cooled int, err error) {
	f.pruneTouched()
	for {
		var users []sparrow.ID
		if users, err = f.d.Activity.SeenBefore(ctx, f.activeSince(), fanoutChunk); err != nil {
			return dropped, cooled, err
		}
		if len(users) == 0 {
			break
		}
		if err = f.d.Inboxes.Drop(ctx, users...); err != nil {
			return dropped, cooled, err
		}
		if err = f.d.Activity.Forget(ctx, users...); err != nil {
			return dropped, cooled, err
		}
		for _, u := range users {
			f.touched.Delete(u)
		}
		dropped += len(users)
	}
	lists, err := f.d.Recent.Authors(ctx)
	if err != nil || len(lists) == 0 {
		return dropped, cooled, err
	}
	ids := make([]sparrow.ID, 0, len(lists))
	for id := range lists {
		ids = append(ids, id)
	}
	accs, err := f.d.Accounts.Accounts(ctx, ids)
	if err != nil {
		return dropped, cooled, err
	}
	for _, a := range accs {
		if a.Hot && f.c.FeedMode == ModeHybrid {
			continue
		}
		if err := f.cool(ctx, a.ID); err != nil {
			return dropped, cooled, err
		}
		cooled++
	}
	return dropped, cooled, nil
}

// cool pushes a former hot author's newest statuses to its active followers,
// then drops its list. The statuses come from the durable profile feed, not
// the capped list: posts trimmed from the list while the author was hot are
// needed too (each inbox ignores what lies below its floor).
func (f *Feed) cool(ctx context.Context, author sparrow.ID) error {
	items, err := f.d.Statuses.AuthorsFeed(ctx, []sparrow.ID{author}, sparrow.Page{Limit: f.c.InboxCap})
	if err != nil {
		return err
	}
	if len(items) > 0 {
		// Any public status stands for the author's followers: the read-time
		// policy still hides what a follower may not see (direct statuses).
		users, rerr := f.recipients(ctx, &sparrow.Status{AccountID: author, Visibility: sparrow.Public})
		if rerr != nil {
			return rerr
		}
		if err = f.pushTiered(ctx, users, items, items[0].ID.Time()); err != nil {
			return err
		}
	}
	if err = f.d.Recent.Delete(ctx, author); err != nil {
		return err
	}
	// The author may have turned hot again meanwhile (and a post of it gone
	// to the list just dropped): re-seed the list from its profile feed.
	a, err := f.d.Accounts.Account(ctx, author)
	if err != nil || !a.Hot || f.c.FeedMode != ModeHybrid {
		return err
	}
	return f.ensureRecentList(ctx, author)
}

// RunSweeper sweeps every interval until ctx ends.
func (f *Feed) RunSweeper(ctx context.Context, interval time.Duration, onError func(error)) {
	for {
		if _, _, err := f.Sweep(ctx); err != nil && ctx.Err() == nil && onError != nil {
			onError(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
