package cachetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"sparrow"
)

// TestInboxes checks that the stores made by newInboxes meet the
// sparrow.InboxStore contract with these floor semantics:
//
//   - An inbox holds only items above its floor, and every item above its
//     floor that it was given (pushed or filled) and that was not removed.
//   - floor = the id of the newest item removed by trimming: trimming to the
//     cap keeps the newest items, so items above the floor stay complete.
//     A push at or below the floor is ignored.
//   - Fill(items, floor) says items holds every item above floor: the inbox
//     becomes the union of its items and items, without those at or below
//     floor, trimmed to the cap, with floor raised to the newest item
//     trimmed. It may lower a floor raised by earlier trimming.
//   - Create makes an unfilled inbox, which collects pushes; the first Fill
//     marks it filled, and only Drop unmarks it (by deleting it).
//
// newInboxes is called once per subtest, possibly from parallel subtests,
// and must return an empty store keeping cap items per inbox, isolated from
// the others (for a shared server, use a unique key prefix).
func TestInboxes(t *testing.T, newInboxes func(t *testing.T, cap int) sparrow.InboxStore) {
	for _, tc := range []struct {
		name string
		cap  int
		fn   func(t *testing.T, s sparrow.InboxStore)
	}{
		{"ReadWithoutInbox", 10, inbReadMissing},
		{"PushSkipsUsersWithoutInbox", 10, inbPushSkips},
		{"CreateIsIdempotent", 10, inbCreateIdempotent},
		{"Paging", 100, inbPaging},
		{"LargeIDsKeepExactOrder", 1000, inbLargeIDs},
		{"TrimRaisesFloor", 5, inbTrim},
		{"PushAtOrBelowFloorIsIgnored", 10, inbBelowFloor},
		{"DuplicatePushIsIdempotent", 3, inbDuplicates},
		{"FillMergesAndSetsFloor", 10, inbFill},
		{"FillTrimsToCap", 4, inbFillTrims},
		{"FillDropsItemsAtOrBelowItsFloor", 10, inbFillRaises},
		{"FillMayLowerTheFloor", 3, inbFillLowers},
		{"FillWithoutInbox", 10, inbFillMissing},
		{"FillMarksFilled", 10, inbFilled},
		{"RemoveAuthor", 20, inbRemoveAuthor},
		{"RemoveStatus", 20, inbRemoveStatus},
		{"Drop", 10, inbDrop},
		{"ReadReturnsACopy", 10, inbCopy},
		{"ConcurrentPushAndRead", 1000, inbConcurrent},
		{"ConcurrentTrimKeepsNewest", 50, inbConcurrentTrim},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newInboxes(t, tc.cap))
		})
	}
}

// t0 is the build time used by the inbox tests, with sub-millisecond digits.
var t0 = time.Date(2030, 1, 2, 3, 4, 5, 678_901_234, time.UTC)

func create(t *testing.T, s sparrow.InboxStore, user, floor sparrow.ID) sparrow.InboxState {
	t.Helper()
	st, err := s.Create(ctx(t), user, floor, t0)
	if err != nil {
		t.Fatalf("Create(%d, floor %d): %v", user, floor, err)
	}
	return st
}

func push(t *testing.T, s sparrow.InboxStore, users []sparrow.ID, ids ...sparrow.ID) {
	t.Helper()
	for _, id := range ids {
		if err := s.Push(ctx(t), users, item(id)); err != nil {
			t.Fatalf("Push(%v, %d): %v", users, id, err)
		}
	}
}

func fill(t *testing.T, s sparrow.InboxStore, user sparrow.ID, its []sparrow.FeedItem, floor sparrow.ID) {
	t.Helper()
	if err := s.Fill(ctx(t), user, its, floor); err != nil {
		t.Fatalf("Fill(%d, floor %d): %v", user, floor, err)
	}
}

func read(t *testing.T, s sparrow.InboxStore, user sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, sparrow.InboxState) {
	t.Helper()
	its, st, err := s.Read(ctx(t), user, p)
	if err != nil {
		t.Fatalf("Read(%d, %+v): %v", user, p, err)
	}
	if !st.Exists && len(its) > 0 {
		t.Fatalf("Read(%d): %d items from an inbox that does not exist", user, len(its))
	}
	return its, st
}

// wantInbox fails t unless user's inbox exists and holds exactly ids (newest
// first) above floor.
func wantInbox(t *testing.T, s sparrow.InboxStore, user, floor sparrow.ID, ids ...sparrow.ID) {
	t.Helper()
	its, st := read(t, s, user, sparrow.Page{Limit: 10_000})
	if !st.Exists {
		t.Fatalf("inbox %d: does not exist", user)
	}
	wantIDs(t, fmt.Sprintf("inbox %d", user), its, ids...)
	if st.Floor != floor {
		t.Fatalf("inbox %d: floor %d, want %d", user, st.Floor, floor)
	}
}

func wantNoInbox(t *testing.T, s sparrow.InboxStore, user sparrow.ID) {
	t.Helper()
	if its, st := read(t, s, user, sparrow.Page{}); st.Exists || len(its) > 0 {
		t.Fatalf("inbox %d: exists (%+v) with %d items, want none", user, st, len(its))
	}
}

func inbReadMissing(t *testing.T, s sparrow.InboxStore) {
	its, st := read(t, s, 1, sparrow.Page{})
	if st != (sparrow.InboxState{}) || len(its) != 0 {
		t.Fatalf("Read of a missing inbox = %v, %+v; want nothing and a zero state", its, st)
	}
}

func inbPushSkips(t *testing.T, s sparrow.InboxStore) {
	create(t, s, 1, 0)
	push(t, s, []sparrow.ID{1, 2, 3}, 10, 20)
	wantInbox(t, s, 1, 0, 20, 10)
	wantNoInbox(t, s, 2)
	wantNoInbox(t, s, 3)
	// An inbox created later holds nothing pushed before.
	create(t, s, 2, 0)
	wantInbox(t, s, 2, 0)
	push(t, s, nil, 30) // nobody: nothing happens
	wantInbox(t, s, 1, 0, 20, 10)
}

func inbCreateIdempotent(t *testing.T, s sparrow.InboxStore) {
	st := create(t, s, 1, 50)
	if !st.Exists || st.Filled || st.Floor != 50 {
		t.Fatalf("Create = %+v, want Exists, not Filled, Floor 50", st)
	}
	if d := st.BuiltAt.Sub(t0); d > 0 || d <= -time.Millisecond {
		t.Fatalf("BuiltAt = %v, want %v (to the millisecond)", st.BuiltAt, t0)
	}
	push(t, s, []sparrow.ID{1}, 60)
	again, err := s.Create(ctx(t), 1, 10, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if again.Exists != st.Exists || again.Filled || again.Floor != st.Floor || !again.BuiltAt.Equal(st.BuiltAt) {
		t.Fatalf("second Create = %+v, want the existing state %+v", again, st)
	}
	wantInbox(t, s, 1, 50, 60)
	_, got := read(t, s, 1, sparrow.Page{})
	if !got.BuiltAt.Equal(st.BuiltAt) {
		t.Fatalf("Read: BuiltAt %v, want %v", got.BuiltAt, st.BuiltAt)
	}
	// A negative floor counts as 0.
	if st := create(t, s, 2, -5); st.Floor != 0 {
		t.Fatalf("Create with floor -5: Floor %d, want 0", st.Floor)
	}
}

func inbPaging(t *testing.T, s sparrow.InboxStore) {
	create(t, s, 1, 0)
	push(t, s, []sparrow.ID{1}, shuffled(pagingIDs)...)
	checkPaging(t, func(p sparrow.Page) []sparrow.FeedItem {
		its, st := read(t, s, 1, p)
		if !st.Exists || st.Floor != 0 {
			t.Fatalf("Read(%+v): state %+v", p, st)
		}
		return its
	})
}

// inbLargeIDs uses ids near 2^62 that differ only in their low bits (a
// float64 holds 2^62 with a spacing of 1024, so these would collide as float
// scores), and the largest ids, authors and reblogs.
func inbLargeIDs(t *testing.T, s sparrow.InboxStore) {
	const base = sparrow.ID(1) << 62
	var ids []sparrow.ID
	for k := range sparrow.ID(256) {
		ids = append(ids, base+k, base+k<<8)
	}
	ids = append(ids, math.MaxInt64, math.MaxInt64-1, base-1, 1)
	create(t, s, 1, 0)
	for _, id := range shuffled(ids) {
		it := sparrow.FeedItem{ID: id, Author: math.MaxInt64 - id%3, Reblog: id / 2}
		if err := s.Push(ctx(t), []sparrow.ID{1}, it); err != nil {
			t.Fatal(err)
		}
	}
	want := make([]sparrow.FeedItem, 0, len(ids))
	seen := map[sparrow.ID]bool{}
	for _, id := range newestFirst(ids) {
		if !seen[id] { // base+0 appears twice
			seen[id] = true
			want = append(want, sparrow.FeedItem{ID: id, Author: math.MaxInt64 - id%3, Reblog: id / 2})
		}
	}
	got, _ := read(t, s, 1, sparrow.Page{Limit: 10_000})
	wantItems(t, "all items", got, want)
	page, _ := read(t, s, 1, sparrow.Page{MaxID: base + 100, Limit: 3})
	wantIDs(t, "MaxID page", page, base+99, base+98, base+97)
	page, _ = read(t, s, 1, sparrow.Page{MinID: base + 100, Limit: 3})
	wantIDs(t, "MinID page", page, base+103, base+102, base+101)
	page, _ = read(t, s, 1, sparrow.Page{SinceID: base + 254<<8, Limit: 3})
	wantIDs(t, "SinceID page", page, math.MaxInt64, math.MaxInt64-1, base+255<<8)
	page, _ = read(t, s, 1, sparrow.Page{MaxID: base + 1, Limit: 2})
	wantIDs(t, "below base", page, base, base-1)
}

func inbTrim(t *testing.T, s sparrow.InboxStore) { // cap 5
	create(t, s, 1, 0)
	push(t, s, []sparrow.ID{1}, span(10, 80, 10)...)
	wantInbox(t, s, 1, 30, 80, 70, 60, 50, 40)
	// Older than all held but above the floor: added and trimmed at once.
	push(t, s, []sparrow.ID{1}, 35)
	wantInbox(t, s, 1, 35, 80, 70, 60, 50, 40)
	// Newer than the oldest: the oldest goes.
	push(t, s, []sparrow.ID{1}, 75)
	wantInbox(t, s, 1, 40, 80, 75, 70, 60, 50)
	push(t, s, []sparrow.ID{1}, 100)
	wantInbox(t, s, 1, 50, 100, 80, 75, 70, 60)
}

func inbBelowFloor(t *testing.T, s sparrow.InboxStore) {
	create(t, s, 1, 100)
	push(t, s, []sparrow.ID{1}, 90, 100, 0, 110)
	wantInbox(t, s, 1, 100, 110)
}

func inbDuplicates(t *testing.T, s sparrow.InboxStore) { // cap 3
	create(t, s, 1, 0)
	push(t, s, []sparrow.ID{1, 1}, 10, 20, 30, 30, 20)
	push(t, s, []sparrow.ID{1}, 30)
	wantInbox(t, s, 1, 0, 30, 20, 10) // a duplicate never trims
	push(t, s, []sparrow.ID{1, 1, 1}, 40)
	wantInbox(t, s, 1, 10, 40, 30, 20)
}

// inbFill is a rebuild: create first (pushes land from then on), then fill
// with what the pull path gathered, complete above 80.
func inbFill(t *testing.T, s sparrow.InboxStore) { // cap 10
	create(t, s, 1, 100)
	push(t, s, []sparrow.ID{1}, 110, 120)
	gathered := items(105, 90, 110, 90, 50, 115, 80)
	fill(t, s, 1, gathered, 80)
	wantInbox(t, s, 1, 80, 120, 115, 110, 105, 90)
	fill(t, s, 1, gathered, 80) // idempotent
	wantInbox(t, s, 1, 80, 120, 115, 110, 105, 90)
	fill(t, s, 1, nil, 80)
	wantInbox(t, s, 1, 80, 120, 115, 110, 105, 90)
	got, _ := read(t, s, 1, sparrow.Page{Limit: 100})
	wantItems(t, "items keep their authors", got, items(120, 115, 110, 105, 90))
	// Pushes go on after a fill.
	push(t, s, []sparrow.ID{1}, 130, 85)
	wantInbox(t, s, 1, 80, 130, 120, 115, 110, 105, 90, 85)
}

func inbFillTrims(t *testing.T, s sparrow.InboxStore) { // cap 4
	create(t, s, 1, 0)
	push(t, s, []sparrow.ID{1}, 75)
	fill(t, s, 1, items(shuffled(span(10, 80, 10))...), 0)
	// The union is 80, 75, 70, 60, 50...: the newest 4 stay, 50 is the floor.
	wantInbox(t, s, 1, 50, 80, 75, 70, 60)
	// A fill that trims several held items: the floor is the newest of them.
	create(t, s, 2, 0)
	push(t, s, []sparrow.ID{2}, 15, 25, 35)
	fill(t, s, 2, items(80, 70, 60, 50), 0)
	wantInbox(t, s, 2, 35, 80, 70, 60, 50)
}

func inbFillRaises(t *testing.T, s sparrow.InboxStore) {
	create(t, s, 1, 0)
	push(t, s, []sparrow.ID{1}, 10, 20, 30)
	fill(t, s, 1, items(25, 15), 20)
	wantInbox(t, s, 1, 20, 30, 25)
}

func inbFillLowers(t *testing.T, s sparrow.InboxStore) { // cap 3
	create(t, s, 1, 0)
	push(t, s, []sparrow.ID{1}, 10, 20, 30, 40)
	wantInbox(t, s, 1, 10, 40, 30, 20)
	if err := s.RemoveStatus(ctx(t), []sparrow.ID{1}, 40); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveStatus(ctx(t), []sparrow.ID{1}, 30); err != nil {
		t.Fatal(err)
	}
	wantInbox(t, s, 1, 10, 20)
	fill(t, s, 1, items(10, 5, 1), 2)
	wantInbox(t, s, 1, 2, 20, 10, 5)
}

func inbFilled(t *testing.T, s sparrow.InboxStore) {
	if st := create(t, s, 1, 0); st.Filled {
		t.Fatalf("Create = %+v, want unfilled", st)
	}
	push(t, s, []sparrow.ID{1}, 10)
	if _, st := read(t, s, 1, sparrow.Page{}); !st.Exists || st.Filled {
		t.Fatalf("after a push: %+v, want existing and unfilled", st)
	}
	fill(t, s, 1, nil, 5) // even an empty fill
	_, st := read(t, s, 1, sparrow.Page{})
	if !st.Exists || !st.Filled || st.Floor != 5 {
		t.Fatalf("after Fill: %+v, want filled with floor 5", st)
	}
	push(t, s, []sparrow.ID{1}, 20)
	fill(t, s, 1, items(30), 5)
	if again := create(t, s, 1, 0); again.Exists != st.Exists || again.Filled != st.Filled || again.Floor != st.Floor || !again.BuiltAt.Equal(st.BuiltAt) {
		t.Fatalf("Create on a filled inbox = %+v, want %+v", again, st)
	}
	wantInbox(t, s, 1, 5, 30, 20, 10)
	if err := s.Drop(ctx(t), 1); err != nil {
		t.Fatal(err)
	}
	if st := create(t, s, 1, 0); st.Filled {
		t.Fatalf("Create after Drop = %+v, want unfilled", st)
	}
}

func inbFillMissing(t *testing.T, s sparrow.InboxStore) {
	fill(t, s, 1, items(10, 20), 0)
	wantNoInbox(t, s, 1)
}

func inbRemoveAuthor(t *testing.T, s sparrow.InboxStore) {
	users := []sparrow.ID{1, 2}
	for _, u := range users {
		create(t, s, u, 5)
	}
	// Authors whose decimal forms are prefixes or suffixes of each other.
	for _, it := range []sparrow.FeedItem{
		{ID: 10, Author: 1},
		{ID: 20, Author: 11},
		{ID: 30, Author: 1, Reblog: 11}, // author 1 reblogs a status
		{ID: 40, Author: 111},
		{ID: 50, Author: 21, Reblog: 1},
		{ID: 60, Author: 1},
	} {
		if err := s.Push(ctx(t), users, it); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RemoveAuthor(ctx(t), 1, 1); err != nil {
		t.Fatal(err)
	}
	wantInbox(t, s, 1, 5, 50, 40, 20)
	wantInbox(t, s, 2, 5, 60, 50, 40, 30, 20, 10)
	if err := s.RemoveAuthor(ctx(t), 1, 99); err != nil {
		t.Fatal(err)
	}
	wantInbox(t, s, 1, 5, 50, 40, 20)
	if err := s.RemoveAuthor(ctx(t), 3, 1); err != nil { // no inbox
		t.Fatal(err)
	}
	wantNoInbox(t, s, 3)
}

func inbRemoveStatus(t *testing.T, s sparrow.InboxStore) {
	users := []sparrow.ID{1, 2}
	for _, u := range users {
		create(t, s, u, 5)
	}
	for _, it := range []sparrow.FeedItem{
		{ID: 10, Author: 1},
		{ID: 20, Author: 2, Reblog: 10},  // a reblog of 10
		{ID: 30, Author: 3, Reblog: 110}, // reblog ids that end like 10
		{ID: 40, Author: 10},             // an author that is 10
		{ID: 110, Author: 4},
		{ID: 120, Author: 5, Reblog: 10}, // another reblog of 10
		{ID: 1010, Author: 6},
	} {
		if err := s.Push(ctx(t), users, it); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RemoveStatus(ctx(t), []sparrow.ID{1, 2, 3}, 10); err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		wantInbox(t, s, u, 5, 1010, 110, 40, 30)
	}
	wantNoInbox(t, s, 3)
	if err := s.RemoveStatus(ctx(t), []sparrow.ID{1}, 110); err != nil {
		t.Fatal(err)
	}
	wantInbox(t, s, 1, 5, 1010, 40)
	wantInbox(t, s, 2, 5, 1010, 110, 40, 30)
	if err := s.RemoveStatus(ctx(t), nil, 40); err != nil {
		t.Fatal(err)
	}
	wantInbox(t, s, 1, 5, 1010, 40)
}

func inbDrop(t *testing.T, s sparrow.InboxStore) {
	create(t, s, 1, 0)
	create(t, s, 2, 0)
	create(t, s, 4, 0)
	push(t, s, []sparrow.ID{1, 2, 4}, 10, 20)
	if err := s.Drop(ctx(t), 1, 2, 3); err != nil {
		t.Fatal(err)
	}
	if err := s.Drop(ctx(t)); err != nil {
		t.Fatal(err)
	}
	wantNoInbox(t, s, 1)
	wantNoInbox(t, s, 2)
	wantInbox(t, s, 4, 0, 20, 10)
	push(t, s, []sparrow.ID{1, 2}, 30)
	wantNoInbox(t, s, 1)
	// A new inbox starts empty, with its own floor and build time.
	st, err := s.Create(ctx(t), 1, 25, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if st.Floor != 25 || st.BuiltAt.Before(t0.Add(time.Minute-time.Millisecond)) {
		t.Fatalf("Create after Drop = %+v, want floor 25 and the new build time", st)
	}
	wantInbox(t, s, 1, 25)
}

func inbCopy(t *testing.T, s sparrow.InboxStore) {
	create(t, s, 1, 0)
	push(t, s, []sparrow.ID{1}, 10, 20, 30)
	got, _ := read(t, s, 1, sparrow.Page{})
	got[0] = item(999)
	got, _ = read(t, s, 1, sparrow.Page{Limit: 2})
	_ = append(got, item(5)) // writing past the returned length
	wantInbox(t, s, 1, 0, 30, 20, 10)
}

// inbConcurrent pushes from many goroutines to many users while others read:
// nothing is lost and every read is a well-ordered page.
func inbConcurrent(t *testing.T, s sparrow.InboxStore) { // cap 1000
	const pushers, perPusher, readers, numUsers = 8, 40, 4, 16
	users := span(1, numUsers, 1)
	for _, u := range users {
		create(t, s, u, 0)
	}
	c := ctx(t)
	var wg sync.WaitGroup
	done := make(chan struct{})
	var rwg sync.WaitGroup
	for r := range readers {
		rwg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				u := users[rand.IntN(numUsers)]
				p := sparrow.Page{Limit: 1 + rand.IntN(40)}
				if r%2 == 1 {
					p.MaxID = sparrow.ID(1 + rand.IntN(pushers*perPusher))
				}
				its, st, err := s.Read(c, u, p)
				if err != nil || !st.Exists {
					t.Errorf("Read(%d): %v, %+v", u, err, st)
					return
				}
				for i, it := range its {
					if !p.Contains(it.ID) || i > 0 && its[i-1].ID <= it.ID || i >= p.Limit {
						t.Errorf("Read(%d, %+v) = %v: out of bounds or order", u, p, idsOf(its))
						return
					}
				}
			}
		})
	}
	for w := range pushers {
		wg.Go(func() {
			for i := range perPusher {
				id := sparrow.ID(i*pushers + w + 1) // pushers interleave ids
				if err := s.Push(c, shuffled(users), item(id)); err != nil {
					t.Errorf("Push: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(done)
	rwg.Wait()
	if t.Failed() {
		return
	}
	want := newestFirst(span(1, pushers*perPusher, 1))
	for _, u := range users {
		wantInbox(t, s, u, 0, want...)
	}
}

// inbConcurrentTrim pushes ids in random order from many goroutines into
// small inboxes: whatever the interleaving, each ends with the newest cap
// items and a floor at the newest of the others.
func inbConcurrentTrim(t *testing.T, s sparrow.InboxStore) { // cap 50
	const pushers, total, capacity = 8, 400, 50
	users := []sparrow.ID{1, 2, 3}
	for _, u := range users {
		create(t, s, u, 0)
	}
	ids := shuffled(span(1, total, 1))
	c := ctx(t)
	var wg sync.WaitGroup
	for w := range pushers {
		wg.Go(func() {
			for i := w; i < total; i += pushers {
				if err := s.Push(c, users, item(ids[i])); err != nil {
					t.Errorf("Push: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	want := newestFirst(span(total-capacity+1, total, 1))
	for _, u := range users {
		wantInbox(t, s, u, total-capacity, want...)
	}
}
