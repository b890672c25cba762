-- +goose Up
-- Pull path (seed 000's author IN (followings), done as well as it can be):
-- per author, the newest live ids below a cursor, read from the index alone.
CREATE INDEX IF NOT EXISTS idx_statuses_pull ON statuses (account_id, deleted_at, id, reblog_of_id, visibility);

-- +goose Down
DROP INDEX IF EXISTS idx_statuses_pull;
