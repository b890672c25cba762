package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"sparrow/internal/storetest"
	"sparrow/sqlite"
	"sparrow/sqlstore"
)

// TestStore runs the store suite on two SQLite files, so that routing across
// physical stores is exercised.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) *sqlstore.Store {
		dir := t.TempDir()
		spec := fmt.Sprintf("0-127=sqlite:%s,128-255=sqlite:%s", filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db"))
		shards, err := sqlstore.OpenShards(context.Background(), spec, map[string]sqlstore.Opener{"sqlite": sqlite.Open})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { shards.Close() })
		return sqlstore.New(shards)
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	for i := 0; i < 2; i++ {
		db, err := sqlite.Open(context.Background(), "sqlite:"+path)
		if err != nil {
			t.Fatalf("open #%d: %v", i+1, err)
		}
		db.Close()
	}
}

// TestPageCachesAreBounded: every connection gets its page-cache bound, the
// writer's and the readers' (read back from SQLite, in KiB as negative
// numbers).
func TestPageCachesAreBounded(t *testing.T) {
	db, err := sqlite.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		name string
		pool *sql.DB
		want int
	}{{"writer", db.W, sqlite.WriterCacheKiB}, {"reader", db.R, sqlite.ReaderCacheKiB}} {
		var got int
		if err := c.pool.QueryRow("PRAGMA cache_size").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != -c.want {
			t.Errorf("%s cache_size %d, want %d", c.name, got, -c.want)
		}
	}
}
