package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"log/slog"
	"net"
	"syscall"
	"time"

	"github.com/sony/gobreaker/v2"

	"sparrow"
)

// A store that is down or hangs must cost the requests that need it one
// fast 503, and nothing to the others. Two things do that:
//
//   - timeouts of the driver's own I/O, shorter than its 30 s default, so
//     that a hanging store fails the requests waiting on it (the mysql
//     package sets them);
//   - a circuit breaker per physical store (Guard), in front of every
//     connection: after a few consecutive failures of the store itself
//     (refused or broken connections, I/O timeouts), it opens, and every
//     operation fails at once with ErrStoreUnavailable, a 503 with
//     Retry-After, until a probe after GuardOpenFor finds the store back.
//     Each state change is logged once.
//
// The breaker is built on github.com/sony/gobreaker; this file only puts it
// in front of database/sql's driver interfaces.

// ErrStoreUnavailable is the error of an operation refused because its
// store's circuit is open (or half open, with its probe under way).
var ErrStoreUnavailable = errors.New("store unavailable")

// Defaults of a Guard.
const (
	// GuardTrip is how many consecutive failures of a store open its circuit.
	GuardTrip = 3
	// GuardOpenFor is how long an open circuit refuses everything before it
	// lets one probe through.
	GuardOpenFor = 3 * time.Second
)

// Guard is the circuit breaker of one physical store. It is safe for
// concurrent use.
type Guard struct {
	name    string
	cb      *gobreaker.TwoStepCircuitBreaker[struct{}]
	failure func(error) bool
}

// NewGuard returns the breaker of the store name. failure tells the errors
// of the store itself (see StoreFailure) from those of a statement (a
// duplicate key, a deadlock), which count as answers; a caller's cancelled
// or expired context counts as neither. log receives each state change.
func NewGuard(name string, failure func(error) bool, log *slog.Logger) *Guard {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &Guard{name: name, failure: failure}
	g.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        name,
		MaxRequests: 1,
		Timeout:     GuardOpenFor,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= GuardTrip },
		IsSuccessful: func(err error) bool {
			return err == nil || !failure(err)
		},
		IsExcluded: func(err error) bool {
			return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrSkip)
		},
		OnStateChange: func(name string, from, to gobreaker.State) {
			switch to {
			case gobreaker.StateOpen:
				log.Warn("store unavailable: its requests answer 503 until it is back", "store", name, "from", from.String())
			case gobreaker.StateClosed:
				log.Info("store available again", "store", name)
			}
		},
	})
	return g
}

// Up returns 1 while the circuit is closed, 0.5 while a probe is allowed,
// and 0 while it is open (the sparrow_store_up gauge).
func (g *Guard) Up() float64 {
	switch g.cb.State() {
	case gobreaker.StateClosed:
		return 1
	case gobreaker.StateHalfOpen:
		return 0.5
	}
	return 0
}

// do runs op if the circuit lets it, and records its outcome.
func (g *Guard) do(op func() error) error {
	done, err := g.cb.Allow()
	if err != nil {
		return sparrow.Unavailable(errors.Join(ErrStoreUnavailable, err), GuardOpenFor, "store %s unavailable", g.name)
	}
	err = op()
	done(err)
	return err
}

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
// for those that talk to the store. The optional interfaces the connection
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
	return st, err
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
			tx, err = c.c.Begin() //nolint:staticcheck // database/sql's own fallback for drivers without BeginTx
		}
		return err
	})
	return tx, err
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
