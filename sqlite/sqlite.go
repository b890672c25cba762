// Package sqlite opens Sparrow's embedded physical stores: SQLite files through
// modernc.org/sqlite (pure Go, no cgo), in WAL mode with one writer connection,
// synchronous=FULL so that an acknowledged write survives a crash, and a small
// pool of read connections.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"sparrow"
	"sparrow/sqlstore"
)

// Dialect is SQLite's sqlstore dialect.
var Dialect = sqlstore.Dialect{
	Name:         "sqlite",
	InsertIgnore: "INSERT OR IGNORE",
	IsDuplicate: func(err error) bool {
		var e *sqlite.Error
		if !errors.As(err, &e) {
			return false
		}
		return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	},
	CacheStatements: true,
	IsRetryable: func(err error) bool {
		var e *sqlite.Error
		return errors.As(err, &e) && (e.Code()&0xff == sqlite3.SQLITE_BUSY || e.Code()&0xff == sqlite3.SQLITE_LOCKED)
	},
}

// Readers is the size of each store's read pool. SQLite reads run in this
// process's CPU: four per store (sixteen for the four embedded files) keep
// two cores busy, and each read connection holds its own page cache and its
// own copy of every prepared statement, outside the Go heap. With eight, the
// soak's server (bench soak, preset small) held 58 MB more and did not
// serve more (BENCHMARKS.md).
const Readers = 4

// Page caches, per connection, in KiB: each connection caches its own copy
// of the pages it reads, up to this much, outside the Go heap, and the
// operating system's file cache serves the rest. Together they could hold
// WriterCacheKiB + Readers × ReaderCacheKiB per store (48 MiB; 192 MiB for
// the four embedded files); HeapLimit bounds all of SQLite's memory in the
// process well below that. With 64 MiB per connection and no HeapLimit, the
// soak's server grew by 126 MB in 30 minutes as the stores grew, while the
// Go heap stayed flat; 8 MiB readers served the same (BENCHMARKS.md).
const (
	WriterCacheKiB = 16 << 10
	ReaderCacheKiB = 8 << 10
)

// Open opens (creating if needed) the SQLite store named by dsn, "sqlite:PATH",
// and applies the migrations. It satisfies sqlstore.Opener.
func Open(ctx context.Context, dsn string) (*sqlstore.DB, error) {
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
	if path == "" {
		return nil, sparrow.Errorf(sparrow.EInvalid, "sqlite DSN %q names no file", dsn)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, sparrow.WrapError(sparrow.EUnavailable, err, "cannot create data directory")
	}
	pragmas := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)", "foreign_keys(0)"} {
		pragmas.Add("_pragma", p)
	}
	cache := func(kib int) string { return "&_pragma=" + url.QueryEscape(fmt.Sprintf("cache_size(-%d)", kib)) }
	w, err := sql.Open("sqlite", "file:"+path+"?"+pragmas.Encode()+cache(WriterCacheKiB)+"&_txlock=immediate")
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EUnavailable, err, "cannot open %s", path)
	}
	w.SetMaxOpenConns(1) // one writer: SQLite serialises writes anyway
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", "file:"+path+"?"+pragmas.Encode()+cache(ReaderCacheKiB)+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, sparrow.WrapError(sparrow.EUnavailable, err, "cannot open %s", path)
	}
	r.SetMaxOpenConns(Readers)
	r.SetMaxIdleConns(Readers)
	db := &sqlstore.DB{Name: "sqlite:" + path, W: w, R: r, Dialect: Dialect}
	if err := w.PingContext(ctx); err != nil {
		db.Close()
		return nil, sparrow.WrapError(sparrow.EUnavailable, fmt.Errorf("sqlite %s: %w", path, err), "cannot open store")
	}
	if err := sqlstore.Migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
