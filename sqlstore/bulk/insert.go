package bulk

import (
	"context"
	"database/sql"

	"sparrow/sqlstore"
)

// sqliteMaxVars is SQLite's default limit of bound parameters per statement.
const sqliteMaxVars = 32766

// insert writes n rows of ncols values (appendRow appends row i's) with
// statements head + "(?,…),(?,…)…" + tail of up to o.Batch rows, in
// transactions of up to o.TxRows rows. On SQLite the full-batch statement is
// prepared once per transaction. It returns the rows affected.
func insert(ctx context.Context, db *sqlstore.DB, head, tail string, ncols, n int, o Options, appendRow func(args []any, i int) []any) (int64, error) {
	var affected int64
	batch := o.Batch
	if db.Dialect.Name == "sqlite" {
		batch = min(batch, sqliteMaxVars/ncols)
	}
	full := head + sqlstore.RepeatRow(ncols, batch) + tail
	args := make([]any, 0, ncols*batch)
	for start := 0; start < n; {
		end := min(n, start+o.TxRows)
		err := db.Tx(ctx, nil, func(t *sql.Tx) error {
			var stmt *sql.Stmt
			defer func() {
				if stmt != nil {
					stmt.Close()
				}
			}()
			for i := start; i < end; {
				m := min(batch, end-i)
				args = args[:0]
				for j := i; j < i+m; j++ {
					args = appendRow(args, j)
				}
				var res sql.Result
				var err error
				switch {
				case m == batch && db.Dialect.Name == "sqlite":
					if stmt == nil {
						if stmt, err = t.PrepareContext(ctx, full); err != nil {
							return err
						}
					}
					res, err = stmt.ExecContext(ctx, args...)
				case m == batch:
					res, err = t.ExecContext(ctx, full, args...)
				default:
					res, err = t.ExecContext(ctx, head+sqlstore.RepeatRow(ncols, m)+tail, args...)
				}
				if err != nil {
					return err
				}
				k, _ := res.RowsAffected()
				affected += k
				o.Progress(m)
				i += m
			}
			return nil
		})
		if err != nil {
			return affected, err
		}
		start = end
	}
	return affected, nil
}
