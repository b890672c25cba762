// Package bulktest holds the test helpers that the tests of sqlstore/bulk
// and sqlstore/check share: fresh two-store stores per backend, a small
// follow graph, a load of it with small batches, and the check that a store
// is clean.
package bulktest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"
	"testing"

	"sparrow"
	"sparrow/internal/graphgen"
	"sparrow/internal/testenv"
	"sparrow/mysql"
	"sparrow/sqlite"
	"sparrow/sqlstore"
	"sparrow/sqlstore/bulk"
	"sparrow/sqlstore/check"
)

// Backends opens a fresh two-store Store per backend: two SQLite files, or
// two new MariaDB databases (dropped at cleanup).
var Backends = map[string]func(t *testing.T) *sqlstore.Store{
	"sqlite": func(t *testing.T) *sqlstore.Store {
		dir := t.TempDir()
		return open(t, fmt.Sprintf("0-127=sqlite:%s,128-255=sqlite:%s", filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")))
	},
	"mysql": func(t *testing.T) *sqlstore.Store {
		base := testenv.MySQLURL(t)
		tag := rand.Uint32()
		var dsns []string
		for _, suffix := range []string{"a", "b"} {
			dsn := fmt.Sprintf("%ssparrow_test_%d_%s", base, tag, suffix)
			dsns = append(dsns, dsn)
			t.Cleanup(func() { mysql.DropDatabase(context.Background(), dsn) })
		}
		return open(t, "0-127="+dsns[0]+",128-255="+dsns[1])
	},
}

func open(t *testing.T, spec string) *sqlstore.Store {
	t.Helper()
	shards, err := sqlstore.OpenShards(context.Background(), spec, map[string]sqlstore.Opener{"sqlite": sqlite.Open, "mysql": mysql.Open})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shards.Close() })
	return sqlstore.New(shards)
}

// Graph generates a small power-law graph.
func Graph(t *testing.T, users int) ([]sparrow.ID, []bulk.FollowPair) {
	t.Helper()
	var pairs []bulk.FollowPair
	_, err := graphgen.Generate(graphgen.Config{Users: users, MeanFollowing: 15, Zipf: 1.1, MaxFollowers: users / 4, Seed: 5},
		func(from, to sparrow.ID) error {
			pairs = append(pairs, bulk.FollowPair{From: from, To: to})
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return graphgen.AccountIDs(users), pairs
}

// Load loads accounts and pairs with small batches (so that batching and
// transactions are exercised) and hot flags at 100 followers, checks the
// progress reports, and fails the test on error.
func Load(t *testing.T, s *sqlstore.Store, ids []sparrow.ID, pairs []bulk.FollowPair) (bulk.AccountsLoad, bulk.FollowsLoad) {
	t.Helper()
	ctx := context.Background()
	var progress, planned atomic.Int64 // Progress is called concurrently
	o := bulk.Options{Batch: 97, TxRows: 1000, Writers: 3, Relaxed: true, HotAt: 100,
		Planned: func(n int) { planned.Store(int64(n)) }, Progress: func(n int) { progress.Add(int64(n)) }}
	al, err := bulk.LoadAccounts(ctx, s, ids, o)
	if err != nil {
		t.Fatal(err)
	}
	if progress.Load() != planned.Load() || planned.Load() != int64(al.Created) {
		t.Fatalf("accounts: progress %d, planned %d, created %d", progress.Load(), planned.Load(), al.Created)
	}
	progress.Store(0)
	fl, err := bulk.LoadFollows(ctx, s, pairs, o)
	if err != nil {
		t.Fatal(err)
	}
	if progress.Load() != 2*int64(fl.Edges) || planned.Load() != 2*int64(fl.Edges) {
		t.Fatalf("progress %d, planned %d, want %d rows", progress.Load(), planned.Load(), 2*fl.Edges)
	}
	return al, fl
}

// WantCounts computes the counters of a set of distinct pairs.
func WantCounts(pairs []bulk.FollowPair) (followers, following map[sparrow.ID]int64) {
	followers, following = map[sparrow.ID]int64{}, map[sparrow.ID]int64{}
	seen := map[bulk.FollowPair]bool{}
	for _, p := range pairs {
		if p.From == p.To || seen[p] {
			continue
		}
		seen[p] = true
		followers[p.To]++
		following[p.From]++
	}
	return
}

// Exec runs q on db's writer and returns the rows affected; an error fails
// the test.
func Exec(t *testing.T, db *sqlstore.DB, q string, args ...any) int64 {
	t.Helper()
	res, err := db.W.ExecContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	n, _ := res.RowsAffected()
	return n
}

// Clean asserts that check.Relations finds nothing and saw edges follows.
func Clean(t *testing.T, s *sqlstore.Store, edges int64) {
	t.Helper()
	sum, err := check.Relations(context.Background(), s, false, func(f check.Finding) { t.Errorf("finding: %v", f) })
	if err != nil {
		t.Fatal(err)
	}
	if sum.Findings != 0 || sum.Following != edges || sum.Followers != edges {
		t.Fatalf("check: %+v, want %d clean edges", sum, edges)
	}
}
