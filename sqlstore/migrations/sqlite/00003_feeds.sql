-- +goose Up
-- Notifications live on their recipient's shard: the id carries the
-- recipient's gene (id % 256 = shard). dkey makes creation idempotent: a
-- replayed event produces the same (recipient_id, dkey) and is ignored.
-- idx_notifications_list pages a recipient's list newest first.
CREATE TABLE IF NOT EXISTS notifications (
  id           INTEGER NOT NULL PRIMARY KEY,
  recipient_id INTEGER NOT NULL,
  type         TEXT    NOT NULL,
  from_id      INTEGER NOT NULL,
  status_id    INTEGER NOT NULL DEFAULT 0,
  dkey         TEXT    NOT NULL,
  created_at   INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS uq_notifications_dkey ON notifications (recipient_id, dkey);
CREATE INDEX IF NOT EXISTS idx_notifications_list ON notifications (recipient_id, id);

-- Seed 002's keyed feeds: tag ("tag:<name>"), object ("obj:<type>:<key>") and
-- the public feed in daily buckets ("pub:<YYYYMMDD>", with the directory of
-- non-empty days under "pub:days"). A feed key lives on KeyShard(feed_key),
-- recorded in `shard` like every hashed-string row, so a read touches one
-- shard and a shard moves by copying "WHERE shard = N".
CREATE TABLE IF NOT EXISTS keyed_feeds (
  feed_key  TEXT    NOT NULL,
  status_id INTEGER NOT NULL,
  author_id INTEGER NOT NULL,
  reblog_id INTEGER NOT NULL DEFAULT 0,
  shard     INTEGER NOT NULL,
  PRIMARY KEY (feed_key, status_id)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE IF EXISTS keyed_feeds;
DROP TABLE IF EXISTS notifications;
