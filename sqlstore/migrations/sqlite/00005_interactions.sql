-- +goose Up
-- Seed 001's t_msg_msg_relation, on the shard of the REFERENCED status, with
-- the fixed page index assigned from the referenced status's ever count in
-- the same transaction that bumps it. kind: 1 comment, 2 repost.
CREATE TABLE IF NOT EXISTS status_relations (
  ref_id     INTEGER NOT NULL,
  kind       INTEGER NOT NULL,
  page       INTEGER NOT NULL,
  status_id  INTEGER NOT NULL,
  author_id  INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (ref_id, kind, page, status_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS idx_relations_status ON status_relations (ref_id, kind, status_id);

-- Favourites, both directions, each sharded by its own key (see 00002).
CREATE TABLE IF NOT EXISTS favourites (
  from_id    INTEGER NOT NULL,
  to_id      INTEGER NOT NULL,
  state      INTEGER NOT NULL,
  version    INTEGER NOT NULL,
  edge_id    INTEGER NOT NULL,
  reblogs    INTEGER NOT NULL DEFAULT 0,
  notify     INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (from_id, to_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_favourites_list ON favourites (from_id, state, edge_id, to_id);

CREATE TABLE IF NOT EXISTS favourited_by (
  to_id      INTEGER NOT NULL,
  from_id    INTEGER NOT NULL,
  state      INTEGER NOT NULL,
  version    INTEGER NOT NULL,
  edge_id    INTEGER NOT NULL,
  reblogs    INTEGER NOT NULL DEFAULT 0,
  notify     INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (to_id, from_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_favourited_by_list ON favourited_by (to_id, state, edge_id, from_id);

-- +goose Down
DROP TABLE IF EXISTS favourited_by;
DROP TABLE IF EXISTS favourites;
DROP TABLE IF EXISTS status_relations;
