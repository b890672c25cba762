package sqlite_test

import (
	"context"
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
