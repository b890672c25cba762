-- +goose Up
-- Follow requests of locked accounts, both directions, each sharded by its
-- own key: follow_requests by requester (forward, the source of truth of
-- "requested"), follow_requested_by by the locked account (reverse, applied
-- by the follower-sync consumer; the account's list of pending requests).
-- reblogs and notify are the options the follow gets when it is authorized.
-- Same shape as the other edge tables (see 00002).
CREATE TABLE IF NOT EXISTS follow_requests (
  from_id    BIGINT  NOT NULL,
  to_id      BIGINT  NOT NULL,
  state      TINYINT NOT NULL,
  version    BIGINT  NOT NULL,
  edge_id    BIGINT  NOT NULL,
  reblogs    TINYINT NOT NULL DEFAULT 1,
  notify     TINYINT NOT NULL DEFAULT 0,
  updated_at BIGINT  NOT NULL,
  PRIMARY KEY (from_id, to_id),
  KEY idx_follow_requests_list (from_id, state, edge_id, to_id)
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS follow_requested_by (
  to_id      BIGINT  NOT NULL,
  from_id    BIGINT  NOT NULL,
  state      TINYINT NOT NULL,
  version    BIGINT  NOT NULL,
  edge_id    BIGINT  NOT NULL,
  reblogs    TINYINT NOT NULL DEFAULT 1,
  notify     TINYINT NOT NULL DEFAULT 0,
  updated_at BIGINT  NOT NULL,
  PRIMARY KEY (to_id, from_id),
  KEY idx_follow_requested_by_list (to_id, state, edge_id, from_id)
) ENGINE=InnoDB;

-- Idempotency keys are namespaced ("u:" + the client's key of up to 128
-- characters, "reblog:<id>" for reblogs), so that no client key can
-- collide with an internal one.
ALTER TABLE idempotency_keys MODIFY ikey VARCHAR(160) NOT NULL;

-- +goose Down
-- Keys longer than the old column (client keys of 127 or 128 characters
-- with their "u:") cannot be kept; idempotency keys are short-lived.
DELETE FROM idempotency_keys WHERE CHAR_LENGTH(ikey) > 128;
ALTER TABLE idempotency_keys MODIFY ikey VARCHAR(128) NOT NULL;
DROP TABLE IF EXISTS follow_requested_by;
DROP TABLE IF EXISTS follow_requests;
