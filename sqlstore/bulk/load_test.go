package bulk_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"sparrow"
	"sparrow/internal/graphgen"
	"sparrow/sqlstore"
	"sparrow/sqlstore/bulk"
	"sparrow/sqlstore/internal/bulktest"
)

func TestBulkLoad(t *testing.T) {
	for name, open := range bulktest.Backends {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			ids, pairs := bulktest.Graph(t, 600)
			// noise the loader must skip: a self-follow and a duplicate
			input := append(append([]bulk.FollowPair{}, pairs...), bulk.FollowPair{From: ids[1], To: ids[1]}, pairs[0])
			al, fl := bulktest.Load(t, s, ids, input)
			if al.Created != len(ids) || al.Existing != 0 || al.NameConflicts != 0 {
				t.Fatalf("accounts: %+v", al)
			}
			if !fl.Fresh || fl.Edges != len(pairs) || fl.Skipped != 2 || fl.New != int64(len(pairs)) {
				t.Fatalf("follows: %+v (want %d edges)", fl, len(pairs))
			}

			// placeholder accounts resolve by name and have exact counters
			followers, following := bulktest.WantCounts(pairs)
			for _, id := range []sparrow.ID{ids[0], ids[7], ids[599], pairs[0].To} {
				a, err := s.AccountByUsername(ctx, "U"+id.String())
				if err != nil {
					t.Fatalf("username of %d: %v", id, err)
				}
				b, err := s.AccountByEmail(ctx, "u"+id.String()+"@import.invalid")
				if err != nil || a.ID != id || b.ID != id {
					t.Fatalf("lookups of %d: %v, %v, %v", id, a.ID, b, err)
				}
				if a.PasswordHash != bulk.PlaceholderPasswordHash || a.DisplayName != "" {
					t.Fatalf("placeholder %+v", a)
				}
				if a.FollowersCount != followers[id] || a.FollowingCount != following[id] {
					t.Fatalf("account %d counters %d/%d, want %d/%d", id, a.FollowersCount, a.FollowingCount, followers[id], following[id])
				}
				if a.Hot != (followers[id] >= 100) {
					t.Fatalf("account %d with %d followers: hot %v", id, followers[id], a.Hot)
				}
			}
			bulktest.Clean(t, s, int64(len(pairs)))
			bulkEdgeIDs(t, s)

			// a rerun with more pairs merges: nothing duplicated, counters exact
			extra := []bulk.FollowPair{{From: ids[3], To: ids[4]}, {From: ids[4], To: ids[3]}, {From: ids[300], To: ids[3]}}
			input = append(append([]bulk.FollowPair{}, pairs...), extra...)
			al, fl = bulktest.Load(t, s, ids, input)
			if al.Created != 0 || al.Existing != len(ids) {
				t.Fatalf("rerun accounts: %+v", al)
			}
			followers, following = bulktest.WantCounts(input)
			distinct := 0
			for _, n := range following {
				distinct += int(n)
			}
			if fl.Fresh || fl.Edges != distinct || fl.Skipped != len(input)-distinct || fl.New != int64(distinct-len(pairs)) {
				t.Fatalf("rerun follows: %+v, want %d edges", fl, distinct)
			}
			bulktest.Clean(t, s, int64(distinct))
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
	for name, open := range bulktest.Backends {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			ids := graphgen.AccountIDs(4)
			if _, err := bulk.LoadAccounts(ctx, s, ids, bulk.Options{}); err != nil {
				t.Fatal(err)
			}
			// ids[0] followed ids[1] and unfollowed (version 2); the reverse
			// side was never applied, and a stale pending delta exists
			db := s.Shards().ForID(ids[0])
			bulktest.Exec(t, db, "INSERT INTO following (from_id, to_id, state, version, edge_id, reblogs, notify, updated_at) VALUES (?, ?, 0, 2, 77, 1, 0, 1)", int64(ids[0]), int64(ids[1]))
			bulktest.Exec(t, s.Shards().ForID(ids[1]), "INSERT INTO counter_deltas (id, target_id, field, delta) VALUES (?, ?, 1, 1)", int64(ids[1])+1<<20, int64(ids[1]))
			fl, err := bulk.LoadFollows(ctx, s, []bulk.FollowPair{{ids[0], ids[1]}, {ids[2], ids[1]}}, bulk.Options{Now: time.UnixMilli(5)})
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
			bulktest.Clean(t, s, 2)
		})
	}
}

func TestBulkNameConflict(t *testing.T) {
	s := bulktest.Backends["sqlite"](t)
	ctx := context.Background()
	ids := graphgen.AccountIDs(2)
	// somebody already signed up as "u<ids[1]>"
	err := s.CreateAccount(ctx, &sparrow.Account{ID: 12345 << 8, Username: "u" + ids[1].String(), Email: "x@example.com", CreatedAt: time.Now(), UpdatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	al, err := bulk.LoadAccounts(ctx, s, ids, bulk.Options{})
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
