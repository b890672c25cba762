package inmem

import (
	"slices"

	"sparrow"
)

// feedList is a capped list of feed items that is complete above its floor:
// the shared core of an inbox and of a recent list.
//
// Invariants: the live items buf[off:end] are sorted by ID, newest (largest)
// first, with distinct ids, all greater than floor, and at most cap of them.
// Trimming drops the oldest items and raises floor to the id of the newest
// item it dropped, so every item above floor is still held.
//
// The free space of buf lies on both sides of the live items. New items are
// usually the newest, so they go in front in O(1) (off--) and trimming takes
// the oldest from the back in O(1) (end--). When the front is full, the live
// items move back by a quarter of their count, so an insert costs O(1)
// amortised copies and buf holds at most cap + cap/4 + 4 items (24 bytes each).
type feedList struct {
	buf      []sparrow.FeedItem
	off, end int
	floor    sparrow.ID
}

// items returns the live items, newest first. The slice aliases the list.
func (l *feedList) items() []sparrow.FeedItem { return l.buf[l.off:l.end] }

// atOrBelow returns the index of the first item of items (sorted newest
// first) whose ID is ≤ id, or len(items) if none is.
func atOrBelow(items []sparrow.FeedItem, id sparrow.ID) int {
	lo, hi := 0, len(items)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if items[m].ID > id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// add inserts x, keeping at most limit items (limit ≥ 1). An x at or below the
// floor, or whose id is held already, changes nothing. When the list is full,
// the oldest of its items and x is dropped and becomes the floor.
func (l *feedList) add(x sparrow.FeedItem, limit int) {
	if x.ID <= l.floor {
		return
	}
	items := l.items()
	p := atOrBelow(items, x.ID)
	if p < len(items) && items[p].ID == x.ID {
		return
	}
	if len(items) >= limit {
		if p == len(items) { // x is the oldest: trimmed at once
			l.floor = x.ID
			return
		}
		l.end--
		l.floor = l.buf[l.end].ID
		l.buf[l.end] = sparrow.FeedItem{}
	}
	// Move the p newer items one step to the front, or the n-p older ones
	// one step to the back, whichever is fewer and has room; if the cheap
	// side has no room, make some in front.
	n := l.end - l.off
	switch {
	case l.off > 0 && (p <= n-p || l.end == len(l.buf)):
		copy(l.buf[l.off-1:], l.buf[l.off:l.off+p])
		l.off--
	case l.end < len(l.buf) && n-p <= p:
		copy(l.buf[l.off+p+1:], l.buf[l.off+p:l.end])
		l.end++
	default:
		l.makeRoomInFront(limit)
		copy(l.buf[l.off-1:], l.buf[l.off:l.off+p])
		l.off--
	}
	l.buf[l.off+p] = x
}

// makeRoomInFront moves the live items back (into a larger buffer if needed)
// so that a quarter of their count, at least 4, is free in front.
func (l *feedList) makeRoomInFront(limit int) {
	n := l.end - l.off
	head := max(n/4, 4)
	if n+head > len(l.buf) {
		size := max(n+head, 2*len(l.buf))
		size = min(size, limit+max(limit/4, 4))
		size = max(size, n+head)
		nb := make([]sparrow.FeedItem, size)
		copy(nb[head:], l.buf[l.off:l.end])
		l.buf = nb
	} else {
		copy(l.buf[head:], l.buf[l.off:l.end])
		clear(l.buf[:head])
	}
	l.off, l.end = head, head+n
}

// set replaces the items with sorted (newest first, distinct ids, all above
// floor, at most the cap), copying them.
func (l *feedList) set(sorted []sparrow.FeedItem, floor sparrow.ID) {
	head := max(len(sorted)/4, 4)
	l.buf = make([]sparrow.FeedItem, head+len(sorted))
	copy(l.buf[head:], sorted)
	l.off, l.end, l.floor = head, head+len(sorted), floor
}

// merge adds items, which are complete above floor, and sets the floor: the
// items held at or below floor are dropped, the union is trimmed to limit,
// and the floor becomes floor raised to the newest item trimmed. Setting
// (rather than only raising) the floor is sound because items alone covers
// everything above floor.
func (l *feedList) merge(items []sparrow.FeedItem, floor sparrow.ID, limit int) {
	in, floor := sparrow.KeepNewest(items, floor, limit)
	old := l.items()
	old = old[:atOrBelow(old, floor)]
	out := make([]sparrow.FeedItem, 0, len(old)+len(in))
	i, j := 0, 0
	for i < len(old) || j < len(in) {
		switch {
		case j == len(in) || i < len(old) && old[i].ID > in[j].ID:
			out = append(out, old[i])
			i++
		case i == len(old) || in[j].ID > old[i].ID:
			out = append(out, in[j])
			j++
		default: // the same id: keep the item held
			out = append(out, old[i])
			i++
			j++
		}
	}
	out, floor = sparrow.CutFeed(out, floor, limit)
	l.set(out, floor)
}

// read returns a copy of the items inside p's bounds, at most p.Limit of them
// (sparrow.DefaultLimit if not positive): the newest such items, or with
// p.MinID the oldest ones, in both cases newest first.
func (l *feedList) read(p sparrow.Page) []sparrow.FeedItem {
	items := l.items()
	if p.MaxID < 0 {
		return nil
	}
	i := 0
	if p.MaxID > 0 {
		i = atOrBelow(items, p.MaxID-1)
	}
	j := atOrBelow(items, max(p.Lower(), 0))
	if j <= i {
		return nil
	}
	limit := p.Limit
	if limit <= 0 {
		limit = sparrow.DefaultLimit
	}
	if j-i > limit {
		if p.Ascending() {
			i = j - limit
		} else {
			j = i + limit
		}
	}
	return slices.Clone(items[i:j])
}

// removeIf deletes the items for which drop is true, keeping the floor (the
// list stays complete: what it no longer holds is no longer wanted).
func (l *feedList) removeIf(drop func(sparrow.FeedItem) bool) {
	kept := slices.DeleteFunc(l.items(), drop)
	l.end = l.off + len(kept)
}

// remove deletes the item with id, if held, keeping the floor.
func (l *feedList) remove(id sparrow.ID) {
	items := l.items()
	if i := atOrBelow(items, id); i < len(items) && items[i].ID == id {
		copy(l.buf[l.off+i:], l.buf[l.off+i+1:l.end])
		l.end--
		l.buf[l.end] = sparrow.FeedItem{}
	}
}
