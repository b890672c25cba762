package sqlstore

import "context"

// SiteStats counts accounts and live statuses over every physical store. It
// scans the accounts tables, so callers run it in the background and cache the
// answer (instance statistics); it never serves a request directly.
func (s *Store) SiteStats(ctx context.Context) (users, statuses int64, err error) {
	for _, db := range s.shards.DBs() {
		var u, st int64
		if err := db.R.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(SUM(statuses_count), 0) FROM accounts").Scan(&u, &st); err != nil {
			return 0, 0, db.Translate(err, "site stats")
		}
		users, statuses = users+u, statuses+st
	}
	return users, statuses, nil
}
