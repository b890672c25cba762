package bulk

import (
	"context"
	"errors"
	"strconv"
	"time"

	"sparrow/sqlstore"
)

// Options tune a bulk load. The zero value is usable.
type Options struct {
	// Now stamps created_at and updated_at (default: time.Now()).
	Now time.Time
	// Node is the id generator node of the edge ids (see LoadFollows).
	Node int
	// Batch is the number of rows per INSERT statement (default 1000).
	Batch int
	// TxRows is the number of rows per transaction (default 50000).
	TxRows int
	// Writers is the number of concurrent writers per table and MySQL store
	// (default 2). SQLite stores always have one writer connection.
	Writers int
	// Relaxed sets synchronous=OFF on SQLite stores for the duration of the
	// load (a crash may then lose or corrupt the rows being loaded, never
	// older ones); the previous setting is restored and the WAL checkpointed
	// (truncated) at the end. It changes nothing on MySQL.
	Relaxed bool
	// HotAt, if positive, sets the hot flag of every account whose counters
	// the load sets to followers_count ≥ HotAt (the rule of
	// sqlstore.Store.FlushCounters with hot = cold = HotAt).
	HotAt int64
	// Planned, if set, is told once how many rows the load is about to write.
	Planned func(rows int)
	// Progress, if set, is called after every INSERT with its number of rows
	// (attempted, not only inserted), possibly from several goroutines at once.
	Progress func(rows int)
}

func (o Options) withDefaults() Options {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Batch <= 0 {
		o.Batch = 1000
	}
	if o.TxRows <= 0 {
		o.TxRows = 50000
	}
	o.TxRows = max(o.TxRows, o.Batch)
	if o.Writers <= 0 {
		o.Writers = 2
	}
	if o.Planned == nil {
		o.Planned = func(int) {}
	}
	if o.Progress == nil {
		o.Progress = func(int) {}
	}
	return o
}

// writers is the number of concurrent writers on db.
func (o Options) writers(db *sqlstore.DB) int {
	if db.Dialect.Name == "sqlite" {
		return 1
	}
	return o.Writers
}

// relax sets synchronous=OFF on every SQLite store of s (Options.Relaxed)
// and returns the function that restores the previous setting and truncates
// the WAL.
func relax(ctx context.Context, s *sqlstore.Store) (func() error, error) {
	type saved struct {
		db   *sqlstore.DB
		sync int
	}
	var done []saved
	restore := func() error {
		rctx := context.WithoutCancel(ctx)
		var err error
		for _, sv := range done {
			// the writer pool has one connection, so these run where the load ran
			_, e1 := sv.db.W.ExecContext(rctx, "PRAGMA synchronous = "+strconv.Itoa(sv.sync))
			_, e2 := sv.db.W.ExecContext(rctx, "PRAGMA wal_checkpoint(TRUNCATE)")
			err = errors.Join(err, sv.db.Translate(e1, "restore synchronous"), sv.db.Translate(e2, "checkpoint"))
		}
		return err
	}
	for _, db := range s.Shards().DBs() {
		if db.Dialect.Name != "sqlite" {
			continue
		}
		var cur int
		if err := db.W.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&cur); err != nil {
			return nil, errors.Join(db.Translate(err, "synchronous"), restore())
		}
		if _, err := db.W.ExecContext(ctx, "PRAGMA synchronous = OFF"); err != nil {
			return nil, errors.Join(db.Translate(err, "synchronous"), restore())
		}
		done = append(done, saved{db, cur})
	}
	return restore, nil
}
