// Package check verifies the follow tables and counters of a sqlstore.Store
// and repairs them (Relations): following is the source of truth, followers
// must mirror it, and followers_count and following_count, plus their
// pending counter_deltas, must equal the number of active rows. It is an
// offline tool (`sparrow admin check-relations [--repair]`), meant for a
// quiescent store: concurrent follows show up as transient findings, and a
// repair could undo one. It reads every row once:
//
//  1. Every following row, streamed per store in primary-key order (keyset
//     pages), is compared with its followers row on the target's store (one
//     batched lookup per page and target store). Missing, older or
//     different followers rows are repaired by copying the following row
//     onto them, version-guarded (only if following's version ≥ followers':
//     sqlstore.FollowersMirror).
//  2. Followers rows without a following row are found without a second
//     full lookup pass: phase 1 counts, per store, the followers rows it
//     matched, and only a store holding more rows than that is scanned.
//     Repair deletes orphans.
//  3. Counters: active rows are counted per account (GROUP BY on each store)
//     and compared with each account's row plus its pending counter_deltas;
//     with repair, after the edge repairs, so that the counters are checked
//     against the repaired rows. Repair recounts the account in a
//     transaction that sets the row and deletes its pending follow deltas
//     (sqlstore.Store.RecountFollows).
//
// Repairs write no outbox events. Memory is O(accounts of the largest
// store). The package uses only the exported API of sqlstore.
package check
