package redis

import (
	"context"
	"errors"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"sparrow"
)

// Inboxes is a sparrow.InboxStore on Redis, with the floor semantics of
// package inmem's Inboxes (both pass the suite in internal/cachetest):
//
//   - An inbox holds only items with an id greater than its floor, and every
//     such item that it was given (pushed or filled) and that was not removed.
//   - Trimming to the cap keeps the newest items and sets the floor to the id
//     of the newest item dropped. An item pushed at or below the floor is
//     ignored.
//   - Fill(items, floor) states that items holds every item above floor: the
//     inbox becomes the union of its items and items, without those at or
//     below floor, trimmed to the cap, with the floor set to floor raised to
//     the newest item trimmed (so Fill may lower a floor that trimming
//     raised). The floor item itself is not kept: pass its id - 1 to keep it.
//   - Create makes an unfilled inbox (InboxState.Filled false), which
//     collects pushes; the first Fill, even of no items, marks it filled.
//
// Keys, under the prefix given to [Client.Inboxes]:
//
//	prefix + "inboxm:" + user   hash: floor (19-digit padded id), built (Unix ms),
//	                            filled (1 once filled; absent before)
//	prefix + "inbox:" + user    sorted set of items, all with score 0
//
// The meta hash's existence is the inbox's existence; an empty inbox is a hash
// without a sorted set. Scripts touch both keys of a user atomically. Keys
// have no expiry: the sweeper drops inactive users' inboxes (see
// sparrow.Activity). The keys of one operation on many users are not in one
// hash slot: this targets a single server, not Redis Cluster.
type Inboxes struct {
	rdb    *goredis.Client
	prefix string
	cap    int
}

var _ sparrow.InboxStore = (*Inboxes)(nil)

// Batching of operations on many users: one script call covers up to
// usersPerScript users (bounding how long Redis is blocked), and all the calls
// of one operation go in one pipeline.
const usersPerScript = 256

// Inboxes returns the home inboxes stored under prefix, keeping inboxCap
// items each (zero or less: sparrow.DefaultInboxCap).
func (c *Client) Inboxes(prefix string, inboxCap int) *Inboxes {
	if inboxCap <= 0 {
		inboxCap = sparrow.DefaultInboxCap
	}
	return &Inboxes{rdb: c.rdb, prefix: prefix, cap: inboxCap}
}

func (s *Inboxes) metaKey(user sparrow.ID) string {
	return s.prefix + "inboxm:" + strconv.FormatInt(int64(user), 10)
}

func (s *Inboxes) listKey(user sparrow.ID) string {
	return s.prefix + "inbox:" + strconv.FormatInt(int64(user), 10)
}

// inboxCreate: KEYS meta, list; ARGV floor (padded), built (Unix ms).
var inboxCreate = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
	redis.call('DEL', KEYS[2])
	redis.call('HSET', KEYS[1], 'floor', ARGV[1], 'built', ARGV[2])
end
return redis.call('HMGET', KEYS[1], 'floor', 'built', 'filled')
`)

// Create makes an empty, unfilled inbox for user with the given floor
// (negative counts as 0) built at now, unless one exists, and returns the
// state of the inbox that exists afterwards. BuiltAt is kept to the millisecond, in UTC.
func (s *Inboxes) Create(ctx context.Context, user, floor sparrow.ID, now time.Time) (sparrow.InboxState, error) {
	res, err := inboxCreate.Run(ctx, s.rdb, []string{s.metaKey(user), s.listKey(user)},
		padID(floor), now.UnixMilli()).Slice()
	if err != nil {
		return sparrow.InboxState{}, wrap(err, "create inbox %d", user)
	}
	st, err := parseInboxState(res)
	if err != nil || !st.Exists {
		return sparrow.InboxState{}, sparrow.Errorf(sparrow.EInternal, "redis: create inbox %d: unexpected reply %v", user, res)
	}
	return st, nil
}

// parseInboxState reads the reply of HMGET floor built filled: all nil
// without an inbox.
func parseInboxState(vals []any) (sparrow.InboxState, error) {
	if len(vals) != 3 {
		return sparrow.InboxState{}, sparrow.Errorf(sparrow.EInternal, "redis: inbox meta: unexpected reply %v", vals)
	}
	floor, ok1 := vals[0].(string)
	built, ok2 := vals[1].(string)
	if !ok1 || !ok2 {
		return sparrow.InboxState{}, nil
	}
	f, err := parseID(floor)
	if err != nil {
		return sparrow.InboxState{}, err
	}
	b, err := parseMillis(built)
	if err != nil {
		return sparrow.InboxState{}, err
	}
	return sparrow.InboxState{Exists: true, Filled: vals[2] != nil, Floor: f, BuiltAt: b}, nil
}

// inboxPush: KEYS meta and list of each user, in pairs; ARGV member, id
// (padded), cap.
var inboxPush = goredis.NewScript(luaFeedLib + `
local member, id, cap = ARGV[1], ARGV[2], tonumber(ARGV[3])
for i = 1, #KEYS, 2 do
	local meta, list = KEYS[i], KEYS[i + 1]
` + luaAdd + `
end
return 0
`)

// Push adds item to the inbox of each user that has one, trimming it to the
// cap, in one pipelined round trip (a script call per usersPerScript users).
// Users without an inbox, and inboxes whose floor is at or above item.ID, are
// skipped; an item already held is not added again.
func (s *Inboxes) Push(ctx context.Context, users []sparrow.ID, item sparrow.FeedItem) error {
	if len(users) == 0 {
		return nil
	}
	member, id, capArg := encodeItem(item), padID(item.ID), strconv.Itoa(s.cap)
	calls := make([]scriptCall, 0, (len(users)+usersPerScript-1)/usersPerScript)
	for start := 0; start < len(users); start += usersPerScript {
		batch := users[start:min(start+usersPerScript, len(users))]
		keys := make([]string, 0, 2*len(batch))
		for _, u := range batch {
			keys = append(keys, s.metaKey(u), s.listKey(u))
		}
		calls = append(calls, scriptCall{keys: keys, args: []any{member, id, capArg}})
	}
	cmds, err := runPipelined(ctx, s.rdb, inboxPush, calls)
	return wrap(firstErr(cmds, err), "push %d to %d inboxes", item.ID, len(users))
}

// firstErr returns the first error of cmds, or err.
func firstErr(cmds []*goredis.Cmd, err error) error {
	for _, c := range cmds {
		if c.Err() != nil {
			return c.Err()
		}
	}
	return err
}

// inboxFill: KEYS meta, list; ARGV cap, floor (padded), members (above the
// floor, at most cap).
var inboxFill = goredis.NewScript(luaFeedLib + `
local meta, list = KEYS[1], KEYS[2]
if redis.call('EXISTS', meta) == 0 then return 0 end
local cap, floor = tonumber(ARGV[1]), ARGV[2]
redis.call('ZREMRANGEBYLEX', list, '-', '(' .. floor .. ';')
zaddAll(list, ARGV, 3)
redis.call('HSET', meta, 'floor', floor, 'filled', '1')
trim(meta, list, cap)
return 1
`)

// Fill merges items into user's inbox, if it exists, sets its floor, as
// described on [Inboxes], and marks it filled, atomically. Filling twice with the same arguments
// changes nothing the second time.
func (s *Inboxes) Fill(ctx context.Context, user sparrow.ID, items []sparrow.FeedItem, floor sparrow.ID) error {
	members, floor := prepareItems(items, floor, s.cap)
	args := make([]any, 0, 2+len(members))
	args = append(args, s.cap, padID(floor))
	for _, m := range members {
		args = append(args, m)
	}
	err := inboxFill.Run(ctx, s.rdb, []string{s.metaKey(user), s.listKey(user)}, args...).Err()
	return wrap(err, "fill inbox %d", user)
}

// Read returns up to p.Limit items of user's inbox inside p's bounds, newest
// first, and its state, read atomically (MULTI/EXEC) in one round trip.
// p.Limit ≤ 0 means sparrow.DefaultLimit; a larger limit is not clamped.
// Without an inbox it returns no items and a state with Exists false.
func (s *Inboxes) Read(ctx context.Context, user sparrow.ID, p sparrow.Page) ([]sparrow.FeedItem, sparrow.InboxState, error) {
	var meta *goredis.SliceCmd
	list, err := readList(ctx, s.rdb, s.listKey(user), p, func(pipe goredis.Pipeliner) {
		meta = pipe.HMGet(ctx, s.metaKey(user), "floor", "built", "filled")
	})
	if err != nil {
		return nil, sparrow.InboxState{}, wrap(err, "read inbox %d", user)
	}
	st, err := parseInboxState(meta.Val())
	if err != nil || !st.Exists {
		return nil, sparrow.InboxState{}, err
	}
	its, err := decodeItems(list, p.Ascending())
	if err != nil {
		return nil, sparrow.InboxState{}, err
	}
	return its, st, nil
}

// readList reads page p of the list at key and whatever meta queues, in one
// MULTI/EXEC, and returns the members in the order read (oldest first if
// p.Ascending()).
func readList(ctx context.Context, rdb *goredis.Client, key string, p sparrow.Page, meta func(goredis.Pipeliner)) ([]string, error) {
	lo, hi, limit, empty := lexPage(p)
	var list *goredis.StringSliceCmd
	_, err := rdb.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
		meta(pipe)
		if empty {
			return nil
		}
		by := &goredis.ZRangeBy{Min: lo, Max: hi, Count: limit}
		if p.Ascending() {
			list = pipe.ZRangeByLex(ctx, key, by)
		} else {
			list = pipe.ZRevRangeByLex(ctx, key, by)
		}
		return nil
	})
	if err != nil && !errors.Is(err, goredis.Nil) { // Nil: meta found nothing
		return nil, err
	}
	if list == nil {
		return nil, nil
	}
	return list.Val(), nil
}

// inboxRemoveAuthor: KEYS list; ARGV author (decimal).
var inboxRemoveAuthor = goredis.NewScript(`
local list, tag = KEYS[1], ':' .. ARGV[1] .. ':'
local batch = {}
for _, m in ipairs(redis.call('ZRANGE', list, 0, -1)) do
	if string.sub(m, 20, 19 + #tag) == tag then
		batch[#batch + 1] = m
		if #batch >= 1000 then
			redis.call('ZREM', list, unpack(batch))
			batch = {}
		end
	end
end
if #batch > 0 then
	redis.call('ZREM', list, unpack(batch))
end
return 0
`)

// RemoveAuthor removes every item whose Author is author from user's inbox,
// atomically, scanning its (at most cap) items. The floor is unchanged.
func (s *Inboxes) RemoveAuthor(ctx context.Context, user, author sparrow.ID) error {
	err := inboxRemoveAuthor.Run(ctx, s.rdb, []string{s.listKey(user)}, int64(author)).Err()
	return wrap(err, "remove author %d from inbox %d", author, user)
}

// reblogSkew is how much older than its original a reblog's id may be, for
// clocks that differ between nodes: RemoveStatus looks for reblogs of id
// only among items newer than id's time minus reblogSkew.
const reblogSkew = time.Minute

// inboxRemoveStatus: KEYS list of each user; ARGV id (padded), the lex bound
// from which reblogs are looked for, id (decimal).
var inboxRemoveStatus = goredis.NewScript(`
local id, from, tail = ARGV[1], ARGV[2], ':' .. ARGV[3]
for i = 1, #KEYS do
	local list = KEYS[i]
	redis.call('ZREMRANGEBYLEX', list, '[' .. id .. ':', '(' .. id .. ';')
	local batch = {}
	for _, m in ipairs(redis.call('ZRANGEBYLEX', list, from, '+')) do
		if string.sub(m, -#tail) == tail then
			batch[#batch + 1] = m
		end
	end
	for j = 1, #batch, 1000 do
		redis.call('ZREM', list, unpack(batch, j, math.min(j + 999, #batch)))
	end
end
return 0
`)

// RemoveStatus removes from each user's inbox the item with id and the items
// reblogging id, in one pipelined round trip. A reblog is newer than its
// original, so only items with ids from id's time minus a minute (clock skew
// between nodes) are scanned for reblogs. Floors are unchanged.
func (s *Inboxes) RemoveStatus(ctx context.Context, users []sparrow.ID, id sparrow.ID) error {
	if len(users) == 0 {
		return nil
	}
	from := "[" + padID(sparrow.MinIDAt(id.Time().Add(-reblogSkew)))
	args := []any{padID(id), from, int64(id)}
	var calls []scriptCall
	for start := 0; start < len(users); start += usersPerScript {
		batch := users[start:min(start+usersPerScript, len(users))]
		keys := make([]string, len(batch))
		for i, u := range batch {
			keys[i] = s.listKey(u)
		}
		calls = append(calls, scriptCall{keys: keys, args: args})
	}
	cmds, err := runPipelined(ctx, s.rdb, inboxRemoveStatus, calls)
	return wrap(firstErr(cmds, err), "remove status %d from %d inboxes", id, len(users))
}

// Drop deletes users' inboxes (both keys of each) in one round trip; users
// without one are ignored.
func (s *Inboxes) Drop(ctx context.Context, users ...sparrow.ID) error {
	if len(users) == 0 {
		return nil
	}
	pipe := s.rdb.Pipeline()
	for start := 0; start < len(users); start += usersPerScript {
		batch := users[start:min(start+usersPerScript, len(users))]
		keys := make([]string, 0, 2*len(batch))
		for _, u := range batch {
			keys = append(keys, s.metaKey(u), s.listKey(u))
		}
		pipe.Del(ctx, keys...)
	}
	_, err := pipe.Exec(ctx)
	return wrap(err, "drop %d inboxes", len(users))
}
