// Package sparrow is the domain of the Sparrow microblog back end: its entities
// (accounts, statuses, apps, tokens, events), its error model, its id scheme and
// the interfaces that storage, cache, bus and service packages implement.
//
// It imports only the standard library. Every dependency lives in a package of
// its own (sqlstore, sqlite, mysql, nats, redis, inmem, http) and cmd/sparrow
// wires them together. Business rules (visibility, policies, fan-out decisions)
// live in package service, above storage, written once for every backend.
package sparrow
