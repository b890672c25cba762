package service_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"sparrow"
	"sparrow/inmem"
	"sparrow/internal/testenv"
	"sparrow/mysql"
	"sparrow/service"
	"sparrow/sqlite"
	"sparrow/sqlstore"
)

var bg = context.Background()

// backends opens a fresh store per backend.
var backends = []struct {
	name string
	open func(t *testing.T) *sqlstore.Store
}{
	{"sqlite", func(t *testing.T) *sqlstore.Store {
		dir := t.TempDir()
		spec := fmt.Sprintf("0-127=sqlite:%s,128-255=sqlite:%s", filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db"))
		return openStore(t, spec)
	}},
	{"mariadb", func(t *testing.T) *sqlstore.Store {
		base := testenv.MySQLURL(t)
		tag := rand.Uint32()
		a, b := fmt.Sprintf("%ssparrow_conv_%d_a", base, tag), fmt.Sprintf("%ssparrow_conv_%d_b", base, tag)
		t.Cleanup(func() { mysql.DropDatabase(bg, a); mysql.DropDatabase(bg, b) })
		return openStore(t, "0-127="+a+",128-255="+b)
	}},
}

func openStore(t *testing.T, spec string) *sqlstore.Store {
	t.Helper()
	shards, err := sqlstore.OpenShards(bg, spec, map[string]sqlstore.Opener{"sqlite": sqlite.Open, "mysql": mysql.Open})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shards.Close() })
	return sqlstore.New(shards)
}

// drain removes and returns every pending outbox event.
func drain(t *testing.T, s *sqlstore.Store) []sparrow.Event {
	t.Helper()
	var out []sparrow.Event
	for _, o := range s.Outboxes() {
		evs, err := o.PendingEvents(bg, 100000)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]sparrow.ID, len(evs))
		for i, e := range evs {
			ids[i] = e.ID
		}
		if err := o.MarkPublished(bg, ids); err != nil {
			t.Fatal(err)
		}
		out = append(out, evs...)
	}
	return out
}

// TestRelationsConverge: random follows, unfollows and blocks are made with
// no consumer running; then the consumer handles the first half of the events
// and "crashes"; then every event is replayed shuffled and twice, including
// the events that the block handling itself emits. Afterwards Following and
// Follower agree row for row and every counter equals its rows.
func TestRelationsConverge(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			st := be.open(t)
			ids := sparrow.NewIDGen(9, nil)
			svc := service.New(service.Deps{Accounts: st, Statuses: st, Auth: st, Relations: st,
				Limiter: inmem.NewLimiter(inmem.Options{}), Cache: inmem.NewKV(inmem.Options{}), IDs: ids,
				Inboxes: inmem.NewInboxes(inmem.FeedOptions{}), Recent: inmem.NewRecentLists(inmem.FeedOptions{}), Activity: inmem.NewActivity(inmem.FeedOptions{})},
				service.Config{BcryptCost: 4})
			var accs []sparrow.ID
			for i := 0; i < 24; i++ {
				a := &sparrow.Account{ID: ids.NextBalanced(), Username: fmt.Sprintf("c%d_%d", rand.Uint32(), i), PasswordHash: "!",
					CreatedAt: time.Now(), UpdatedAt: time.Now()}
				a.Email = a.Username + "@example.com"
				if err := st.CreateAccount(bg, a); err != nil {
					t.Fatal(err)
				}
				accs = append(accs, a.ID)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < 400; i++ {
				v := sparrow.Viewer{AccountID: accs[rng.IntN(len(accs))]}
				target := accs[rng.IntN(len(accs))]
				if target == v.AccountID {
					continue
				}
				var err error
				switch r := rng.IntN(10); {
				case r < 6:
					_, err = svc.Relations.Follow(bg, v, target, sparrow.FollowOptions{})
				case r < 9:
					_, err = svc.Relations.Unfollow(bg, v, target)
				default:
					_, err = svc.Relations.Block(bg, v, target)
				}
				if err != nil && !sparrow.IsKind(err, sparrow.EForbidden) {
					t.Fatalf("op %d: %v", i, err)
				}
			}
			events := drain(t, st)
			handle := func(e sparrow.Event) {
				if err := svc.Consumers.FollowerSync(bg, e); err != nil {
					t.Fatal(err)
				}
			}
			for _, e := range events[:len(events)/2] { // the consumer runs, then crashes
				handle(e)
			}
			for round := 0; len(events) > 0 && round < 10; round++ {
				replay := append(append([]sparrow.Event{}, events...), events...)
				rng.Shuffle(len(replay), func(i, j int) { replay[i], replay[j] = replay[j], replay[i] })
				for _, e := range replay {
					handle(e)
				}
				events = drain(t, st) // what the block handling emitted in turn
			}
			for i := range st.Shards().DBs() {
				for {
					n, err := st.FlushCounters(bg, i, 1000, 10000, 9000)
					if err != nil {
						t.Fatal(err)
					}
					if n == 0 {
						break
					}
				}
			}
			checkConverged(t, st, accs)
		})
	}
}

// checkConverged compares Following with Follower and counters with rows.
func checkConverged(t *testing.T, st *sqlstore.Store, accs []sparrow.ID) {
	t.Helper()
	followers := map[sparrow.ID]int64{}
	for _, a := range accs {
		fwd, err := st.Edges(bg, sparrow.Follow, a, accs)
		if err != nil {
			t.Fatal(err)
		}
		var following int64
		for _, b := range accs {
			f := fwd[b]
			rev, err := st.ReverseEdges(bg, sparrow.Follow, b, []sparrow.ID{a})
			if err != nil {
				t.Fatal(err)
			}
			r := rev[a]
			if f.Active != r.Active || f.Version != r.Version {
				t.Fatalf("%d→%d: Following %+v, Follower %+v", a, b, f, r)
			}
			blocked, _ := st.Edges(bg, sparrow.Block, b, []sparrow.ID{a})
			if f.Active && blocked[a].Active {
				t.Fatalf("%d follows %d, who blocks it", a, b)
			}
			if f.Active {
				following++
				followers[b]++
			}
		}
		acc, _ := st.Account(bg, a)
		if acc.FollowingCount != following {
			t.Fatalf("%d following_count %d, rows %d", a, acc.FollowingCount, following)
		}
	}
	for _, a := range accs {
		acc, _ := st.Account(bg, a)
		if acc.FollowersCount != followers[a] {
			t.Fatalf("%d followers_count %d, rows %d", a, acc.FollowersCount, followers[a])
		}
	}
}
