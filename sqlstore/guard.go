package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"log/slog"
	"net"
	"syscall"

	"sparrow/breaker"
)

// A store that is down or hangs must cost the requests that need it one
// fast 503, and nothing to the others. Two things do that:
//
//   - timeouts of the driver's own I/O, shorter than its 30 s default, so
//     that a hanging store fails the requests waiting on it (the mysql
//     package sets them);
//   - a circuit breaker per physical store (package breaker) in front of
//     every connection and operation: Guard puts it in front of
//     database/sql's driver interfaces.

// ErrStoreUnavailable is the error of an operation refused because its
// store's circuit is open (or half open, with its probe under way).
var ErrStoreUnavailable = breaker.ErrOpen

// Guard is the circuit breaker of one physical store. It is safe for
// concurrent use.
type Guard struct {
	*breaker.Breaker
}

// NewGuard returns the breaker of the store name. failure tells the errors
// of the store itself (see StoreFailure) from those of a statement (a
// duplicate key, a deadlock), which count as answers. log receives each
// state change.
func NewGuard(name string, failure func(error) bool, log *slog.Logger) *Guard {
	return &Guard{breaker.New("store "+name, func(err error) bool { return !errors.Is(err, driver.ErrSkip) && failure(err) }, log)}
}

// do runs op if the circuit lets it, and records its outcome.
func (g *Guard) do(op func() error) error { return g.Do(op) }

// StoreFailure reports whether err says that a store cannot be reached or
// does not answer (as opposed to an error of the statement): a broken or
// refused connection, a network timeout, a connection the driver gave up,
// or a refusal of the circuit breaker. extra adds a driver's own errors.
func StoreFailure(err error, extra func(error) bool) bool {
	var ne net.Error
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrStoreUnavailable), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.As(err, &ne):
		return true
	}
	return extra != nil && extra(err)
}

// Connector returns c with every connection it makes, and every operation
// of those connections, behind g.
func (g *Guard) Connector(c driver.Connector) driver.Connector { return &guardedConnector{g: g, c: c} }

type guardedConnector struct {
	g *Guard
	c driver.Connector
}

func (gc *guardedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	var conn driver.Conn
	err := gc.g.do(func() (err error) {
		conn, err = gc.c.Connect(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &guardedConn{g: gc.g, c: conn}, nil
}

func (gc *guardedConnector) Driver() driver.Driver { return gc.c.Driver() }

// guardedConn passes every call to its connection, asking the guard first
// for those that talk to the store: connecting, preparing, beginning,
// executing and querying, a prepared statement's executions and queries,
// and a transaction's commit. Reading the rows of a query that
// has answered is not guarded: a connection that fails then is given up by
// the driver, and the next connection's dial counts. The optional interfaces the connection
// lacks answer as database/sql expects (ErrSkip, no reset, valid).
type guardedConn struct {
	g *Guard
	c driver.Conn
}

var (
	_ driver.ConnBeginTx        = (*guardedConn)(nil)
	_ driver.ConnPrepareContext = (*guardedConn)(nil)
	_ driver.ExecerContext      = (*guardedConn)(nil)
	_ driver.QueryerContext     = (*guardedConn)(nil)
	_ driver.Pinger             = (*guardedConn)(nil)
	_ driver.SessionResetter    = (*guardedConn)(nil)
	_ driver.Validator          = (*guardedConn)(nil)
	_ driver.NamedValueChecker  = (*guardedConn)(nil)
	_ driver.Connector          = (*guardedConnector)(nil)
)

func (c *guardedConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *guardedConn) PrepareContext(ctx context.Context, query string) (st driver.Stmt, err error) {
	err = c.g.do(func() error {
		if p, ok := c.c.(driver.ConnPrepareContext); ok {
			st, err = p.PrepareContext(ctx, query)
		} else {
			st, err = c.c.Prepare(query)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &guardedStmt{g: c.g, s: st}, nil
}

func (c *guardedConn) Close() error { return c.c.Close() }

func (c *guardedConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *guardedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (tx driver.Tx, err error) {
	err = c.g.do(func() error {
		if b, ok := c.c.(driver.ConnBeginTx); ok {
			tx, err = b.BeginTx(ctx, opts)
		} else {
			//lint:ignore SA1019 database/sql's own fallback for drivers without BeginTx
			tx, err = c.c.Begin()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &guardedTx{g: c.g, tx: tx}, nil
}

func (c *guardedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (res driver.Result, err error) {
	e, ok := c.c.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	err = c.g.do(func() error {
		res, err = e.ExecContext(ctx, query, args)
		return err
	})
	return res, err
}

func (c *guardedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (rows driver.Rows, err error) {
	q, ok := c.c.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	err = c.g.do(func() error {
		rows, err = q.QueryContext(ctx, query, args)
		return err
	})
	return rows, err
}

func (c *guardedConn) Ping(ctx context.Context) error {
	p, ok := c.c.(driver.Pinger)
	if !ok {
		return nil
	}
	return c.g.do(func() error { return p.Ping(ctx) })
}

func (c *guardedConn) ResetSession(ctx context.Context) error {
	if r, ok := c.c.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// IsValid also drops the connection from the pool while its store's circuit
// is not closed: when the store is back, the pool starts afresh.
func (c *guardedConn) IsValid() bool {
	if c.g.Up() < 1 {
		return false
	}
	if v, ok := c.c.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *guardedConn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.c.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// guardedStmt is a prepared statement whose executions ask the guard first.
type guardedStmt struct {
	g *Guard
	s driver.Stmt
}

var (
	_ driver.StmtExecContext   = (*guardedStmt)(nil)
	_ driver.StmtQueryContext  = (*guardedStmt)(nil)
	_ driver.NamedValueChecker = (*guardedStmt)(nil)
)

func (s *guardedStmt) Close() error  { return s.s.Close() }
func (s *guardedStmt) NumInput() int { return s.s.NumInput() }

func (s *guardedStmt) Exec(args []driver.Value) (res driver.Result, err error) {
	err = s.g.do(func() error {
		//lint:ignore SA1019 database/sql's own fallback for drivers without StmtExecContext
		res, err = s.s.Exec(args)
		return err
	})
	return res, err
}

func (s *guardedStmt) Query(args []driver.Value) (rows driver.Rows, err error) {
	err = s.g.do(func() error {
		//lint:ignore SA1019 database/sql's own fallback for drivers without StmtQueryContext
		rows, err = s.s.Query(args)
		return err
	})
	return rows, err
}

func (s *guardedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (res driver.Result, err error) {
	e, ok := s.s.(driver.StmtExecContext)
	if !ok {
		return s.Exec(values(args))
	}
	err = s.g.do(func() error {
		res, err = e.ExecContext(ctx, args)
		return err
	})
	return res, err
}

func (s *guardedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (rows driver.Rows, err error) {
	q, ok := s.s.(driver.StmtQueryContext)
	if !ok {
		return s.Query(values(args))
	}
	err = s.g.do(func() error {
		rows, err = q.QueryContext(ctx, args)
		return err
	})
	return rows, err
}

func (s *guardedStmt) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := s.s.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// values turns positional arguments into the driver's older form (what
// database/sql does for a statement without the context interfaces).
func values(args []driver.NamedValue) []driver.Value {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

// guardedTx is a transaction whose commit asks the guard first. Its
// rollback always runs (it releases the transaction's locks; a refused
// commit leaves the connection to be dropped, see IsValid).
type guardedTx struct {
	g  *Guard
	tx driver.Tx
}

func (t *guardedTx) Commit() error   { return t.g.do(t.tx.Commit) }
func (t *guardedTx) Rollback() error { return t.tx.Rollback() }
