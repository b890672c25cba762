package check

import (
	"context"

	"sparrow"
	"sparrow/sqlstore"
)

// orphans is phase 2 on the followers rows of db.
func (c *checker) orphans(ctx context.Context, db *sqlstore.DB) error {
	var total int64
	if err := db.R.QueryRowContext(ctx, "SELECT COUNT(*) FROM followers").Scan(&total); err != nil {
		return db.Translate(err, "check followers")
	}
	c.mu.Lock()
	c.sum.Followers += total
	matched := c.matched[db]
	c.mu.Unlock()
	if total <= matched {
		return nil
	}
	// Rows behind the keyset cursor may be deleted while the scan goes on.
	return c.scan(ctx, db, "followers", "to_id", "from_id", func(page []sqlstore.RelationRow) error {
		var orphans []sqlstore.RelationRow
		bySource := map[*sqlstore.DB][]sqlstore.RelationRow{}
		for _, r := range page {
			if c.sh.ForID(r.To) != db {
				orphans = append(orphans, r) // misplaced: no lookup will ever find it here
				continue
			}
			src := c.sh.ForID(r.From)
			bySource[src] = append(bySource[src], r)
		}
		for src, rows := range bySource {
			for len(rows) > 0 {
				chunk := rows[:min(len(rows), lookupRows)]
				rows = rows[len(chunk):]
				found, err := fetch(ctx, src, false, chunk)
				if err != nil {
					return err
				}
				for _, r := range chunk {
					if _, ok := found[[2]sparrow.ID{r.From, r.To}]; !ok {
						orphans = append(orphans, r)
					}
				}
			}
		}
		return c.dropOrphans(ctx, db, orphans)
	})
}

// dropOrphans reports orphan followers rows of db and, with repair, deletes
// them.
func (c *checker) dropOrphans(ctx context.Context, db *sqlstore.DB, orphans []sqlstore.RelationRow) error {
	if len(orphans) == 0 {
		return nil
	}
	if c.repair {
		for rows := orphans; len(rows) > 0; {
			chunk := rows[:min(len(rows), lookupRows)]
			rows = rows[len(chunk):]
			args := make([]any, 0, 2*len(chunk))
			for _, r := range chunk {
				args = append(args, int64(r.To), int64(r.From))
			}
			if _, err := db.W.ExecContext(ctx, "DELETE FROM followers WHERE (to_id, from_id) IN ("+sqlstore.RepeatRow(2, len(chunk))+")", args...); err != nil {
				return db.Translate(err, "delete orphans")
			}
		}
		c.mu.Lock()
		c.sum.Followers -= int64(len(orphans))
		c.mu.Unlock()
	}
	fs := make([]Finding, len(orphans))
	for i, r := range orphans {
		fs[i] = Finding{Kind: OrphanFollower, From: r.From, To: r.To, Detail: "followers " + describe(r) + "; no following row", Repaired: c.repair}
	}
	c.emit(fs...)
	return nil
}
