-- +goose Up
-- Every row lives in the physical store of its logical shard. Rows keyed by an
-- id carry the shard in the id's low 8 bits (id % 256); rows keyed by a hashed
-- string (names, apps, tokens, codes) carry it in an explicit `shard` column.
-- Moving a logical shard is therefore a copy of "WHERE id % 256 = N" /
-- "WHERE shard = N" rows to another store: no key is ever rehashed.
-- Times are unix milliseconds (INTEGER) in both dialects.

CREATE TABLE IF NOT EXISTS accounts (
  id              INTEGER       NOT NULL PRIMARY KEY,
  username        TEXT  NOT NULL,
  email           TEXT NOT NULL,
  password_hash   TEXT NOT NULL,
  display_name    TEXT NOT NULL DEFAULT '',
  note            TEXT         NOT NULL,
  locked          INTEGER      NOT NULL DEFAULT 0,
  bot             INTEGER      NOT NULL DEFAULT 0,
  created_at      INTEGER       NOT NULL,
  updated_at      INTEGER       NOT NULL,
  statuses_count  INTEGER       NOT NULL DEFAULT 0,
  followers_count INTEGER       NOT NULL DEFAULT 0,
  following_count INTEGER       NOT NULL DEFAULT 0,
  last_status_at  INTEGER       NOT NULL DEFAULT 0
);

-- Unique names (kind 0 = username, 1 = email), lower-cased, on KeyShard(name).
CREATE TABLE IF NOT EXISTS account_names (
  kind       INTEGER      NOT NULL,
  name       TEXT NOT NULL,
  shard      INTEGER     NOT NULL,
  account_id INTEGER       NOT NULL,
  created_at INTEGER       NOT NULL,
  PRIMARY KEY (kind, name)
) WITHOUT ROWID;

-- Seed 001 t_msg_info / seed 004 t_tiezi. type: 0 original, 1 comment, 2 repost.
-- visibility: 0 public, 1 unlisted, 2 private, 3 direct.
CREATE TABLE IF NOT EXISTS statuses (
  id                     INTEGER       NOT NULL PRIMARY KEY,
  account_id             INTEGER       NOT NULL,
  type                   INTEGER      NOT NULL,
  visibility             INTEGER      NOT NULL,
  text                   TEXT         NOT NULL,
  spoiler_text           TEXT         NOT NULL,
  is_sensitive              INTEGER      NOT NULL DEFAULT 0,
  language               TEXT  NOT NULL DEFAULT '',
  in_reply_to_id         INTEGER       NOT NULL DEFAULT 0,
  in_reply_to_account_id INTEGER       NOT NULL DEFAULT 0,
  reblog_of_id           INTEGER       NOT NULL DEFAULT 0,
  quote_id               INTEGER       NOT NULL DEFAULT 0,
  mentions               TEXT         NOT NULL,
  tags                   TEXT         NOT NULL,
  object                 TEXT NOT NULL DEFAULT '',
  app_id                 INTEGER       NOT NULL DEFAULT 0,
  created_at             INTEGER       NOT NULL,
  edited_at              INTEGER       NOT NULL DEFAULT 0,
  deleted_at             INTEGER       NOT NULL DEFAULT 0,
  version                INTEGER       NOT NULL DEFAULT 1,
  replies_count          INTEGER       NOT NULL DEFAULT 0,
  reblogs_count          INTEGER       NOT NULL DEFAULT 0,
  favourites_count       INTEGER       NOT NULL DEFAULT 0,
  replies_ever           INTEGER       NOT NULL DEFAULT 0,
  reblogs_ever           INTEGER       NOT NULL DEFAULT 0
);
-- the profile feed (seed 004's "by uid" read, seed 000's pull by author)
CREATE INDEX IF NOT EXISTS idx_statuses_account ON statuses (account_id, id);

CREATE TABLE IF NOT EXISTS status_edits (
  status_id    INTEGER  NOT NULL,
  version      INTEGER  NOT NULL,
  text         TEXT    NOT NULL,
  spoiler_text TEXT    NOT NULL,
  is_sensitive    INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER  NOT NULL,
  PRIMARY KEY (status_id, version)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS idempotency_keys (
  account_id INTEGER       NOT NULL,
  ikey       TEXT NOT NULL,
  status_id  INTEGER       NOT NULL,
  created_at INTEGER       NOT NULL,
  PRIMARY KEY (account_id, ikey)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS apps (
  client_id     TEXT   NOT NULL PRIMARY KEY,
  shard         INTEGER      NOT NULL,
  id            INTEGER        NOT NULL,
  name          TEXT  NOT NULL,
  website       TEXT NOT NULL DEFAULT '',
  redirect_uris TEXT          NOT NULL,
  scopes        TEXT  NOT NULL,
  secret_hash   BLOB NOT NULL,
  created_at    INTEGER        NOT NULL
) WITHOUT ROWID;

-- an app id carries the gene of its client id's shard: id → shard → row
CREATE UNIQUE INDEX IF NOT EXISTS idx_apps_id ON apps (id);

CREATE TABLE IF NOT EXISTS tokens (
  hash       BLOB NOT NULL PRIMARY KEY,
  shard      INTEGER      NOT NULL,
  app_id     INTEGER        NOT NULL,
  account_id INTEGER        NOT NULL,
  scopes     TEXT  NOT NULL,
  created_at INTEGER        NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS auth_codes (
  hash           BLOB NOT NULL PRIMARY KEY,
  shard          INTEGER      NOT NULL,
  app_id         INTEGER        NOT NULL,
  account_id     INTEGER        NOT NULL,
  redirect_uri   TEXT NOT NULL,
  scopes         TEXT  NOT NULL,
  code_challenge TEXT  NOT NULL DEFAULT '',
  expires_at     INTEGER        NOT NULL
) WITHOUT ROWID;

-- The transactional outbox: events committed with their rows, relayed to the bus.
CREATE TABLE IF NOT EXISTS outbox (
  id         INTEGER      NOT NULL PRIMARY KEY,
  type       TEXT NOT NULL,
  subject    INTEGER      NOT NULL,
  payload    BLOB    NOT NULL,
  created_at INTEGER      NOT NULL
);

CREATE TABLE IF NOT EXISTS leases (
  name       TEXT  NOT NULL PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_at INTEGER       NOT NULL
) WITHOUT ROWID;

-- +goose Down
DROP TABLE IF EXISTS leases;
DROP TABLE IF EXISTS outbox;
DROP TABLE IF EXISTS auth_codes;
DROP TABLE IF EXISTS tokens;
DROP TABLE IF EXISTS apps;
DROP TABLE IF EXISTS idempotency_keys;
DROP TABLE IF EXISTS status_edits;
DROP TABLE IF EXISTS statuses;
DROP TABLE IF EXISTS account_names;
DROP TABLE IF EXISTS accounts;
