-- +goose Up
-- Every row lives in the physical store of its logical shard. Rows keyed by an
-- id carry the shard in the id's low 8 bits (id % 256); rows keyed by a hashed
-- string (names, apps, tokens, codes) carry it in an explicit `shard` column.
-- Moving a logical shard is therefore a copy of "WHERE id % 256 = N" /
-- "WHERE shard = N" rows to another store: no key is ever rehashed.
-- Times are unix milliseconds (BIGINT) in both dialects.

CREATE TABLE IF NOT EXISTS accounts (
  id              BIGINT       NOT NULL PRIMARY KEY,
  username        VARCHAR(64)  NOT NULL,
  email           VARCHAR(255) NOT NULL,
  password_hash   VARCHAR(255) NOT NULL,
  display_name    VARCHAR(255) NOT NULL DEFAULT '',
  note            TEXT         NOT NULL,
  locked          TINYINT      NOT NULL DEFAULT 0,
  bot             TINYINT      NOT NULL DEFAULT 0,
  created_at      BIGINT       NOT NULL,
  updated_at      BIGINT       NOT NULL,
  statuses_count  BIGINT       NOT NULL DEFAULT 0,
  followers_count BIGINT       NOT NULL DEFAULT 0,
  following_count BIGINT       NOT NULL DEFAULT 0,
  last_status_at  BIGINT       NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Unique names (kind 0 = username, 1 = email), lower-cased, on KeyShard(name).
CREATE TABLE IF NOT EXISTS account_names (
  kind       TINYINT      NOT NULL,
  name       VARCHAR(255) NOT NULL,
  shard      SMALLINT     NOT NULL,
  account_id BIGINT       NOT NULL,
  created_at BIGINT       NOT NULL,
  PRIMARY KEY (kind, name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Seed 001 t_msg_info / seed 004 t_tiezi. type: 0 original, 1 comment, 2 repost.
-- visibility: 0 public, 1 unlisted, 2 private, 3 direct.
CREATE TABLE IF NOT EXISTS statuses (
  id                     BIGINT       NOT NULL PRIMARY KEY,
  account_id             BIGINT       NOT NULL,
  type                   TINYINT      NOT NULL,
  visibility             TINYINT      NOT NULL,
  text                   TEXT         NOT NULL,
  spoiler_text           TEXT         NOT NULL,
  is_sensitive              TINYINT      NOT NULL DEFAULT 0,
  language               VARCHAR(16)  NOT NULL DEFAULT '',
  in_reply_to_id         BIGINT       NOT NULL DEFAULT 0,
  in_reply_to_account_id BIGINT       NOT NULL DEFAULT 0,
  reblog_of_id           BIGINT       NOT NULL DEFAULT 0,
  quote_id               BIGINT       NOT NULL DEFAULT 0,
  mentions               TEXT         NOT NULL,
  tags                   TEXT         NOT NULL,
  object                 VARCHAR(255) NOT NULL DEFAULT '',
  app_id                 BIGINT       NOT NULL DEFAULT 0,
  created_at             BIGINT       NOT NULL,
  edited_at              BIGINT       NOT NULL DEFAULT 0,
  deleted_at             BIGINT       NOT NULL DEFAULT 0,
  version                BIGINT       NOT NULL DEFAULT 1,
  replies_count          BIGINT       NOT NULL DEFAULT 0,
  reblogs_count          BIGINT       NOT NULL DEFAULT 0,
  favourites_count       BIGINT       NOT NULL DEFAULT 0,
  replies_ever           BIGINT       NOT NULL DEFAULT 0,
  reblogs_ever           BIGINT       NOT NULL DEFAULT 0,
  -- the profile feed (seed 004's "by uid" read, seed 000's pull by author)
  KEY idx_statuses_account (account_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS status_edits (
  status_id    BIGINT  NOT NULL,
  version      BIGINT  NOT NULL,
  text         TEXT    NOT NULL,
  spoiler_text TEXT    NOT NULL,
  is_sensitive    TINYINT NOT NULL DEFAULT 0,
  created_at   BIGINT  NOT NULL,
  PRIMARY KEY (status_id, version)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS idempotency_keys (
  account_id BIGINT       NOT NULL,
  ikey       VARCHAR(128) NOT NULL,
  status_id  BIGINT       NOT NULL,
  created_at BIGINT       NOT NULL,
  PRIMARY KEY (account_id, ikey)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS apps (
  client_id     VARCHAR(64)   NOT NULL PRIMARY KEY,
  shard         SMALLINT      NOT NULL,
  id            BIGINT        NOT NULL,
  name          VARCHAR(255)  NOT NULL,
  website       VARCHAR(1024) NOT NULL DEFAULT '',
  redirect_uris TEXT          NOT NULL,
  scopes        VARCHAR(512)  NOT NULL,
  secret_hash   VARBINARY(32) NOT NULL,
  created_at    BIGINT        NOT NULL,
  -- an app id carries the gene of its client id's shard: id → shard → row
  UNIQUE KEY idx_apps_id (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS tokens (
  hash       VARBINARY(32) NOT NULL PRIMARY KEY,
  shard      SMALLINT      NOT NULL,
  app_id     BIGINT        NOT NULL,
  account_id BIGINT        NOT NULL,
  scopes     VARCHAR(512)  NOT NULL,
  created_at BIGINT        NOT NULL
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS auth_codes (
  hash           VARBINARY(32) NOT NULL PRIMARY KEY,
  shard          SMALLINT      NOT NULL,
  app_id         BIGINT        NOT NULL,
  account_id     BIGINT        NOT NULL,
  redirect_uri   VARCHAR(1024) NOT NULL,
  scopes         VARCHAR(512)  NOT NULL,
  code_challenge VARCHAR(128)  NOT NULL DEFAULT '',
  expires_at     BIGINT        NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The transactional outbox: events committed with their rows, relayed to the bus.
CREATE TABLE IF NOT EXISTS outbox (
  id         BIGINT      NOT NULL PRIMARY KEY,
  type       VARCHAR(64) NOT NULL,
  subject    BIGINT      NOT NULL,
  payload    LONGBLOB    NOT NULL,
  created_at BIGINT      NOT NULL
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS leases (
  name       VARCHAR(64)  NOT NULL PRIMARY KEY,
  holder     VARCHAR(128) NOT NULL,
  expires_at BIGINT       NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

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
