package storetest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"sparrow"
)

func (f *fixture) readFeed(t *testing.T, key string, p sparrow.Page) []sparrow.FeedItem {
	t.Helper()
	got, err := f.s.ReadFeed(ctx(), key, p)
	if err != nil {
		t.Fatalf("ReadFeed(%q): %v", key, err)
	}
	return got
}

func feedIDs(items []sparrow.FeedItem) []sparrow.ID {
	out := make([]sparrow.ID, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// feedKeysOnBothStores returns n keys whose shards fall on both halves of
// the shard map (the suite's stores split at 128).
func feedKeysOnBothStores(prefix string, n int) []string {
	var lo, hi []string
	for i := 0; len(lo)+len(hi) < n || len(lo) == 0 || len(hi) == 0; i++ {
		k := fmt.Sprintf("%s%d", prefix, i)
		if sparrow.KeyShard(k) < 128 {
			lo = append(lo, k)
		} else {
			hi = append(hi, k)
		}
	}
	return append(lo, hi...)
}

// testKeyedFeeds: items added to keys on different stores read back newest
// first per key, with Mastodon paging; adding is idempotent; removal removes
// one status from the given keys only.
func testKeyedFeeds(t *testing.T, f *fixture) {
	keys := append(feedKeysOnBothStores("tag:t", 4), "tag:麻雀", "obj:book:isbn-9787111")
	a, b := f.account(t), f.account(t)
	var items []sparrow.FeedItem
	for i := 0; i < 6; i++ {
		author := a
		if i%2 == 1 {
			author = b
		}
		it := sparrow.FeedItem{ID: f.ids.Next(author.ID.Shard()), Author: author.ID}
		if i == 5 {
			it.Reblog = items[0].ID
		}
		items = append(items, it)
		// Twice, with a duplicate key: idempotent.
		for j := 0; j < 2; j++ {
			if err := f.s.AddToFeeds(ctx(), append(slices.Clone(keys), keys[0]), it); err != nil {
				t.Fatalf("AddToFeeds: %v", err)
			}
		}
	}
	// Newest first by id (ids of different genes order by millisecond first).
	want := slices.SortedFunc(slices.Values(items), func(x, y sparrow.FeedItem) int { return cmp.Compare(y.ID, x.ID) })
	for _, k := range keys {
		if got := f.readFeed(t, k, sparrow.Page{Limit: 40}); !slices.Equal(got, want) {
			t.Fatalf("feed %q = %v, want %v", k, got, want)
		}
	}
	k := keys[len(keys)-1]
	ids := feedIDs(want)
	for _, tc := range []struct {
		name string
		p    sparrow.Page
		want []sparrow.ID
	}{
		{"limit", sparrow.Page{Limit: 2}, ids[:2]},
		{"max_id", sparrow.Page{MaxID: ids[1], Limit: 2}, ids[2:4]},
		{"since_id", sparrow.Page{SinceID: ids[4], Limit: 3}, ids[:3]},
		{"min_id", sparrow.Page{MinID: ids[4], Limit: 3}, ids[1:4]},
		{"max_id and since_id", sparrow.Page{MaxID: ids[0], SinceID: ids[3], Limit: 10}, ids[1:3]},
	} {
		if got := feedIDs(f.readFeed(t, k, tc.p)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := f.readFeed(t, "tag:nothing-here", sparrow.Page{}); len(got) != 0 {
		t.Fatalf("unknown key read %v", got)
	}
	if got := f.readFeed(t, "tag:T0", sparrow.Page{}); len(got) != 0 {
		t.Fatalf("keys are case-sensitive (callers lower-case tags): %v", got)
	}

	// Remove one status from all but the last key; removing again is harmless.
	for i := 0; i < 2; i++ {
		if err := f.s.RemoveFromFeeds(ctx(), keys[:len(keys)-1], items[2].ID); err != nil {
			t.Fatalf("RemoveFromFeeds: %v", err)
		}
	}
	without := slices.DeleteFunc(slices.Clone(want), func(it sparrow.FeedItem) bool { return it.ID == items[2].ID })
	for _, k := range keys[:len(keys)-1] {
		if got := f.readFeed(t, k, sparrow.Page{}); !slices.Equal(got, without) {
			t.Fatalf("feed %q after removal = %v", k, got)
		}
	}
	if got := f.readFeed(t, keys[len(keys)-1], sparrow.Page{}); len(got) != len(items) {
		t.Fatalf("removal touched a key it was not given: %v", got)
	}

	wantKind(t, f.s.AddToFeeds(ctx(), []string{"tag:" + strings.Repeat("x", 300)}, items[0]), sparrow.EInvalid)
	wantKind(t, f.s.AddToFeeds(ctx(), []string{""}, items[0]), sparrow.EInvalid)
}
