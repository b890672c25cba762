package sqlstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sparrow"
	"sparrow/internal/graphgen"
	"sparrow/internal/testenv"
	"sparrow/mysql"
	"sparrow/sqlite"
	"sparrow/sqlstore"
)

// bulkBackends opens a fresh two-store Store per backend: two SQLite files,
// or two new MariaDB databases (dropped at cleanup).
var bulkBackends = map[string]func(t *testing.T) *sqlstore.Store{
	"sqlite": func(t *testing.T) *sqlstore.Store {
		dir := t.TempDir()
		return bulkOpen(t, fmt.Sprintf("0-127=sqlite:%s,128-255=sqlite:%s", filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")))
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
		return bulkOpen(t, "0-127="+dsns[0]+",128-255="+dsns[1])
	},
}

func bulkOpen(t *testing.T, spec string) *sqlstore.Store {
	t.Helper()
	shards, err := sqlstore.OpenShards(context.Background(), spec, map[string]sqlstore.Opener{"sqlite": sqlite.Open, "mysql": mysql.Open})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shards.Close() })
	return sqlstore.New(shards)
}

// bulkGraph generates a small power-law graph.
func bulkGraph(t *testing.T, users int) ([]sparrow.ID, []sqlstore.FollowPair) {
	t.Helper()
	var pairs []sqlstore.FollowPair
	_, err := graphgen.Generate(graphgen.Config{Users: users, MeanFollowing: 15, Zipf: 1.1, MaxFollowers: users / 4, Seed: 5},
		func(from, to sparrow.ID) error {
			pairs = append(pairs, sqlstore.FollowPair{From: from, To: to})
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return graphgen.AccountIDs(users), pairs
}

// bulkLoad loads accounts and pairs with small batches (so that batching
// and transactions are exercised), and fails the test on error.
func bulkLoad(t *testing.T, s *sqlstore.Store, ids []sparrow.ID, pairs []sqlstore.FollowPair) (sqlstore.AccountsLoad, sqlstore.FollowsLoad) {
	t.Helper()
	ctx := context.Background()
	var progress, planned atomic.Int64 // Progress is called concurrently
	o := sqlstore.BulkOptions{Batch: 97, TxRows: 1000, Writers: 3, Relaxed: true, HotAt: 100,
		Planned: func(n int) { planned.Store(int64(n)) }, Progress: func(n int) { progress.Add(int64(n)) }}
	al, err := s.BulkLoadAccounts(ctx, ids, o)
	if err != nil {
		t.Fatal(err)
	}
	if progress.Load() != planned.Load() || planned.Load() != int64(al.Created) {
		t.Fatalf("accounts: progress %d, planned %d, created %d", progress.Load(), planned.Load(), al.Created)
	}
	progress.Store(0)
	fl, err := s.BulkLoadFollows(ctx, pairs, o)
	if err != nil {
		t.Fatal(err)
	}
	if progress.Load() != 2*int64(fl.Edges) || planned.Load() != 2*int64(fl.Edges) {
		t.Fatalf("progress %d, planned %d, want %d rows", progress.Load(), planned.Load(), 2*fl.Edges)
	}
	return al, fl
}

// wantCounts computes the counters of a set of distinct pairs.
func wantCounts(pairs []sqlstore.FollowPair) (followers, following map[sparrow.ID]int64) {
	followers, following = map[sparrow.ID]int64{}, map[sparrow.ID]int64{}
	seen := map[sqlstore.FollowPair]bool{}
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

func TestBulkLoad(t *testing.T) {
	for name, open := range bulkBackends {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			ids, pairs := bulkGraph(t, 600)
			// noise the loader must skip: a self-follow and a duplicate
			input := append(append([]sqlstore.FollowPair{}, pairs...), sqlstore.FollowPair{From: ids[1], To: ids[1]}, pairs[0])
			al, fl := bulkLoad(t, s, ids, input)
			if al.Created != len(ids) || al.Existing != 0 || al.NameConflicts != 0 {
				t.Fatalf("accounts: %+v", al)
			}
			if !fl.Fresh || fl.Edges != len(pairs) || fl.Skipped != 2 || fl.New != int64(len(pairs)) {
				t.Fatalf("follows: %+v (want %d edges)", fl, len(pairs))
			}

			// placeholder accounts resolve by name and have exact counters
			followers, following := wantCounts(pairs)
			for _, id := range []sparrow.ID{ids[0], ids[7], ids[599], pairs[0].To} {
				a, err := s.AccountByUsername(ctx, "U"+id.String())
				if err != nil {
					t.Fatalf("username of %d: %v", id, err)
				}
				b, err := s.AccountByEmail(ctx, "u"+id.String()+"@import.invalid")
				if err != nil || a.ID != id || b.ID != id {
					t.Fatalf("lookups of %d: %v, %v, %v", id, a.ID, b, err)
				}
				if a.PasswordHash != sqlstore.PlaceholderPasswordHash || a.DisplayName != "" {
					t.Fatalf("placeholder %+v", a)
				}
				if a.FollowersCount != followers[id] || a.FollowingCount != following[id] {
					t.Fatalf("account %d counters %d/%d, want %d/%d", id, a.FollowersCount, a.FollowingCount, followers[id], following[id])
				}
				if a.Hot != (followers[id] >= 100) {
					t.Fatalf("account %d with %d followers: hot %v", id, followers[id], a.Hot)
				}
			}
			bulkClean(t, s, int64(len(pairs)))
			bulkEdgeIDs(t, s)

			// a rerun with more pairs merges: nothing duplicated, counters exact
			extra := []sqlstore.FollowPair{{From: ids[3], To: ids[4]}, {From: ids[4], To: ids[3]}, {From: ids[300], To: ids[3]}}
			input = append(append([]sqlstore.FollowPair{}, pairs...), extra...)
			al, fl = bulkLoad(t, s, ids, input)
			if al.Created != 0 || al.Existing != len(ids) {
				t.Fatalf("rerun accounts: %+v", al)
			}
			followers, following = wantCounts(input)
			distinct := 0
			for _, n := range following {
				distinct += int(n)
			}
			if fl.Fresh || fl.Edges != distinct || fl.Skipped != len(input)-distinct || fl.New != int64(distinct-len(pairs)) {
				t.Fatalf("rerun follows: %+v, want %d edges", fl, distinct)
			}
			bulkClean(t, s, int64(distinct))
			for _, id := range []sparrow.ID{ids[3], ids[4], ids[300]} {
				a, err := s.Account(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if a.FollowersCount != followers[id] || a.FollowingCount != following[id] {
					t.Fatalf("after merge, account %d counters %d/%d, want %d/%d", id, a.FollowersCount, a.FollowingCount, followers[id], following[id])
				}
			}
		})
	}
}

// TestBulkMergeKeepsRemoved: a merge never resurrects an unfollowed pair, and
// mirrors the stored following row, not the input.
func TestBulkMergeKeepsRemoved(t *testing.T) {
	for name, open := range bulkBackends {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			ids := graphgen.AccountIDs(4)
			if _, err := s.BulkLoadAccounts(ctx, ids, sqlstore.BulkOptions{}); err != nil {
				t.Fatal(err)
			}
			// ids[0] followed ids[1] and unfollowed (version 2); the reverse
			// side was never applied, and a stale pending delta exists
			db := s.Shards().ForID(ids[0])
			mustExec(t, db, "INSERT INTO following (from_id, to_id, state, version, edge_id, reblogs, notify, updated_at) VALUES (?, ?, 0, 2, 77, 1, 0, 1)", int64(ids[0]), int64(ids[1]))
			mustExec(t, s.Shards().ForID(ids[1]), "INSERT INTO counter_deltas (id, target_id, field, delta) VALUES (?, ?, 1, 1)", int64(ids[1])+1<<20, int64(ids[1]))
			fl, err := s.BulkLoadFollows(ctx, []sqlstore.FollowPair{{ids[0], ids[1]}, {ids[2], ids[1]}}, sqlstore.BulkOptions{Now: time.UnixMilli(5)})
			if err != nil {
				t.Fatal(err)
			}
			if fl.Fresh || fl.New != 1 || fl.Accounts != 3 {
				t.Fatalf("merge: %+v", fl)
			}
			rev, err := s.ReverseEdges(ctx, sparrow.Follow, ids[1], []sparrow.ID{ids[0], ids[2]})
			if err != nil {
				t.Fatal(err)
			}
			if e := rev[ids[0]]; e.Active || e.Version != 2 || e.EdgeID != 77 {
				t.Fatalf("mirrored row %+v, want the removed v2 row", e)
			}
			if e := rev[ids[2]]; !e.Active || e.Version != 1 {
				t.Fatalf("new row %+v", e)
			}
			a, err := s.Account(ctx, ids[1])
			if err != nil {
				t.Fatal(err)
			}
			if a.FollowersCount != 1 {
				t.Fatalf("followers_count %d, want 1", a.FollowersCount)
			}
			bulkClean(t, s, 2)
		})
	}
}

func TestBulkNameConflict(t *testing.T) {
	s := bulkBackends["sqlite"](t)
	ctx := context.Background()
	ids := graphgen.AccountIDs(2)
	// somebody already signed up as "u<ids[1]>"
	err := s.CreateAccount(ctx, &sparrow.Account{ID: 12345 << 8, Username: "u" + ids[1].String(), Email: "x@example.com", CreatedAt: time.Now(), UpdatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	al, err := s.BulkLoadAccounts(ctx, ids, sqlstore.BulkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if al.Created != 2 || al.NameConflicts != 1 {
		t.Fatalf("%+v", al)
	}
	if a, err := s.AccountByUsername(ctx, "u"+ids[1].String()); err != nil || a.ID != 12345<<8 {
		t.Fatalf("the existing claim was taken over: %v %v", a, err)
	}
}

func mustExec(t *testing.T, db *sqlstore.DB, q string, args ...any) int64 {
	t.Helper()
	res, err := db.W.ExecContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	n, _ := res.RowsAffected()
	return n
}

// bulkClean asserts that CheckRelations finds nothing and saw edges follows.
func bulkClean(t *testing.T, s *sqlstore.Store, edges int64) {
	t.Helper()
	sum, err := s.CheckRelations(context.Background(), false, func(f sqlstore.Finding) { t.Errorf("finding: %v", f) })
	if err != nil {
		t.Fatal(err)
	}
	if sum.Findings != 0 || sum.Following != edges || sum.Followers != edges {
		t.Fatalf("check: %+v, want %d clean edges", sum, edges)
	}
}

// bulkEdgeIDs checks the edge ids of a fresh load: distinct, with the
// follower's gene, and increasing along both primary keys (so that both list
// indexes were appended in order).
func bulkEdgeIDs(t *testing.T, s *sqlstore.Store) {
	t.Helper()
	seen := map[int64]bool{}
	for _, db := range s.Shards().DBs() {
		for _, q := range []string{
			"SELECT from_id, to_id, edge_id FROM following ORDER BY from_id, to_id",
			"SELECT to_id, from_id, edge_id FROM followers ORDER BY to_id, from_id",
		} {
			rows, err := db.R.Query(q)
			if err != nil {
				t.Fatal(err)
			}
			var lastKey, lastEdge int64
			for rows.Next() {
				var key, other, edge int64
				if err := rows.Scan(&key, &other, &edge); err != nil {
					t.Fatal(err)
				}
				from := key
				if strings.HasPrefix(q, "SELECT to_id") {
					from = other
				} else {
					if seen[edge] {
						t.Fatalf("edge id %d twice", edge)
					}
					seen[edge] = true
				}
				if sparrow.ID(edge).Shard() != sparrow.ID(from).Shard() {
					t.Fatalf("edge id %d does not carry the gene of follower %d", edge, from)
				}
				if key == lastKey && edge <= lastEdge {
					t.Fatalf("%s: edge ids do not increase along the key at %d/%d", q, key, other)
				}
				lastKey, lastEdge = key, edge
			}
			rows.Close()
		}
	}
}
