package sqlstore

import (
	"context"
	"database/sql"

	"sparrow"
)

// Hot reads go through prepared statements that are compiled once per
// connection and reused (DB.readStmt), and kept for the life of the store.
// For that, their SQL text must come from a small, fixed set: IN lists are
// padded to a few sizes with id 0 (which no row has), and LIMITs are
// written as literals (SQLite re-prepares a statement whenever a bound LIMIT
// value changes) rounded up to a power of two (literalLimit), the caller
// reading the rows it needs. Each distinct text costs its compiled program
// on every read connection, outside the Go heap, for good: with a literal
// LIMIT of every value, a server under the soak's load held about 195
// statements per store after a minute, against 75 with the rounding, and
// 85 MB more memory outside the Go heap after four minutes (BENCHMARKS.md).

// inSizes are the lengths IN lists are padded to.
var inSizes = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}

// inIDs returns the placeholders and arguments of an IN list of ids, padded
// to the next size in inSizes with id 0.
func inIDs(ids []sparrow.ID) (string, []any) {
	size := len(ids)
	for _, s := range inSizes {
		if s >= len(ids) {
			size = s
			break
		}
	}
	args := make([]any, size)
	for i := range args {
		if i < len(ids) {
			args[i] = int64(ids[i])
		} else {
			args[i] = int64(0)
		}
	}
	return Placeholders(size), args
}

// queryR runs a read through the prepared-statement cache, where the
// dialect caches statements.
func (db *DB) queryR(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if !db.Dialect.CacheStatements {
		return db.R.QueryContext(ctx, q, args...)
	}
	st, err := db.readStmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// queryRowR runs a one-row read through the prepared-statement cache, where
// the dialect caches statements.
func (db *DB) queryRowR(ctx context.Context, q string, args ...any) *sql.Row {
	if !db.Dialect.CacheStatements {
		return db.R.QueryRowContext(ctx, q, args...)
	}
	st, err := db.readStmt(ctx, q)
	if err != nil {
		return db.R.QueryRowContext(ctx, q, args...) // surfaces the same error on Scan
	}
	return st.QueryRowContext(ctx, args...)
}

// literalLimit rounds a LIMIT up to a power of two (at least 1), so that the
// statements that write their LIMIT as a literal come from a small set.
func literalLimit(n int) int {
	l := 1
	for l < n {
		l <<= 1
	}
	return l
}
