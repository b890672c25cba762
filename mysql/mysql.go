// Package mysql opens Sparrow's scale-out physical stores on MariaDB or MySQL
// through github.com/go-sql-driver/mysql. A DSN is a URL,
// "mysql://user:password@host:port/database"; the database is created if it
// does not exist, and the migrations are applied at open.
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"sparrow"
	"sparrow/sqlstore"
)

// The driver logs each broken connection on its own; those failures reach
// Sparrow as errors (and open the store's circuit breaker, which logs once),
// so its lines go to slog at debug level.
func init() {
	_ = gomysql.SetLogger(driverLogger{})
}

type driverLogger struct{}

func (driverLogger) Print(v ...any) { slog.Debug("mysql driver: " + fmt.Sprint(v...)) }

// Dialect is MySQL's sqlstore dialect.
var Dialect = sqlstore.Dialect{
	Name:         "mysql",
	InsertIgnore: "INSERT IGNORE",
	IsDuplicate: func(err error) bool {
		var e *gomysql.MySQLError
		return errors.As(err, &e) && e.Number == 1062
	},
	// READ COMMITTED: locking reads of absent rows (a new follow, a new
	// favourite) take no gap locks, so concurrent inserts into one gap do
	// not deadlock each other.
	TxOptions: &sql.TxOptions{Isolation: sql.LevelReadCommitted},
	IsRetryable: func(err error) bool {
		var e *gomysql.MySQLError
		return errors.As(err, &e) && (e.Number == 1213 || e.Number == 1205) // deadlock, lock wait timeout
	},
	// The driver's own word for a connection it gave up (after an I/O error
	// or timeout), and the server's refusals that say it cannot serve:
	// too many connections, shutting down, connection killed.
	IsUnavailable: func(err error) bool {
		var e *gomysql.MySQLError
		return errors.Is(err, gomysql.ErrInvalidConn) ||
			errors.As(err, &e) && (e.Number == 1040 || e.Number == 1053 || e.Number == 1927)
	},
}

// Timeouts of a store's connections, shorter than the driver's defaults so
// that a hanging server fails the requests that wait on it (and opens its
// circuit breaker, see sqlstore.Guard) rather than holding them for 30 s. A
// DSN may set its own with the query parameters dial_timeout and
// io_timeout (Go durations: "500ms", "1m"); bulk tools that run long
// statements use a longer io_timeout.
const (
	DialTimeout = 2 * time.Second
	IOTimeout   = 5 * time.Second
)

// PoolSize is the default connection pool size per physical store. A DSN
// may set its own with the query parameter pool_size. Several stores on one
// server share its max_connections (151 by default on MariaDB): keep
// pools × processes below it.
const PoolSize = 16

// Config parses a "mysql://user:pass@host:port/db?param=value" URL into the
// driver's configuration. Query parameters are passed to the server as
// session variables, except pool_size (see Open), dial_timeout and
// io_timeout (see IOTimeout). innodb_lock_wait_timeout defaults to three
// fifths of io_timeout (lockWait).
func Config(dsn string) (*gomysql.Config, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme != "mysql" || u.Host == "" {
		return nil, sparrow.Errorf(sparrow.EInvalid, "mysql DSN must look like mysql://user:pass@host:port/database")
	}
	c := gomysql.NewConfig()
	c.Net, c.Addr = "tcp", u.Host
	if u.Port() == "" {
		c.Addr += ":3306"
	}
	if u.User != nil {
		c.User = u.User.Username()
		c.Passwd, _ = u.User.Password()
	}
	c.DBName = strings.TrimPrefix(u.Path, "/")
	if c.DBName == "" {
		return nil, sparrow.Errorf(sparrow.EInvalid, "mysql DSN %q names no database", redact(u))
	}
	c.ClientFoundRows = true   // an UPDATE that matches reports 1 even if nothing changed
	c.InterpolateParams = true // one round trip per statement; values are still escaped by the driver
	c.Params = map[string]string{}
	c.Timeout, c.ReadTimeout, c.WriteTimeout = DialTimeout, IOTimeout, IOTimeout
	for k, v := range u.Query() {
		switch k {
		case "pool_size":
		case "dial_timeout", "io_timeout":
			d, err := time.ParseDuration(v[0])
			if err != nil || d <= 0 {
				return nil, sparrow.Errorf(sparrow.EInvalid, "mysql DSN: %s must be a positive duration", k)
			}
			if k == "dial_timeout" {
				c.Timeout = d
			} else {
				c.ReadTimeout, c.WriteTimeout = d, d
			}
		default:
			c.Params[k] = v[0]
		}
	}
	if _, ok := c.Params["innodb_lock_wait_timeout"]; !ok {
		c.Params["innodb_lock_wait_timeout"] = strconv.Itoa(lockWait(c.ReadTimeout))
	}
	return c, nil
}

// lockWait is the default innodb_lock_wait_timeout (whole seconds, at least
// 1, at most the server's default of 50) of connections with I/O timeout
// io: three fifths of it, so that a row-lock wait ends as the server's
// retryable error 1205 before the driver gives up on the connection (which
// would count as the store failing, see sqlstore.Guard).
func lockWait(io time.Duration) int {
	return min(max(int(io*3/5/time.Second), 1), 50)
}

// poolSize returns the DSN's pool_size, or PoolSize.
func poolSize(dsn string) (int, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return 0, err
	}
	v := u.Query().Get("pool_size")
	if v == "" {
		return PoolSize, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, sparrow.Errorf(sparrow.EInvalid, "mysql DSN: pool_size must be a positive integer")
	}
	return n, nil
}

func redact(u *url.URL) string {
	v := *u
	v.User = nil
	return v.String()
}

// Open connects to the store named by dsn, creates its database if needed and
// applies the migrations, with a circuit breaker in front of its
// connections (sqlstore.Guard) whose state changes go to slog.Default(). It
// satisfies sqlstore.Opener.
func Open(ctx context.Context, dsn string) (*sqlstore.DB, error) {
	c, err := Config(dsn)
	if err != nil {
		return nil, err
	}
	size, err := poolSize(dsn)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(dsn)
	name := redact(u)
	if err = createDatabase(ctx, c); err != nil {
		return nil, sparrow.WrapError(sparrow.EUnavailable, fmt.Errorf("%s: %w", name, err), "cannot reach MySQL store")
	}
	conn, err := gomysql.NewConnector(c)
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EInvalid, err, "bad mysql DSN")
	}
	guard := sqlstore.NewGuard(name, func(err error) bool { return sqlstore.StoreFailure(err, Dialect.IsUnavailable) }, slog.Default())
	pool := sql.OpenDB(guard.Connector(conn))
	pool.SetMaxOpenConns(size)
	pool.SetMaxIdleConns(size)
	pool.SetConnMaxLifetime(time.Hour)
	db := &sqlstore.DB{Name: name, W: pool, R: pool, Dialect: Dialect, Guard: guard}
	if err := pool.PingContext(ctx); err != nil {
		pool.Close()
		return nil, sparrow.WrapError(sparrow.EUnavailable, fmt.Errorf("%s: %w", name, err), "cannot reach MySQL store")
	}
	if err := sqlstore.Migrate(ctx, db); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

func createDatabase(ctx context.Context, c *gomysql.Config) error {
	root := c.Clone()
	root.DBName = ""
	conn, err := gomysql.NewConnector(root)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	// The name cannot be a bound parameter; quote it as an identifier.
	_, err = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+strings.ReplaceAll(c.DBName, "`", "``")+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
	return err
}

// DropDatabase drops the database named by dsn (for tests and `sparrow admin`).
func DropDatabase(ctx context.Context, dsn string) error {
	c, err := Config(dsn)
	if err != nil {
		return err
	}
	name := c.DBName
	c.DBName = ""
	conn, err := gomysql.NewConnector(c)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	_, err = db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+strings.ReplaceAll(name, "`", "``")+"`")
	return err
}

// Databases lists the databases of the server that serverURL names
// ("mysql://user:pass@host:port/"; a database in it is ignored), for the
// test tools.
func Databases(ctx context.Context, serverURL string) ([]string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, sparrow.Errorf(sparrow.EInvalid, "mysql URL: %v", err)
	}
	u.Path = "/information_schema"
	c, err := Config(u.String())
	if err != nil {
		return nil, err
	}
	conn, err := gomysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SHOW DATABASES")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
