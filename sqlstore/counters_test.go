package sqlstore_test

import (
	"context"
	"testing"

	"sparrow"
	"sparrow/internal/graphgen"
	"sparrow/sqlstore/bulk"
	"sparrow/sqlstore/internal/bulktest"
)

// TestSetAndRecountFollows: the offline counter writers set counts exactly
// and the hot flag by FlushCounters' rule with hot = cold = hotAt (up and
// down), leave it alone with hotAt 0, and a recount drops pending deltas.
func TestSetAndRecountFollows(t *testing.T) {
	for name, open := range bulktest.Backends {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			ids := graphgen.AccountIDs(3)
			a, b, c := ids[0], ids[1], ids[2]
			if _, err := bulk.LoadAccounts(ctx, s, ids, bulk.Options{}); err != nil {
				t.Fatal(err)
			}
			want := func(id sparrow.ID, followers, following int64, hot bool) {
				t.Helper()
				acc, err := s.Account(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if acc.FollowersCount != followers || acc.FollowingCount != following || acc.Hot != hot {
					t.Fatalf("account %d: %d/%d hot %v, want %d/%d hot %v", id, acc.FollowersCount, acc.FollowingCount, acc.Hot, followers, following, hot)
				}
			}
			bulktest.Exec(t, s.Shards().ForID(b), "UPDATE accounts SET hot = 1 WHERE id = ?", int64(b))
			if err := s.SetFollowCounts(ctx, map[sparrow.ID]*[2]int64{a: {5, 1}, b: {2, 7}, c: {3, 0}}, 3); err != nil {
				t.Fatal(err)
			}
			want(a, 5, 1, true)  // promoted
			want(b, 2, 7, false) // demoted: no hysteresis band when hot = cold
			want(c, 3, 0, true)  // at the threshold

			if err := s.SetFollowCounts(ctx, map[sparrow.ID]*[2]int64{a: {0, 0}}, 0); err != nil {
				t.Fatal(err)
			}
			want(a, 0, 0, true) // hotAt 0: the flag is left alone

			// a follows c for real; c has a stale row and a pending delta
			if _, err := bulk.LoadFollows(ctx, s, []bulk.FollowPair{{From: a, To: c}}, bulk.Options{}); err != nil {
				t.Fatal(err)
			}
			bulktest.Exec(t, s.Shards().ForID(c), "INSERT INTO counter_deltas (id, target_id, field, delta) VALUES (?, ?, 1, 4)", int64(c)+1<<30, int64(c))
			if err := s.RecountFollows(ctx, []sparrow.ID{a, c}, 0); err != nil {
				t.Fatal(err)
			}
			want(a, 0, 1, true)
			want(c, 1, 0, true)
			if err := s.RecountFollows(ctx, ids, 1); err != nil {
				t.Fatal(err)
			}
			want(a, 0, 1, false)
			want(b, 0, 0, false)
			want(c, 1, 0, true)
			var pending int
			if err := s.Shards().ForID(c).R.QueryRow("SELECT COUNT(*) FROM counter_deltas WHERE target_id = ?", int64(c)).Scan(&pending); err != nil || pending != 0 {
				t.Fatalf("pending deltas after a recount: %d, %v", pending, err)
			}
			bulktest.Clean(t, s, 1)
		})
	}
}
