package check

import (
	"context"
	"slices"

	"sparrow"
	"sparrow/sqlstore"
)

// counters is phase 3 on the accounts of db.
func (c *checker) counters(ctx context.Context, db *sqlstore.DB) error {
	rows := [2]map[sparrow.ID]int64{} // active followers, following rows
	pending := [2]map[sparrow.ID]int64{}
	for i, q := range []string{
		"SELECT to_id, COUNT(*) FROM followers WHERE state = 1 GROUP BY to_id",
		"SELECT from_id, COUNT(*) FROM following WHERE state = 1 GROUP BY from_id",
	} {
		m, err := groupCounts(ctx, db, q)
		if err != nil {
			return err
		}
		rows[i] = m
	}
	for i, field := range []sparrow.Counter{sparrow.FollowersCount, sparrow.FollowingCount} {
		m, err := groupCounts(ctx, db, "SELECT target_id, SUM(delta) FROM counter_deltas WHERE field = ? GROUP BY target_id", int(field))
		if err != nil {
			return err
		}
		pending[i] = m
	}
	var bad []Finding
	var accounts int64
	var last int64
	for {
		page, err := accountPage(ctx, db, last)
		if err != nil {
			return err
		}
		for _, a := range page {
			for i, field := range []sparrow.Counter{sparrow.FollowersCount, sparrow.FollowingCount} {
				f := Finding{Account: a.id, Counter: field, Stored: a.stored[i], Pending: pending[i][a.id], Rows: rows[i][a.id]}
				switch {
				case f.Stored < 0 || f.Stored+f.Pending < 0:
					f.Kind = NegativeCounter
				case f.Stored+f.Pending != f.Rows:
					f.Kind = CounterMismatch
				default:
					continue
				}
				bad = append(bad, f)
			}
		}
		accounts += int64(len(page))
		if len(page) < pageRows {
			break
		}
		last = int64(page[len(page)-1].id)
	}
	c.mu.Lock()
	c.sum.Accounts += accounts
	c.mu.Unlock()
	if c.repair && len(bad) > 0 {
		ids := make([]sparrow.ID, 0, len(bad))
		for _, f := range bad {
			ids = append(ids, f.Account)
		}
		slices.Sort(ids)
		if err := c.s.RecountFollows(ctx, slices.Compact(ids), 0); err != nil {
			return err
		}
		for i := range bad {
			bad[i].Repaired = true
		}
	}
	c.emit(bad...)
	return nil
}

type account struct {
	id     sparrow.ID
	stored [2]int64 // followers_count, following_count
}

// accountPage returns a keyset page of accounts after id last.
func accountPage(ctx context.Context, db *sqlstore.DB, last int64) ([]account, error) {
	rs, err := db.R.QueryContext(ctx, "SELECT id, followers_count, following_count FROM accounts WHERE id > ? ORDER BY id LIMIT ?", last, pageRows)
	if err != nil {
		return nil, db.Translate(err, "check accounts")
	}
	defer rs.Close()
	var out []account
	for rs.Next() {
		var a account
		var id int64
		if err := rs.Scan(&id, &a.stored[0], &a.stored[1]); err != nil {
			return nil, db.Translate(err, "check accounts")
		}
		a.id = sparrow.ID(id)
		out = append(out, a)
	}
	return out, db.Translate(rs.Err(), "check accounts")
}

// groupCounts runs a query of (id, count) rows into a map.
func groupCounts(ctx context.Context, db *sqlstore.DB, q string, args ...any) (map[sparrow.ID]int64, error) {
	rs, err := db.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, db.Translate(err, "check counts")
	}
	defer rs.Close()
	out := map[sparrow.ID]int64{}
	for rs.Next() {
		var id, n int64
		if err := rs.Scan(&id, &n); err != nil {
			return nil, db.Translate(err, "check counts")
		}
		out[sparrow.ID(id)] = n
	}
	return out, db.Translate(rs.Err(), "check counts")
}
