package inmem

import (
	"context"
	"time"

	"sparrow"
)

// KV is an in-process sparrow.KV: an LRU of byte values with per-key expiry.
// It is safe for concurrent use. Values are copied on the way in and out, so
// callers may reuse or modify their slices. The context arguments are unused:
// no call blocks beyond a short critical section.
type KV struct {
	s *store[[]byte]
}

var _ sparrow.KV = (*KV)(nil)

// NewKV returns an empty KV configured by o.
func NewKV(o Options) *KV { return &KV{s: newStore[[]byte](o)} }

// Get returns a copy of the value of key, or ok=false if it is absent,
// expired or was evicted. The value of a present key is never nil.
func (kv *KV) Get(_ context.Context, key string) ([]byte, bool, error) {
	kv.s.mu.Lock()
	defer kv.s.mu.Unlock()
	e, ok := kv.s.getLocked(key, kv.s.clock.Now())
	if !ok {
		return nil, false, nil
	}
	return append([]byte{}, e.val...), true, nil
}

// Set stores a copy of val under key for ttl (0: no expiry), replacing any
// previous value and expiry. A negative ttl is a caller bug and yields an
// EInternal error.
func (kv *KV) Set(_ context.Context, key string, val []byte, ttl time.Duration) error {
	if ttl < 0 {
		return sparrow.Errorf(sparrow.EInternal, "inmem: negative ttl %v for key %q", ttl, key)
	}
	e := entry[[]byte]{val: append([]byte{}, val...)}
	kv.s.mu.Lock()
	defer kv.s.mu.Unlock()
	if ttl > 0 {
		e.expires = kv.s.clock.Now().Add(ttl)
	}
	kv.s.putLocked(key, e, int64(len(val)))
	return nil
}

// Delete removes keys; absent keys are ignored. It never fails.
func (kv *KV) Delete(_ context.Context, keys ...string) error {
	kv.s.remove(keys...)
	return nil
}

// Len returns the number of keys held, including expired keys not yet dropped.
func (kv *KV) Len() int { return kv.s.len() }

// Bytes returns the bytes charged to the keys held (see Options.MaxBytes).
func (kv *KV) Bytes() int64 { return kv.s.size() }
