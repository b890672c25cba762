package inmem

import (
	"context"
	"sync"
	"time"

	"sparrow"
)

// Activity is an in-process sparrow.Activity. It is safe for concurrent use;
// the context arguments are unused and no method fails. Times are kept in
// whole seconds (truncated), in UTC, as in package redis.
//
// It holds a map from user to last-seen second, for Touch and LastSeen, and a
// binary min-heap of (second, user) marks for SeenBefore. Touch pushes a new
// mark in O(log n) and leaves the user's older mark in the heap as stale
// (each mark carries a sequence number; only the one the map names is live);
// Forget only deletes from the map. SeenBefore pops stale marks off the top
// and then walks the heap in order with a small frontier heap, visiting
// O(limit + stale marks met) marks, each at O(log limit). When stale marks
// outnumber live ones the heap is rebuilt from the map in O(n), so memory
// stays within twice the live marks (24 bytes each) and the cost of Touch
// stays O(log n) amortised. One lock guards both structures: Touch happens at
// most once every few minutes per user, and LastSeen takes it shared.
type Activity struct {
	mu   sync.RWMutex
	seen map[sparrow.ID]seenAt
	heap []mark
	seq  uint64
}

// seenAt is a user's last-seen second and the sequence number of its live mark.
type seenAt struct {
	sec int64
	seq uint64
}

// mark is a heap entry: user was seen at sec, live if seq is the user's.
type mark struct {
	sec  int64
	user sparrow.ID
	seq  uint64
}

func (a mark) less(b mark) bool {
	return a.sec < b.sec || a.sec == b.sec && a.user < b.user
}

var _ sparrow.Activity = (*Activity)(nil)

// NewActivity returns an Activity that has seen nobody. Options are unused.
func NewActivity(FeedOptions) *Activity {
	return &Activity{seen: make(map[sparrow.ID]seenAt)}
}

// Touch records that user was seen at at, unless a later or equal second is
// recorded.
func (a *Activity) Touch(_ context.Context, user sparrow.ID, at time.Time) error {
	sec := at.Unix()
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.seen[user]; ok && s.sec >= sec {
		return nil
	}
	a.seq++
	a.seen[user] = seenAt{sec: sec, seq: a.seq}
	a.push(mark{sec: sec, user: user, seq: a.seq})
	if len(a.heap) > 2*len(a.seen)+64 {
		a.rebuild()
	}
	return nil
}

// LastSeen returns the last-seen times of users; unknown users are absent.
func (a *Activity) LastSeen(_ context.Context, users []sparrow.ID) (map[sparrow.ID]time.Time, error) {
	out := make(map[sparrow.ID]time.Time, len(users))
	a.mu.RLock()
	defer a.mu.RUnlock()
	for _, u := range users {
		if s, ok := a.seen[u]; ok {
			out[u] = time.Unix(s.sec, 0).UTC()
		}
	}
	return out, nil
}

// SeenBefore returns up to limit users whose last-seen second is before t's
// (t truncated to the second), oldest first; users seen in the same second
// come in an unspecified order. A limit ≤ 0 returns none.
func (a *Activity) SeenBefore(_ context.Context, t time.Time, limit int) ([]sparrow.ID, error) {
	if limit <= 0 {
		return nil, nil
	}
	before := t.Unix()
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.heap) > 0 && !a.live(a.heap[0]) {
		a.pop()
	}
	var out []sparrow.ID
	// frontier holds heap indices whose parents were visited, ordered by mark.
	frontier := []int{}
	if len(a.heap) > 0 {
		frontier = append(frontier, 0)
	}
	less := func(i, j int) bool { return a.heap[frontier[i]].less(a.heap[frontier[j]]) }
	swap := func(i, j int) { frontier[i], frontier[j] = frontier[j], frontier[i] }
	for len(frontier) > 0 && len(out) < limit {
		i := frontier[0]
		m := a.heap[i]
		if m.sec >= before {
			break
		}
		// Replace the top by the last index and sift it down.
		last := len(frontier) - 1
		frontier[0] = frontier[last]
		frontier = frontier[:last]
		siftDown(len(frontier), 0, less, swap)
		for c := 2*i + 1; c <= 2*i+2 && c < len(a.heap); c++ {
			frontier = append(frontier, c)
			siftUp(len(frontier)-1, less, swap)
		}
		if a.live(m) {
			out = append(out, m.user)
		}
	}
	return out, nil
}

// Forget removes users; unknown users are ignored.
func (a *Activity) Forget(_ context.Context, users ...sparrow.ID) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, u := range users {
		delete(a.seen, u)
	}
	return nil
}

// Len returns the number of users whose last-seen time is held.
func (a *Activity) Len() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return len(a.seen)
}

func (a *Activity) live(m mark) bool {
	s, ok := a.seen[m.user]
	return ok && s.seq == m.seq
}

func (a *Activity) swap(i, j int)        { a.heap[i], a.heap[j] = a.heap[j], a.heap[i] }
func (a *Activity) lessAt(i, j int) bool { return a.heap[i].less(a.heap[j]) }

func (a *Activity) push(m mark) {
	a.heap = append(a.heap, m)
	siftUp(len(a.heap)-1, a.lessAt, a.swap)
}

func (a *Activity) pop() {
	last := len(a.heap) - 1
	a.heap[0] = a.heap[last]
	a.heap = a.heap[:last]
	siftDown(len(a.heap), 0, a.lessAt, a.swap)
}

// rebuild replaces the heap by the live marks, heapified in O(n).
func (a *Activity) rebuild() {
	h := make([]mark, 0, len(a.seen)+len(a.seen)/2+16)
	for u, s := range a.seen {
		h = append(h, mark{sec: s.sec, user: u, seq: s.seq})
	}
	a.heap = h
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(len(h), i, a.lessAt, a.swap)
	}
}

// siftUp and siftDown restore the heap order of a binary min-heap of n
// elements addressed through less and swap.
func siftUp(i int, less func(i, j int) bool, swap func(i, j int)) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(i, p) {
			return
		}
		swap(i, p)
		i = p
	}
}

func siftDown(n, i int, less func(i, j int) bool, swap func(i, j int)) {
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && less(c+1, c) {
			c++
		}
		if !less(c, i) {
			return
		}
		swap(i, c)
		i = c
	}
}
