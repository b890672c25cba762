package sqlstore_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"sparrow"
	"sparrow/sqlstore"
)

// TestCheckRelations loads a graph, corrupts it in every way the check knows,
// and expects the findings, a repair, and a clean store again.
func TestCheckRelations(t *testing.T) {
	for name, open := range bulkBackends {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			ids, pairs := bulkGraph(t, 2000)
			bulkLoad(t, s, ids, pairs)
			edges := int64(len(pairs))
			bulkClean(t, s, edges)

			rev := func(p sqlstore.FollowPair) *sqlstore.DB { return s.Shards().ForID(p.To) }
			fwd := func(p sqlstore.FollowPair) *sqlstore.DB { return s.Shards().ForID(p.From) }
			key := func(p sqlstore.FollowPair) []any { return []any{int64(p.To), int64(p.From)} }

			// accounts to corrupt: a, b, c, d are not involved in the edges
			// corrupted below; d has at least two followers
			followers, _ := wantCounts(pairs)
			edgeSet := map[sqlstore.FollowPair]bool{}
			for _, p := range pairs {
				edgeSet[p] = true
			}
			ghost := sqlstore.FollowPair{From: ids[1999], To: ids[0]}
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
				if mustExec(t, rev(p), "DELETE FROM followers WHERE to_id = ? AND from_id = ?", key(p)...) != 1 {
					t.Fatal("nothing deleted")
				}
			}
			// 2. an unfollow whose reverse side was never applied: following
			// is removed at version 2, followers still active at version 1
			p := pairs[20]
			mustExec(t, fwd(p), "UPDATE following SET state = 0, version = 2 WHERE from_id = ? AND to_id = ?", int64(p.From), int64(p.To))
			// 3. same version, another edge id
			p = pairs[30]
			mustExec(t, rev(p), "UPDATE followers SET edge_id = edge_id + 1 WHERE to_id = ? AND from_id = ?", key(p)...)
			// 4. an orphan followers row (no following row)
			mustExec(t, rev(ghost), "INSERT INTO followers (to_id, from_id, state, version, edge_id, reblogs, notify, updated_at) VALUES (?, ?, 1, 1, 5, 1, 0, 0)", key(ghost)...)
			// 5. counters: a bumped row, a pending delta that makes the sum
			// wrong, a negative row
			mustExec(t, s.Shards().ForID(a), "UPDATE accounts SET followers_count = followers_count + 3 WHERE id = ?", int64(a))
			mustExec(t, s.Shards().ForID(b), "INSERT INTO counter_deltas (id, target_id, field, delta) VALUES (?, ?, 2, 1)", int64(b)+1<<30, int64(b))
			mustExec(t, s.Shards().ForID(c), "UPDATE accounts SET following_count = -1 WHERE id = ?", int64(c))
			// a pending delta that is right (row lowered to match) is no finding
			mustExec(t, s.Shards().ForID(d), "UPDATE accounts SET followers_count = followers_count - 2 WHERE id = ?", int64(d))
			mustExec(t, s.Shards().ForID(d), "INSERT INTO counter_deltas (id, target_id, field, delta) VALUES (?, ?, 1, 2)", int64(d)+1<<30, int64(d))

			var found []sqlstore.Finding
			sum, err := s.CheckRelations(ctx, false, func(f sqlstore.Finding) { found = append(found, f) })
			if err != nil {
				t.Fatal(err)
			}
			want := map[sqlstore.FindingKind]int64{
				sqlstore.FindMissingFollower:   5,
				sqlstore.FindStaleFollower:     1,
				sqlstore.FindDifferentFollower: 1,
				sqlstore.FindOrphanFollower:    1,
				sqlstore.FindNegativeCounter:   1,
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
			want[sqlstore.FindCounterMismatch] = int64(len(mismatch))
			check := func(sum sqlstore.CheckSummary, found []sqlstore.Finding, want map[sqlstore.FindingKind]int64, mismatch map[counter]bool) {
				t.Helper()
				if !maps.Equal(sum.ByKind, want) {
					for _, f := range found {
						t.Log(f)
					}
					t.Fatalf("findings by kind %v, want %v", sum.ByKind, want)
				}
				for _, f := range found {
					if f.Kind == sqlstore.FindCounterMismatch && !mismatch[counter{f.Account, f.Counter}] {
						t.Errorf("unexpected %v", f)
					}
				}
			}
			check(sum, found, want, mismatch)
			if sum.Repaired != 0 || sum.Unrepaired() != sum.Findings {
				t.Fatalf("a check without repair repaired: %+v", sum)
			}
			if sum.Following != edges || sum.Followers != edges-5+1 {
				t.Fatalf("rows: %+v", sum)
			}

			// Repair checks counters against the repaired rows: the lost rows
			// and the orphan no longer skew them, the unfollow now does.
			mismatch = map[counter]bool{{a, 1}: true, {b, 2}: true, {pairs[20].From, 2}: true, {pairs[20].To, 1}: true}
			want[sqlstore.FindCounterMismatch] = int64(len(mismatch))
			found = nil
			sum, err = s.CheckRelations(ctx, true, func(f sqlstore.Finding) { found = append(found, f) })
			if err != nil {
				t.Fatal(err)
			}
			check(sum, found, want, mismatch)
			if sum.Repaired != sum.Findings {
				t.Fatalf("repair: %+v", sum)
			}
			bulkClean(t, s, edges)
			var pending int
			if err := s.Shards().ForID(b).R.QueryRow("SELECT COUNT(*) FROM counter_deltas WHERE target_id = ?", int64(b)).Scan(&pending); err != nil || pending != 0 {
				t.Fatalf("pending deltas of a repaired account: %d, %v", pending, err)
			}

			// 6. a followers row newer than its following row is reported and
			// never repaired
			p = pairs[40]
			mustExec(t, rev(p), "UPDATE followers SET version = 9, state = 0 WHERE to_id = ? AND from_id = ?", key(p)...)
			sum, err = s.CheckRelations(ctx, true, func(f sqlstore.Finding) {
				if f.Kind == sqlstore.FindNewerFollower && f.Repaired {
					t.Errorf("repaired %v", f)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if sum.ByKind[sqlstore.FindNewerFollower] != 1 || sum.Unrepaired() != 1 {
				t.Fatalf("newer followers row: %+v", sum)
			}
			// the following side catches up: consistent again
			mustExec(t, fwd(p), "UPDATE following SET version = 9, state = 0 WHERE from_id = ? AND to_id = ?", int64(p.From), int64(p.To))
			if _, err := s.CheckRelations(ctx, true, nil); err != nil {
				t.Fatal(err)
			}
			bulkClean(t, s, edges)
		})
	}
}

// TestCheckEmpty: an empty store is consistent.
func TestCheckEmpty(t *testing.T) {
	s := bulkBackends["sqlite"](t)
	sum, err := s.CheckRelations(context.Background(), true, nil)
	if err != nil || sum.Findings != 0 || sum.Following != 0 {
		t.Fatalf("%+v %v", sum, err)
	}
}
