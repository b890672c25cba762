-- +goose Up
-- Notifications live on their recipient's shard: the id carries the
-- recipient's gene (id % 256 = shard). dkey makes creation idempotent: a
-- replayed event produces the same (recipient_id, dkey) and is ignored.
-- idx_notifications_list pages a recipient's list newest first.
CREATE TABLE IF NOT EXISTS notifications (
  id           BIGINT       NOT NULL PRIMARY KEY,
  recipient_id BIGINT       NOT NULL,
  type         VARCHAR(16)  NOT NULL,
  from_id      BIGINT       NOT NULL,
  status_id    BIGINT       NOT NULL DEFAULT 0,
  dkey         VARCHAR(128) NOT NULL,
  created_at   BIGINT       NOT NULL,
  UNIQUE KEY uq_notifications_dkey (recipient_id, dkey),
  KEY idx_notifications_list (recipient_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Seed 002's keyed feeds: tag ("tag:<name>"), object ("obj:<type>:<key>") and
-- the public feed in daily buckets ("pub:<YYYYMMDD>", with the directory of
-- non-empty days under "pub:days"). A feed key lives on KeyShard(feed_key),
-- recorded in `shard` like every hashed-string row, so a read touches one
-- shard and a shard moves by copying "WHERE shard = N". The primary key is
-- the clustered newest-first read.
CREATE TABLE IF NOT EXISTS keyed_feeds (
  feed_key  VARCHAR(255) NOT NULL,
  status_id BIGINT       NOT NULL,
  author_id BIGINT       NOT NULL,
  reblog_id BIGINT       NOT NULL DEFAULT 0,
  shard     SMALLINT     NOT NULL,
  PRIMARY KEY (feed_key, status_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- +goose Down
DROP TABLE IF EXISTS keyed_feeds;
DROP TABLE IF EXISTS notifications;
