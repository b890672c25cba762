package check

import (
	"context"
	"database/sql"

	"golang.org/x/sync/errgroup"

	"sparrow"
	"sparrow/sqlstore"
)

// forward is phase 1 on the following rows of db: one goroutine scans,
// workers(db) look the pages up. The first error stops them all.
func (c *checker) forward(ctx context.Context, db *sqlstore.DB) error {
	n := workers(db)
	pages := make(chan []sqlstore.RelationRow, n)
	g, gctx := errgroup.WithContext(ctx)
	for range n {
		g.Go(func() error {
			for page := range pages {
				if err := c.lookupPage(gctx, page); err != nil {
					return err // cancels gctx, which stops the scanner
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(pages)
		return c.scan(gctx, db, "following", "from_id", "to_id", func(page []sqlstore.RelationRow) error {
			select {
			case pages <- page:
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		})
	})
	return g.Wait()
}

// lookupPage checks a page of following rows, one batched lookup per target
// store and lookupRows rows.
func (c *checker) lookupPage(ctx context.Context, page []sqlstore.RelationRow) error {
	c.mu.Lock()
	c.sum.Following += int64(len(page))
	c.mu.Unlock()
	byTarget := map[*sqlstore.DB][]sqlstore.RelationRow{}
	for _, r := range page {
		t := c.sh.ForID(r.To)
		byTarget[t] = append(byTarget[t], r)
	}
	for t, rows := range byTarget {
		for len(rows) > 0 {
			chunk := rows[:min(len(rows), lookupRows)]
			rows = rows[len(chunk):]
			if err := c.compare(ctx, t, chunk); err != nil {
				return err
			}
		}
	}
	return nil
}

// compare checks following rows against their followers rows on t.
func (c *checker) compare(ctx context.Context, t *sqlstore.DB, rows []sqlstore.RelationRow) error {
	found, err := fetch(ctx, t, true, rows)
	if err != nil {
		return err
	}
	var fs []Finding
	var fix []sqlstore.RelationRow
	for _, r := range rows {
		f, ok := found[[2]sparrow.ID{r.From, r.To}]
		var kind FindingKind
		detail := "following " + describe(r) + "; "
		switch {
		case !ok:
			kind, detail = MissingFollower, detail+"no followers row"
		case f.Version < r.Version:
			kind = StaleFollower
		case f.Version > r.Version:
			kind = NewerFollower
		case f.State != r.State || f.EdgeID != r.EdgeID || f.Reblogs != r.Reblogs || f.Notify != r.Notify:
			kind = DifferentFollower
		default:
			continue
		}
		if ok {
			detail += "followers " + describe(f)
		}
		fixable := kind != NewerFollower
		if fixable && c.repair {
			fix = append(fix, r)
		}
		fs = append(fs, Finding{Kind: kind, From: r.From, To: r.To, Detail: detail, Repaired: fixable && c.repair})
	}
	if len(fix) > 0 {
		head, tail := sqlstore.FollowersMirror(t.Dialect)
		args := make([]any, 0, sqlstore.FollowersMirrorColumns*len(fix))
		for _, r := range fix {
			args = r.AppendFollowersValues(args)
		}
		if err := t.Tx(ctx, nil, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, head+sqlstore.RepeatRow(sqlstore.FollowersMirrorColumns, len(fix))+tail, args...)
			return err
		}); err != nil {
			return err
		}
	}
	inserted := 0
	for _, f := range fs {
		if f.Kind == MissingFollower && f.Repaired {
			inserted++
		}
	}
	c.mu.Lock()
	// every followers row found, or created, belongs to one following row
	c.matched[t] += int64(len(found) + inserted)
	c.mu.Unlock()
	c.emit(fs...)
	return nil
}
