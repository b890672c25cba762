package check_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"sparrow"
	"sparrow/sqlstore"
	"sparrow/sqlstore/bulk"
	"sparrow/sqlstore/check"
	"sparrow/sqlstore/internal/bulktest"
)

// TestCheckRelations loads a graph, corrupts it in every way the check knows,
// and expects the findings, a repair, and a clean store again.
func TestCheckRelations(t *testing.T) {
	for name, open := range bulktest.Backends {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			ids, pairs := bulktest.Graph(t, 2000)
			bulktest.Load(t, s, ids, pairs)
			edges := int64(len(pairs))
			bulktest.Clean(t, s, edges)

			rev := func(p bulk.FollowPair) *sqlstore.DB { return s.Shards().ForID(p.To) }
			fwd := func(p bulk.FollowPair) *sqlstore.DB { return s.Shards().ForID(p.From) }
			key := func(p bulk.FollowPair) []any { return []any{int64(p.To), int64(p.From)} }

			// accounts to corrupt: a, b, c, d are not involved in the edges
			// corrupted below; d has at least two followers
			followers, _ := bulktest.WantCounts(pairs)
			edgeSet := map[bulk.FollowPair]bool{}
			for _, p := range pairs {
				edgeSet[p] = true
			}
			ghost := bulk.FollowPair{From: ids[1999], To: ids[0]}
			for edgeSet[ghost] {
				ghost.To++
			}
			involved := map[sparrow.ID]bool{ghost.From: true, ghost.To: true}
			for _, p := range append(slices.Clone(pairs[10:15]), pairs[20], pairs[30], pairs[40]) {
				involved[p.From], involved[p.To] = true, true
			}
			var free []sparrow.ID
			for _, id := range ids {
				if !involved[id] && (len(free) < 3 || followers[id] >= 2) {
					free = append(free, id)
				}
				if len(free) == 4 {
					break
				}
			}
			a, b, c, d := free[0], free[1], free[2], free[3]

			// 1. followers rows lost (their followees now count one too few)
			for _, p := range pairs[10:15] {
				if bulktest.Exec(t, rev(p), "DELETE FROM followers WHERE to_id = ? AND from_id = ?", key(p)...) != 1 {
					t.Fatal("nothing deleted")
				}
			}
			// 2. an unfollow whose reverse side was never applied: following
			// is removed at version 2, followers still active at version 1
			p := pairs[20]
			bulktest.Exec(t, fwd(p), "UPDATE following SET state = 0, version = 2 WHERE from_id = ? AND to_id = ?", int64(p.From), int64(p.To))
			// 3. same version, another edge id
			p = pairs[30]
			bulktest.Exec(t, rev(p), "UPDATE followers SET edge_id = edge_id + 1 WHERE to_id = ? AND from_id = ?", key(p)...)
			// 4. an orphan followers row (no following row)
			bulktest.Exec(t, rev(ghost), "INSERT INTO followers (to_id, from_id, state, version, edge_id, reblogs, notify, updated_at) VALUES (?, ?, 1, 1, 5, 1, 0, 0)", key(ghost)...)
			// 5. counters: a bumped row, a pending delta that makes the sum
			// wrong, a negative row
			bulktest.Exec(t, s.Shards().ForID(a), "UPDATE accounts SET followers_count = followers_count + 3 WHERE id = ?", int64(a))
			bulktest.Exec(t, s.Shards().ForID(b), "INSERT INTO counter_deltas (id, target_id, field, delta) VALUES (?, ?, 2, 1)", int64(b)+1<<30, int64(b))
			bulktest.Exec(t, s.Shards().ForID(c), "UPDATE accounts SET following_count = -1 WHERE id = ?", int64(c))
			// a pending delta that is right (row lowered to match) is no finding
			bulktest.Exec(t, s.Shards().ForID(d), "UPDATE accounts SET followers_count = followers_count - 2 WHERE id = ?", int64(d))
			bulktest.Exec(t, s.Shards().ForID(d), "INSERT INTO counter_deltas (id, target_id, field, delta) VALUES (?, ?, 1, 2)", int64(d)+1<<30, int64(d))

			var found []check.Finding
			sum, err := check.Relations(ctx, s, false, func(f check.Finding) { found = append(found, f) })
			if err != nil {
				t.Fatal(err)
			}
			want := map[check.FindingKind]int64{
				check.MissingFollower:   5,
				check.StaleFollower:     1,
				check.DifferentFollower: 1,
				check.OrphanFollower:    1,
				check.NegativeCounter:   1,
			}
			// counter mismatches as stored: a, b, the unfollower, the
			// followees of the lost rows, the ghost's followee
			type counter struct {
				id    sparrow.ID
				field sparrow.Counter
			}
			mismatch := map[counter]bool{{a, 1}: true, {b, 2}: true, {pairs[20].From, 2}: true, {ghost.To, 1}: true}
			for _, p := range pairs[10:15] {
				mismatch[counter{p.To, 1}] = true
			}
			want[check.CounterMismatch] = int64(len(mismatch))
			expect := func(sum check.Summary, found []check.Finding, want map[check.FindingKind]int64, mismatch map[counter]bool) {
				t.Helper()
				if !maps.Equal(sum.ByKind, want) {
					for _, f := range found {
						t.Log(f)
					}
					t.Fatalf("findings by kind %v, want %v", sum.ByKind, want)
				}
				for _, f := range found {
					if f.Kind == check.CounterMismatch && !mismatch[counter{f.Account, f.Counter}] {
						t.Errorf("unexpected %v", f)
					}
				}
			}
			expect(sum, found, want, mismatch)
			if sum.Repaired != 0 || sum.Unrepaired() != sum.Findings {
				t.Fatalf("a check without repair repaired: %+v", sum)
			}
			if sum.Following != edges || sum.Followers != edges-5+1 {
				t.Fatalf("rows: %+v", sum)
			}

			// Repair checks counters against the repaired rows: the lost rows
			// and the orphan no longer skew them, the unfollow now does.
			mismatch = map[counter]bool{{a, 1}: true, {b, 2}: true, {pairs[20].From, 2}: true, {pairs[20].To, 1}: true}
			want[check.CounterMismatch] = int64(len(mismatch))
			found = nil
			sum, err = check.Relations(ctx, s, true, func(f check.Finding) { found = append(found, f) })
			if err != nil {
				t.Fatal(err)
			}
			expect(sum, found, want, mismatch)
			if sum.Repaired != sum.Findings {
				t.Fatalf("repair: %+v", sum)
			}
			bulktest.Clean(t, s, edges)
			var pending int
			if qerr := s.Shards().ForID(b).R.QueryRow("SELECT COUNT(*) FROM counter_deltas WHERE target_id = ?", int64(b)).Scan(&pending); qerr != nil || pending != 0 {
				t.Fatalf("pending deltas of a repaired account: %d, %v", pending, qerr)
			}

			// 6. a followers row newer than its following row is reported and
			// never repaired
			p = pairs[40]
			bulktest.Exec(t, rev(p), "UPDATE followers SET version = 9, state = 0 WHERE to_id = ? AND from_id = ?", key(p)...)
			sum, err = check.Relations(ctx, s, true, func(f check.Finding) {
				if f.Kind == check.NewerFollower && f.Repaired {
					t.Errorf("repaired %v", f)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if sum.ByKind[check.NewerFollower] != 1 || sum.Unrepaired() != 1 {
				t.Fatalf("newer followers row: %+v", sum)
			}
			// the following side catches up: consistent again
			bulktest.Exec(t, fwd(p), "UPDATE following SET version = 9, state = 0 WHERE from_id = ? AND to_id = ?", int64(p.From), int64(p.To))
			if _, err := check.Relations(ctx, s, true, nil); err != nil {
				t.Fatal(err)
			}
			bulktest.Clean(t, s, edges)
		})
	}
}

// TestCheckEmpty: an empty store is consistent.
func TestCheckEmpty(t *testing.T) {
	s := bulktest.Backends["sqlite"](t)
	sum, err := check.Relations(context.Background(), s, true, nil)
	if err != nil || sum.Findings != 0 || sum.Following != 0 {
		t.Fatalf("%+v %v", sum, err)
	}
}
