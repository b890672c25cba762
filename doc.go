// Package sparrow is the domain of the Sparrow microblog back end: its entities
// (accounts, statuses, apps, tokens, events), its error model, its id scheme and
// the interfaces that storage, cache, bus and service packages implement.
//
// It imports only the standard library. Every dependency lives in a package of
// its own (sqlstore, sqlite, mysql, nats, redis, inmem, http), and package app
// wires them together (app.Open); cmd/sparrow only parses flags. Business rules
// (visibility, policies, fan-out decisions) live in package service, above
// storage, written once for every backend. docs/architecture.md maps the
// packages, paths and events; comments cite the design documents as
// docs/seeds.md#seed-000 … #seed-004.
package sparrow
