package storetest

import (
	"slices"
	"testing"

	"sparrow"
)

func noEvents([]sparrow.Edge) []sparrow.Event { return nil }

func (f *fixture) setEdges(t *testing.T, kind sparrow.EdgeKind, from sparrow.ID, active bool, to ...sparrow.ID) []sparrow.Edge {
	t.Helper()
	var ch []sparrow.EdgeChange
	for _, id := range to {
		ch = append(ch, sparrow.EdgeChange{Kind: kind, To: id, Active: active})
	}
	got, err := f.s.SetEdges(ctx(), from, ch, f.now, noEvents)
	if err != nil {
		t.Fatalf("SetEdges: %v", err)
	}
	return got
}

func (f *fixture) flushAll(t *testing.T) {
	t.Helper()
	for i := range f.s.Shards().DBs() {
		for {
			n, err := f.s.FlushCounters(ctx(), i, 1000, 3, 2)
			if err != nil {
				t.Fatalf("FlushCounters: %v", err)
			}
			if n == 0 {
				break
			}
		}
	}
}

func (f *fixture) counts(t *testing.T, id sparrow.ID) (followers, following int64, hot bool) {
	t.Helper()
	a, err := f.s.Account(ctx(), id)
	if err != nil {
		t.Fatal(err)
	}
	return a.FollowersCount, a.FollowingCount, a.Hot
}

func testEdgesVersionsAndIdempotency(t *testing.T, f *fixture) {
	a, b := f.account(t), f.account(t)
	first := f.setEdges(t, sparrow.Follow, a.ID, true, b.ID)
	if len(first) != 1 || first[0].Version != 1 || !first[0].Active || !first[0].Reblogs || first[0].EdgeID.Shard() != a.ID.Shard() {
		t.Fatalf("first follow = %+v", first)
	}
	if again := f.setEdges(t, sparrow.Follow, a.ID, true, b.ID); len(again) != 0 {
		t.Fatalf("a repeated follow changed %d edges", len(again))
	}
	off := false
	opt, err := f.s.SetEdges(ctx(), a.ID, []sparrow.EdgeChange{{Kind: sparrow.Follow, To: b.ID, Active: true, Reblogs: &off}}, f.now, noEvents)
	if err != nil || len(opt) != 1 || opt[0].Version != 2 || opt[0].Reblogs || opt[0].EdgeID != first[0].EdgeID {
		t.Fatalf("option change = %+v %v (edge id must stay: the follow did not restart)", opt, err)
	}
	un := f.setEdges(t, sparrow.Follow, a.ID, false, b.ID)
	if len(un) != 1 || un[0].Active || un[0].Version != 3 {
		t.Fatalf("unfollow = %+v", un)
	}
	if n := f.setEdges(t, sparrow.Follow, a.ID, false, f.ids.NextBalanced()); len(n) != 0 {
		t.Fatalf("unfollowing a never-followed account wrote %v", n)
	}
	_, following, _ := f.counts(t, a.ID)
	if following != 0 {
		t.Fatalf("following_count = %d after follow+unfollow", following)
	}
	got, _ := f.s.Edges(ctx(), sparrow.Follow, a.ID, []sparrow.ID{b.ID})
	if e := got[b.ID]; e.Active || e.Version != 3 {
		t.Fatalf("stored edge %+v", e)
	}
}

// testReverseReplayAndReorder: the Follower side applies only newer versions,
// so replays and reordered deliveries converge and never resurrect an unfollow.
func testReverseReplayAndReorder(t *testing.T, f *fixture) {
	a, b := f.account(t), f.account(t)
	v1 := f.setEdges(t, sparrow.Follow, a.ID, true, b.ID)
	v2 := f.setEdges(t, sparrow.Follow, a.ID, false, b.ID)
	newID := func(shard int) sparrow.ID { return f.ids.Next(shard) }
	// Deliver out of order, and twice.
	for _, batch := range [][]sparrow.Edge{v2, v1, v1, v2} {
		if err := f.s.ApplyReverse(ctx(), batch, newID); err != nil {
			t.Fatal(err)
		}
	}
	rev, _ := f.s.ReverseEdges(ctx(), sparrow.Follow, b.ID, []sparrow.ID{a.ID})
	if e, ok := rev[a.ID]; !ok || e.Active || e.Version != 2 {
		t.Fatalf("reverse edge = %+v (ok=%v), want removed at version 2", e, ok)
	}
	f.flushAll(t)
	if followers, _, _ := f.counts(t, b.ID); followers != 0 {
		t.Fatalf("followers_count = %d, want 0", followers)
	}
	// In order, once more: follow again.
	v3 := f.setEdges(t, sparrow.Follow, a.ID, true, b.ID)
	if err := f.s.ApplyReverse(ctx(), append(v3, v3...), newID); err != nil {
		t.Fatal(err)
	}
	f.flushAll(t)
	if followers, following, _ := f.counts(t, b.ID); followers != 1 || following != 0 {
		t.Fatalf("b counts = %d/%d, want 1 follower", followers, following)
	}
	if _, following, _ := f.counts(t, a.ID); following != 1 {
		t.Fatalf("a following_count = %d, want 1", following)
	}
}

// testCountersAndHotHysteresis: with hot=3 and cold=2, an account turns hot at
// 3 followers and back only below 2.
func testCountersAndHotHysteresis(t *testing.T, f *fixture) {
	star := f.account(t)
	var fans []sparrow.ID
	newID := func(shard int) sparrow.ID { return f.ids.Next(shard) }
	follow := func(active bool, who ...sparrow.ID) {
		for _, fan := range who {
			if err := f.s.ApplyReverse(ctx(), f.setEdges(t, sparrow.Follow, fan, active, star.ID), newID); err != nil {
				t.Fatal(err)
			}
		}
		f.flushAll(t)
	}
	for i := 0; i < 4; i++ {
		fans = append(fans, f.account(t).ID)
	}
	follow(true, fans[:2]...)
	if n, _, hot := f.counts(t, star.ID); n != 2 || hot {
		t.Fatalf("2 followers: count %d hot %v", n, hot)
	}
	follow(true, fans[2])
	if n, _, hot := f.counts(t, star.ID); n != 3 || !hot {
		t.Fatalf("3 followers: count %d hot %v, want hot", n, hot)
	}
	follow(false, fans[2])
	if n, _, hot := f.counts(t, star.ID); n != 2 || !hot {
		t.Fatalf("back to 2: count %d hot %v, want still hot (hysteresis)", n, hot)
	}
	follow(false, fans[1])
	if n, _, hot := f.counts(t, star.ID); n != 1 || hot {
		t.Fatalf("1 follower: count %d hot %v, want ordinary", n, hot)
	}
}

func testEdgeListsNewestFirst(t *testing.T, f *fixture) {
	a := f.account(t)
	var to []sparrow.ID
	for i := 0; i < 5; i++ {
		b := f.account(t)
		to = append(to, b.ID)
		f.setEdges(t, sparrow.Follow, a.ID, true, b.ID)
	}
	f.setEdges(t, sparrow.Follow, a.ID, false, to[2])
	page, err := f.s.ListForward(ctx(), sparrow.Follow, a.ID, sparrow.Page{Limit: 2})
	if err != nil || len(page) != 2 || page[0].To != to[4] || page[1].To != to[3] {
		t.Fatalf("first page %+v %v", page, err)
	}
	next, _ := f.s.ListForward(ctx(), sparrow.Follow, a.ID, sparrow.Page{MaxID: page[1].EdgeID, Limit: 5})
	if len(next) != 2 || next[0].To != to[1] || next[1].To != to[0] {
		t.Fatalf("second page %+v (the unfollowed one must be skipped)", next)
	}
	ids, _ := f.s.FollowingIDs(ctx(), a.ID)
	want := []sparrow.ID{to[0], to[1], to[3], to[4]}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("FollowingIDs = %v, want %v", ids, want)
	}
	if err := f.s.ApplyReverse(ctx(), f.setEdges(t, sparrow.Follow, to[0], true, a.ID), func(s int) sparrow.ID { return f.ids.Next(s) }); err != nil {
		t.Fatal(err)
	}
	rev, _ := f.s.ListReverse(ctx(), sparrow.Follow, a.ID, sparrow.Page{Limit: 10})
	if len(rev) != 1 || rev[0].From != to[0] {
		t.Fatalf("followers list = %+v", rev)
	}
}

func testAccountTerms(t *testing.T, f *fixture) {
	a, b := f.account(t), f.account(t)
	if err := f.s.IndexAccountTerms(ctx(), a.ID, []string{"alice", "麻雀先生"}); err != nil {
		t.Fatal(err)
	}
	if err := f.s.IndexAccountTerms(ctx(), b.ID, []string{"alicia", "alice"}); err != nil {
		t.Fatal(err)
	}
	if err := f.s.IndexAccountTerms(ctx(), a.ID, []string{"alice"}); err != nil {
		t.Fatalf("re-indexing is not idempotent: %v", err)
	}
	got, err := f.s.SearchAccountTerms(ctx(), "ali", 10)
	if err != nil || len(got) != 3 {
		t.Fatalf("search ali = %v %v", got, err)
	}
	if got, _ := f.s.SearchAccountTerms(ctx(), "麻雀", 10); len(got) != 1 || got[0] != a.ID {
		t.Fatalf("search 麻雀 = %v", got)
	}
	if got, _ := f.s.SearchAccountTerms(ctx(), "bob", 10); len(got) != 0 {
		t.Fatalf("search bob = %v", got)
	}
}

// testSetEdgesSeveralKinds: one SetEdges call commits changes of several kinds
// in one transaction (a block that ends a follow and a follow request), with
// one call of events for all of them; RelationRows reads every kind, forward
// and reverse.
func testSetEdgesSeveralKinds(t *testing.T, f *fixture) {
	a, b, c := f.account(t), f.account(t), f.account(t)
	f.setEdges(t, sparrow.Follow, a.ID, true, b.ID)
	off := false
	req, err := f.s.SetEdges(ctx(), a.ID, []sparrow.EdgeChange{{Kind: sparrow.FollowRequest, To: c.ID, Active: true, Reblogs: &off}}, f.now, noEvents)
	if err != nil || len(req) != 1 || req[0].Kind != sparrow.FollowRequest || req[0].Reblogs || !req[0].Active {
		t.Fatalf("follow request = %+v %v", req, err)
	}
	calls := 0
	var got []sparrow.Edge
	changed, err := f.s.SetEdges(ctx(), a.ID, []sparrow.EdgeChange{
		{Kind: sparrow.Block, To: b.ID, Active: true},
		{Kind: sparrow.Follow, To: b.ID, Active: false},
		{Kind: sparrow.FollowRequest, To: c.ID, Active: false},
		{Kind: sparrow.Mute, To: c.ID, Active: false}, // never muted: no change
	}, f.now, func(edges []sparrow.Edge) []sparrow.Event {
		calls++
		got = edges
		return nil
	})
	if err != nil || len(changed) != 3 || calls != 1 || len(got) != 3 {
		t.Fatalf("changed %+v (events called %d times with %d edges), err %v", changed, calls, len(got), err)
	}
	kinds := map[sparrow.EdgeKind]bool{}
	for _, e := range changed {
		kinds[e.Kind] = e.Active
	}
	if on, ok := kinds[sparrow.Block]; !ok || !on || kinds[sparrow.Follow] || kinds[sparrow.FollowRequest] {
		t.Fatalf("kinds changed: %v", kinds)
	}
	if _, following, _ := f.counts(t, a.ID); following != 0 {
		t.Fatalf("following_count = %d after the block ended the follow", following)
	}
	newID := func(shard int) sparrow.ID { return f.ids.Next(shard) }
	if aerr := f.s.ApplyReverse(ctx(), append(req, changed...), newID); aerr != nil {
		t.Fatal(aerr)
	}
	rows, err := f.s.RelationRows(ctx(), a.ID, []sparrow.ID{b.ID, c.ID}, sparrow.AllParts)
	if err != nil || !rows.Blocking[b.ID].Active || len(rows.Following) != 0 || len(rows.Requested) != 0 {
		t.Fatalf("a's rows = %+v %v", rows, err)
	}
	f.setEdges(t, sparrow.FollowRequest, b.ID, true, a.ID)
	if aerr := f.s.ApplyReverse(ctx(), f.setEdges(t, sparrow.FollowRequest, c.ID, true, a.ID), newID); aerr != nil {
		t.Fatal(aerr)
	}
	rows, _ = f.s.RelationRows(ctx(), a.ID, []sparrow.ID{b.ID, c.ID}, sparrow.AllParts)
	if !rows.RequestedBy[c.ID].Active || len(rows.RequestedBy) != 1 {
		t.Fatalf("requested by = %+v (b's request was never applied to the reverse table)", rows.RequestedBy)
	}
	rows, _ = f.s.RelationRows(ctx(), c.ID, []sparrow.ID{a.ID}, sparrow.AllParts)
	if !rows.Requested[a.ID].Active || !rows.Requested[a.ID].Reblogs {
		t.Fatalf("c's request = %+v", rows.Requested)
	}
	list, err := f.s.ListReverse(ctx(), sparrow.FollowRequest, a.ID, sparrow.Page{Limit: 10})
	if err != nil || len(list) != 1 || list[0].From != c.ID {
		t.Fatalf("a's follow requests = %+v %v", list, err)
	}
}
