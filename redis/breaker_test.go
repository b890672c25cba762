package redis_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"sparrow"
	"sparrow/breaker"
	"sparrow/internal/faultproxy"
	"sparrow/internal/testenv"
	"sparrow/redis"
)

// TestDownRedisFailsFast: with Redis down, the first calls fail as
// EUnavailable and open the client's circuit; the next fail at once; when
// Redis is back, the circuit closes by itself.
func TestDownRedisFailsFast(t *testing.T) {
	u, _ := url.Parse(testenv.RedisURL(t))
	p, err := faultproxy.New(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u.Host = p.Addr()
	c, err := redis.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	kv := c.KV("sparrowtest:breaker:")
	get := func() (time.Duration, error) {
		start := time.Now()
		_, _, err := kv.Get(context.Background(), "absent")
		return time.Since(start), err
	}
	if _, err := get(); err != nil {
		t.Fatalf("healthy Redis: %v", err)
	}
	p.Down()
	for i := 0; i < breaker.Trip; i++ {
		if _, err := get(); !sparrow.IsKind(err, sparrow.EUnavailable) {
			t.Fatalf("failure %d: %v, want EUnavailable", i, err)
		}
	}
	if c.Up() != 0 {
		t.Fatalf("circuit state %v after %d failures, want open", c.Up(), breaker.Trip)
	}
	if took, err := get(); !sparrow.IsKind(err, sparrow.EUnavailable) || took > 20*time.Millisecond || sparrow.RetryAfter(err) <= 0 {
		t.Fatalf("open circuit: %v after %v, want EUnavailable at once with a retry hint", err, took)
	}
	p.Up()
	deadline := time.Now().Add(breaker.OpenFor + 5*time.Second)
	for {
		_, err := get()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Redis is back but calls still fail: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
