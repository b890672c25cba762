package redis

import (
	"context"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"sparrow"
)

// Activity is a sparrow.Activity on one Redis sorted set, prefix + "seen",
// whose members are decimal user ids and whose scores are Unix seconds (a
// float64 holds them exactly). It behaves as package inmem's Activity: times
// are kept in whole seconds (truncated), in UTC; Touch never moves a time
// backwards (ZADD GT, Redis ≥ 6.2); SeenBefore(t) lists the users whose
// second is before t's, oldest first (users of the same second in decimal
// string order).
type Activity struct {
	rdb *goredis.Client
	key string
}

var _ sparrow.Activity = (*Activity)(nil)

// lastSeenBatch is the number of users per ZMSCORE.
const lastSeenBatch = 2000

// Activity returns the last-seen marks stored under prefix.
func (c *Client) Activity(prefix string) *Activity {
	return &Activity{rdb: c.rdb, key: prefix + "seen"}
}

// Touch records that user was seen at at, unless a later second is recorded.
func (a *Activity) Touch(ctx context.Context, user sparrow.ID, at time.Time) error {
	err := a.rdb.ZAddGT(ctx, a.key, goredis.Z{Score: float64(at.Unix()), Member: int64(user)}).Err()
	return wrap(err, "touch %d", user)
}

// LastSeen returns the last-seen times of users; unknown users are absent.
// It takes one round trip (ZMSCORE, pipelined by 2000 users).
func (a *Activity) LastSeen(ctx context.Context, users []sparrow.ID) (map[sparrow.ID]time.Time, error) {
	out := make(map[sparrow.ID]time.Time, len(users))
	if len(users) == 0 {
		return out, nil
	}
	pipe := a.rdb.Pipeline()
	var cmds []*goredis.Cmd
	for start := 0; start < len(users); start += lastSeenBatch {
		batch := users[start:min(start+lastSeenBatch, len(users))]
		args := make([]any, 0, 2+len(batch))
		args = append(args, "ZMSCORE", a.key)
		for _, u := range batch {
			args = append(args, int64(u))
		}
		// Do, not ZMScore: go-redis's ZMScore reads an absent member as 0.
		cmds = append(cmds, pipe.Do(ctx, args...))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, wrap(err, "last seen of %d users", len(users))
	}
	for i, c := range cmds {
		scores, err := c.Slice()
		if err != nil {
			return nil, wrap(err, "last seen")
		}
		for j, v := range scores {
			if v == nil {
				continue
			}
			sec, err := parseScore(v)
			if err != nil {
				return nil, err
			}
			out[users[i*lastSeenBatch+j]] = time.Unix(sec, 0).UTC()
		}
	}
	return out, nil
}

// parseScore reads a score replied as a double (RESP3) or a string (RESP2).
func parseScore(v any) (int64, error) {
	switch v := v.(type) {
	case float64:
		return int64(v), nil
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			return int64(f), nil
		}
	}
	return 0, sparrow.Errorf(sparrow.EInternal, "redis: unexpected score %v", v)
}

// SeenBefore returns up to limit users whose last-seen second is before t's
// (t truncated to the second), oldest first. A limit ≤ 0 returns none.
func (a *Activity) SeenBefore(ctx context.Context, t time.Time, limit int) ([]sparrow.ID, error) {
	if limit <= 0 {
		return nil, nil
	}
	members, err := a.rdb.ZRangeArgs(ctx, goredis.ZRangeArgs{
		Key: a.key, ByScore: true, Start: "-inf", Stop: "(" + strconv.FormatInt(t.Unix(), 10), Count: int64(limit),
	}).Result()
	if err != nil {
		return nil, wrap(err, "seen before %v", t)
	}
	out := make([]sparrow.ID, len(members))
	for i, m := range members {
		if out[i], err = parseID(m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Forget removes users; unknown users are ignored.
func (a *Activity) Forget(ctx context.Context, users ...sparrow.ID) error {
	if len(users) == 0 {
		return nil
	}
	members := make([]any, len(users))
	for i, u := range users {
		members[i] = int64(u)
	}
	return wrap(a.rdb.ZRem(ctx, a.key, members...).Err(), "forget %d users", len(users))
}
