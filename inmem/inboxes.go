package inmem

import (
	"context"
	"time"

	"sparrow"
)

// Inboxes is an in-process sparrow.InboxStore: the home inboxes of an
// embedded deployment. It is safe for concurrent use; users are spread over
// 256 stripes, each with its own lock, so pushes and reads for different
// users rarely contend. The context arguments are unused and no method fails.
//
// Each inbox is a slice of items sorted by id, newest first, searched by
// bisection: a page read copies out only the items it returns, and a push of
// the newest item (the usual case) inserts in O(1) amortised time without
// allocating. An item costs 24 bytes, plus up to a quarter more of free space
// per inbox.
//
// Floor semantics (the same in package redis):
//
//   - An inbox holds only items with an id greater than its floor, and holds
//     every such item that it was given (pushed or filled) and that was not
//     removed: it is complete above its floor.
//   - Trimming to the cap drops the oldest items and sets the floor to the
//     id of the newest item dropped. An item pushed at or below the floor is
//     ignored: readers find it on the pull path.
//   - Fill(items, floor) states that items holds every item above floor. It
//     merges them (union by id), drops the items held at or below floor,
//     trims to the cap, and sets the floor to floor raised to the newest
//     item trimmed. This may lower a floor that earlier trimming raised: the
//     filled items cover the gap. To keep the oldest item gathered, pass a
//     floor just below it (its id - 1): the floor item itself is not kept.
//   - Create makes an unfilled inbox (InboxState.Filled false), which
//     collects pushes; the first Fill, even of no items, marks it filled.
type Inboxes struct {
	cap   int
	boxes *striped[inbox]
}

// inbox is one user's home inbox.
type inbox struct {
	feedList
	built  time.Time
	filled bool
}

var _ sparrow.InboxStore = (*Inboxes)(nil)

// NewInboxes returns an empty store keeping o.InboxCap items per inbox.
func NewInboxes(o FeedOptions) *Inboxes {
	o = o.withDefaults()
	return &Inboxes{cap: o.InboxCap, boxes: newStriped[inbox]()}
}

// Create makes an empty, unfilled inbox for user with the given floor
// (negative counts as 0) built at now, unless one exists, and returns the
// state of the inbox that exists afterwards. BuiltAt is kept to the millisecond, in UTC, as in
// package redis.
func (s *Inboxes) Create(_ context.Context, user, floor sparrow.ID, now time.Time) (sparrow.InboxState, error) {
	st := s.boxes.of(user)
	st.mu.Lock()
	defer st.mu.Unlock()
	b := st.m[user]
	if b == nil {
		b = &inbox{built: time.UnixMilli(now.UnixMilli()).UTC()}
		b.floor = max(floor, 0)
		st.m[user] = b
	}
	return b.state(), nil
}

func (b *inbox) state() sparrow.InboxState {
	return sparrow.InboxState{Exists: true, Filled: b.filled, Floor: b.floor, BuiltAt: b.built}
}

// Push adds item to the inbox of each user that has one, trimming it to the
// cap. Users without an inbox, and inboxes whose floor is at or above
// item.ID, are skipped; an item already held is not added again.
func (s *Inboxes) Push(_ context.Context, users []sparrow.ID, item sparrow.FeedItem) error {
	for _, u := range users {
		st := s.boxes.of(u)
		st.mu.Lock()
		if b := st.m[u]; b != nil {
			b.add(item, s.cap)
		}
		st.mu.Unlock()
	}
	return nil
}

// Fill merges items into user's inbox, if it exists, sets its floor, as
// described on [Inboxes], and marks it filled. Filling twice with the same
// arguments changes nothing the second time.
func (s *Inboxes) Fill(_ context.Context, user sparrow.ID, items []sparrow.FeedItem, floor sparrow.ID) error {
	st := s.boxes.of(user)
	st.mu.Lock()
	defer st.mu.Unlock()
	if b := st.m[user]; b != nil {
		b.merge(items, floor, s.cap)
		b.filled = true
	}
	return nil
}

// Read returns up to p.Limit items of user's inbox inside p's bounds,
// newest first, and its state. p.Limit ≤ 0 means sparrow.DefaultLimit; a
// larger limit is not clamped. Without an inbox it returns no items and a
// state with Exists false. The items are a copy.
func (s *Inboxes) Read(_ context.Context, user sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, sparrow.InboxState, error) {
	st := s.boxes.of(user)
	st.mu.RLock()
	defer st.mu.RUnlock()
	b := st.m[user]
	if b == nil {
		return nil, sparrow.InboxState{}, nil
	}
	return b.read(p), b.state(), nil
}

// RemoveAuthor removes every item whose Author is author from user's inbox.
// The floor is unchanged.
func (s *Inboxes) RemoveAuthor(_ context.Context, user, author sparrow.ID) error {
	st := s.boxes.of(user)
	st.mu.Lock()
	defer st.mu.Unlock()
	if b := st.m[user]; b != nil {
		b.removeIf(func(it sparrow.FeedItem) bool { return it.Author == author })
	}
	return nil
}

// RemoveStatus removes from each user's inbox the item with id and the
// items reblogging id. Floors are unchanged.
func (s *Inboxes) RemoveStatus(_ context.Context, users []sparrow.ID, id sparrow.ID) error {
	drop := func(it sparrow.FeedItem) bool { return it.ID == id || it.Reblog == id }
	for _, u := range users {
		st := s.boxes.of(u)
		st.mu.Lock()
		if b := st.m[u]; b != nil {
			b.removeIf(drop)
		}
		st.mu.Unlock()
	}
	return nil
}

// Drop deletes users' inboxes; users without one are ignored.
func (s *Inboxes) Drop(_ context.Context, users ...sparrow.ID) error {
	for _, u := range users {
		st := s.boxes.of(u)
		st.mu.Lock()
		delete(st.m, u)
		st.mu.Unlock()
	}
	return nil
}

// Len returns the number of inboxes held.
func (s *Inboxes) Len() int {
	n := 0
	for i := range s.boxes.s {
		st := &s.boxes.s[i]
		st.mu.RLock()
		n += len(st.m)
		st.mu.RUnlock()
	}
	return n
}
