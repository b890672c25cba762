package service

import (
	"context"

	"sparrow"
)

// keyedRead pages a keyed feed for v: each batch of items is filtered by the
// viewer's blocks and mutes (one RelationRows read on the viewer's shard),
// loaded with one multi-get, filtered by visibility and hydrated by the
// statuses service; batches repeat until the page is full (keyedFill).
func (t *Timelines) keyedRead(ctx context.Context, v sparrow.Viewer, p sparrow.Page, fetch func(sparrow.Page) ([]sparrow.FeedItem, error)) ([]*sparrow.StatusView, error) {
	return keyedFill(p.Normalize(sparrow.MaxLimit), func(it sparrow.FeedItem) sparrow.ID { return it.ID }, fetch,
		func(items []sparrow.FeedItem) ([]*sparrow.StatusView, error) { return t.keyedViews(ctx, v, items) })
}

// keyedViews turns feed items into the views v may see, in order: one
// multi-get of the statuses (a partial read leaves out an unavailable
// store's), hydrated in feed mode, which drops what v may not see and what
// is by accounts v blocks, mutes or is blocked by.
func (t *Timelines) keyedViews(ctx context.Context, v sparrow.Viewer, items []sparrow.FeedItem) ([]*sparrow.StatusView, error) {
	if len(items) == 0 {
		return nil, nil
	}
	ids := make([]sparrow.ID, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	got, err := t.d.Statuses.Statuses(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[sparrow.ID]*sparrow.Status, len(got))
	for _, st := range got {
		byID[st.ID] = st
	}
	sts := make([]*sparrow.Status, 0, len(items))
	for _, id := range ids {
		if st := byID[id]; st != nil {
			sts = append(sts, st)
		}
	}
	return t.statuses.hydrate(ctx, t.statuses.policy.access(v), sts, readFeed)
}

// Bounds of keyedFill. A page stops early once it holds something after
// keyedSoftRounds reads, and unconditionally after keyedHardRounds: so a
// page is empty while older visible items exist only behind more than about
// keyedHardRounds × keyedMaxBatch filtered-out items (adversarial data), and
// a request never reads without bound.
const (
	keyedSoftRounds = 8
	keyedHardRounds = 64
	keyedMaxBatch   = 200
)

// keyedFill reads a newest-first list through fetch and filters each batch
// through keep until p.Limit items survive or the list ends, so that
// filtering never makes a page empty or short while older items exist.
// Descending pages move MaxID past each batch; MinID pages (the oldest items
// above MinID, returned newest first) move MinID up and keep the oldest
// p.Limit. keep must preserve order (newest first). Batches grow from
// p.Limit up to keyedMaxBatch. p.Limit must be positive.
func keyedFill[R, O any](p sparrow.Page, idOf func(R) sparrow.ID, fetch func(sparrow.Page) ([]R, error), keep func([]R) ([]O, error)) ([]O, error) {
	want := p.Limit
	var out []O
	for round := 1; ; round++ {
		raw, err := fetch(p)
		if err != nil {
			return nil, err
		}
		kept, err := keep(raw)
		if err != nil {
			return nil, err
		}
		if p.Ascending() {
			out = append(kept, out...) // newer than everything before
			if len(out) > want {
				out = out[len(out)-want:]
			}
		} else {
			out = append(out, kept...)
			if len(out) > want {
				out = out[:want]
			}
		}
		if len(out) >= want || len(raw) < p.Limit || len(raw) == 0 {
			return out, nil
		}
		if round >= keyedHardRounds || round >= keyedSoftRounds && len(out) > 0 {
			return out, nil
		}
		if p.Ascending() {
			p.MinID = idOf(raw[0])
		} else {
			p.MaxID = idOf(raw[len(raw)-1])
		}
		p.Limit = min(2*p.Limit, max(keyedMaxBatch, want))
	}
}
