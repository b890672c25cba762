package app_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/mattn/go-mastodon"

	"sparrow/redis"
)

// TestRedisFlushLosesNothing: Redis holds only derived data (inboxes, hot
// lists, activity, caches, rate limits). After every key of the instance is
// deleted, homes rebuild by pull and nothing is lost.
func TestRedisFlushLosesNothing(t *testing.T) {
	st := stacks[1] // MariaDB + Redis + NATS
	for _, mode := range []string{"hybrid", "push"} {
		t.Run(mode, func(t *testing.T) {
			c := st.config(t)
			c.FeedMode = mode
			s := start(t, c)
			reader, a, b := s.signup(""), s.signup(""), s.signup("")
			for _, who := range []*user{a, b} {
				if _, err := reader.AccountFollow(ctx, who.ID); err != nil {
					t.Fatal(err)
				}
			}
			homeIDs(t, reader)
			var want []mastodon.ID
			for i := 0; i < 5; i++ {
				for _, who := range []*user{a, b} {
					st, err := who.PostStatus(ctx, &mastodon.Toot{Status: fmt.Sprintf("%s %d", who.Username, i)})
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, st.ID)
				}
			}
			slices.Sort(want)
			slices.Reverse(want)
			eventually(t, func() string {
				if got := homeIDs(t, reader); !slices.Equal(got, want) {
					return fmt.Sprintf("home before flush %v", got)
				}
				return ""
			})

			flushPrefix(t, s.app.Config.RedisURL, s.app.Config.RedisPrefix)

			if got := homeIDs(t, reader); !slices.Equal(got, want) {
				t.Fatalf("home after flush %v, want %v", got, want)
			}
			rels, err := reader.GetAccountRelationships(ctx, []string{string(a.ID), string(b.ID)})
			if err != nil || len(rels) != 2 || !rels[0].Following || !rels[1].Following {
				t.Fatalf("relationships after flush: %+v %v", rels, err)
			}
			if _, g := counts(t, reader, reader.ID); g != 2 {
				t.Fatalf("following_count after flush %d", g)
			}
			// New posts still arrive (the reader is marked active again by its reads).
			later, err := a.PostStatus(ctx, &mastodon.Toot{Status: "after the flush"})
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, func() string {
				if got := homeIDs(t, reader); len(got) == 0 || got[0] != later.ID {
					return fmt.Sprintf("new post missing after flush: %v", got)
				}
				return ""
			})
		})
	}
}

// flushPrefix deletes every Redis key under prefix (the instance's whole
// cache tier), as a FLUSHDB would on a dedicated Redis.
func flushPrefix(t *testing.T, url, prefix string) {
	t.Helper()
	c, err := redis.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rdb := c.Redis()
	var n int
	iter := rdb.Scan(context.Background(), 0, prefix+"*", 1000).Iterator()
	for iter.Next(context.Background()) {
		if err := rdb.Del(context.Background(), iter.Val()).Err(); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("nothing to flush: the instance keeps nothing in Redis?")
	}
}
