package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"sparrow"
	"sparrow/breaker"
)

// Dialect is what differs between the SQL engines.
type Dialect struct {
	// Name is "sqlite" or "mysql"; it selects the embedded migrations.
	Name string
	// IsDuplicate reports whether err is a unique/primary key violation.
	IsDuplicate func(error) bool
	// InsertIgnore is the statement prefix that skips duplicate rows
	// ("INSERT OR IGNORE" or "INSERT IGNORE").
	InsertIgnore string
	// TxOptions are the options of write transactions (MySQL: READ
	// COMMITTED, so that locking reads of absent rows take no gap locks).
	TxOptions *sql.TxOptions
	// IsRetryable reports whether a failed transaction may simply be run
	// again (a deadlock, a lock wait timeout, a busy database).
	IsRetryable func(error) bool
	// CacheStatements makes hot reads use prepared statements compiled once
	// per connection (SQLite, where compiling costs more than running). MySQL
	// keeps client-side interpolation: server-side statements would cost
	// server memory per connection and statement shape.
	CacheStatements bool
	// IsUnavailable reports the driver's own errors that mean the store
	// cannot be reached or does not answer (see StoreFailure), if any.
	IsUnavailable func(error) bool
}

// DB is one physical store: a writer pool and a reader pool (the same pool for
// MySQL; a single-connection writer and a multi-connection reader for SQLite).
type DB struct {
	Name    string // for logs, leases and metrics: the DSN without credentials
	W       *sql.DB
	R       *sql.DB
	Dialect Dialect
	// OnCommit, if set, is called after every transaction that appended
	// events to the outbox commits (the relay's Poke).
	OnCommit func()
	// Guard is the store's circuit breaker, if it has one (a server the
	// process reaches over the network); its connections go through it.
	Guard *Guard

	stmts  sync.Map     // SQL text → *sql.Stmt on R (hot read statements)
	nstmts atomic.Int64 // entries of stmts
}

// Statements returns how many statements the read pool keeps prepared (see
// readStmt): each is compiled on every read connection that runs it.
func (db *DB) Statements() int64 { return db.nstmts.Load() }

// readStmt returns a prepared statement for q on the read pool, prepared
// once and reused: for hot reads whose compilation costs more than their
// execution (the pull path's compound queries).
func (db *DB) readStmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := db.stmts.Load(q); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := db.R.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if prev, loaded := db.stmts.LoadOrStore(q, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	db.nstmts.Add(1)
	return st, nil
}

// Close closes the prepared statements and both pools.
func (db *DB) Close() error {
	db.stmts.Range(func(_, v any) bool { v.(*sql.Stmt).Close(); return true })
	err := db.W.Close()
	if db.R != db.W {
		err = errors.Join(err, db.R.Close())
	}
	return err
}

// Tx runs fn in a write transaction and commits it; it appends events (none
// if nil) to the outbox inside the same transaction and pokes the relay
// after the commit. A transaction that fails with a retryable error is run
// again from the start (see txEvents), so fn must not keep state across
// runs. The error is translated (see Translate). Offline tools
// (sqlstore/bulk, sqlstore/check) write through it with no events.
func (db *DB) Tx(ctx context.Context, events []sparrow.Event, fn func(*sql.Tx) error) error {
	return db.txEvents(ctx, func(t *sql.Tx) ([]sparrow.Event, error) {
		if fn != nil {
			if err := fn(t); err != nil {
				return nil, err
			}
		}
		return events, nil
	})
}

// maxTxAttempts bounds the runs of a transaction that keeps hitting
// retryable errors (deadlocks, lock timeouts, a busy database).
const maxTxAttempts = 5

// txEvents runs fn in a write transaction, appends the events fn returns to
// the outbox in the same transaction, commits, and pokes the relay. A
// transaction that fails with a retryable error is run again from the start,
// so fn must not keep state across runs (it may assign results it returns
// through captured variables, which the last run overwrites).
func (db *DB) txEvents(ctx context.Context, fn func(*sql.Tx) ([]sparrow.Event, error)) error {
	var err error
	for attempt := 1; attempt <= maxTxAttempts; attempt++ {
		var n int
		n, err = db.txOnce(ctx, fn)
		if err == nil {
			if n > 0 && db.OnCommit != nil {
				db.OnCommit()
			}
			return nil
		}
		if db.Dialect.IsRetryable == nil || !db.Dialect.IsRetryable(err) || !sparrow.Sleep(ctx, time.Duration(attempt*attempt)*time.Millisecond*time.Duration(1+rand.IntN(5))) {
			break
		}
	}
	return db.Translate(err, "tx")
}

// txOnce runs fn once in a transaction and returns how many events it appended.
func (db *DB) txOnce(ctx context.Context, fn func(*sql.Tx) ([]sparrow.Event, error)) (int, error) {
	t, err := db.W.BeginTx(ctx, db.Dialect.TxOptions)
	if err != nil {
		return 0, db.Translate(err, "begin")
	}
	defer t.Rollback()
	events, err := fn(t)
	if err != nil {
		return 0, db.translateKeep(err, "tx")
	}
	if err := appendEvents(ctx, t, events); err != nil {
		return 0, db.translateKeep(err, "outbox")
	}
	if err := t.Commit(); err != nil {
		return 0, db.translateKeep(err, "commit")
	}
	return len(events), nil
}

// translateKeep translates err but keeps retryable driver errors as they are,
// so that txEvents can recognise them; they are translated when given up.
func (db *DB) translateKeep(err error, op string) error {
	if db.Dialect.IsRetryable != nil && db.Dialect.IsRetryable(err) {
		return err
	}
	return db.Translate(err, op)
}

// Translate turns a driver error of operation op on db into a sparrow error
// at the storage boundary (ENotFound for no rows, EUnavailable for a
// cancelled context or an unreachable store, EConflict for a duplicate key,
// EInternal with the store's name and op otherwise). nil, and errors that
// already carry a kind, pass through. Offline tools that query db themselves
// translate their errors with it.
func (db *DB) Translate(err error, op string) error {
	if err == nil {
		return nil
	}
	var se *sparrow.Error
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, sql.ErrNoRows):
		return sparrow.WrapError(sparrow.ENotFound, err, "Record not found")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return sparrow.WrapError(sparrow.EUnavailable, err, "Request cancelled")
	case StoreFailure(err, db.Dialect.IsUnavailable):
		return sparrow.Unavailable(fmt.Errorf("%s %s: %w", db.Name, op, err), breaker.OpenFor, "store %s unavailable", db.Name)
	case db.Dialect.IsDuplicate != nil && db.Dialect.IsDuplicate(err):
		return sparrow.WrapError(sparrow.EConflict, err, "Already exists")
	}
	return sparrow.WrapError(sparrow.EInternal, fmt.Errorf("%s %s: %w", db.Name, op, err), "storage error")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
