// Package sqlstore implements Sparrow's durable stores (accounts, statuses,
// OAuth, the transactional outbox) on database/sql, for both SQL dialects that
// Sparrow supports: SQLite (package sqlite) and MariaDB/MySQL (package mysql).
// It imports no driver; those packages open connections and hand them over as
// a *DB with a Dialect.
//
// Sharding: 256 logical shards are mapped onto physical stores by a Shards
// router built from a spec such as "0-127=mysql://…/a,128-255=mysql://…/b".
// All logical shards mapped onto one physical store share its tables; a row's
// logical shard is its key's gene (id % 256), or an explicit shard column for
// rows keyed by hashed strings. Moving a logical shard to another store copies
// those rows and changes the spec; no key is ever rehashed.
//
// Every write that other parts of the system must learn about commits its rows
// and its events into the outbox table in one transaction on one physical
// store; the relay publishes them to the bus.
//
// The offline tools live in sub-packages on top of the exported API: bulk
// loads in sqlstore/bulk, the relation check and repair in sqlstore/check.
// They write around the outbox, so they run while no server writes to the
// stores; the few exports that exist for them say so.
package sqlstore
