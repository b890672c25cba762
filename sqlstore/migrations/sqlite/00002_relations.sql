-- +goose Up
-- Seed 003: Following is the source of truth, sharded by from_id; Follower is
-- its pseudo-replica, sharded by to_id, applied by an idempotent consumer that
-- keeps only newer per-edge versions. Rows are soft-deleted (state 0).
-- The primary key is the clustered "contains" index of §10.3.3 (from, to) and
-- carries state, so contains and batch contains never go back to the table;
-- the list index (source, state, edge_id, target) covers newest-first lists
-- (§10.3.5), edge_id playing the seed's update_time: it is a time-ordered id
-- renewed by every activation, and the Mastodon list cursor.
CREATE TABLE IF NOT EXISTS following (
  from_id    INTEGER  NOT NULL,
  to_id      INTEGER  NOT NULL,
  state      INTEGER NOT NULL,
  version    INTEGER  NOT NULL,
  edge_id    INTEGER  NOT NULL,
  reblogs    INTEGER NOT NULL DEFAULT 1,
  notify     INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER  NOT NULL,
  PRIMARY KEY (from_id, to_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_following_list ON following (from_id, state, edge_id, to_id);

CREATE TABLE IF NOT EXISTS followers (
  to_id      INTEGER  NOT NULL,
  from_id    INTEGER  NOT NULL,
  state      INTEGER NOT NULL,
  version    INTEGER  NOT NULL,
  edge_id    INTEGER  NOT NULL,
  reblogs    INTEGER NOT NULL DEFAULT 1,
  notify     INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER  NOT NULL,
  PRIMARY KEY (to_id, from_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_follower_list ON followers (to_id, state, edge_id, from_id);

-- Blocks, both directions (blocked_by makes "who blocks me" one lookup).
CREATE TABLE IF NOT EXISTS blocks (
  from_id    INTEGER  NOT NULL,
  to_id      INTEGER  NOT NULL,
  state      INTEGER NOT NULL,
  version    INTEGER  NOT NULL,
  edge_id    INTEGER  NOT NULL,
  reblogs    INTEGER NOT NULL DEFAULT 0,
  notify     INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER  NOT NULL,
  PRIMARY KEY (from_id, to_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_blocks_list ON blocks (from_id, state, edge_id, to_id);

CREATE TABLE IF NOT EXISTS blocked_by (
  to_id      INTEGER  NOT NULL,
  from_id    INTEGER  NOT NULL,
  state      INTEGER NOT NULL,
  version    INTEGER  NOT NULL,
  edge_id    INTEGER  NOT NULL,
  reblogs    INTEGER NOT NULL DEFAULT 0,
  notify     INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER  NOT NULL,
  PRIMARY KEY (to_id, from_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_blocked_by_list ON blocked_by (to_id, state, edge_id, from_id);

-- Mutes are private: forward only. notify = 1 hides notifications too.
CREATE TABLE IF NOT EXISTS mutes (
  from_id    INTEGER  NOT NULL,
  to_id      INTEGER  NOT NULL,
  state      INTEGER NOT NULL,
  version    INTEGER  NOT NULL,
  edge_id    INTEGER  NOT NULL,
  reblogs    INTEGER NOT NULL DEFAULT 0,
  notify     INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER  NOT NULL,
  PRIMARY KEY (from_id, to_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_mutes_list ON mutes (from_id, state, edge_id, to_id);

-- Durable counter deltas (seed 003 §10.3.6's counting service), on the shard
-- of the counted row: appended without touching the hot row, applied in
-- batches by one flusher per store. field: 1 followers_count, 2 following_count
-- (later: status counters). id is a generated id with the row's gene.
CREATE TABLE IF NOT EXISTS counter_deltas (
  id        INTEGER   NOT NULL PRIMARY KEY,
  target_id INTEGER   NOT NULL,
  field     INTEGER NOT NULL,
  delta     INTEGER      NOT NULL
) WITHOUT ROWID;

-- Hot accounts are pulled at read time instead of fanned out (seed 000).
ALTER TABLE accounts ADD COLUMN hot INTEGER NOT NULL DEFAULT 0;

-- Account search terms (lower-cased username and display name), on the shard
-- of the term's first character, so a prefix query touches one shard. Fed by
-- a consumer of account events; stale terms are filtered at read time.
CREATE TABLE IF NOT EXISTS account_terms (
  term       TEXT NOT NULL,
  account_id INTEGER       NOT NULL,
  shard      INTEGER     NOT NULL,
  PRIMARY KEY (term, account_id)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE IF EXISTS account_terms;
ALTER TABLE accounts DROP COLUMN hot;
DROP TABLE IF EXISTS counter_deltas;
DROP TABLE IF EXISTS mutes;
DROP TABLE IF EXISTS blocked_by;
DROP TABLE IF EXISTS blocks;
DROP TABLE IF EXISTS followers;
DROP TABLE IF EXISTS following;
