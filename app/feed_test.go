package app_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mattn/go-mastodon"

	"sparrow/app"
)

// forEachStackAndMode runs fn against every stack in every feed mode.
func forEachStackAndMode(t *testing.T, fn func(t *testing.T, s *server)) {
	for _, st := range stacks {
		for _, mode := range []string{"hybrid", "push", "pull"} {
			t.Run(st.name+"/"+mode, func(t *testing.T) {
				c := st.config(t)
				c.FeedMode = mode
				fn(t, start(t, c))
			})
		}
	}
}

var _ = app.Config{}

// homeIDs pages a user's whole home timeline through go-mastodon.
func homeIDs(t *testing.T, u *user) []mastodon.ID {
	t.Helper()
	var out []mastodon.ID
	pg := &mastodon.Pagination{Limit: 5}
	for i := 0; i < 50; i++ {
		page, err := u.GetTimelineHome(ctx, pg)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page {
			out = append(out, s.ID)
		}
		if pg.MaxID == "" || len(page) == 0 {
			break
		}
		pg = &mastodon.Pagination{MaxID: pg.MaxID, Limit: 5}
	}
	return out
}

// TestHomeTimeline: followers see an author's posts (and their own) in their
// home, newest first, through Link paging, in every mode and on every stack;
// deletes vanish and unfollows remove.
func TestHomeTimeline(t *testing.T) {
	forEachStackAndMode(t, func(t *testing.T, s *server) {
		reader, author, other := s.signup(""), s.signup(""), s.signup("")
		if _, err := reader.AccountFollow(ctx, author.ID); err != nil {
			t.Fatal(err)
		}
		homeIDs(t, reader) // the reader is active and has an inbox
		var want []mastodon.ID
		for i := 0; i < 6; i++ {
			st, err := author.PostStatus(ctx, &mastodon.Toot{Status: fmt.Sprintf("动态 %d", i)})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, st.ID)
			other.PostStatus(ctx, &mastodon.Toot{Status: "not followed"})
		}
		mine, _ := reader.PostStatus(ctx, &mastodon.Toot{Status: "my own"})
		want = append(want, mine.ID)
		slices.Reverse(want)
		eventually(t, func() string {
			if got := homeIDs(t, reader); !slices.Equal(got, want) {
				return fmt.Sprintf("home %v, want %v", got, want)
			}
			return ""
		})
		if err := author.DeleteStatus(ctx, want[1]); err != nil {
			t.Fatal(err)
		}
		if got := homeIDs(t, reader); slices.Contains(got, want[1]) {
			t.Fatalf("deleted status still in home")
		}
		if _, err := reader.AccountUnfollow(ctx, author.ID); err != nil {
			t.Fatal(err)
		}
		if got := homeIDs(t, reader); !slices.Equal(got, []mastodon.ID{mine.ID}) {
			t.Fatalf("after unfollow: %v", got)
		}
	})
}
