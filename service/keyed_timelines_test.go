package service_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sparrow"
	"sparrow/inmem"
	"sparrow/service"
	"sparrow/sqlstore"
)

// keyedClock is a settable clock that ticks a millisecond per reading, so
// that ids of every gene are generated in time order (ids and service times
// follow it).
type keyedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *keyedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

func (c *keyedClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// keyedEnv is a service stack on a real store with the notification and
// keyed-feed consumers, which tests run by hand (feed drains the outboxes).
type keyedEnv struct {
	t      *testing.T
	st     *sqlstore.Store
	clock  *keyedClock
	svc    *service.Services
	notifs *service.Notifications
	keyed  *service.KeyedFeeds
	ids    *sparrow.IDGen // account ids
	tag    string         // unique per test, for usernames
}

func newKeyedEnv(t *testing.T, st *sqlstore.Store, start time.Time) *keyedEnv {
	clock := &keyedClock{t: start}
	d := service.Deps{Accounts: st, Statuses: st, Auth: st, Relations: st, Notifications: st, KeyedFeeds: st,
		Limiter: inmem.NewLimiter(inmem.Options{}), Cache: inmem.NewKV(inmem.Options{}),
		IDs: sparrow.NewIDGen(11, clock), Clock: clock}
	svc := service.New(d, service.Config{BcryptCost: 4})
	return &keyedEnv{t: t, st: st, clock: clock, svc: svc, notifs: service.NewNotifications(d, svc.Statuses),
		keyed: service.NewKeyedFeeds(d), ids: sparrow.NewIDGen(12, nil), tag: fmt.Sprintf("k%d", rand.Uint32()%1e6)}
}

// user creates an account named <tag>_<name>.
func (e *keyedEnv) user(name string) sparrow.Viewer {
	e.t.Helper()
	now := e.clock.Now()
	a := &sparrow.Account{ID: e.ids.NextBalanced(), Username: e.tag + "_" + name, PasswordHash: "!",
		CreatedAt: now, UpdatedAt: now}
	a.Email = a.Username + "@example.com"
	if err := e.st.CreateAccount(bg, a); err != nil {
		e.t.Fatal(err)
	}
	return sparrow.Viewer{AccountID: a.ID, Scopes: sparrow.Scopes{"read", "write", "follow"}}
}

func (e *keyedEnv) post(v sparrow.Viewer, p sparrow.PostStatus) *sparrow.Status {
	e.t.Helper()
	sv, err := e.svc.Statuses.Post(bg, v, p)
	if err != nil {
		e.t.Fatalf("Post %+v: %v", p, err)
	}
	return sv.Status
}

// feed drains the outboxes and hands every event to both consumers twice:
// in commit order, then shuffled (replays are harmless).
func (e *keyedEnv) feed() {
	e.t.Helper()
	events := drain(e.t, e.st)
	slices.SortFunc(events, func(a, b sparrow.Event) int { return cmp.Compare(a.ID, b.ID) })
	replay := slices.Clone(events)
	rand.Shuffle(len(replay), func(i, j int) { replay[i], replay[j] = replay[j], replay[i] })
	for _, ev := range append(events, replay...) {
		if err := e.notifs.Handle(bg, ev); err != nil {
			e.t.Fatalf("Notifications.Handle(%s): %v", ev.Type, err)
		}
		if err := e.keyed.Handle(bg, ev); err != nil {
			e.t.Fatalf("KeyedFeeds.Handle(%s): %v", ev.Type, err)
		}
	}
}

func viewIDs(svs []*sparrow.StatusView) []sparrow.ID {
	out := make([]sparrow.ID, len(svs))
	for i, sv := range svs {
		out[i] = sv.Status.ID
	}
	return out
}

func ids(sts ...*sparrow.Status) []sparrow.ID {
	out := make([]sparrow.ID, len(sts))
	for i, s := range sts {
		out[i] = s.ID
	}
	return out
}

// TestKeyedFeeds: tag, object and public timelines contain what the
// visibility rules admit, honour the viewer's blocks and mutes, lose deleted
// statuses, and stay full when filtering removes many items.
func TestKeyedFeeds(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			e := newKeyedEnv(t, be.open(t), time.Now().UTC())
			alice, bob, carol, dave := e.user("alice"), e.user("bob"), e.user("carol"), e.user("dave")
			obj := "book:isbn-9787111"
			a1 := e.post(alice, sparrow.PostStatus{Text: "hello #Go and #麻雀", Object: obj})
			b1 := e.post(bob, sparrow.PostStatus{Text: "unlisted #go", Visibility: sparrow.Unlisted, Object: obj})
			e.post(carol, sparrow.PostStatus{Text: "private #go", Visibility: sparrow.Private, Object: obj})
			e.post(carol, sparrow.PostStatus{Text: "direct #go", Visibility: sparrow.Direct})
			d1 := e.post(dave, sparrow.PostStatus{Text: "a reply #go", InReplyToID: a1.ID})
			e.feed()
			tl := e.svc.Timelines
			anon := sparrow.Viewer{}

			for _, tag := range []string{"go", "#GO", "Go"} {
				got, err := tl.Tag(bg, anon, tag, sparrow.Page{})
				if err != nil || !slices.Equal(viewIDs(got), ids(d1, a1)) {
					t.Fatalf("Tag(%q) = %v %v, want public statuses only %v", tag, viewIDs(got), err, ids(d1, a1))
				}
			}
			if got, _ := tl.Tag(bg, anon, "麻雀", sparrow.Page{}); !slices.Equal(viewIDs(got), ids(a1)) {
				t.Fatalf("Tag(麻雀) = %v", viewIDs(got))
			}
			for _, bad := range []string{"", "#", "a-b", "a b", strings.Repeat("a", 101)} {
				if _, err := tl.Tag(bg, anon, bad, sparrow.Page{}); !sparrow.IsKind(err, sparrow.ENotFound) {
					t.Fatalf("Tag(%q) err = %v, want not found", bad, err)
				}
			}
			if got, err := tl.Object(bg, anon, "book", "isbn-9787111", sparrow.Page{}); err != nil || !slices.Equal(viewIDs(got), ids(b1, a1)) {
				t.Fatalf("Object = %v %v, want public and unlisted %v", viewIDs(got), err, ids(b1, a1))
			}
			if _, err := tl.Object(bg, anon, "Book!", "x", sparrow.Page{}); !sparrow.IsKind(err, sparrow.ENotFound) {
				t.Fatalf("bad object type err = %v", err)
			}
			if got, err := tl.Public(bg, anon, sparrow.Page{}); err != nil || !slices.Equal(viewIDs(got), ids(d1, a1)) {
				t.Fatalf("Public = %v %v, want %v (replies included)", viewIDs(got), err, ids(d1, a1))
			}
			if _, err := tl.Keyed(bg, anon, "nosuchfeed", "x", sparrow.Page{}); !sparrow.IsKind(err, sparrow.ENotFound) {
				t.Fatalf("Keyed(unknown feed) err = %v, want not found", err)
			}
			if _, err := tl.Keyed(bg, anon, "public", "x", sparrow.Page{}); !sparrow.IsKind(err, sparrow.ENotFound) {
				t.Fatalf("Keyed(public, a key) err = %v, want not found", err)
			}

			// The viewer's blocks and mutes apply at read.
			if _, err := e.svc.Relations.Block(bg, bob, dave.AccountID); err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.Relations.Mute(bg, carol, alice.AccountID, false); err != nil {
				t.Fatal(err)
			}
			e.feed()
			if got, _ := tl.Tag(bg, bob, "go", sparrow.Page{}); !slices.Equal(viewIDs(got), ids(a1)) {
				t.Fatalf("bob blocks dave: Tag = %v", viewIDs(got))
			}
			if got, _ := tl.Public(bg, dave, sparrow.Page{}); !slices.Equal(viewIDs(got), ids(d1, a1)) {
				t.Fatalf("dave's public = %v (bob, who blocks dave, posted nothing public)", viewIDs(got))
			}
			if got, _ := tl.Public(bg, carol, sparrow.Page{}); !slices.Equal(viewIDs(got), ids(d1)) {
				t.Fatalf("carol mutes alice: Public = %v", viewIDs(got))
			}

			// A deleted status leaves its feeds.
			if _, err := e.svc.Statuses.Delete(bg, dave, d1.ID); err != nil {
				t.Fatal(err)
			}
			e.feed()
			if got, _ := tl.Tag(bg, anon, "go", sparrow.Page{}); !slices.Equal(viewIDs(got), ids(a1)) {
				t.Fatalf("after delete Tag = %v", viewIDs(got))
			}
			if got, _ := tl.Public(bg, anon, sparrow.Page{}); !slices.Equal(viewIDs(got), ids(a1)) {
				t.Fatalf("after delete Public = %v", viewIDs(got))
			}

			// Many newer statuses by an account the viewer mutes: the page is
			// still full (and never empty while older visible statuses exist).
			var older []*sparrow.Status
			for i := 0; i < 3; i++ {
				older = append(older, e.post(bob, sparrow.PostStatus{Text: "#flood visible"}))
			}
			for i := 0; i < 90; i++ {
				e.post(dave, sparrow.PostStatus{Text: fmt.Sprintf("#flood noise %d", i)})
			}
			e.feed()
			slices.Reverse(older)
			if _, err := e.svc.Relations.Mute(bg, alice, dave.AccountID, false); err != nil {
				t.Fatal(err)
			}
			got, err := tl.Tag(bg, alice, "flood", sparrow.Page{Limit: 2})
			if err != nil || !slices.Equal(viewIDs(got), ids(older[:2]...)) {
				t.Fatalf("filtered page = %v %v, want %v", viewIDs(got), err, ids(older[:2]...))
			}
			got, err = tl.Tag(bg, alice, "flood", sparrow.Page{Limit: 2, MaxID: older[1].ID})
			if err != nil || !slices.Equal(viewIDs(got), ids(older[2])) {
				t.Fatalf("next filtered page = %v %v", viewIDs(got), err)
			}
			if got, _ := tl.Tag(bg, alice, "flood", sparrow.Page{Limit: 2, MinID: older[2].ID}); !slices.Equal(viewIDs(got), ids(older[:2]...)) {
				t.Fatalf("min_id filtered page = %v", viewIDs(got))
			}
			if got, _ := tl.Tag(bg, carol, "flood", sparrow.Page{Limit: 5}); len(got) != 5 || got[0].Status.AccountID != dave.AccountID {
				t.Fatalf("carol does not mute dave: %v", viewIDs(got))
			}
		})
	}
}

// TestPublicDayBuckets: the public timeline is read across daily buckets,
// newest first, with max_id and min_id paging crossing days, and a bounded
// look-back.
func TestPublicDayBuckets(t *testing.T) {
	now := time.Now().UTC()
	e := newKeyedEnv(t, backends[0].open(t), now.AddDate(0, 0, -500))
	alice := e.user("alice")
	var sts []*sparrow.Status // oldest first
	for _, daysAgo := range []int{500, 30, 30, 3, 1, 1, 0} {
		e.clock.set(now.AddDate(0, 0, -daysAgo))
		sts = append(sts, e.post(alice, sparrow.PostStatus{Text: fmt.Sprintf("day -%d", daysAgo)}))
	}
	e.clock.set(now)
	e.feed()
	want := slices.Clone(sts[1:]) // the 500-day-old one is beyond the look-back
	slices.Reverse(want)
	tl := e.svc.Timelines
	var all []sparrow.ID
	p := sparrow.Page{Limit: 2}
	for i := 0; i < 10; i++ {
		got, err := tl.Public(bg, sparrow.Viewer{}, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break
		}
		all = append(all, viewIDs(got)...)
		p.MaxID = got[len(got)-1].Status.ID
	}
	if !slices.Equal(all, ids(want...)) {
		t.Fatalf("paged public = %v, want %v", all, ids(want...))
	}
	// min_id pages upward from an old day: the oldest above it, newest first.
	got, err := tl.Public(bg, sparrow.Viewer{}, sparrow.Page{MinID: sts[2].ID, Limit: 2})
	if err != nil || !slices.Equal(viewIDs(got), ids(sts[4], sts[3])) {
		t.Fatalf("min_id page = %v %v, want %v", viewIDs(got), err, ids(sts[4], sts[3]))
	}
	// since_id keeps the newest.
	got, _ = tl.Public(bg, sparrow.Viewer{}, sparrow.Page{SinceID: sts[2].ID, Limit: 2})
	if !slices.Equal(viewIDs(got), ids(sts[6], sts[5])) {
		t.Fatalf("since_id page = %v", viewIDs(got))
	}
	// The look-back counts from the cursor's day: a gap of more than
	// keyedLookbackDays ends the timeline.
	got, _ = tl.Public(bg, sparrow.Viewer{}, sparrow.Page{MaxID: sts[1].ID, Limit: 5})
	if len(got) != 0 {
		t.Fatalf("page below day -30 = %v, want nothing beyond the look-back", viewIDs(got))
	}
}
