package service

import (
	"context"
	"slices"
	"time"

	"sparrow"
)

// maxPageRounds bounds how many times a page is extended after filtering
// removed items, so that one request's work stays bounded.
const maxPageRounds = 8

// Home implements Timelines.Home.
func (f *Feed) Home(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]*sparrow.StatusView, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	p = p.Normalize(sparrow.MaxLimit)
	// The inbox and the activity marks are derived data in the cache tier:
	// while it does not answer, the page is pulled from the stores.
	collect := f.collect
	if err := f.cacheTier(f.touch(ctx, v.AccountID)); err != nil {
		return nil, err
	} else if f.cacheDown.Load() {
		collect = f.pullOnly
	}
	follows, err := f.following(ctx, v.AccountID)
	if err != nil {
		return nil, err
	}
	if f.c.FeedMode != ModePull && !f.cacheDown.Load() {
		if err := f.cacheTier(f.ensureInbox(ctx, v.AccountID, follows)); err != nil {
			return nil, err
		}
	}
	return f.page(ctx, v, follows, p, collect)
}

// cacheTier watches the errors of the cache tier (inboxes, recent lists,
// activity marks): an unavailable cache tier is noted (cacheDown, logged
// once when it goes and once when it comes back) and not an error, since
// what it holds is derived data that the stores can answer for; any other
// error is returned. A nil error notes the cache tier as up.
func (f *Feed) cacheTier(err error) error {
	switch {
	case err == nil:
		if f.cacheDown.CompareAndSwap(true, false) {
			f.d.Logger.Info("cache tier back: home feeds read their inboxes again")
		}
		return nil
	case sparrow.IsKind(err, sparrow.EUnavailable):
		if f.cacheDown.CompareAndSwap(false, true) {
			f.d.Logger.Warn("cache tier unavailable: home feeds are pulled from the stores until it is back", "err", err)
		}
		return nil
	}
	return err
}

// pullOnly is the candidate source while the cache tier is down: the pull
// path, which needs only the stores.
func (f *Feed) pullOnly(ctx context.Context, _ sparrow.ID, follows []sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, bool, error) {
	return f.pull(ctx, follows, p)
}

// collector gathers up to p.Limit candidate items inside p, newest first, and
// reports whether the feed has nothing more in p's direction.
type collector func(ctx context.Context, user sparrow.ID, follows []sparrow.ID, p sparrow.Page) (items []sparrow.FeedItem, exhausted bool, err error)

// page filters and hydrates candidates, extending the page past filtered items.
func (f *Feed) page(ctx context.Context, v sparrow.Viewer, follows []sparrow.ID, p sparrow.Page, collect collector) ([]*sparrow.StatusView, error) {
	var out []*sparrow.StatusView
	for round := 0; round < maxPageRounds; round++ {
		items, exhausted, err := collect(ctx, v.AccountID, follows, p)
		if err != nil {
			return nil, err
		}
		views, err := f.admit(ctx, v, follows, items)
		if err != nil {
			return nil, err
		}
		out = append(out, views...)
		if len(out) >= p.Limit || exhausted || len(items) == 0 {
			break
		}
		if p.Ascending() {
			p.MinID = items[0].ID // continue upward above the newest examined
		} else {
			p.MaxID = items[len(items)-1].ID // continue below the oldest examined
		}
	}
	slices.SortFunc(out, func(a, b *sparrow.StatusView) int { return cmpDesc(a.Status.ID, b.Status.ID) })
	out = dedupeOriginals(out)
	if len(out) > p.Limit {
		if p.Ascending() {
			out = out[len(out)-p.Limit:]
		} else {
			out = out[:p.Limit]
		}
	}
	return out, nil
}

func cmpDesc(a, b sparrow.ID) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// collect is the hybrid/push/pull candidate source of the home feed.
func (f *Feed) collect(ctx context.Context, user sparrow.ID, follows []sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, bool, error) {
	if f.c.FeedMode == ModePull {
		return f.pull(ctx, follows, p)
	}
	inbox, st, err := f.d.Inboxes.Read(ctx, user, p)
	if err != nil {
		if f.cacheTier(err) == nil {
			return f.pull(ctx, follows, p) // the cache tier went down
		}
		return nil, false, err
	}
	floor := st.Floor
	if !st.Exists || !st.Filled ||
		p.Ascending() && p.MinID < floor ||
		!p.Ascending() && p.MaxID != 0 && p.MaxID-1 <= floor {
		// No usable inbox, or the window reaches at or below the floor where
		// only the durable path is complete: pull answers.
		return f.pull(ctx, follows, p)
	}
	merged := inbox
	if f.c.FeedMode == ModeHybrid {
		hot, herr := f.hotItems(ctx, follows, p, inbox)
		if herr != nil {
			if f.cacheTier(herr) == nil {
				return f.pull(ctx, follows, p) // the cache tier went down
			}
			return nil, false, herr
		}
		merged = mergeItems(merged, hot)
	}
	// Above the floor the merge is complete; below it only pull is.
	above := merged[:0:0]
	for _, it := range merged {
		if it.ID > floor {
			above = append(above, it)
		}
	}
	if p.Ascending() {
		if len(above) > p.Limit {
			above = above[len(above)-p.Limit:]
		}
		return above, len(above) < p.Limit, nil
	}
	if len(above) >= p.Limit {
		return above[:p.Limit], false, nil
	}
	if floor == 0 {
		return above, true, nil // complete from the beginning: nothing older exists
	}
	rest, exhausted, err := f.pull(ctx, follows, sparrow.Page{MaxID: floor + 1, SinceID: p.Lower(), Limit: p.Limit - len(above)})
	if err != nil {
		return nil, false, err
	}
	return append(above, rest...), exhausted, nil
}

// pull is docs/seeds.md#seed-000's pull: author IN (followings), through the store's
// per-author LIMIT pushdown.
func (f *Feed) pull(ctx context.Context, follows []sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, bool, error) {
	items, err := f.d.Statuses.AuthorsFeed(ctx, follows, p)
	return items, len(items) < p.Limit, err
}

// hotItems returns, for every followed account that has a recent list (hot,
// or cooling down), its items inside p, continued by its profile feed past
// the end of the list where the page can reach there. A list whose last post
// is older than the page's lower bound is skipped without reading it (seed
// 000's last-pulled test).
//
// For a page that runs downward, the p.Limit-th newest of known (the
// reader's inbox) and the lists' items together is a cutoff: an author's
// profile feed is read only where its list does not reach down to it, and
// only above it. The result is then complete above the cutoff and holds at
// least p.Limit items there, so the page's newest p.Limit items are exact;
// if filtering drops some, the next round continues below them. Without the
// cutoff, every hot followee whose list holds fewer than p.Limit entries
// would cost a profile read on every page.
func (f *Feed) hotItems(ctx context.Context, follows []sparrow.ID, p sparrow.Page, known []sparrow.FeedItem) ([]sparrow.FeedItem, error) {
	lists, err := f.d.Recent.Authors(ctx)
	if err != nil || len(lists) == 0 {
		return nil, err
	}
	var hot []sparrow.ID
	for _, a := range follows {
		if lists[a] {
			hot = append(hot, a)
		}
	}
	if len(hot) == 0 {
		return nil, nil
	}
	if lo := p.Lower(); lo != 0 {
		last, lerr := f.d.Recent.LastPost(ctx, hot)
		if lerr != nil {
			return nil, lerr
		}
		hot = slices.DeleteFunc(hot, func(a sparrow.ID) bool {
			t, ok := last[a]
			return ok && !t.After(lo.Time())
		})
	}
	pages, err := f.d.Recent.ReadMany(ctx, hot, p)
	if err != nil {
		return nil, err
	}
	var out []sparrow.FeedItem
	for _, lp := range pages {
		out = append(out, lp.Items...)
	}
	lower := p.Lower()
	if !p.Ascending() {
		if m := mergeItems(known, out); len(m) >= p.Limit && m[p.Limit-1].ID > lower {
			lower = m[p.Limit-1].ID // the cutoff: the p.Limit-th newest candidate
		}
	}
	for i, lp := range pages {
		if lp.OK && (len(lp.Items) >= p.Limit || lp.Floor == 0 || lp.Floor <= lower) {
			continue // the list covers every item of this author the page can hold
		}
		// Past the end of the capped list (or no list after all): the author's profile feed.
		below := sparrow.Page{MaxID: p.MaxID, SinceID: lower, Limit: p.Limit - len(lp.Items)}
		if p.Ascending() {
			below.SinceID = p.Lower()
		}
		if lp.OK && (below.MaxID == 0 || below.MaxID > lp.Floor+1) {
			below.MaxID = lp.Floor + 1
		}
		more, err := f.d.Statuses.AuthorsFeed(ctx, []sparrow.ID{hot[i]}, below)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// mergeItems merges item lists (each newest first) into one, newest first,
// without duplicates.
func mergeItems(a, b []sparrow.FeedItem) []sparrow.FeedItem {
	if len(b) == 0 {
		return a
	}
	all := append(slices.Clone(a), b...)
	slices.SortFunc(all, func(x, y sparrow.FeedItem) int { return cmpDesc(x.ID, y.ID) })
	return slices.CompactFunc(all, func(x, y sparrow.FeedItem) bool { return x.ID == y.ID })
}

// admit applies the routing policies at read (docs/seeds.md#seed-002's RouteService, written
// once), deciding from the sources of truth (visibility.go): only the
// reader's own statuses and those of the accounts it follows now (its own
// Following rows: follows, the cached set that chose the candidates, only
// narrows what is looked at), statuses the reader may see, nothing by
// accounts the reader blocks or mutes or that block it (nor reblogs of
// them), and reblogs only from follows that show them; then hydrates in the
// items' order. The statuses are loaded first (a partial read leaves out an
// unavailable store's), so that the policy asks only the stores that hold
// what the page shows.
func (f *Feed) admit(ctx context.Context, v sparrow.Viewer, follows []sparrow.ID, items []sparrow.FeedItem) ([]*sparrow.StatusView, error) {
	var ids []sparrow.ID
	for _, it := range items {
		if _, ok := slices.BinarySearch(follows, it.Author); ok {
			ids = append(ids, it.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	sts, err := f.d.Statuses.Statuses(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[sparrow.ID]*sparrow.Status, len(sts))
	authors := make([]sparrow.ID, 0, len(sts))
	for _, s := range sts {
		byID[s.ID] = s
		authors = append(authors, s.AccountID)
	}
	acc := f.statuses.policy.access(v)
	if err := acc.ensureRows(ctx, authors); err != nil {
		return nil, err
	}
	keep := make([]*sparrow.Status, 0, len(ids))
	for _, id := range ids {
		s := byID[id]
		if s == nil || s.Deleted() {
			continue
		}
		a := s.AccountID
		if a != v.AccountID && (!acc.follows(a) || s.ReblogOfID != 0 && !acc.rows.Following[a].Reblogs) {
			continue
		}
		keep = append(keep, s)
	}
	return f.statuses.hydrate(ctx, acc, keep, readFeed) // which applies the blocks and mutes
}

// dedupeOriginals keeps, within a page (at most 40 entries), the newest entry
// of each original: a status and its reblogs, or several reblogs of one
// status, show once.
func dedupeOriginals(views []*sparrow.StatusView) []*sparrow.StatusView {
	seen := make(map[sparrow.ID]bool, len(views))
	return slices.DeleteFunc(views, func(sv *sparrow.StatusView) bool {
		orig := sv.Status.ID
		if sv.Status.ReblogOfID != 0 {
			orig = sv.Status.ReblogOfID
		}
		if seen[orig] {
			return true
		}
		seen[orig] = true
		return false
	})
}

// ensureInbox makes sure the reader has an inbox: if none exists and a
// rebuild worker is free (rebuilds), it creates an empty one, which
// collects pushes from then on but is not read until it is filled (this
// request is answered by pull at once), and fills it in the background as
// deep as the cap, setting the floor to what the fill covered. Without a
// free worker nothing is created: the page is answered by pull, and the
// reader's next page tries again.
func (f *Feed) ensureInbox(ctx context.Context, user sparrow.ID, follows []sparrow.ID) error {
	_, st, err := f.d.Inboxes.Read(ctx, user, sparrow.Page{Limit: 1})
	if err != nil || st.Exists {
		return err
	}
	f.rebuilds.start(user, func(bg context.Context) {
		ctx, cancel := context.WithTimeout(bg, time.Minute)
		defer cancel()
		start := time.Now()
		// Created by the rebuild itself, before its fill reads anything:
		// pushes reach the inbox from then on, and an inbox never exists
		// without a rebuild to fill it (a failed fill drops it again).
		if _, err := f.d.Inboxes.Create(ctx, user, 0, f.now()); err != nil {
			return
		}
		items, err := f.d.Statuses.AuthorsFeed(ctx, follows, sparrow.Page{Limit: f.c.InboxCap})
		if err == nil {
			var floor sparrow.ID
			if len(items) >= f.c.InboxCap {
				floor = items[len(items)-1].ID
			}
			if err = f.d.Inboxes.Fill(ctx, user, items, floor); err == nil {
				f.Observer.Rebuilt(time.Since(start))
				return
			}
		}
		// Reads keep pulling; the reader's next page rebuilds again.
		_ = f.d.Inboxes.Drop(context.WithoutCancel(ctx), user)
	})
	return nil
}
