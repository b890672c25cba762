package redis_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"sparrow"
	"sparrow/internal/cachetest"
	"sparrow/internal/testenv"
	"sparrow/redis"
)

func TestInboxes(t *testing.T) {
	t.Parallel()
	c, prefix := open(t)
	cachetest.TestInboxes(t, func(t *testing.T, cap int) sparrow.InboxStore {
		return c.Inboxes(prefix+t.Name()+":", cap)
	})
}

func TestRecentLists(t *testing.T) {
	t.Parallel()
	c, prefix := open(t)
	cachetest.TestRecentLists(t, func(t *testing.T, cap int) sparrow.RecentLists {
		return c.RecentLists(prefix+t.Name()+":", cap)
	})
}

func TestActivity(t *testing.T) {
	t.Parallel()
	c, prefix := open(t)
	cachetest.TestActivity(t, func(t *testing.T) sparrow.Activity {
		return c.Activity(prefix + t.Name() + ":")
	})
}

// The keys are laid out as documented: a meta hash per inbox (its existence
// is the inbox's), and a sorted set of score-0 members that sort by id.
func TestInboxKeys(t *testing.T) {
	c, prefix := open(t)
	ctx := t.Context()
	s := c.Inboxes(prefix, 2)
	rdb := c.Redis()
	if _, err := s.Create(ctx, 7, 0, time.UnixMilli(1_900_000_000_123)); err != nil {
		t.Fatal(err)
	}
	meta, list := prefix+"inboxm:7", prefix+"inbox:7"
	if got := rdb.HGetAll(ctx, meta).Val(); got["floor"] != strings.Repeat("0", 19) || got["built"] != "1900000000123" {
		t.Errorf("meta hash = %v", got)
	}
	if n := rdb.Exists(ctx, list).Val(); n != 0 {
		t.Error("an empty inbox has a sorted set")
	}
	for _, it := range []sparrow.FeedItem{{ID: 5, Author: 9}, {ID: 1 << 62, Author: 3, Reblog: 2}, {ID: 1<<62 + 1, Author: 4}} {
		must(t, s.Push(ctx, []sparrow.ID{7}, it))
	}
	got := rdb.ZRangeWithScores(ctx, list, 0, -1).Val()
	want := []string{"4611686018427387904:3:2", "4611686018427387905:4:0"}
	if len(got) != len(want) || got[0].Member != want[0] || got[1].Member != want[1] || got[0].Score != 0 || got[1].Score != 0 {
		t.Errorf("sorted set = %v, want members %v with score 0", got, want)
	}
	if f := rdb.HGet(ctx, meta, "floor").Val(); f != "0000000000000000005" {
		t.Errorf("floor = %q after trimming item 5", f)
	}
}

func TestFeedOnClosedClientIsUnavailable(t *testing.T) {
	c, prefix := open(t)
	s, r, a := c.Inboxes(prefix, 10), c.RecentLists(prefix, 10), c.Activity(prefix)
	c.Close()
	ctx := context.Background()
	for name, err := range map[string]error{
		"Push":     s.Push(ctx, []sparrow.ID{1}, sparrow.FeedItem{ID: 1}),
		"Read":     func() error { _, _, err := s.Read(ctx, 1, sparrow.Page{}); return err }(),
		"Append":   r.Append(ctx, 1, sparrow.FeedItem{ID: 1}, time.Now()),
		"LastSeen": func() error { _, err := a.LastSeen(ctx, []sparrow.ID{1}); return err }(),
	} {
		if !sparrow.IsKind(err, sparrow.EUnavailable) {
			t.Errorf("%s after Close: err = %v, want kind %s", name, err, sparrow.EUnavailable)
		}
	}
}

// openB is open for benchmarks.
func openB(b *testing.B) (*redis.Client, string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	c, err := redis.Open(ctx, testenv.RedisURL(b))
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	prefix := "sparrowbench:" + rand.Text() + ":"
	b.Cleanup(func() {
		ctx := context.Background()
		iter := c.Redis().Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Redis().Unlink(ctx, iter.Val())
		}
		c.Close()
	})
	return c, prefix
}

func BenchmarkInboxPush1000(b *testing.B) {
	c, prefix := openB(b)
	cachetest.BenchInboxPush(b, c.Inboxes(prefix, 800), 1000, 800)
}

func BenchmarkInboxRead40(b *testing.B) {
	c, prefix := openB(b)
	cachetest.BenchInboxRead(b, c.Inboxes(prefix, 800), 40, 800)
}

// BenchmarkRawZAddFanout1000 is the baseline for BenchmarkInboxPush1000: the
// same fan-out (one new member to 1000 sorted sets of 800 score-0 members,
// trimmed back to 800) as plain pipelined ZADD and ZREMRANGEBYRANK, with no
// script, no floor and no existence check.
func BenchmarkRawZAddFanout1000(b *testing.B) {
	c, prefix := openB(b)
	rdb, ctx := c.Redis(), context.Background()
	keys := make([]string, 1000)
	members := make([]goredis.Z, 800)
	for i := range keys {
		keys[i] = prefix + "raw:" + strconv.Itoa(i)
		for j := range members {
			members[j] = goredis.Z{Member: fmt.Sprintf("%019d:%d:0", 1_000_000+j, j%50)}
		}
		if err := rdb.ZAdd(ctx, keys[i], members...).Err(); err != nil {
			b.Fatal(err)
		}
	}
	next := 2_000_000
	b.ReportAllocs()
	for b.Loop() {
		next++
		m := fmt.Sprintf("%019d:%d:0", next, next%50)
		pipe := rdb.Pipeline()
		for _, k := range keys {
			pipe.ZAdd(ctx, k, goredis.Z{Member: m})
			pipe.ZRemRangeByRank(ctx, k, 0, -801)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "inserts/s")
}
