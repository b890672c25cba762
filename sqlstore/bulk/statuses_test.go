package bulk_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"sparrow"
	"sparrow/sqlstore/bulk"
	"sparrow/sqlstore/internal/bulktest"
)

// steppedClock is a settable id clock.
type steppedClock struct{ t time.Time }

func (c *steppedClock) Now() time.Time { return c.t }

func TestBulkLoadStatuses(t *testing.T) {
	for name, open := range bulktest.Backends {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			accGen := sparrow.NewIDGen(5, nil)
			authors := make([]sparrow.ID, 40)
			for i := range authors {
				authors[i] = accGen.NextBalanced()
			}
			if _, err := bulk.LoadAccounts(ctx, s, authors, bulk.Options{}); err != nil {
				t.Fatal(err)
			}
			ghost := accGen.NextBalanced() // statuses of an author without an account

			// author i posts i%7 statuses, one hour apart, ending 1h ago.
			clock := &steppedClock{}
			gen := sparrow.NewIDGen(7, clock)
			base := time.Now().Add(-10 * time.Hour).Truncate(time.Millisecond)
			var sts []bulk.Status
			want := map[sparrow.ID]int{}
			newest := map[sparrow.ID]time.Time{}
			for step := 0; step < 7; step++ {
				at := base.Add(time.Duration(step) * time.Hour)
				clock.t = at
				for i, a := range append(authors, ghost) {
					if step >= i%7 && a != ghost {
						continue
					}
					sts = append(sts, bulk.Status{ID: gen.Next(a.Shard()), AccountID: a, Text: fmt.Sprintf("bulk %d/%d", i, step), CreatedAt: at})
					want[a]++
					newest[a] = at
				}
			}
			rand.Shuffle(len(sts), func(i, j int) { sts[i], sts[j] = sts[j], sts[i] })
			planned, progress := 0, 0
			progressCh := make(chan int, 1000)
			o := bulk.Options{Batch: 13, TxRows: 50, Writers: 3, Relaxed: true,
				Planned: func(n int) { planned = n }, Progress: func(n int) { progressCh <- n }}
			done := make(chan struct{})
			go func() {
				for n := range progressCh {
					progress += n
				}
				close(done)
			}()
			res, err := bulk.LoadStatuses(ctx, s, append(sts, sts[0]), o) // one duplicate in the input
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
					acc, aerr := s.Account(ctx, a)
					if aerr != nil {
						t.Fatal(aerr)
					}
					if acc.StatusesCount != int64(want[a]) || !acc.LastStatusAt.Equal(newest[a]) && want[a] > 0 {
						t.Errorf("author %d: statuses_count %d, last_status_at %v; want %d, %v", a, acc.StatusesCount, acc.LastStatusAt, want[a], newest[a])
					}
					page, perr := s.AccountStatuses(ctx, a, sparrow.StatusFilter{}, sparrow.Page{Limit: 40})
					if perr != nil {
						t.Fatal(perr)
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
				items, ferr := s.AuthorsFeed(ctx, authors, sparrow.Page{Limit: 400})
				if ferr != nil {
					t.Fatal(ferr)
				}
				if len(items) != len(sts)-want[ghost] {
					t.Errorf("pull path sees %d statuses, want %d", len(items), len(sts)-want[ghost])
				}
			}
			check()

			// Run again: nothing inserted, counters unchanged.
			res, err = bulk.LoadStatuses(ctx, s, sts, bulk.Options{})
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
	s := bulktest.Backends["sqlite"](t)
	gen := sparrow.NewIDGen(1, nil)
	a := gen.Next(3)
	if _, err := bulk.LoadAccounts(ctx, s, []sparrow.ID{a}, bulk.Options{}); err != nil {
		t.Fatal(err)
	}
	good := bulk.Status{ID: gen.Next(3), AccountID: a, Text: "ok", CreatedAt: time.Now()}
	for _, bad := range []bulk.Status{
		{ID: gen.Next(4), AccountID: a, Text: "wrong gene", CreatedAt: time.Now()},
		{ID: 0, AccountID: a, Text: "no id", CreatedAt: time.Now()},
		{ID: gen.Next(3), AccountID: a, Text: "odd visibility", CreatedAt: time.Now(), Visibility: "friends"},
	} {
		_, err := bulk.LoadStatuses(ctx, s, []bulk.Status{good, bad}, bulk.Options{})
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
