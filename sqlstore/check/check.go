package check

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"sparrow"
	"sparrow/sqlstore"
)

// Relations verifies the follow tables and counters of every physical store
// of s, and with repair fixes what it finds, in the three phases of the
// package comment, every store in parallel within a phase. report, if not
// nil, receives every finding, one call at a time, in no particular order.
func Relations(ctx context.Context, s *sqlstore.Store, repair bool, report func(Finding)) (Summary, error) {
	c := &checker{sh: s.Shards(), s: s, repair: repair, report: report, matched: map[*sqlstore.DB]int64{},
		sum: Summary{ByKind: map[FindingKind]int64{}}}
	for _, phase := range []func(context.Context, *sqlstore.DB) error{c.forward, c.orphans, c.counters} {
		g, gctx := errgroup.WithContext(ctx)
		for _, db := range c.sh.DBs() {
			g.Go(func() error { return phase(gctx, db) })
		}
		if err := g.Wait(); err != nil {
			return c.sum, err
		}
	}
	return c.sum, nil
}

// pageRows is the number of rows per keyset page, lookupRows the number
// of pairs per batched lookup.
const (
	pageRows   = 5000
	lookupRows = 500
)

// workers is the number of lookups in flight per scanned store: several
// for a server, which works while we wait; one for SQLite, which works in
// this process (every store is scanned at once already) and whose every
// extra read connection holds its own page cache.
func workers(db *sqlstore.DB) int {
	if db.Dialect.Name == "sqlite" {
		return 1
	}
	return 4
}

type checker struct {
	sh     *sqlstore.Shards
	s      *sqlstore.Store
	repair bool
	report func(Finding)

	mu      sync.Mutex
	sum     Summary
	matched map[*sqlstore.DB]int64 // followers rows per store that have their following row
}

func (c *checker) emit(fs ...Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range fs {
		c.sum.Findings++
		c.sum.ByKind[f.Kind]++
		if f.Repaired {
			c.sum.Repaired++
		}
		if c.report != nil {
			c.report(f)
		}
	}
}

// scan streams table's rows on db in primary-key order (first, second), a
// page at a time.
func (c *checker) scan(ctx context.Context, db *sqlstore.DB, table, first, second string, page func([]sqlstore.RelationRow) error) error {
	where := "(" + first + ", " + second + ") > (?, ?)"
	if db.Dialect.Name == "mysql" {
		where = first + " > ? OR (" + first + " = ? AND " + second + " > ?)" // MariaDB ranges this, not a row comparison
	}
	q := "SELECT " + sqlstore.EdgeColumns + " FROM " + table + " WHERE " + where + " ORDER BY " + first + ", " + second + " LIMIT ?"
	var a, b int64 // ids are positive: (0, 0) precedes every key
	for {
		args := []any{a, b, pageRows}
		if db.Dialect.Name == "mysql" {
			args = []any{a, a, b, pageRows}
		}
		rows, err := db.QueryRelationRows(ctx, q, args...)
		if err != nil || len(rows) == 0 {
			return err
		}
		if err := page(rows); err != nil {
			return err
		}
		last := rows[len(rows)-1]
		a, b = int64(last.From), int64(last.To)
		if table == "followers" {
			a, b = b, a
		}
		if len(rows) < pageRows {
			return nil
		}
	}
}

// fetch returns the followers (or following) rows on db of the pairs of
// rows, keyed [from, to].
func fetch(ctx context.Context, db *sqlstore.DB, followers bool, rows []sqlstore.RelationRow) (map[[2]sparrow.ID]sqlstore.RelationRow, error) {
	table, key := "following", "(from_id, to_id)"
	if followers {
		table, key = "followers", "(to_id, from_id)"
	}
	args := make([]any, 0, 2*len(rows))
	for _, r := range rows {
		if followers {
			args = append(args, int64(r.To), int64(r.From))
		} else {
			args = append(args, int64(r.From), int64(r.To))
		}
	}
	got, err := db.QueryRelationRows(ctx, "SELECT "+sqlstore.EdgeColumns+" FROM "+table+" WHERE "+key+" IN ("+sqlstore.RepeatRow(2, len(rows))+")", args...)
	if err != nil {
		return nil, err
	}
	out := make(map[[2]sparrow.ID]sqlstore.RelationRow, len(got))
	for _, r := range got {
		out[[2]sparrow.ID{r.From, r.To}] = r
	}
	return out, nil
}

func describe(r sqlstore.RelationRow) string {
	state := "removed"
	if r.State == 1 {
		state = "active"
	}
	return fmt.Sprintf("v%d %s edge %d reblogs %d notify %d", r.Version, state, r.EdgeID, r.Reblogs, r.Notify)
}
