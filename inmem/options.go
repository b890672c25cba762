package inmem

import "sparrow"

// Defaults used for zero fields of Options.
const (
	DefaultCapacity = 100_000  // keys
	DefaultMaxBytes = 64 << 20 // bytes of keys and values
)

// entryOverhead is the approximate memory of one entry beyond its key and
// value (list element, map slot, expiry), charged against MaxBytes.
const entryOverhead = 96

// Options configure a KV or a Limiter. The zero value is ready to use.
type Options struct {
	// Capacity is the maximum number of keys held; beyond it the least
	// recently used key is evicted. Zero or less means DefaultCapacity.
	Capacity int
	// MaxBytes bounds the memory charged to keys and values (each entry
	// costs len(key)+len(value) plus a small fixed overhead); beyond it the
	// least recently used keys are evicted, and a single entry larger than
	// MaxBytes is not stored at all. Zero or less means DefaultMaxBytes.
	MaxBytes int64
	// Clock tells the time for expiry and windows. Nil means sparrow.SystemClock{}.
	Clock sparrow.Clock
}

func (o Options) withDefaults() Options {
	if o.Capacity <= 0 {
		o.Capacity = DefaultCapacity
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Clock == nil {
		o.Clock = sparrow.SystemClock{}
	}
	return o
}
