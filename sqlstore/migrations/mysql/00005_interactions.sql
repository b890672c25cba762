-- +goose Up
-- Seed 001's t_msg_msg_relation, on the shard of the REFERENCED status (the
-- seed's own correction), with the fixed page index assigned from the
-- referenced status's ever count in the same transaction that bumps it.
-- kind: 1 comment, 2 repost (plain reblog or quote). A page read is
-- (ref_id, kind, page), ordered by status id: one index range.
CREATE TABLE IF NOT EXISTS status_relations (
  ref_id     BIGINT  NOT NULL,
  kind       TINYINT NOT NULL,
  page       INT     NOT NULL,
  status_id  BIGINT  NOT NULL,
  author_id  BIGINT  NOT NULL,
  created_at BIGINT  NOT NULL,
  PRIMARY KEY (ref_id, kind, page, status_id),
  UNIQUE KEY idx_relations_status (ref_id, kind, status_id)
) ENGINE=InnoDB;

-- Favourites, both directions, each sharded by its own key: favourites by
-- account (forward, the source of truth), favourited_by by status (reverse,
-- applied by the consumer with favourites_count deltas). Same shape as the
-- other edge tables (see 00002).
CREATE TABLE IF NOT EXISTS favourites (
  from_id    BIGINT  NOT NULL,
  to_id      BIGINT  NOT NULL,
  state      TINYINT NOT NULL,
  version    BIGINT  NOT NULL,
  edge_id    BIGINT  NOT NULL,
  reblogs    TINYINT NOT NULL DEFAULT 0,
  notify     TINYINT NOT NULL DEFAULT 0,
  updated_at BIGINT  NOT NULL,
  PRIMARY KEY (from_id, to_id),
  KEY idx_favourites_list (from_id, state, edge_id, to_id)
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS favourited_by (
  to_id      BIGINT  NOT NULL,
  from_id    BIGINT  NOT NULL,
  state      TINYINT NOT NULL,
  version    BIGINT  NOT NULL,
  edge_id    BIGINT  NOT NULL,
  reblogs    TINYINT NOT NULL DEFAULT 0,
  notify     TINYINT NOT NULL DEFAULT 0,
  updated_at BIGINT  NOT NULL,
  PRIMARY KEY (to_id, from_id),
  KEY idx_favourited_by_list (to_id, state, edge_id, from_id)
) ENGINE=InnoDB;

-- +goose Down
DROP TABLE IF EXISTS favourited_by;
DROP TABLE IF EXISTS favourites;
DROP TABLE IF EXISTS status_relations;
