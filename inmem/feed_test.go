package inmem_test

import (
	"context"
	"testing"
	"time"

	"sparrow"
	"sparrow/inmem"
	"sparrow/internal/cachetest"
)

func TestInboxes(t *testing.T) {
	cachetest.TestInboxes(t, func(t *testing.T, cap int) sparrow.InboxStore {
		return inmem.NewInboxes(inmem.FeedOptions{InboxCap: cap})
	})
}

func TestRecentLists(t *testing.T) {
	cachetest.TestRecentLists(t, func(t *testing.T, cap int) sparrow.RecentLists {
		return inmem.NewRecentLists(inmem.FeedOptions{RecentCap: cap})
	})
}

func TestActivity(t *testing.T) {
	cachetest.TestActivity(t, func(t *testing.T) sparrow.Activity {
		return inmem.NewActivity(inmem.FeedOptions{})
	})
}

func TestFeedDefaults(t *testing.T) {
	ctx := context.Background()
	s := inmem.NewInboxes(inmem.FeedOptions{})
	r := inmem.NewRecentLists(inmem.FeedOptions{})
	s.Create(ctx, 1, 0, time.Now())
	r.Seed(ctx, 1, nil, 0)
	for id := sparrow.ID(1); id <= 1000; id++ {
		s.Push(ctx, []sparrow.ID{1}, sparrow.FeedItem{ID: id})
		r.Append(ctx, 1, sparrow.FeedItem{ID: id}, time.Now())
	}
	its, st, _ := s.Read(ctx, 1, sparrow.Page{Limit: 10_000})
	if len(its) != sparrow.DefaultInboxCap || st.Floor != 1000-sparrow.DefaultInboxCap {
		t.Errorf("inbox: %d items, floor %d; want %d, %d", len(its), st.Floor, sparrow.DefaultInboxCap, 1000-sparrow.DefaultInboxCap)
	}
	its, floor, _, _ := r.Read(ctx, 1, sparrow.Page{Limit: 10_000})
	if len(its) != sparrow.DefaultRecentCap || floor != 1000-sparrow.DefaultRecentCap {
		t.Errorf("recent list: %d items, floor %d; want %d, %d", len(its), floor, sparrow.DefaultRecentCap, 1000-sparrow.DefaultRecentCap)
	}
	if s.Len() != 1 {
		t.Errorf("Len = %d, want 1", s.Len())
	}
}

// A push of the newest item, the common case, allocates nothing once the
// inbox is full; a read allocates only the page it returns.
func TestInboxAllocations(t *testing.T) {
	ctx := context.Background()
	s := inmem.NewInboxes(inmem.FeedOptions{InboxCap: 100})
	users := []sparrow.ID{1, 2, 3}
	for _, u := range users {
		s.Create(ctx, u, 0, time.Now())
	}
	id := sparrow.ID(0)
	for range 500 {
		id++
		s.Push(ctx, users, sparrow.FeedItem{ID: id})
	}
	if n := testing.AllocsPerRun(1000, func() {
		id++
		s.Push(ctx, users, sparrow.FeedItem{ID: id})
	}); n != 0 {
		t.Errorf("Push: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(1000, func() {
		s.Read(ctx, 1, sparrow.Page{Limit: 40})
	}); n != 1 {
		t.Errorf("Read: %v allocations, want 1", n)
	}
}

// Activity's heap of marks is rebuilt when stale marks pile up, so memory
// follows the live users.
func TestActivityCompacts(t *testing.T) {
	ctx := context.Background()
	a := inmem.NewActivity(inmem.FeedOptions{})
	base := time.Unix(2_000_000_000, 0)
	for i := range 10_000 {
		a.Touch(ctx, sparrow.ID(i%10), base.Add(time.Duration(i)*time.Second))
	}
	got, _ := a.SeenBefore(ctx, base.Add(time.Hour*10), 100)
	if len(got) != 10 || got[0] != 0 || got[9] != 9 {
		t.Errorf("SeenBefore = %v, want users 0..9 in order", got)
	}
	if a.Len() != 10 {
		t.Errorf("Len = %d, want 10", a.Len())
	}
}

func BenchmarkInboxPush1000(b *testing.B) {
	cachetest.BenchInboxPush(b, inmem.NewInboxes(inmem.FeedOptions{}), 1000, sparrow.DefaultInboxCap)
}

func BenchmarkInboxRead40(b *testing.B) {
	cachetest.BenchInboxRead(b, inmem.NewInboxes(inmem.FeedOptions{}), 40, sparrow.DefaultInboxCap)
}
