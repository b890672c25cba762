package cachetest

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"sparrow"
)

// TestRecentLists checks that the lists made by newLists meet the
// sparrow.RecentLists contract, with the floor semantics of [TestInboxes]
// (a list holds only items above its floor, trimming sets the floor to the
// newest item dropped) and these last post times: kept to the millisecond,
// never moving backwards, and on Seed the time of the newest seeded item's id
// (none for an empty list). newLists is called once per subtest, possibly
// from parallel subtests, and must return empty lists keeping cap items each,
// isolated from the others.
func TestRecentLists(t *testing.T, newLists func(t *testing.T, cap int) sparrow.RecentLists) {
	for _, tc := range []struct {
		name string
		cap  int
		fn   func(t *testing.T, r sparrow.RecentLists)
	}{
		{"NoList", 10, recNoList},
		{"SeedIsIdempotent", 10, recSeed},
		{"SeedTrimsToCap", 3, recSeedTrims},
		{"AppendTrimsAndRaisesFloor", 3, recAppend},
		{"AppendWithoutListDoesNothing", 10, recAppendMissing},
		{"Paging", 100, recPaging},
		{"ReadManyIsReadOfEach", 4, recReadMany},
		{"LastPost", 10, recLastPost},
		{"Authors", 10, recAuthors},
		{"Remove", 10, recRemove},
		{"Delete", 10, recDelete},
		{"ConcurrentAppend", 500, recConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newLists(t, tc.cap))
		})
	}
}

func seed(t *testing.T, r sparrow.RecentLists, author sparrow.ID, its []sparrow.FeedItem, floor sparrow.ID) {
	t.Helper()
	if err := r.Seed(ctx(t), author, its, floor); err != nil {
		t.Fatalf("Seed(%d): %v", author, err)
	}
}

func appendItem(t *testing.T, r sparrow.RecentLists, author, id sparrow.ID, at time.Time) {
	t.Helper()
	if err := r.Append(ctx(t), author, item(id), at); err != nil {
		t.Fatalf("Append(%d, %d): %v", author, id, err)
	}
}

func readList(t *testing.T, r sparrow.RecentLists, author sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, sparrow.ID, bool) {
	t.Helper()
	its, floor, ok, err := r.Read(ctx(t), author, p)
	if err != nil {
		t.Fatalf("Read(%d, %+v): %v", author, p, err)
	}
	if !ok && (len(its) > 0 || floor != 0) {
		t.Fatalf("Read(%d): ok false with %d items, floor %d", author, len(its), floor)
	}
	return its, floor, ok
}

// wantList fails t unless author's list exists and holds exactly ids
// (newest first) above floor.
func wantList(t *testing.T, r sparrow.RecentLists, author, floor sparrow.ID, ids ...sparrow.ID) {
	t.Helper()
	its, f, ok := readList(t, r, author, sparrow.Page{Limit: 10_000})
	if !ok {
		t.Fatalf("list %d: does not exist", author)
	}
	wantIDs(t, fmt.Sprintf("list %d", author), its, ids...)
	if f != floor {
		t.Fatalf("list %d: floor %d, want %d", author, f, floor)
	}
}

func wantNoList(t *testing.T, r sparrow.RecentLists, author sparrow.ID) {
	t.Helper()
	if _, _, ok := readList(t, r, author, sparrow.Page{}); ok {
		t.Fatalf("list %d exists, want none", author)
	}
}

func authors(t *testing.T, r sparrow.RecentLists) map[sparrow.ID]bool {
	t.Helper()
	got, err := r.Authors(ctx(t))
	if err != nil {
		t.Fatalf("Authors: %v", err)
	}
	return got
}

func wantAuthors(t *testing.T, r sparrow.RecentLists, want ...sparrow.ID) {
	t.Helper()
	w := map[sparrow.ID]bool{}
	for _, a := range want {
		w[a] = true
	}
	if got := authors(t, r); !maps.Equal(got, w) {
		t.Fatalf("Authors = %v, want %v", got, w)
	}
}

func lastPost(t *testing.T, r sparrow.RecentLists, authors ...sparrow.ID) map[sparrow.ID]time.Time {
	t.Helper()
	got, err := r.LastPost(ctx(t), authors)
	if err != nil {
		t.Fatalf("LastPost: %v", err)
	}
	return got
}

// wantTimes fails t unless got has exactly want's keys, with equal times.
func wantTimes(t *testing.T, what string, got, want map[sparrow.ID]time.Time) {
	t.Helper()
	if !maps.EqualFunc(got, want, time.Time.Equal) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func recNoList(t *testing.T, r sparrow.RecentLists) {
	wantNoList(t, r, 1)
	wantAuthors(t, r)
	wantTimes(t, "LastPost", lastPost(t, r, 1, 2), map[sparrow.ID]time.Time{})
	wantTimes(t, "LastPost of nobody", lastPost(t, r), map[sparrow.ID]time.Time{})
	if err := r.Remove(ctx(t), 1, 10); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx(t), 1); err != nil {
		t.Fatal(err)
	}
	wantNoList(t, r, 1)
}

func recSeed(t *testing.T, r sparrow.RecentLists) { // cap 10
	seed(t, r, 1, items(30, 10, 50, 20, 40, 30, 5, 3), 5)
	wantList(t, r, 1, 5, 50, 40, 30, 20, 10)
	got, _, _ := readList(t, r, 1, sparrow.Page{Limit: 2})
	wantItems(t, "items keep their authors", got, items(50, 40))
	seed(t, r, 1, items(60, 70), 0) // a list exists: nothing changes
	wantList(t, r, 1, 5, 50, 40, 30, 20, 10)
	seed(t, r, 2, nil, 100) // an empty list is a list
	wantList(t, r, 2, 100)
	wantAuthors(t, r, 1, 2)
}

func recSeedTrims(t *testing.T, r sparrow.RecentLists) { // cap 3
	seed(t, r, 1, items(shuffled(span(10, 60, 10))...), 0)
	wantList(t, r, 1, 30, 60, 50, 40)
}

func recAppend(t *testing.T, r sparrow.RecentLists) { // cap 3
	seed(t, r, 1, nil, 0)
	for _, id := range span(10, 40, 10) {
		appendItem(t, r, 1, id, t0)
	}
	wantList(t, r, 1, 10, 40, 30, 20)
	appendItem(t, r, 1, 5, t0)  // at or below the floor
	appendItem(t, r, 1, 40, t0) // a duplicate
	wantList(t, r, 1, 10, 40, 30, 20)
	appendItem(t, r, 1, 15, t0) // older than all held: trimmed at once
	wantList(t, r, 1, 15, 40, 30, 20)
	appendItem(t, r, 1, 35, t0)
	wantList(t, r, 1, 20, 40, 35, 30)
}

func recAppendMissing(t *testing.T, r sparrow.RecentLists) {
	appendItem(t, r, 1, 10, t0)
	wantNoList(t, r, 1)
	wantAuthors(t, r)
	wantTimes(t, "LastPost", lastPost(t, r, 1), map[sparrow.ID]time.Time{})
}

func recPaging(t *testing.T, r sparrow.RecentLists) {
	seed(t, r, 1, items(pagingIDs[:10]...), 0)
	for _, id := range shuffled(pagingIDs[10:]) {
		appendItem(t, r, 1, id, t0)
	}
	checkPaging(t, func(p sparrow.Page) []sparrow.FeedItem {
		its, floor, ok := readList(t, r, 1, p)
		if !ok || floor != 0 {
			t.Fatalf("Read(%+v): ok %v, floor %d", p, ok, floor)
		}
		return its
	})
}

func recReadMany(t *testing.T, r sparrow.RecentLists) { // cap 4
	base := sparrow.MinIDAt(t0)
	seed(t, r, 1, items(base+9, base+7, base+5), base+2)
	seed(t, r, 2, nil, 0)
	for _, id := range []sparrow.ID{base + 3, base + 6, base + 8, base + 10, base + 11, base + 12} {
		appendItem(t, r, 4, id, t0) // no list: nothing happens
	}
	seed(t, r, 5, items(base+12, base+11, base+10, base+8), base+6)
	authors := []sparrow.ID{5, 3, 1, 2, 1}
	for _, p := range []sparrow.Page{{Limit: 10}, {Limit: 2}, {MaxID: base + 10, Limit: 10}, {MinID: base + 7, Limit: 2},
		{SinceID: base + 8, Limit: 10}, {MaxID: base + 5, SinceID: base + 5, Limit: 3}} {
		got, err := r.ReadMany(ctx(t), authors, p)
		if err != nil {
			t.Fatalf("ReadMany(%+v): %v", p, err)
		}
		if len(got) != len(authors) {
			t.Fatalf("ReadMany(%+v): %d results for %d authors", p, len(got), len(authors))
		}
		for i, a := range authors {
			its, floor, ok := readList(t, r, a, p)
			if got[i].OK != ok || got[i].Floor != floor || !slices.Equal(idsOf(got[i].Items), idsOf(its)) {
				t.Errorf("ReadMany(%+v)[%d] (author %d) = ok %v floor %d %v; Read = ok %v floor %d %v",
					p, i, a, got[i].OK, got[i].Floor, idsOf(got[i].Items), ok, floor, idsOf(its))
			}
		}
	}
	if got, err := r.ReadMany(ctx(t), nil, sparrow.Page{Limit: 5}); err != nil || len(got) != 0 {
		t.Fatalf("ReadMany(no authors) = %v, %v", got, err)
	}
	// Read itself is checked by the other cases; one sanity check here.
	if its, floor, ok := readList(t, r, 1, sparrow.Page{Limit: 10}); !ok || floor != base+2 || len(its) != 3 {
		t.Fatalf("list 1: ok %v floor %d, %d items", ok, floor, len(its))
	}
}

func recLastPost(t *testing.T, r sparrow.RecentLists) {
	ms := func(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()) }
	// A seeded list's last post is its newest item's.
	newest := sparrow.MinIDAt(t0) + 7
	seed(t, r, 1, items(newest-1<<30, newest), 0)
	seed(t, r, 2, nil, 0) // no items: no time yet
	wantTimes(t, "LastPost after Seed", lastPost(t, r, 1, 2, 3),
		map[sparrow.ID]time.Time{1: newest.Time()})
	t1 := t0.Add(time.Hour)
	appendItem(t, r, 1, newest+1, t1)
	appendItem(t, r, 2, 10, t0)
	appendItem(t, r, 3, 10, t0) // no list
	want := map[sparrow.ID]time.Time{1: ms(t1), 2: ms(t0)}
	wantTimes(t, "LastPost", lastPost(t, r, 1, 2, 3, 4), want)
	// Appends out of order never move the time backwards.
	appendItem(t, r, 1, newest+2, t0)
	wantTimes(t, "LastPost after an older append", lastPost(t, r, 1, 2), want)
	wantTimes(t, "LastPost of one", lastPost(t, r, 2), map[sparrow.ID]time.Time{2: ms(t0)})
	// Many authors at once.
	var many []sparrow.ID
	wantMany := map[sparrow.ID]time.Time{}
	for a := sparrow.ID(100); a < 400; a++ {
		many = append(many, a, a+10_000) // every other one has no list
		seed(t, r, a, nil, 0)
		at := t0.Add(time.Duration(a) * time.Second)
		appendItem(t, r, a, 10, at)
		wantMany[a] = ms(at)
	}
	wantTimes(t, "LastPost of many", lastPost(t, r, many...), wantMany)
}

func recAuthors(t *testing.T, r sparrow.RecentLists) {
	for _, a := range []sparrow.ID{1, 2, 3, 1 << 62} {
		seed(t, r, a, items(10), 0)
	}
	seed(t, r, 2, nil, 0)
	wantAuthors(t, r, 1, 2, 3, 1<<62)
	if err := r.Delete(ctx(t), 2); err != nil {
		t.Fatal(err)
	}
	wantAuthors(t, r, 1, 3, 1<<62)
	got := authors(t, r)
	got[99] = true // the caller owns the map
	wantAuthors(t, r, 1, 3, 1<<62)
}

func recRemove(t *testing.T, r sparrow.RecentLists) {
	seed(t, r, 1, items(10, 20, 30, 110), 5)
	seed(t, r, 2, items(10, 20), 0)
	if err := r.Remove(ctx(t), 1, 10); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(ctx(t), 1, 99); err != nil {
		t.Fatal(err)
	}
	wantList(t, r, 1, 5, 110, 30, 20)
	wantList(t, r, 2, 0, 20, 10)
}

func recDelete(t *testing.T, r sparrow.RecentLists) {
	seed(t, r, 1, items(10, 20), 0)
	appendItem(t, r, 1, 30, t0)
	seed(t, r, 2, items(10), 0)
	if err := r.Delete(ctx(t), 1); err != nil {
		t.Fatal(err)
	}
	wantNoList(t, r, 1)
	wantAuthors(t, r, 2)
	appendItem(t, r, 1, 40, t0)
	wantNoList(t, r, 1)
	if got := lastPost(t, r, 1); len(got) != 0 {
		t.Fatalf("LastPost after Delete = %v, want none", got)
	}
	// Seeding again starts afresh.
	seed(t, r, 1, items(50), 45)
	wantList(t, r, 1, 45, 50)
	wantAuthors(t, r, 1, 2)
}

func recConcurrent(t *testing.T, r sparrow.RecentLists) { // cap 500
	const writers, per = 8, 50
	seed(t, r, 1, nil, 0)
	c := ctx(t)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range per {
				id := sparrow.ID(i*writers + w + 1)
				if err := r.Append(c, 1, item(id), t0.Add(time.Duration(id)*time.Millisecond)); err != nil {
					t.Errorf("Append: %v", err)
					return
				}
				if _, _, _, err := r.Read(c, 1, sparrow.Page{Limit: 5}); err != nil {
					t.Errorf("Read: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	wantList(t, r, 1, 0, newestFirst(span(1, writers*per, 1))...)
	wantTimes(t, "LastPost", lastPost(t, r, 1), map[sparrow.ID]time.Time{1: t0.Add(writers * per * time.Millisecond).Truncate(time.Millisecond)})
}
