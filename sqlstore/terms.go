package sqlstore

import (
	"context"
	"strings"
	"unicode/utf8"

	"sparrow"
)

// termShard returns the logical shard of a search term: that of its first
// character, so that every term sharing a prefix lives on one shard.
func termShard(term string) int {
	r, _ := utf8.DecodeRuneInString(term)
	return sparrow.KeyShard(string(r))
}

// IndexAccountTerms records the terms under which an account can be found
// (idempotent: existing rows are kept). Terms are lower-cased by the caller.
func (s *Store) IndexAccountTerms(ctx context.Context, id sparrow.ID, terms []string) error {
	for _, term := range terms {
		if term == "" {
			continue
		}
		if len(term) > 255 {
			term = term[:255]
		}
		sh := termShard(term)
		db := s.shards.For(sh)
		if _, err := db.W.ExecContext(ctx, db.Dialect.InsertIgnore+" INTO account_terms (term, account_id, shard) VALUES (?,?,?)",
			term, int64(id), sh); err != nil {
			return db.Translate(err, "index terms")
		}
	}
	return nil
}

// maxRune sorts after every valid UTF-8 continuation of a prefix.
const maxRune = "\U0010FFFF"

// SearchAccountTerms returns up to limit ids of accounts with a term that
// starts with prefix (lower-cased by the caller), in term order. Terms may be
// stale (an old display name): callers check the accounts they get.
func (s *Store) SearchAccountTerms(ctx context.Context, prefix string, limit int) ([]sparrow.ID, error) {
	prefix = strings.TrimSpace(prefix)
	if prefix == "" || limit <= 0 {
		return nil, nil
	}
	db := s.shards.For(termShard(prefix))
	rows, err := db.R.QueryContext(ctx, "SELECT account_id FROM account_terms WHERE term >= ? AND term < ? ORDER BY term LIMIT ?",
		prefix, prefix+maxRune, limit)
	if err != nil {
		return nil, db.Translate(err, "search terms")
	}
	defer rows.Close()
	var out []sparrow.ID
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, db.Translate(err, "search terms")
		}
		out = append(out, sparrow.ID(id))
	}
	return out, db.Translate(rows.Err(), "search terms")
}
