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
  from_id    BIGINT  NOT NULL,
  to_id      BIGINT  NOT NULL,
  state      TINYINT NOT NULL,
  version    BIGINT  NOT NULL,
  edge_id    BIGINT  NOT NULL,
  reblogs    TINYINT NOT NULL DEFAULT 1,
  notify     TINYINT NOT NULL DEFAULT 0,
  updated_at BIGINT  NOT NULL,
  PRIMARY KEY (from_id, to_id),
  KEY idx_following_list (from_id, state, edge_id, to_id)
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS followers (
  to_id      BIGINT  NOT NULL,
  from_id    BIGINT  NOT NULL,
  state      TINYINT NOT NULL,
  version    BIGINT  NOT NULL,
  edge_id    BIGINT  NOT NULL,
  reblogs    TINYINT NOT NULL DEFAULT 1,
  notify     TINYINT NOT NULL DEFAULT 0,
  updated_at BIGINT  NOT NULL,
  PRIMARY KEY (to_id, from_id),
  KEY idx_follower_list (to_id, state, edge_id, from_id)
) ENGINE=InnoDB;

-- Blocks, both directions (blocked_by makes "who blocks me" one lookup).
CREATE TABLE IF NOT EXISTS blocks (
  from_id    BIGINT  NOT NULL,
  to_id      BIGINT  NOT NULL,
  state      TINYINT NOT NULL,
  version    BIGINT  NOT NULL,
  edge_id    BIGINT  NOT NULL,
  reblogs    TINYINT NOT NULL DEFAULT 0,
  notify     TINYINT NOT NULL DEFAULT 0,
  updated_at BIGINT  NOT NULL,
  PRIMARY KEY (from_id, to_id),
  KEY idx_blocks_list (from_id, state, edge_id, to_id)
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS blocked_by (
  to_id      BIGINT  NOT NULL,
  from_id    BIGINT  NOT NULL,
  state      TINYINT NOT NULL,
  version    BIGINT  NOT NULL,
  edge_id    BIGINT  NOT NULL,
  reblogs    TINYINT NOT NULL DEFAULT 0,
  notify     TINYINT NOT NULL DEFAULT 0,
  updated_at BIGINT  NOT NULL,
  PRIMARY KEY (to_id, from_id),
  KEY idx_blocked_by_list (to_id, state, edge_id, from_id)
) ENGINE=InnoDB;

-- Mutes are private: forward only. notify = 1 hides notifications too.
CREATE TABLE IF NOT EXISTS mutes (
  from_id    BIGINT  NOT NULL,
  to_id      BIGINT  NOT NULL,
  state      TINYINT NOT NULL,
  version    BIGINT  NOT NULL,
  edge_id    BIGINT  NOT NULL,
  reblogs    TINYINT NOT NULL DEFAULT 0,
  notify     TINYINT NOT NULL DEFAULT 0,
  updated_at BIGINT  NOT NULL,
  PRIMARY KEY (from_id, to_id),
  KEY idx_mutes_list (from_id, state, edge_id, to_id)
) ENGINE=InnoDB;

-- Durable counter deltas (seed 003 §10.3.6's counting service), on the shard
-- of the counted row: appended without touching the hot row, applied in
-- batches by one flusher per store. field: 1 followers_count, 2 following_count
-- (later: status counters). id is a generated id with the row's gene.
CREATE TABLE IF NOT EXISTS counter_deltas (
  id        BIGINT   NOT NULL PRIMARY KEY,
  target_id BIGINT   NOT NULL,
  field     SMALLINT NOT NULL,
  delta     INT      NOT NULL
) ENGINE=InnoDB;

-- Hot accounts are pulled at read time instead of fanned out (seed 000).
ALTER TABLE accounts ADD COLUMN hot TINYINT NOT NULL DEFAULT 0;

-- Account search terms (lower-cased username and display name), on the shard
-- of the term's first character, so a prefix query touches one shard. Fed by
-- a consumer of account events; stale terms are filtered at read time.
CREATE TABLE IF NOT EXISTS account_terms (
  term       VARCHAR(255) NOT NULL,
  account_id BIGINT       NOT NULL,
  shard      SMALLINT     NOT NULL,
  PRIMARY KEY (term, account_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE IF EXISTS account_terms;
ALTER TABLE accounts DROP COLUMN hot;
DROP TABLE IF EXISTS counter_deltas;
DROP TABLE IF EXISTS mutes;
DROP TABLE IF EXISTS blocked_by;
DROP TABLE IF EXISTS blocks;
DROP TABLE IF EXISTS followers;
DROP TABLE IF EXISTS following;
