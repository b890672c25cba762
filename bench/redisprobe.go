package bench

import (
	"context"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"sparrow"
)

// RedisInboxProbe returns an InboxProbe over the Redis at url for the inboxes
// under prefix (package redis's keys: prefix+"inbox:"+id, a sorted set, and
// prefix+"inboxm:"+id, its meta hash): MEMORY USAGE of both keys (0 when
// absent) and the set's ZCARD. Call close when done.
func RedisInboxProbe(url, prefix string) (probe InboxProbe, close func() error, err error) {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		return nil, nil, err
	}
	rdb := goredis.NewClient(opt)
	probe = func(ctx context.Context, users []sparrow.ID) ([]int64, []int64, error) {
		bytes, items := make([]int64, len(users)), make([]int64, len(users))
		for i, u := range users {
			id := strconv.FormatInt(int64(u), 10)
			for _, key := range []string{prefix + "inbox:" + id, prefix + "inboxm:" + id} {
				n, err := rdb.MemoryUsage(ctx, key).Result()
				if err == goredis.Nil {
					continue
				}
				if err != nil {
					return nil, nil, err
				}
				bytes[i] += n
			}
			n, err := rdb.ZCard(ctx, prefix+"inbox:"+id).Result()
			if err != nil {
				return nil, nil, err
			}
			items[i] = n
		}
		return bytes, items, nil
	}
	return probe, rdb.Close, nil
}

// FlushRedisPrefix deletes every key under prefix (SCAN and UNLINK), for the
// clean-up of a run's Redis prefixes; errors are ignored.
func FlushRedisPrefix(url, prefix string) {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		return
	}
	rdb := goredis.NewClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	var cursor uint64
	for {
		keys, next, err := rdb.Scan(ctx, cursor, prefix+"*", 1000).Result()
		if err != nil {
			return
		}
		if len(keys) > 0 {
			rdb.Unlink(ctx, keys...)
		}
		if cursor = next; cursor == 0 {
			return
		}
	}
}
