package redis

import (
	"context"
	"errors"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"sparrow"
)

// RecentLists is a sparrow.RecentLists on Redis, with the floor semantics of
// [Inboxes] and the behaviour of package inmem's RecentLists: last post times
// are kept to the millisecond, never move backwards, and on Seed are the time
// of the newest seeded item's id (none for an empty list).
//
// Keys, under the prefix given to [Client.RecentLists]:
//
//	prefix + "recentm:" + author   hash: floor (19-digit padded id), last (Unix ms)
//	prefix + "recent:" + author    sorted set of items, all with score 0
//	prefix + "recents"             set of the authors that have a list
//
// The meta hash's existence is the list's existence. Seed and Delete keep the
// set in step with the hashes atomically.
type RecentLists struct {
	rdb    *goredis.Client
	prefix string
	cap    int
}

var _ sparrow.RecentLists = (*RecentLists)(nil)

// RecentLists returns the hot authors' lists stored under prefix, keeping
// recentCap items each (zero or less: sparrow.DefaultRecentCap).
func (c *Client) RecentLists(prefix string, recentCap int) *RecentLists {
	if recentCap <= 0 {
		recentCap = sparrow.DefaultRecentCap
	}
	return &RecentLists{rdb: c.rdb, prefix: prefix, cap: recentCap}
}

func (r *RecentLists) metaKey(author sparrow.ID) string {
	return r.prefix + "recentm:" + strconv.FormatInt(int64(author), 10)
}

func (r *RecentLists) listKey(author sparrow.ID) string {
	return r.prefix + "recent:" + strconv.FormatInt(int64(author), 10)
}

func (r *RecentLists) setKey() string { return r.prefix + "recents" }

// recentSeed: KEYS meta, list, set; ARGV author, floor (padded), last (Unix
// ms, or empty), members (above the floor, at most cap).
var recentSeed = goredis.NewScript(luaFeedLib + `
local meta, list, set = KEYS[1], KEYS[2], KEYS[3]
redis.call('SADD', set, ARGV[1])
if redis.call('EXISTS', meta) == 1 then return 0 end
redis.call('DEL', list)
zaddAll(list, ARGV, 4)
redis.call('HSET', meta, 'floor', ARGV[2])
if ARGV[3] ~= '' then
	redis.call('HSET', meta, 'last', ARGV[3])
end
return 1
`)

// Seed creates author's list from items (in any order, duplicates allowed)
// with the given floor, unless author has a list, and adds author to the
// set, atomically. Items at or below the floor are left out; beyond the cap
// the oldest are trimmed, raising the floor.
func (r *RecentLists) Seed(ctx context.Context, author sparrow.ID, items []sparrow.FeedItem, floor sparrow.ID) error {
	members, floor := prepareItems(items, floor, r.cap)
	last := ""
	if len(members) > 0 {
		newest, err := decodeItem(members[0])
		if err != nil {
			return err
		}
		last = strconv.FormatInt(newest.ID.Time().UnixMilli(), 10)
	}
	args := make([]any, 0, 3+len(members))
	args = append(args, int64(author), padID(floor), last)
	for _, m := range members {
		args = append(args, m)
	}
	err := recentSeed.Run(ctx, r.rdb, []string{r.metaKey(author), r.listKey(author), r.setKey()}, args...).Err()
	return wrap(err, "seed recent list %d", author)
}

// recentAppend: KEYS meta, list; ARGV member, id (padded), cap, at (Unix ms).
var recentAppend = goredis.NewScript(luaFeedLib + `
local meta, list = KEYS[1], KEYS[2]
local member, id, cap = ARGV[1], ARGV[2], tonumber(ARGV[3])
` + luaAdd + `
if not floor then return 0 end
local last = redis.call('HGET', meta, 'last')
if not last or tonumber(last) < tonumber(ARGV[4]) then
	redis.call('HSET', meta, 'last', ARGV[4])
end
return 1
`)

// Append adds item to author's list, if author has one, trims it to the cap
// and records at as the last post time unless a later one is recorded,
// atomically. An item at or below the floor is not added, but its time is
// recorded.
func (r *RecentLists) Append(ctx context.Context, author sparrow.ID, item sparrow.FeedItem, at time.Time) error {
	err := recentAppend.Run(ctx, r.rdb, []string{r.metaKey(author), r.listKey(author)},
		encodeItem(item), padID(item.ID), r.cap, at.UnixMilli()).Err()
	return wrap(err, "append to recent list %d", author)
}

// Read returns up to p.Limit items (sparrow.DefaultLimit if not positive) of
// author's list inside p's bounds, newest first, and the list's floor, read
// atomically in one round trip; ok is false if author has no list.
func (r *RecentLists) Read(ctx context.Context, author sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, sparrow.ID, bool, error) {
	out, err := r.ReadMany(ctx, []sparrow.ID{author}, p)
	if err != nil {
		return nil, 0, false, err
	}
	return out[0].Items, out[0].Floor, out[0].OK, nil
}

// ReadMany reads the lists of authors as Read does, all in one MULTI/EXEC
// round trip (so each list's items and floor are consistent).
func (r *RecentLists) ReadMany(ctx context.Context, authors []sparrow.ID, p sparrow.Page) ([]sparrow.ListPage, error) {
	out := make([]sparrow.ListPage, len(authors))
	if len(authors) == 0 {
		return out, nil
	}
	lo, hi, limit, empty := lexPage(p)
	metas := make([]*goredis.StringCmd, len(authors))
	lists := make([]*goredis.StringSliceCmd, len(authors))
	_, err := r.rdb.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
		for i, a := range authors {
			metas[i] = pipe.HGet(ctx, r.metaKey(a), "floor")
			if empty {
				continue
			}
			by := &goredis.ZRangeBy{Min: lo, Max: hi, Count: limit}
			if p.Ascending() {
				lists[i] = pipe.ZRangeByLex(ctx, r.listKey(a), by)
			} else {
				lists[i] = pipe.ZRevRangeByLex(ctx, r.listKey(a), by)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, goredis.Nil) { // Nil: a meta found nothing
		return nil, wrap(err, "read %d recent lists", len(authors))
	}
	for i, a := range authors {
		if errors.Is(metas[i].Err(), goredis.Nil) {
			continue
		}
		if metas[i].Err() != nil {
			return nil, wrap(metas[i].Err(), "read recent list %d", a)
		}
		floor, err := parseID(metas[i].Val())
		if err != nil {
			return nil, err
		}
		var its []sparrow.FeedItem
		if lists[i] != nil {
			if its, err = decodeItems(lists[i].Val(), p.Ascending()); err != nil {
				return nil, err
			}
		}
		out[i] = sparrow.ListPage{Items: its, Floor: floor, OK: true}
	}
	return out, nil
}

// LastPost returns the last post time of each of authors that has a list
// and a known last post time, in one pipelined round trip.
func (r *RecentLists) LastPost(ctx context.Context, authors []sparrow.ID) (map[sparrow.ID]time.Time, error) {
	out := make(map[sparrow.ID]time.Time, len(authors))
	if len(authors) == 0 {
		return out, nil
	}
	pipe := r.rdb.Pipeline()
	cmds := make([]*goredis.StringCmd, len(authors))
	for i, a := range authors {
		cmds[i] = pipe.HGet(ctx, r.metaKey(a), "last")
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
		return nil, wrap(err, "last post of %d authors", len(authors))
	}
	for i, c := range cmds {
		if errors.Is(c.Err(), goredis.Nil) {
			continue
		}
		if c.Err() != nil {
			return nil, wrap(c.Err(), "last post of %d", authors[i])
		}
		t, err := parseMillis(c.Val())
		if err != nil {
			return nil, err
		}
		out[authors[i]] = t
	}
	return out, nil
}

// Authors returns the set of authors that have a list (SMEMBERS).
func (r *RecentLists) Authors(ctx context.Context) (map[sparrow.ID]bool, error) {
	members, err := r.rdb.SMembers(ctx, r.setKey()).Result()
	if err != nil {
		return nil, wrap(err, "recent list authors")
	}
	out := make(map[sparrow.ID]bool, len(members))
	for _, m := range members {
		a, err := parseID(m)
		if err != nil {
			return nil, err
		}
		out[a] = true
	}
	return out, nil
}

// Remove removes the item with id from author's list; the floor is unchanged.
func (r *RecentLists) Remove(ctx context.Context, author, id sparrow.ID) error {
	pad := padID(id)
	err := r.rdb.ZRemRangeByLex(ctx, r.listKey(author), "["+pad+":", "("+pad+";").Err()
	return wrap(err, "remove %d from recent list %d", id, author)
}

// Delete drops author's list and removes author from the set, atomically.
func (r *RecentLists) Delete(ctx context.Context, author sparrow.ID) error {
	_, err := r.rdb.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
		pipe.Del(ctx, r.metaKey(author), r.listKey(author))
		pipe.SRem(ctx, r.setKey(), int64(author))
		return nil
	})
	return wrap(err, "delete recent list %d", author)
}
