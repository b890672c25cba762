package service

import (
	"slices"
	"testing"

	"sparrow"
)

// TestKeyedFeedRegistry: the registered kinds, their routing rules, and that
// every key a rule gives is one its feed reads (normalize round-trips).
func TestKeyedFeedRegistry(t *testing.T) {
	if got := KeyedFeedNames(); !slices.Equal(got, []string{"object", "public", "tag"}) {
		t.Fatalf("KeyedFeedNames() = %v", got)
	}
	st := func(vis sparrow.Visibility, reblog sparrow.ID) *sparrow.Status {
		return &sparrow.Status{ID: 1 << 30, Visibility: vis, ReblogOfID: reblog, Tags: []string{"go", "麻雀"}, Object: "book:isbn-1"}
	}
	for _, tc := range []struct {
		st   *sparrow.Status
		want map[string][]string
	}{
		{st(sparrow.Public, 0), map[string][]string{"tag": {"go", "麻雀"}, "object": {"book:isbn-1"}, "public": {""}}},
		{st(sparrow.Unlisted, 0), map[string][]string{"object": {"book:isbn-1"}}},
		{st(sparrow.Private, 0), map[string][]string{}},
		{st(sparrow.Direct, 0), map[string][]string{}},
		{st(sparrow.Public, 7), map[string][]string{"object": {"book:isbn-1"}}},
	} {
		got := KeyedFeedKeys(tc.st)
		if len(got) != len(tc.want) {
			t.Errorf("%s reblog=%v: keys %v, want %v", tc.st.Visibility, tc.st.ReblogOfID, got, tc.want)
		}
		for feed, keys := range tc.want {
			if !slices.Equal(got[feed], keys) {
				t.Errorf("%s reblog=%v: %s keys %v, want %v", tc.st.Visibility, tc.st.ReblogOfID, feed, got[feed], keys)
			}
			for _, k := range got[feed] {
				if n, ok := keyedFeeds[feed].normalize(k); !ok || n != k {
					t.Errorf("%s: routed key %q normalizes to %q %v", feed, k, n, ok)
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a second registration of tag did not panic")
		}
	}()
	registerKeyedFeed(*keyedFeeds["tag"])
}
