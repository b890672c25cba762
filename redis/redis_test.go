package redis_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"sparrow"
	"sparrow/internal/cachetest"
	"sparrow/internal/testenv"
	"sparrow/redis"
)

// open connects to the test Redis (skipping or failing per testenv) and
// returns the client with a key prefix unique to this test; the prefix's
// keys are deleted when the test ends.
func open(t *testing.T) (*redis.Client, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, err := redis.Open(ctx, testenv.RedisURL(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	prefix := uniquePrefix(t)
	t.Cleanup(func() {
		deleteByPrefix(t, c, prefix)
		c.Close()
	})
	return c, prefix
}

func uniquePrefix(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	rand.Read(b)
	return "sparrowtest:" + hex.EncodeToString(b) + ":"
}

func deleteByPrefix(t *testing.T, c *redis.Client, prefix string) {
	ctx := context.Background()
	iter := c.Redis().Scan(ctx, 0, prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Logf("cleanup scan: %v", err)
	}
	if len(keys) > 0 {
		if err := c.Redis().Del(ctx, keys...).Err(); err != nil {
			t.Logf("cleanup del: %v", err)
		}
	}
}

func TestKV(t *testing.T) {
	t.Parallel()
	c, prefix := open(t)
	cachetest.TestKV(t, func(t *testing.T) sparrow.KV {
		return c.KV(prefix + t.Name() + ":")
	})
}

func TestLimiter(t *testing.T) {
	t.Parallel()
	c, prefix := open(t)
	cachetest.TestLimiter(t, func(t *testing.T) sparrow.Limiter {
		return c.Limiter(prefix + t.Name() + ":")
	})
}
