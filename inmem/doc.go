// Package inmem implements the cache contracts of package sparrow in process:
// [KV] is a byte cache with expiry and [Limiter] counts hits in fixed windows.
// They serve a single-process (embedded) deployment and tests; a scaled-out
// deployment uses package redis instead, whose behaviour is the same (both
// pass the suite in internal/cachetest).
//
// Both types are safe for concurrent use and bounded in memory: each holds at
// most Options.Capacity keys and about Options.MaxBytes bytes of keys and
// values, evicting the least recently used keys beyond that. Eviction is
// allowed by the contracts (cached data may be lost at any time) but means
// that, under pressure from many distinct keys, a rate-limit count can be
// forgotten early; size Capacity for the expected number of live keys.
//
// Expiry is lazy: an expired key is dropped when it is next touched or when
// it becomes the least recently used. Time comes from Options.Clock, so tests
// move time forward without sleeping.
package inmem
