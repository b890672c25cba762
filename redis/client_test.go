package redis_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"sparrow"
	"sparrow/redis"
)

func TestOpenMalformedURL(t *testing.T) {
	_, err := redis.Open(t.Context(), "http://user:secret@127.0.0.1:6379/0")
	if !sparrow.IsKind(err, sparrow.EInvalid) {
		t.Fatalf("err = %v, want kind %s", err, sparrow.EInvalid)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error leaks the password: %v", err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	// Port 1 on loopback refuses connections.
	_, err := redis.Open(ctx, "redis://user:secret@127.0.0.1:1/0")
	if !sparrow.IsKind(err, sparrow.EUnavailable) {
		t.Fatalf("err = %v, want kind %s", err, sparrow.EUnavailable)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error leaks the password: %v", err)
	}
}

func TestClosedClientIsUnavailable(t *testing.T) {
	c, prefix := open(t)
	kv, l := c.KV(prefix), c.Limiter(prefix)
	c.Close()
	ctx := t.Context()
	if _, _, err := kv.Get(ctx, "k"); !sparrow.IsKind(err, sparrow.EUnavailable) {
		t.Errorf("Get after Close: err = %v, want kind %s", err, sparrow.EUnavailable)
	}
	if _, err := l.Hit(ctx, "k", time.Minute); !sparrow.IsKind(err, sparrow.EUnavailable) {
		t.Errorf("Hit after Close: err = %v, want kind %s", err, sparrow.EUnavailable)
	}
}

func TestNamespaces(t *testing.T) {
	c, prefix := open(t)
	ctx := t.Context()
	kv, l := c.KV(prefix), c.Limiter(prefix)
	must(t, kv.Set(ctx, "k", []byte("v"), 0))
	if _, err := l.Hit(ctx, "k", time.Minute); err != nil {
		t.Fatalf("Hit on a key that the KV also uses: %v", err)
	}
	for _, key := range []string{prefix + "kv:k", prefix + "rl:k"} {
		if n := c.Redis().Exists(ctx, key).Val(); n != 1 {
			t.Errorf("Redis key %q missing", key)
		}
	}
	other := c.KV(prefix + "other:")
	if _, ok, _ := other.Get(ctx, "k"); ok {
		t.Error("a KV with another prefix sees the key")
	}
}

func TestHitGivesExpiryToCounterWithout(t *testing.T) {
	c, prefix := open(t)
	ctx := t.Context()
	raw := prefix + "rl:k"
	// A counter left without expiry (by an older writer, say) gets a window
	// on the next hit instead of counting forever.
	must(t, c.Redis().Set(ctx, raw, "5", 0).Err())
	n, err := c.Limiter(prefix).Hit(ctx, "k", time.Minute)
	if err != nil || n != 6 {
		t.Fatalf("Hit = %d, %v; want 6", n, err)
	}
	if ttl := c.Redis().PTTL(ctx, raw).Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("PTTL = %v, want in (0, 1m]", ttl)
	}
}

func TestUnexpectedDataIsInternal(t *testing.T) {
	c, prefix := open(t)
	ctx := t.Context()
	must(t, c.Redis().HSet(ctx, prefix+"kv:h", "f", "v").Err())
	must(t, c.Redis().Set(ctx, prefix+"rl:x", "not a number", 0).Err())
	if _, _, err := c.KV(prefix).Get(ctx, "h"); !sparrow.IsKind(err, sparrow.EInternal) {
		t.Errorf("Get of a hash: err = %v, want kind %s", err, sparrow.EInternal)
	}
	if _, _, err := c.Limiter(prefix).Count(ctx, "x"); !sparrow.IsKind(err, sparrow.EInternal) {
		t.Errorf("Count of a non-counter: err = %v, want kind %s", err, sparrow.EInternal)
	}
	if _, err := c.Limiter(prefix).Hit(ctx, "x", time.Minute); !sparrow.IsKind(err, sparrow.EInternal) {
		t.Errorf("Hit on a non-counter: err = %v, want kind %s", err, sparrow.EInternal)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
