package inmem

import (
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"sparrow"
)

// entry is one cached value with its absolute expiry (zero: never).
type entry[V any] struct {
	val     V
	expires time.Time
	size    int64
}

func (e entry[V]) expiredAt(now time.Time) bool {
	return !e.expires.IsZero() && !now.Before(e.expires)
}

// store is an LRU of entries bounded by count and bytes, guarded by one mutex.
// Every method locks; helpers suffixed Locked expect the lock held.
type store[V any] struct {
	mu       sync.Mutex
	clock    sparrow.Clock
	maxBytes int64
	bytes    int64
	lru      *simplelru.LRU[string, entry[V]]
}

func newStore[V any](o Options) *store[V] {
	o = o.withDefaults()
	s := &store[V]{clock: o.Clock, maxBytes: o.MaxBytes}
	lru, err := simplelru.NewLRU(o.Capacity, func(_ string, e entry[V]) { s.bytes -= e.size })
	if err != nil { // only for a non-positive size, which withDefaults rules out
		panic("inmem: " + err.Error())
	}
	s.lru = lru
	return s
}

// getLocked returns the live entry of key, dropping it if expired. It marks
// the key as recently used.
func (s *store[V]) getLocked(key string, now time.Time) (entry[V], bool) {
	e, ok := s.lru.Get(key)
	if !ok {
		return e, false
	}
	if e.expiredAt(now) {
		s.lru.Remove(key)
		return entry[V]{}, false
	}
	return e, true
}

// putLocked stores e under key, charging valSize bytes for its value, then
// evicts least recently used entries until the byte budget holds. An entry
// over the whole budget is not stored and any previous entry of key is removed.
func (s *store[V]) putLocked(key string, e entry[V], valSize int64) {
	e.size = int64(len(key)) + valSize + entryOverhead
	if e.size > s.maxBytes {
		s.lru.Remove(key)
		return
	}
	if old, ok := s.lru.Peek(key); ok {
		// Add replaces in place without the eviction callback.
		s.bytes -= old.size
	}
	s.lru.Add(key, e)
	s.bytes += e.size
	for s.bytes > s.maxBytes {
		s.lru.RemoveOldest()
	}
}

func (s *store[V]) remove(keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		s.lru.Remove(k)
	}
}

// len returns the number of entries held, expired or not.
func (s *store[V]) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}

// size returns the bytes charged to the entries held (keys, values and
// entryOverhead each), at most about Options.MaxBytes.
func (s *store[V]) size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}
