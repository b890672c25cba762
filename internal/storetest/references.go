package storetest

import (
	"testing"

	"sparrow"
)

// testReferences: fixed pages from the ever count, idempotent replays,
// removal keeps the ever count, kept counts via deltas.
func testReferences(t *testing.T, f *fixture) {
	a, b := f.account(t), f.account(t)
	root := f.post(t, a, "root")
	newID := func(shard int) sparrow.ID { return f.ids.Next(shard) }
	var comments []sparrow.ID
	for i := 0; i < 7; i++ {
		c := f.post(t, b, "c")
		comments = append(comments, c.ID)
		r, err := f.s.AddReference(ctx(), sparrow.Reference{Ref: root.ID, Kind: sparrow.RefComment, Status: c.ID, Author: b.ID, CreatedAt: f.now}, 3, newID)
		if err != nil || r.Page != i/3 {
			t.Fatalf("comment %d on page %d (%v), want %d", i, r.Page, err, i/3)
		}
	}
	again, err := f.s.AddReference(ctx(), sparrow.Reference{Ref: root.ID, Kind: sparrow.RefComment, Status: comments[4], Author: b.ID, CreatedAt: f.now}, 3, newID)
	if err != nil || again.Page != 1 {
		t.Fatalf("replayed reference: page %d %v", again.Page, err)
	}
	if rerr := f.s.RemoveReference(ctx(), root.ID, sparrow.RefComment, comments[1], newID); rerr != nil {
		t.Fatal(rerr)
	}
	if rerr := f.s.RemoveReference(ctx(), root.ID, sparrow.RefComment, comments[1], newID); rerr != nil {
		t.Fatalf("removing twice: %v", rerr)
	}
	page0, err := f.s.ReferencePage(ctx(), root.ID, sparrow.RefComment, 0)
	if err != nil || len(page0) != 2 || page0[0].Status != comments[0] || page0[1].Status != comments[2] {
		t.Fatalf("page 0 after a removal = %+v %v", page0, err)
	}
	f.flushAll(t)
	st, _ := f.s.Status(ctx(), root.ID)
	if st.RepliesEver != 7 || st.RepliesCount != 6 {
		t.Fatalf("replies ever %d kept %d, want 7 and 6", st.RepliesEver, st.RepliesCount)
	}
	newest, _ := f.s.References(ctx(), root.ID, sparrow.RefComment, sparrow.Page{Limit: 2})
	if len(newest) != 2 || newest[0].Status != comments[6] {
		t.Fatalf("newest references %+v", newest)
	}
	_, err = f.s.AddReference(ctx(), sparrow.Reference{Ref: f.ids.Next(3), Kind: sparrow.RefRepost, Status: comments[0], Author: b.ID, CreatedAt: f.now}, 3, newID)
	wantKind(t, err, sparrow.ENotFound)
}
