package sparrow

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// Defaults of the feed and status settings, used wherever a setting is
// zero or unset: by the services, the caches of every backend and the
// server's flags. Each is written here only.
const (
	DefaultInboxCap        = 800         // items per home inbox
	DefaultRecentCap       = 300         // items per hot author's recent list
	DefaultActiveDays      = 7           // users seen within this many days get pushes
	DefaultHotThreshold    = 10000       // followers at which an account turns hot
	DefaultSweepInterval   = time.Minute // how often the feed sweeper runs
	DefaultCommentPageSize = 20          // statuses per fixed comment page
	DefaultMaxChars        = 500         // status length limit in Unicode code points
)

// FeedItem is one entry of a feed list: a status id and its author, and for a
// reblog the status it reblogs (so readers can dedupe and filter without
// loading the status). Lists are ordered by ID, newest first.
type FeedItem struct {
	ID     ID `json:"i"`
	Author ID `json:"a"`
	Reblog ID `json:"r,omitempty"` // the reblogged original, or 0
}

// InboxState describes one user's inbox. An inbox is complete above its
// floor: it holds every item the user should see with an id greater than
// Floor (pushes after it was created, and what its rebuild merged in). Items at
// or below the floor come from the durable profile feeds (the pull path).
type InboxState struct {
	Exists bool
	// Filled is set by the first Fill. Until then the inbox collects pushes
	// but is not complete anywhere (its rebuild is under way): readers pull.
	Filled  bool
	Floor   ID        // 0: complete from the beginning
	BuiltAt time.Time // when it was created
}

// InboxStore is the per-user home index (docs/seeds.md#seed-001's t_user_msg_index, seed
// 000's friendfeeds): derived data in the cache tier (Redis when scaled out,
// in process when embedded), bounded to a cap per user. Losing it loses
// latency, never data: a missing inbox is rebuilt by pull.
type InboxStore interface {
	// Create makes an empty inbox for user (floor = floor) if none exists,
	// and returns the state of the inbox that exists afterwards. Pushes reach
	// it from then on, so a rebuild that creates first and fills later misses
	// nothing.
	Create(ctx context.Context, user ID, floor ID, now time.Time) (InboxState, error)
	// Push adds item to the inbox of each user that has one (users without an
	// inbox are skipped: they rebuild on their next read) and trims each to the
	// cap, raising its floor to the newest id it dropped; an item at or below
	// an inbox's floor is ignored. Idempotent. One pipelined or batched round
	// trip per call.
	Push(ctx context.Context, users []ID, item FeedItem) error
	// Fill merges items into user's existing inbox (a rebuild), sets its
	// floor, trimming to the cap, and marks it filled. Idempotent; nothing
	// happens without an inbox.
	Fill(ctx context.Context, user ID, items []FeedItem, floor ID) error
	// Read returns up to limit items of user's inbox inside p's bounds,
	// newest first (MinID pages upward but still returns newest first), and
	// the inbox state.
	Read(ctx context.Context, user ID, p Page) ([]FeedItem, InboxState, error)
	// RemoveAuthor removes every item by author (or reblogging author's
	// statuses, i.e. Author == author) from user's inbox.
	RemoveAuthor(ctx context.Context, user ID, author ID) error
	// RemoveStatus removes status id (as an item, or as a reblogged original)
	// from each user's inbox.
	RemoveStatus(ctx context.Context, users []ID, id ID) error
	// Drop deletes users' inboxes.
	Drop(ctx context.Context, users ...ID) error
}

// RecentLists are the hot authors' capped lists of recent items, with their
// last post time (docs/seeds.md#seed-000's 动态时间 hash), in the cache tier. The set of
// authors that have a list (hot, or cooling down after being hot) is kept
// with them, so readers can tell which of their followings to merge.
type RecentLists interface {
	// Seed creates author's list from items (its newest profile feed) with the
	// given floor if it has none, and adds author to the set. Idempotent.
	Seed(ctx context.Context, author ID, items []FeedItem, floor ID) error
	// Append adds item to author's list if it exists, trims it to the cap
	// (raising its floor), and records the last post time.
	Append(ctx context.Context, author ID, item FeedItem, at time.Time) error
	// Read returns up to limit items of author's list inside p's bounds,
	// newest first, with the list's floor; ok is false if author has no list.
	Read(ctx context.Context, author ID, p Page) (items []FeedItem, floor ID, ok bool, err error)
	// ReadMany reads the lists of authors as Read does, each atomically, in
	// one round trip where the cache tier has round trips; the i-th result is
	// authors[i]'s.
	ReadMany(ctx context.Context, authors []ID, p Page) ([]ListPage, error)
	// LastPost returns the last post time of each author that has a list.
	LastPost(ctx context.Context, authors []ID) (map[ID]time.Time, error)
	// Authors returns the set of authors that have a list.
	Authors(ctx context.Context) (map[ID]bool, error)
	// Remove removes item id from author's list (a deleted status).
	Remove(ctx context.Context, author ID, id ID) error
	// Delete drops author's list and removes it from the set.
	Delete(ctx context.Context, author ID) error
}

// ListPage is one author's part of a RecentLists.ReadMany: what Read returns.
type ListPage struct {
	Items []FeedItem // newest first (oldest first for an ascending page)
	Floor ID
	OK    bool // whether the author has a list
}

// Activity records when users were last seen (docs/seeds.md#seed-000's 热点状态位), at most
// once every few minutes per user, so reads do not become writes.
type Activity interface {
	// Touch records that user was seen at at (never moving backwards).
	Touch(ctx context.Context, user ID, at time.Time) error
	// LastSeen returns the last-seen times of users; unknown users are absent.
	LastSeen(ctx context.Context, users []ID) (map[ID]time.Time, error)
	// SeenBefore returns up to limit users last seen before t (the sweeper's
	// inactive candidates), oldest first.
	SeenBefore(ctx context.Context, t time.Time, limit int) ([]ID, error)
	// Forget removes users (after their inbox was dropped and they were
	// handled), so the sweeper does not list them again.
	Forget(ctx context.Context, users ...ID) error
}

// KeepNewest is the rule of every capped feed list (inboxes, recent lists),
// in every cache backend: of items, those above floor (a negative floor
// counts as 0), newest first with distinct ids, cut to limit (CutFeed). items
// is not modified.
func KeepNewest(items []FeedItem, floor ID, limit int) ([]FeedItem, ID) {
	floor = max(floor, 0)
	out := make([]FeedItem, 0, len(items))
	for _, it := range items {
		if it.ID > floor {
			out = append(out, it)
		}
	}
	slices.SortFunc(out, func(a, b FeedItem) int { return cmp.Compare(b.ID, a.ID) })
	out = slices.CompactFunc(out, func(a, b FeedItem) bool { return a.ID == b.ID })
	return CutFeed(out, floor, limit)
}

// CutFeed cuts sorted (newest first, distinct ids) to limit items and returns
// the floor raised to the newest id cut off: a list is complete above its
// floor, so a reader past it knows to read on elsewhere.
func CutFeed(sorted []FeedItem, floor ID, limit int) ([]FeedItem, ID) {
	if len(sorted) > limit {
		floor = max(floor, sorted[limit].ID)
		sorted = sorted[:limit]
	}
	return sorted, floor
}
