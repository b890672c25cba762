// Package bulk loads accounts, follow graphs, statuses, comments and
// favourites straight into the tables of a sqlstore.Store, for imports and
// benchmarks.
//
// A bulk load is an offline operation: run it while no server writes to the
// stores it loads (for follows, the relation tables). It bypasses the
// outbox, so no event is published and no cache, timeline, keyed feed or
// notification learns of the rows.
//
// LoadAccounts, LoadFollows and LoadStatuses write rows with large multi-row
// INSERTs in large transactions, in parallel across physical stores (one
// writer per SQLite file, whose single write connection is the limit;
// Options.Writers per table and MySQL store). Every statement skips rows
// that exist already (INSERT IGNORE / INSERT OR IGNORE), so a load that was
// interrupted can simply be run again, and a rerun changes nothing. They
// leave the counters they touch exact (follow counters and hot flags through
// sqlstore's SetFollowCounts and RecountFollows, statuses_count and
// last_status_at from the rows), so that the relation check
// (sqlstore/check) finds nothing to repair afterwards.
//
// LoadComments and LoadFavourites are benchmark set-up for one status: they
// add to the counters they touch, and are not meant to be run twice.
//
// The package uses only the exported API of sqlstore.
package bulk
