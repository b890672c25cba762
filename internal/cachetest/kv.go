package cachetest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"sparrow"
)

// TestKV checks that the KVs made by newKV meet the sparrow.KV contract.
// newKV is called once per subtest, possibly from parallel subtests, and must
// return an empty KV isolated from the others (for a shared server, use a
// unique key prefix). To let the suite move time instantly, return a
// [ClockedKV].
func TestKV(t *testing.T, newKV func(t *testing.T) sparrow.KV) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, kv sparrow.KV, tl *timeline)
	}{
		{"MissingKeys", kvMissing},
		{"SetGetDelete", kvSetGetDelete},
		{"DeleteMany", kvDeleteMany},
		{"Overwrite", kvOverwrite},
		{"BinaryValues", kvBinary},
		{"KeyShapes", kvKeyShapes},
		{"ValuesAreCopied", kvCopied},
		{"Expiry", kvExpiry},
		{"OverwriteReplacesTTL", kvOverwriteTTL},
		{"NegativeTTL", kvNegativeTTL},
		{"Concurrent", kvConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kv := newKV(t)
			tc.fn(t, kv, newTimeline(t, kv))
		})
	}
}

func get(t *testing.T, kv sparrow.KV, key string) ([]byte, bool) {
	t.Helper()
	v, ok, err := kv.Get(ctx(t), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	if !ok && v != nil {
		t.Errorf("Get(%q) = %q, false; want nil value when absent", key, v)
	}
	return v, ok
}

func set(t *testing.T, kv sparrow.KV, key string, val []byte, ttl time.Duration) {
	t.Helper()
	if err := kv.Set(ctx(t), key, val, ttl); err != nil {
		t.Fatalf("Set(%q, ttl %v): %v", key, ttl, err)
	}
}

func del(t *testing.T, kv sparrow.KV, keys ...string) {
	t.Helper()
	if err := kv.Delete(ctx(t), keys...); err != nil {
		t.Fatalf("Delete(%q): %v", keys, err)
	}
}

func wantValue(t *testing.T, kv sparrow.KV, key string, want []byte) {
	t.Helper()
	got, ok := get(t, kv, key)
	if !ok {
		t.Fatalf("Get(%q): absent, want %q", key, want)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Get(%q) = %q, want %q", key, got, want)
	}
}

func wantAbsent(t *testing.T, kv sparrow.KV, key string) {
	t.Helper()
	if got, ok := get(t, kv, key); ok {
		t.Fatalf("Get(%q) = %q, want absent", key, got)
	}
}

func kvMissing(t *testing.T, kv sparrow.KV, _ *timeline) {
	wantAbsent(t, kv, "never-set")
	del(t, kv, "never-set")
	del(t, kv)
	wantAbsent(t, kv, "never-set")
}

func kvSetGetDelete(t *testing.T, kv sparrow.KV, _ *timeline) {
	set(t, kv, "a", []byte("alpha"), 0)
	wantValue(t, kv, "a", []byte("alpha"))
	wantAbsent(t, kv, "b")
	del(t, kv, "a")
	wantAbsent(t, kv, "a")
	del(t, kv, "a") // deleting twice is not an error
}

func kvDeleteMany(t *testing.T, kv sparrow.KV, _ *timeline) {
	for _, k := range []string{"a", "b", "c"} {
		set(t, kv, k, []byte(k), time.Hour)
	}
	del(t, kv, "a", "missing", "c")
	wantAbsent(t, kv, "a")
	wantAbsent(t, kv, "c")
	wantValue(t, kv, "b", []byte("b"))
}

func kvOverwrite(t *testing.T, kv sparrow.KV, _ *timeline) {
	set(t, kv, "k", []byte("a longer first value"), 0)
	set(t, kv, "k", []byte("short"), 0)
	wantValue(t, kv, "k", []byte("short"))
	set(t, kv, "k", []byte{}, 0)
	wantValue(t, kv, "k", []byte{})
}

func kvBinary(t *testing.T, kv sparrow.KV, _ *timeline) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	big := bytes.Repeat([]byte("\x00\xff\r\n"), 64<<10) // 256 KiB
	for name, v := range map[string][]byte{
		"all-bytes": all,
		"nul":       {0},
		"bad-utf8":  {0xc3, 0x28, 0xff, 0xfe},
		"empty":     {},
		"nil":       nil,
		"big":       big,
	} {
		set(t, kv, name, v, time.Hour)
		got, ok := get(t, kv, name)
		if !ok || !bytes.Equal(got, v) {
			t.Errorf("%s: Get = %d bytes, ok=%v; want %d bytes, ok=true", name, len(got), ok, len(v))
		}
	}
}

func kvKeyShapes(t *testing.T, kv sparrow.KV, _ *timeline) {
	keys := []string{"a", "a:", ":a", "a b", "ünïcödé", "*?[x]", "k\x00", "k\n", "", "very-long-" + string(bytes.Repeat([]byte("k"), 1000))}
	for i, k := range keys {
		set(t, kv, k, fmt.Appendf(nil, "v%d", i), 0)
	}
	for i, k := range keys {
		wantValue(t, kv, k, fmt.Appendf(nil, "v%d", i))
	}
	del(t, kv, keys...)
	for _, k := range keys {
		wantAbsent(t, kv, k)
	}
}

func kvCopied(t *testing.T, kv sparrow.KV, _ *timeline) {
	in := []byte("original")
	set(t, kv, "k", in, 0)
	copy(in, "MUTATED!")
	out, _ := get(t, kv, "k")
	if len(out) > 0 {
		out[0] = 'X'
	}
	wantValue(t, kv, "k", []byte("original"))
}

func kvExpiry(t *testing.T, kv sparrow.KV, tl *timeline) {
	m := tl.at(func() { set(t, kv, "short", []byte("s"), unit) })
	set(t, kv, "long", []byte("l"), time.Hour)
	set(t, kv, "forever", []byte("f"), 0)
	if tl.beforeExpiry(m) {
		wantValue(t, kv, "short", []byte("s"))
	}
	tl.waitExpiry(m)
	wantAbsent(t, kv, "short")
	wantValue(t, kv, "long", []byte("l"))
	wantValue(t, kv, "forever", []byte("f"))
	// An expired key behaves as absent: it can be deleted and set again.
	del(t, kv, "short")
	set(t, kv, "short", []byte("again"), 0)
	wantValue(t, kv, "short", []byte("again"))
}

func kvOverwriteTTL(t *testing.T, kv sparrow.KV, tl *timeline) {
	// "kept" first expires, then is overwritten without expiry; "dropped"
	// first never expires, then is overwritten with an expiry.
	set(t, kv, "kept", []byte("1"), unit)
	set(t, kv, "dropped", []byte("1"), 0)
	m := tl.at(func() {
		set(t, kv, "kept", []byte("2"), 0)
		set(t, kv, "dropped", []byte("2"), unit)
	})
	tl.waitExpiry(m)
	wantValue(t, kv, "kept", []byte("2"))
	wantAbsent(t, kv, "dropped")
}

func kvNegativeTTL(t *testing.T, kv sparrow.KV, _ *timeline) {
	err := kv.Set(ctx(t), "k", []byte("v"), -time.Second)
	if !sparrow.IsKind(err, sparrow.EInternal) {
		t.Fatalf("Set with negative ttl: err = %v, want kind %s", err, sparrow.EInternal)
	}
	wantAbsent(t, kv, "k")
}

func kvConcurrent(t *testing.T, kv sparrow.KV, _ *timeline) {
	const workers, rounds = 16, 20
	c := ctx(t)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			own := fmt.Sprintf("own-%d", w)
			for r := range rounds {
				want := fmt.Appendf(nil, "%d-%d", w, r)
				if err := kv.Set(c, own, want, time.Hour); err != nil {
					t.Errorf("Set: %v", err)
					return
				}
				if err := kv.Set(c, "shared", want, time.Hour); err != nil {
					t.Errorf("Set shared: %v", err)
					return
				}
				got, ok, err := kv.Get(c, own)
				if err != nil || !ok || !bytes.Equal(got, want) {
					t.Errorf("Get(%s) = %q, %v, %v; want %q", own, got, ok, err, want)
					return
				}
				if _, _, err := kv.Get(c, "shared"); err != nil {
					t.Errorf("Get shared: %v", err)
					return
				}
			}
			if err := kv.Delete(c, own); err != nil {
				t.Errorf("Delete: %v", err)
			}
		})
	}
	wg.Wait()
	for w := range workers {
		wantAbsent(t, kv, fmt.Sprintf("own-%d", w))
	}
	if v, ok := get(t, kv, "shared"); !ok || len(v) == 0 {
		t.Fatalf("shared: got %q, %v; want the last value written", v, ok)
	}
}
