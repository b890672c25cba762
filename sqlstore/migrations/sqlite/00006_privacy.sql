-- +goose Up
-- Follow requests of locked accounts, both directions, each sharded by its
-- own key (see the MySQL migration of the same number). Idempotency keys are
-- namespaced from now on; SQLite does not enforce the column's length.
CREATE TABLE IF NOT EXISTS follow_requests (
  from_id    INTEGER NOT NULL,
  to_id      INTEGER NOT NULL,
  state      INTEGER NOT NULL,
  version    INTEGER NOT NULL,
  edge_id    INTEGER NOT NULL,
  reblogs    INTEGER NOT NULL DEFAULT 1,
  notify     INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (from_id, to_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_follow_requests_list ON follow_requests (from_id, state, edge_id, to_id);

CREATE TABLE IF NOT EXISTS follow_requested_by (
  to_id      INTEGER NOT NULL,
  from_id    INTEGER NOT NULL,
  state      INTEGER NOT NULL,
  version    INTEGER NOT NULL,
  edge_id    INTEGER NOT NULL,
  reblogs    INTEGER NOT NULL DEFAULT 1,
  notify     INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (to_id, from_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_follow_requested_by_list ON follow_requested_by (to_id, state, edge_id, from_id);

-- +goose Down
DROP TABLE IF EXISTS follow_requested_by;
DROP TABLE IF EXISTS follow_requests;
