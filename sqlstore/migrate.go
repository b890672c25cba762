package sqlstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"database/sql"
	"github.com/pressly/goose/v3"

	"sparrow"
)

//go:embed migrations
var migrations embed.FS

// Migrate applies the embedded migrations of db's dialect, idempotently.
// On MySQL a named lock (GET_LOCK) serialises concurrent starts.
func Migrate(ctx context.Context, db *DB) error {
	sub, err := fs.Sub(migrations, "migrations/"+db.Dialect.Name)
	if err != nil {
		return fmt.Errorf("migrations for %s: %w", db.Dialect.Name, err)
	}
	dialect := goose.DialectSQLite3
	var opts []goose.ProviderOption
	if db.Dialect.Name == "mysql" {
		dialect = goose.DialectMySQL
		opts = append(opts, goose.WithSessionLocker(mysqlLocker{}))
	}
	p, err := goose.NewProvider(dialect, db.W, sub, opts...)
	if err != nil {
		return fmt.Errorf("migrations for %s: %w", db.Name, err)
	}
	if _, err := p.Up(ctx); err != nil {
		return sparrow.WrapError(sparrow.EUnavailable, fmt.Errorf("migrate %s: %w", db.Name, err), "schema migration failed")
	}
	return nil
}

// mysqlLocker serialises migrations across processes with MySQL's named
// session locks, which are released when the session ends even on a crash.
type mysqlLocker struct{}

const migrationLock = "sparrow_migrations"

func (mysqlLocker) SessionLock(ctx context.Context, conn *sql.Conn) error {
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 120)", migrationLock).Scan(&got); err != nil {
		return err
	}
	if got.Int64 != 1 {
		return fmt.Errorf("timed out waiting for the migration lock")
	}
	return nil
}

func (mysqlLocker) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, "SELECT RELEASE_LOCK(?)", migrationLock)
	return err
}
