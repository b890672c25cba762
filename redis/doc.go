// Package redis implements the cache contracts of package sparrow on a Redis
// server, for a deployment of several processes that must share rate-limit
// counts and cached data: [KV] is a byte cache with expiry and [Limiter]
// counts hits in fixed windows. Their behaviour matches package inmem (both
// pass the suite in internal/cachetest).
//
// [Open] connects a [Client]; [Client.KV] and [Client.Limiter] return views
// on it whose keys carry a prefix (DefaultPrefix in production, a unique one
// per test), with separate namespaces under it so that a KV key and a Limiter
// key of the same name never collide:
//
//	prefix + "kv:" + key   KV values (Redis strings)
//	prefix + "rl:" + key   Limiter counts (Redis integers with a PEXPIRE)
//
// Errors crossing this package are *sparrow.Error: EUnavailable when Redis
// cannot be reached or cannot serve (network, timeout, closed client,
// LOADING, READONLY, OOM...), EInternal for a caller bug or an unexpected
// reply, and EInvalid for a malformed URL given to Open.
package redis
