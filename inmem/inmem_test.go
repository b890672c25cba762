package inmem_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"sparrow"
	"sparrow/inmem"
	"sparrow/internal/cachetest"
)

func TestKV(t *testing.T) {
	cachetest.TestKV(t, func(t *testing.T) sparrow.KV {
		clk := cachetest.NewClock()
		return cachetest.ClockedKV{KV: inmem.NewKV(inmem.Options{Clock: clk}), Clock: clk}
	})
}

func TestLimiter(t *testing.T) {
	cachetest.TestLimiter(t, func(t *testing.T) sparrow.Limiter {
		clk := cachetest.NewClock()
		return cachetest.ClockedLimiter{Limiter: inmem.NewLimiter(inmem.Options{Clock: clk}), Clock: clk}
	})
}

// The suite also holds with the system clock (no fake time), sleeping for real.
func TestKVSystemClock(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps about a second")
	}
	t.Parallel()
	cachetest.TestKV(t, func(t *testing.T) sparrow.KV { return inmem.NewKV(inmem.Options{}) })
}

func TestLimiterSystemClock(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps about a second")
	}
	t.Parallel()
	cachetest.TestLimiter(t, func(t *testing.T) sparrow.Limiter { return inmem.NewLimiter(inmem.Options{}) })
}

func TestKVEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	kv := inmem.NewKV(inmem.Options{Capacity: 3})
	for _, k := range []string{"a", "b", "c"} {
		must(t, kv.Set(ctx, k, []byte(k), 0))
	}
	if _, ok, _ := kv.Get(ctx, "a"); !ok { // a becomes the most recently used
		t.Fatal("a evicted too early")
	}
	must(t, kv.Set(ctx, "d", []byte("d"), 0)) // evicts b
	for k, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if _, ok, _ := kv.Get(ctx, k); ok != want {
			t.Errorf("Get(%s): present=%v, want %v", k, ok, want)
		}
	}
	if kv.Len() != 3 {
		t.Errorf("Len = %d, want 3", kv.Len())
	}
}

func TestKVByteBudget(t *testing.T) {
	ctx := context.Background()
	kv := inmem.NewKV(inmem.Options{MaxBytes: 10_000})
	val := make([]byte, 1000)
	for i := range 100 {
		must(t, kv.Set(ctx, fmt.Sprint(i), val, 0))
	}
	if n := kv.Len(); n < 5 || n > 10 {
		t.Errorf("Len = %d after 100 KB into a 10 KB budget, want 5..10", n)
	}
	if b := kv.Bytes(); b < 5_000 || b > 10_000 {
		t.Errorf("Bytes = %d after 100 KB into a 10 KB budget, want 5000..10000", b)
	}
	if _, ok, _ := kv.Get(ctx, "99"); !ok {
		t.Error("the most recent key was evicted")
	}
	// Overwriting frees the old value's bytes.
	for range 1000 {
		must(t, kv.Set(ctx, "99", val, 0))
	}
	if _, ok, _ := kv.Get(ctx, "98"); !ok {
		t.Error("overwriting one key evicted others: bytes of replaced values leak")
	}
	// A value over the whole budget is not stored, and drops the old value.
	must(t, kv.Set(ctx, "99", make([]byte, 20_000), 0))
	if _, ok, _ := kv.Get(ctx, "99"); ok {
		t.Error("an oversized value was stored, or the old value kept")
	}
	if _, ok, _ := kv.Get(ctx, "98"); !ok {
		t.Error("an oversized value evicted other keys")
	}
}

func TestLimiterEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	l := inmem.NewLimiter(inmem.Options{Capacity: 2})
	for _, k := range []string{"a", "b", "a", "c"} { // c evicts b, the least recently hit
		if _, err := l.Hit(ctx, k, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	for k, want := range map[string]int64{"a": 2, "b": 0, "c": 1} {
		if n, _, _ := l.Count(ctx, k); n != want {
			t.Errorf("Count(%s) = %d, want %d", k, n, want)
		}
	}
}

func TestExpiredEntriesAreDropped(t *testing.T) {
	ctx := context.Background()
	clk := cachetest.NewClock()
	kv := inmem.NewKV(inmem.Options{Clock: clk})
	must(t, kv.Set(ctx, "k", []byte("v"), time.Second))
	clk.Advance(time.Second)
	if _, ok, _ := kv.Get(ctx, "k"); ok {
		t.Fatal("expired key returned")
	}
	if kv.Len() != 0 {
		t.Errorf("Len = %d after reading an expired key, want 0", kv.Len())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
