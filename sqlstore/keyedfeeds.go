package sqlstore

import (
	"context"
	"unicode/utf8"

	"sparrow"
)

var _ sparrow.KeyedFeedStore = (*Store)(nil)

// maxFeedKey is the longest feed key, in characters (keyed_feeds.feed_key).
const maxFeedKey = 255

// feedKeysByDB groups distinct keys by the physical store of KeyShard(key).
func (s *Store) feedKeysByDB(keys []string) (map[*DB][]string, error) {
	out := map[*DB][]string{}
	seen := map[string]bool{}
	for _, k := range keys {
		if k == "" || utf8.RuneCountInString(k) > maxFeedKey || !utf8.ValidString(k) {
			return nil, sparrow.Errorf(sparrow.EInvalid, "feed key must be 1 to %d characters", maxFeedKey)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		db := s.shards.ForKey(k)
		out[db] = append(out[db], k)
	}
	return out, nil
}

// AddToFeeds adds item to every key with one multi-row INSERT IGNORE per
// physical store; an item already in a feed is left as it is (idempotent).
func (s *Store) AddToFeeds(ctx context.Context, keys []string, item sparrow.FeedItem) error {
	byDB, err := s.feedKeysByDB(keys)
	if err != nil {
		return err
	}
	for db, ks := range byDB {
		args := make([]any, 0, 5*len(ks))
		for _, k := range ks {
			args = append(args, k, int64(item.ID), int64(item.Author), int64(item.Reblog), sparrow.KeyShard(k))
		}
		if _, err := db.W.ExecContext(ctx, db.Dialect.InsertIgnore+" INTO keyed_feeds (feed_key, status_id, author_id, reblog_id, shard) VALUES "+
			RepeatRow(5, len(ks)), args...); err != nil {
			return db.Translate(err, "add to feeds")
		}
	}
	return nil
}

// RemoveFromFeeds deletes status id from every key, one statement per
// physical store; absent rows are not an error.
func (s *Store) RemoveFromFeeds(ctx context.Context, keys []string, id sparrow.ID) error {
	byDB, err := s.feedKeysByDB(keys)
	if err != nil {
		return err
	}
	for db, ks := range byDB {
		args := make([]any, 0, len(ks)+1)
		for _, k := range ks {
			args = append(args, k)
		}
		if _, err := db.W.ExecContext(ctx, "DELETE FROM keyed_feeds WHERE feed_key IN ("+Placeholders(len(ks))+") AND status_id = ?",
			append(args, int64(id))...); err != nil {
			return db.Translate(err, "remove from feeds")
		}
	}
	return nil
}

// ReadFeed pages one feed key by status id on the primary key, newest first
// (MinID reads upward and is reversed). The limit is clamped to [1, 1000].
func (s *Store) ReadFeed(ctx context.Context, key string, p sparrow.Page) ([]sparrow.FeedItem, error) {
	if key == "" || utf8.RuneCountInString(key) > maxFeedKey {
		return nil, nil // no such feed can exist
	}
	p = p.Normalize(1000)
	q := "SELECT status_id, author_id, reblog_id FROM keyed_feeds WHERE feed_key = ?"
	args := []any{key}
	if p.MaxID != 0 {
		q, args = q+" AND status_id < ?", append(args, int64(p.MaxID))
	}
	if lo := p.Lower(); lo != 0 {
		q, args = q+" AND status_id > ?", append(args, int64(lo))
	}
	if p.Ascending() {
		q += " ORDER BY status_id ASC LIMIT ?"
	} else {
		q += " ORDER BY status_id DESC LIMIT ?"
	}
	db := s.shards.ForKey(key)
	rows, err := db.R.QueryContext(ctx, q, append(args, p.Limit)...)
	if err != nil {
		return nil, db.Translate(err, "read feed")
	}
	defer rows.Close()
	var out []sparrow.FeedItem
	for rows.Next() {
		var it sparrow.FeedItem
		if err := rows.Scan(&it.ID, &it.Author, &it.Reblog); err != nil {
			return nil, db.Translate(err, "read feed")
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, db.Translate(err, "read feed")
	}
	if p.Ascending() {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, nil
}
