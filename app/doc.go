// Package app assembles a whole Sparrow server from its configuration: the
// shard stores (SQLite or MariaDB), the bus (embedded or external NATS
// JetStream), the caches (in-process or Redis), the outbox relay, the services
// and the HTTP API. cmd/sparrow runs it; end-to-end tests and benchmarks start
// it in-process on a random port.
package app
