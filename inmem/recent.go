package inmem

import (
	"context"
	"time"

	"sparrow"
)

// RecentLists is an in-process sparrow.RecentLists: the capped lists of hot
// authors' recent items. It is safe for concurrent use (authors are spread
// over 256 stripes); the context arguments are unused and no method fails.
//
// Lists have the floor semantics of [Inboxes]: a list holds only items above
// its floor and every item above it that it was given. Seed sets the floor
// from its argument (raised to the newest item trimmed); Append trims to the
// cap, setting the floor to the newest item dropped.
//
// Last post times are kept to the millisecond, in UTC, and never move
// backwards. Seed records the time of the newest seeded item (from its id,
// [sparrow.ID.Time]); a list seeded empty has no last post time until its
// first Append.
type RecentLists struct {
	cap   int
	lists *striped[recentList]
}

// recentList is one author's list.
type recentList struct {
	feedList
	last time.Time // zero: unknown
}

var _ sparrow.RecentLists = (*RecentLists)(nil)

// NewRecentLists returns an empty set of lists keeping o.RecentCap items each.
func NewRecentLists(o FeedOptions) *RecentLists {
	o = o.withDefaults()
	return &RecentLists{cap: o.RecentCap, lists: newStriped[recentList]()}
}

// Seed creates author's list from items (in any order, duplicates allowed)
// with the given floor, unless author has a list. Items at or below the floor
// are left out; beyond the cap the oldest are trimmed, raising the floor.
func (r *RecentLists) Seed(_ context.Context, author sparrow.ID, items []sparrow.FeedItem, floor sparrow.ID) error {
	st := r.lists.of(author)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.m[author] != nil {
		return nil
	}
	l := &recentList{}
	sorted, floor := sparrow.KeepNewest(items, floor, r.cap)
	l.set(sorted, floor)
	if len(sorted) > 0 {
		l.last = sorted[0].ID.Time().UTC()
	}
	st.m[author] = l
	return nil
}

// Append adds item to author's list, if author has one, trims it to the cap
// and records at as the last post time unless a later one is recorded. An
// item at or below the floor is not added, but its time is recorded.
func (r *RecentLists) Append(_ context.Context, author sparrow.ID, item sparrow.FeedItem, at time.Time) error {
	st := r.lists.of(author)
	st.mu.Lock()
	defer st.mu.Unlock()
	l := st.m[author]
	if l == nil {
		return nil
	}
	l.add(item, r.cap)
	if atMilli := time.UnixMilli(at.UnixMilli()).UTC(); atMilli.After(l.last) {
		l.last = atMilli
	}
	return nil
}

// Read returns up to p.Limit items (sparrow.DefaultLimit if not positive) of
// author's list inside p's bounds, newest first, and the list's floor; ok is
// false if author has no list. The items are a copy.
func (r *RecentLists) Read(_ context.Context, author sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, sparrow.ID, bool, error) {
	st := r.lists.of(author)
	st.mu.RLock()
	defer st.mu.RUnlock()
	l := st.m[author]
	if l == nil {
		return nil, 0, false, nil
	}
	return l.read(p), l.floor, true, nil
}

// ReadMany implements sparrow.RecentLists: Read for each author.
func (r *RecentLists) ReadMany(ctx context.Context, authors []sparrow.ID, p sparrow.Page) ([]sparrow.ListPage, error) {
	out := make([]sparrow.ListPage, len(authors))
	for i, a := range authors {
		its, floor, ok, err := r.Read(ctx, a, p)
		if err != nil {
			return nil, err
		}
		out[i] = sparrow.ListPage{Items: its, Floor: floor, OK: ok}
	}
	return out, nil
}

// LastPost returns the last post time of each of authors that has a list
// and a known last post time.
func (r *RecentLists) LastPost(_ context.Context, authors []sparrow.ID) (map[sparrow.ID]time.Time, error) {
	out := make(map[sparrow.ID]time.Time, len(authors))
	for _, a := range authors {
		st := r.lists.of(a)
		st.mu.RLock()
		if l := st.m[a]; l != nil && !l.last.IsZero() {
			out[a] = l.last
		}
		st.mu.RUnlock()
	}
	return out, nil
}

// Authors returns the set of authors that have a list.
func (r *RecentLists) Authors(context.Context) (map[sparrow.ID]bool, error) {
	out := make(map[sparrow.ID]bool)
	for i := range r.lists.s {
		st := &r.lists.s[i]
		st.mu.RLock()
		for a := range st.m {
			out[a] = true
		}
		st.mu.RUnlock()
	}
	return out, nil
}

// Remove removes the item with id from author's list; the floor is unchanged.
func (r *RecentLists) Remove(_ context.Context, author, id sparrow.ID) error {
	st := r.lists.of(author)
	st.mu.Lock()
	defer st.mu.Unlock()
	if l := st.m[author]; l != nil {
		l.remove(id)
	}
	return nil
}

// Delete drops author's list, removing author from the set.
func (r *RecentLists) Delete(_ context.Context, author sparrow.ID) error {
	st := r.lists.of(author)
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.m, author)
	return nil
}
