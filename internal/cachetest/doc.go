// Package cachetest is the one behavioural test suite of the cache contracts
// sparrow.KV and sparrow.Limiter. Every backend runs it from its own tests:
//
//	func TestKV(t *testing.T) {
//		cachetest.TestKV(t, func(t *testing.T) sparrow.KV { return newBackendKV(t) })
//	}
//
// Expiry and windows need time to pass. A backend whose clock can be injected
// returns a [ClockedKV] or [ClockedLimiter] (any value implementing [Advancer])
// and the suite moves its [Clock] forward instantly; otherwise the suite
// sleeps for real, using one-second TTLs, and its subtests run in parallel so
// that the whole suite still takes little more than a second. The suite never
// asserts on timings, only on expiry: where a real-time check depends on the
// machine not stalling (a key still present just after being set), it is
// skipped when the machine did stall.
package cachetest
