package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	sqlite3 "modernc.org/sqlite/lib"
)

// setHeapLimit sets SQLite's soft heap limit (0: none; negative: unchanged)
// and returns the previous one.
func setHeapLimit(n int64) int64 {
	statsMu.Lock()
	prev := sqlite3.Xsqlite3_soft_heap_limit64(statsTLS, -1)
	statsMu.Unlock()
	if n >= 0 {
		SetHeapLimit(n)
	}
	return prev
}

// TestHeapLimitBoundsSQLiteMemory: SQLite's memory is accounted
// (MemoryUsed), the process starts with HeapLimit, and the limit is what
// keeps the page caches from holding a store that would fit in them:
// writing and scanning 12 MB through connections whose caches could hold it
// all stays near a 2 MiB limit, and the same scan without a limit holds the
// pages.
func TestHeapLimitBoundsSQLiteMemory(t *testing.T) {
	if got := setHeapLimit(-1); got != HeapLimit { // a negative value reads the limit
		t.Fatalf("soft heap limit %d, want HeapLimit %d", got, HeapLimit)
	}
	const limit = 2 << 20
	defer setHeapLimit(setHeapLimit(limit))
	ctx := context.Background()
	db, err := Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err = db.W.Exec("CREATE TABLE blobs (id INTEGER PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.W.Begin()
	if err != nil {
		t.Fatal(err)
	}
	row := strings.Repeat("x", 4000)
	for i := range 3000 {
		if _, err := tx.Exec("INSERT INTO blobs VALUES (?, ?)", i, row); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	scan := func() int64 {
		var n int64
		if err := db.R.QueryRow("SELECT sum(length(v)) FROM blobs").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 3000*4000 {
			t.Fatalf("scanned %d bytes", n)
		}
		used, _ := MemoryUsed()
		return used
	}
	if used := scan(); used <= 0 || used > 3*limit {
		t.Errorf("with a %d-byte limit SQLite holds %d bytes after writing and scanning 12 MB", limit, used)
	}
	setHeapLimit(0)
	if used := scan(); used < 6<<20 {
		t.Errorf("without a limit SQLite holds %d bytes after scanning 12 MB through an 8 MiB cache; want the cache full", used)
	}
}
