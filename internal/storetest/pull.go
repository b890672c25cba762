package storetest

import (
	"slices"
	"testing"
	"time"

	"sparrow"
)

// testAuthorsFeed: the pull path merges authors across stores, skips deleted
// statuses and other authors, honours every cursor, and reports reblogs.
func testAuthorsFeed(t *testing.T, f *fixture) {
	var authors []*sparrow.Account
	for i := 0; i < 6; i++ {
		authors = append(authors, f.account(t))
	}
	stranger := f.account(t)
	var want []sparrow.ID
	for round := 0; round < 5; round++ {
		for _, a := range authors {
			want = append(want, f.post(t, a, "p").ID)
			f.post(t, stranger, "noise")
		}
	}
	time.Sleep(2 * time.Millisecond) // the reblog is the newest item
	rb := f.post(t, authors[0], "", func(s *sparrow.Status) { s.Type, s.ReblogOfID = sparrow.Repost, want[3] })
	want = append(want, rb.ID)
	gone := f.post(t, authors[1], "gone")
	if _, err := f.s.DeleteStatus(ctx(), gone.ID, f.now.Add(time.Second), func(*sparrow.Status) []sparrow.Event { return nil }); err != nil {
		t.Fatal(err)
	}
	// Newest first by id: within one millisecond ids order by gene, not by creation.
	slices.Sort(want)
	slices.Reverse(want)
	ids := make([]sparrow.ID, len(authors))
	for i, a := range authors {
		ids[i] = a.ID
	}
	read := func(p sparrow.Page) []sparrow.FeedItem {
		t.Helper()
		got, err := f.s.AuthorsFeed(ctx(), ids, p)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	ofItems := func(items []sparrow.FeedItem) []sparrow.ID {
		out := make([]sparrow.ID, len(items))
		for i, it := range items {
			out[i] = it.ID
		}
		return out
	}
	first := read(sparrow.Page{Limit: 7})
	if got := ofItems(first); !slices.Equal(got, want[:7]) {
		t.Fatalf("first page %v, want %v", got, want[:7])
	}
	if first[0].ID != rb.ID || first[0].Reblog != rb.ReblogOfID {
		t.Fatalf("reblog not reported: %+v", first[0])
	}
	if first[0].Author != authors[0].ID {
		t.Fatalf("author of the newest item %d, want %d", first[0].Author, authors[0].ID)
	}
	if got := ofItems(read(sparrow.Page{MaxID: want[6], Limit: 10})); !slices.Equal(got, want[7:17]) {
		t.Fatalf("max_id page %v, want %v", got, want[7:17])
	}
	if got := ofItems(read(sparrow.Page{MinID: want[10], Limit: 3})); !slices.Equal(got, want[7:10]) {
		t.Fatalf("min_id page %v, want %v", got, want[7:10])
	}
	if got := ofItems(read(sparrow.Page{SinceID: want[2], Limit: 40})); !slices.Equal(got, want[:2]) {
		t.Fatalf("since_id page %v, want %v", got, want[:2])
	}
	all := ofItems(read(sparrow.Page{Limit: 100}))
	if !slices.Equal(all, want) {
		t.Fatalf("whole feed has %d items, want %d (deleted and foreign statuses excluded)", len(all), len(want))
	}
}

func testEdgesTo(t *testing.T, f *fixture) {
	author := f.account(t)
	var fans []sparrow.ID
	for i := 0; i < 6; i++ {
		fans = append(fans, f.account(t).ID)
	}
	f.setEdges(t, sparrow.Mute, fans[1], true, author.ID)
	f.setEdges(t, sparrow.Mute, fans[4], true, author.ID)
	f.setEdges(t, sparrow.Mute, fans[4], false, author.ID)
	f.setEdges(t, sparrow.Mute, fans[5], true, fans[0]) // mutes someone else
	got, err := f.s.EdgesTo(ctx(), sparrow.Mute, fans, author.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[fans[1]].Active {
		t.Fatalf("muters of the author = %+v, want only %d", got, fans[1])
	}
}
