package bulk

import (
	"cmp"
	"context"
	"database/sql"
	"strconv"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"sparrow/sqlstore"
)

// edge is a new relation row in memory: (a, b) is its primary key (from, to
// for following; to, from for followers), id its edge id.
type edge struct{ a, b, id int64 }

func cmpEdge(x, y edge) int {
	if x.a != y.a {
		return cmp.Compare(x.a, y.a)
	}
	return cmp.Compare(x.b, y.b)
}

// insertEdges writes sorted new active rows (a, b, id) with o.writers(db)
// concurrent writers, each on a contiguous range (so each appends to its own
// part of the primary key).
func insertEdges(ctx context.Context, db *sqlstore.DB, head string, rows []edge, now int64, o Options) (int64, error) {
	w := min(o.writers(db), max(1, len(rows)/o.Batch))
	var total atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	for i := 0; i < w; i++ {
		part := rows[i*len(rows)/w : (i+1)*len(rows)/w]
		g.Go(func() error {
			var n int64
			var err error
			if db.Dialect.Name == "mysql" {
				n, err = insertLiteral(ctx, db, head, part, now, o)
			} else {
				n, err = insert(ctx, db, head, "", 8, len(part), o, func(args []any, i int) []any {
					e := part[i]
					return append(args, e.a, e.b, 1, 1, e.id, 1, 0, now)
				})
			}
			total.Add(n)
			return err
		})
	}
	err := g.Wait()
	return total.Load(), err
}

// insertLiteral is insert for new active rows (a, b, id) with the integers
// written into the statement text, for MySQL: the driver would interpolate
// them client-side anyway, and this skips boxing every value into an
// interface. (SQLite binds faster than it parses.)
func insertLiteral(ctx context.Context, db *sqlstore.DB, head string, rows []edge, now int64, o Options) (int64, error) {
	var affected int64
	for len(rows) > 0 {
		txRows := rows[:min(len(rows), o.TxRows)]
		rows = rows[len(txRows):]
		err := db.Tx(ctx, nil, func(t *sql.Tx) error {
			n, err := literalStatements(ctx, t, head, txRows, now, o)
			affected += n
			return err
		})
		if err != nil {
			return affected, err
		}
	}
	return affected, nil
}

// literalStatements runs the INSERTs of rows in t, o.Batch rows each.
func literalStatements(ctx context.Context, t *sql.Tx, head string, rows []edge, now int64, o Options) (int64, error) {
	var affected int64
	mid := []byte(",1,1,")
	end := []byte(",1,0," + strconv.FormatInt(now, 10) + ")")
	buf := make([]byte, 0, len(head)+o.Batch*80)
	for len(rows) > 0 {
		batch := rows[:min(len(rows), o.Batch)]
		rows = rows[len(batch):]
		buf = append(buf[:0], head...)
		for i, e := range batch {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '(')
			buf = strconv.AppendInt(buf, e.a, 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, e.b, 10)
			buf = append(buf, mid...)
			buf = strconv.AppendInt(buf, e.id, 10)
			buf = append(buf, end...)
		}
		res, err := t.ExecContext(ctx, string(buf))
		if err != nil {
			return affected, err
		}
		k, _ := res.RowsAffected()
		affected += k
		o.Progress(len(batch))
	}
	return affected, nil
}
