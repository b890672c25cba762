package sqlstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"sparrow"
	"sparrow/internal/testenv"
	"sparrow/mysql"
	"sparrow/sqlite"
	"sparrow/sqlstore"
)

// bulkStatusesStores opens a fresh two-store Store per backend.
var bulkStatusesStores = map[string]func(t *testing.T) *sqlstore.Store{
	"sqlite": func(t *testing.T) *sqlstore.Store {
		dir := t.TempDir()
		return bulkStatusesOpen(t, fmt.Sprintf("0-127=sqlite:%s,128-255=sqlite:%s", filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")))
	},
	"mysql": func(t *testing.T) *sqlstore.Store {
		base := testenv.MySQLURL(t)
		tag := rand.Uint32()
		var dsns []string
		for _, suffix := range []string{"a", "b"} {
			dsn := fmt.Sprintf("%ssparrow_bulkst_%d_%s", base, tag, suffix)
			dsns = append(dsns, dsn)
			t.Cleanup(func() { mysql.DropDatabase(context.Background(), dsn) })
		}
		return bulkStatusesOpen(t, "0-127="+dsns[0]+",128-255="+dsns[1])
	},
}

func bulkStatusesOpen(t *testing.T, spec string) *sqlstore.Store {
	t.Helper()
	shards, err := sqlstore.OpenShards(context.Background(), spec, map[string]sqlstore.Opener{"sqlite": sqlite.Open, "mysql": mysql.Open})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shards.Close() })
	return sqlstore.New(shards)
}

// steppedClock is a settable id clock.
type steppedClock struct{ t time.Time }

func (c *steppedClock) Now() time.Time { return c.t }

func TestBulkLoadStatuses(t *testing.T) {
	for name, open := range bulkStatusesStores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			accGen := sparrow.NewIDGen(5, nil)
			authors := make([]sparrow.ID, 40)
			for i := range authors {
				authors[i] = accGen.NextBalanced()
			}
			if _, err := s.BulkLoadAccounts(ctx, authors, sqlstore.BulkOptions{}); err != nil {
				t.Fatal(err)
			}
			ghost := accGen.NextBalanced() // statuses of an author without an account

			// author i posts i%7 statuses, one hour apart, ending 1h ago.
			clock := &steppedClock{}
			gen := sparrow.NewIDGen(7, clock)
			base := time.Now().Add(-10 * time.Hour).Truncate(time.Millisecond)
			var sts []sqlstore.BulkStatus
			want := map[sparrow.ID]int{}
			newest := map[sparrow.ID]time.Time{}
			for step := 0; step < 7; step++ {
				at := base.Add(time.Duration(step) * time.Hour)
				clock.t = at
				for i, a := range append(authors, ghost) {
					if step >= i%7 && a != ghost {
						continue
					}
					sts = append(sts, sqlstore.BulkStatus{ID: gen.Next(a.Shard()), AccountID: a, Text: fmt.Sprintf("bulk %d/%d", i, step), CreatedAt: at})
					want[a]++
					newest[a] = at
				}
			}
			rand.Shuffle(len(sts), func(i, j int) { sts[i], sts[j] = sts[j], sts[i] })
			planned, progress := 0, 0
			progressCh := make(chan int, 1000)
			o := sqlstore.BulkOptions{Batch: 13, TxRows: 50, Writers: 3, Relaxed: true,
				Planned: func(n int) { planned = n }, Progress: func(n int) { progressCh <- n }}
			done := make(chan struct{})
			go func() {
				for n := range progressCh {
					progress += n
				}
				close(done)
			}()
			res, err := s.BulkLoadStatuses(ctx, append(sts, sts[0]), o) // one duplicate in the input
			close(progressCh)
			<-done
			if err != nil {
				t.Fatal(err)
			}
			if res.Statuses != len(sts) || res.Inserted != int64(len(sts)) || planned != len(sts) || progress != len(sts) {
				t.Fatalf("load = %+v, planned %d, progress %d; want %d statuses inserted", res, planned, progress, len(sts))
			}
			posting := 0 // authors with i%7 == 0 post nothing; the ghost has no row
			for _, a := range authors {
				if want[a] > 0 {
					posting++
				}
			}
			if res.Accounts != posting {
				t.Errorf("accounts = %d, want %d", res.Accounts, posting)
			}
			check := func() {
				t.Helper()
				for _, a := range authors {
					acc, err := s.Account(ctx, a)
					if err != nil {
						t.Fatal(err)
					}
					if acc.StatusesCount != int64(want[a]) || !acc.LastStatusAt.Equal(newest[a]) && want[a] > 0 {
						t.Errorf("author %d: statuses_count %d, last_status_at %v; want %d, %v", a, acc.StatusesCount, acc.LastStatusAt, want[a], newest[a])
					}
					page, err := s.AccountStatuses(ctx, a, sparrow.StatusFilter{}, sparrow.Page{Limit: 40})
					if err != nil {
						t.Fatal(err)
					}
					if len(page) != want[a] {
						t.Fatalf("author %d: profile feed has %d statuses, want %d", a, len(page), want[a])
					}
					for _, st := range page {
						if st.Visibility != sparrow.Public || st.Version != 1 || st.Deleted() || st.AccountID != a || len(st.Mentions) != 0 || len(st.Tags) != 0 {
							t.Errorf("status %+v: want a live public version-1 status of %d without mentions or tags", st, a)
						}
						if !st.CreatedAt.Equal(st.ID.Time()) {
							t.Errorf("status %d: created %v, id time %v", st.ID, st.CreatedAt, st.ID.Time())
						}
					}
				}
				items, err := s.AuthorsFeed(ctx, authors, sparrow.Page{Limit: 400})
				if err != nil {
					t.Fatal(err)
				}
				if len(items) != len(sts)-want[ghost] {
					t.Errorf("pull path sees %d statuses, want %d", len(items), len(sts)-want[ghost])
				}
			}
			check()

			// Run again: nothing inserted, counters unchanged.
			res, err = s.BulkLoadStatuses(ctx, sts, sqlstore.BulkOptions{})
			if err != nil || res.Inserted != 0 {
				t.Fatalf("rerun: %+v, %v; want nothing inserted", res, err)
			}
			check()

			// A status created the ordinary way afterwards counts on top.
			a := authors[3]
			st := &sparrow.Status{ID: gen.Next(a.Shard()), AccountID: a, Text: "live", Visibility: sparrow.Public, CreatedAt: time.Now().Truncate(time.Millisecond), Version: 1}
			if _, _, err := s.CreateStatus(ctx, sparrow.NewStatus{Status: st}); err != nil {
				t.Fatal(err)
			}
			if acc, _ := s.Account(ctx, a); acc.StatusesCount != int64(want[a]+1) {
				t.Errorf("after a post: statuses_count %d, want %d", acc.StatusesCount, want[a]+1)
			}
		})
	}
}

func TestBulkLoadStatusesRejectsForeignGene(t *testing.T) {
	ctx := context.Background()
	s := bulkStatusesStores["sqlite"](t)
	gen := sparrow.NewIDGen(1, nil)
	a := gen.Next(3)
	if _, err := s.BulkLoadAccounts(ctx, []sparrow.ID{a}, sqlstore.BulkOptions{}); err != nil {
		t.Fatal(err)
	}
	good := sqlstore.BulkStatus{ID: gen.Next(3), AccountID: a, Text: "ok", CreatedAt: time.Now()}
	for _, bad := range []sqlstore.BulkStatus{
		{ID: gen.Next(4), AccountID: a, Text: "wrong gene", CreatedAt: time.Now()},
		{ID: 0, AccountID: a, Text: "no id", CreatedAt: time.Now()},
		{ID: gen.Next(3), AccountID: a, Text: "odd visibility", CreatedAt: time.Now(), Visibility: "friends"},
	} {
		_, err := s.BulkLoadStatuses(ctx, []sqlstore.BulkStatus{good, bad}, sqlstore.BulkOptions{})
		if !sparrow.IsKind(err, sparrow.EInvalid) {
			t.Errorf("%q: err = %v, want EInvalid", bad.Text, err)
		}
	}
	if acc, _ := s.Account(ctx, a); acc.StatusesCount != 0 {
		t.Errorf("statuses_count = %d after rejected loads, want 0 (nothing written)", acc.StatusesCount)
	}
	if _, err := s.Status(ctx, good.ID); !sparrow.IsKind(err, sparrow.ENotFound) {
		t.Errorf("status of a rejected load: err = %v, want ENotFound", err)
	}
}
