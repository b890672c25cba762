package cachetest

import (
	"context"
	"testing"
	"time"

	"sparrow"
)

// benchBase is the first id of the benchmarks' items: a realistic 2030 id.
var benchBase = sparrow.MinIDAt(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))

// fullInbox creates user's inbox in s and fills it with capacity items, ids
// benchBase+1 ... benchBase+capacity, authors cycling over 50 followings.
func fullInbox(b *testing.B, s sparrow.InboxStore, user sparrow.ID, capacity int) {
	b.Helper()
	ctx := context.Background()
	if _, err := s.Create(ctx, user, 0, time.Now()); err != nil {
		b.Fatal(err)
	}
	its := make([]sparrow.FeedItem, capacity)
	for i := range its {
		id := benchBase + sparrow.ID(i+1)
		its[i] = sparrow.FeedItem{ID: id, Author: 1000 + id%50}
	}
	if err := s.Fill(ctx, user, its, 0); err != nil {
		b.Fatal(err)
	}
}

// BenchInboxPush measures the fan-out of one new item to the inboxes of
// users users, each created and filled to capacity beforehand, so that every
// insert also trims (the steady state). It reports inserts/s: users per push
// times pushes per second.
func BenchInboxPush(b *testing.B, s sparrow.InboxStore, users, capacity int) {
	ids := make([]sparrow.ID, users)
	for i := range ids {
		ids[i] = sparrow.ID(i + 1)
		fullInbox(b, s, ids[i], capacity)
	}
	ctx := context.Background()
	next := benchBase + sparrow.ID(capacity)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		next++
		if err := s.Push(ctx, ids, sparrow.FeedItem{ID: next, Author: 1000 + next%50}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(users)/b.Elapsed().Seconds(), "inserts/s")
}

// BenchInboxRead measures reading a page of limit items from a full inbox:
// the newest page, then older pages by MaxID, cycling through the inbox.
func BenchInboxRead(b *testing.B, s sparrow.InboxStore, limit, capacity int) {
	fullInbox(b, s, 1, capacity)
	ctx := context.Background()
	newest := benchBase + sparrow.ID(capacity)
	p := sparrow.Page{Limit: limit}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		its, st, err := s.Read(ctx, 1, p)
		if err != nil || !st.Exists || len(its) == 0 {
			b.Fatalf("Read(%+v) = %d items, %+v, %v", p, len(its), st, err)
		}
		p.MaxID = its[len(its)-1].ID
		if p.MaxID <= newest-sparrow.ID(capacity)+sparrow.ID(limit) {
			p.MaxID = 0
		}
	}
}
