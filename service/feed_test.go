package service_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"sparrow"
	"sparrow/inmem"
	"sparrow/internal/testenv"
	"sparrow/mysql"
	"sparrow/redis"
	"sparrow/service"
	"sparrow/sqlstore"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// world is a Sparrow without HTTP or bus: consumers are driven by draining
// the outbox, so tests are deterministic.
type world struct {
	t       *testing.T
	st      *sqlstore.Store
	svc     *service.Services
	clock   *clock
	hot     int64
	inboxes sparrow.InboxStore
	mode    string
}

// feedBackend is the stack a world runs on: the SQL store and the cache tier.
type feedBackend struct {
	name string
	open func(t *testing.T, inboxCap, recentCap int) (*sqlstore.Store, sparrow.InboxStore, sparrow.RecentLists, sparrow.Activity, sparrow.KV)
}

var feedBackends = []feedBackend{
	{"embedded", func(t *testing.T, inboxCap, recentCap int) (*sqlstore.Store, sparrow.InboxStore, sparrow.RecentLists, sparrow.Activity, sparrow.KV) {
		dir := t.TempDir()
		st := openStore(t, fmt.Sprintf("0-127=sqlite:%s,128-255=sqlite:%s", filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")))
		opts := inmem.FeedOptions{InboxCap: inboxCap, RecentCap: recentCap}
		return st, inmem.NewInboxes(opts), inmem.NewRecentLists(opts), inmem.NewActivity(opts), inmem.NewKV(inmem.Options{})
	}},
	{"mariadb+redis", func(t *testing.T, inboxCap, recentCap int) (*sqlstore.Store, sparrow.InboxStore, sparrow.RecentLists, sparrow.Activity, sparrow.KV) {
		base := testenv.MySQLURL(t)
		tag := rand.Uint32()
		a, b := fmt.Sprintf("%ssparrow_feed_%d_a", base, tag), fmt.Sprintf("%ssparrow_feed_%d_b", base, tag)
		t.Cleanup(func() { mysql.DropDatabase(bg, a); mysql.DropDatabase(bg, b) })
		st := openStore(t, "0-127="+a+",128-255="+b)
		rc, err := redis.Open(bg, testenv.RedisURL(t))
		if err != nil {
			t.Fatal(err)
		}
		prefix := fmt.Sprintf("sparrowfeedtest%d:", tag)
		t.Cleanup(func() {
			iter := rc.Redis().Scan(bg, 0, prefix+"*", 1000).Iterator()
			for iter.Next(bg) {
				rc.Redis().Del(bg, iter.Val())
			}
			rc.Close()
		})
		return st, rc.Inboxes(prefix, inboxCap), rc.RecentLists(prefix, recentCap), rc.Activity(prefix), rc.KV(prefix)
	}},
}

// currentBackend is the backend newWorld uses (set by forEachFeedBackend).
var currentBackend = feedBackends[0]

// forEachBackend runs fn on every stack (tests that need one mode).
func forEachBackend(t *testing.T, fn func(t *testing.T)) {
	for _, be := range feedBackends {
		t.Run(be.name, func(t *testing.T) {
			currentBackend = be
			defer func() { currentBackend = feedBackends[0] }()
			fn(t)
		})
	}
}

// forEachFeedBackend runs fn on every stack, and on every mode within it.
func forEachFeedBackend(t *testing.T, fn func(t *testing.T, mode string)) {
	for _, be := range feedBackends {
		for _, mode := range modes {
			t.Run(be.name+"/"+mode, func(t *testing.T) {
				currentBackend = be
				defer func() { currentBackend = feedBackends[0] }()
				fn(t, mode)
			})
		}
	}
}

func newWorld(t *testing.T, mode string, inboxCap int) *world {
	t.Helper()
	return newWorldWith(t, mode, inboxCap, nil)
}

// newWorldWith is newWorld with the services' dependencies passed through
// wrap (if not nil) before the services are built.
func newWorldWith(t *testing.T, mode string, inboxCap int, wrap func(*service.Deps)) *world {
	t.Helper()
	st, inboxes, recent, activity, kv := currentBackend.open(t, inboxCap, 4)
	c := &clock{t: time.Now().UTC()}
	ids := sparrow.NewIDGen(3, c)
	d := service.Deps{Accounts: st, Statuses: st, Auth: st, Relations: st,
		Limiter: inmem.NewLimiter(inmem.Options{}), Cache: kv, IDs: ids, Clock: c,
		Inboxes: inboxes, Recent: recent, Activity: activity,
		References: st, Notifications: st, KeyedFeeds: st}
	if wrap != nil {
		wrap(&d)
	}
	svc := service.New(d, service.Config{BcryptCost: 4, FeedMode: mode, InboxCap: inboxCap, RecentCap: 4, ActiveDays: 7, CommentPageSize: 20})
	return &world{t: t, st: st, svc: svc, clock: c, hot: 3, inboxes: inboxes, mode: mode}
}

// settle delivers every pending event to every consumer until none is left,
// and applies counters (hot flags with threshold w.hot).
func (w *world) settle() {
	w.t.Helper()
	for round := 0; round < 20; round++ {
		w.svc.Feed.Wait()
		events := drain(w.t, w.st)
		for i := range w.st.Shards().DBs() {
			if _, err := w.st.FlushCounters(bg, i, 10000, w.hot, w.hot*9/10); err != nil {
				w.t.Fatal(err)
			}
		}
		if len(events) == 0 {
			return
		}
		for _, e := range events {
			for _, h := range []sparrow.Handler{w.svc.Consumers.FollowerSync, w.svc.Feed.HandleFeedEvent, w.svc.Interactions.HandleReferences, w.svc.Notifications.Handle} {
				if err := h(bg, e); err != nil {
					w.t.Fatalf("%s: %v", e.Type, err)
				}
			}
		}
	}
	w.t.Fatal("events kept coming")
}

// userIDs makes the test accounts' ids. One generator for all: two fresh
// generators can start on the same gene in the same millisecond and make
// the same id.
var userIDs = sparrow.NewIDGen(7, nil)

func (w *world) user(name string) sparrow.Viewer {
	w.t.Helper()
	a := &sparrow.Account{ID: userIDs.NextBalanced(), Username: fmt.Sprintf("%s%d", name, rand.Uint32()), PasswordHash: "!",
		CreatedAt: w.clock.Now(), UpdatedAt: w.clock.Now()}
	a.Email = a.Username + "@example.com"
	if err := w.st.CreateAccount(bg, a); err != nil {
		w.t.Fatal(err)
	}
	v := sparrow.Viewer{AccountID: a.ID}
	if err := w.svc.Feed.Touch(bg, v.AccountID); err != nil {
		w.t.Fatal(err)
	}
	return v
}

func (w *world) follow(v sparrow.Viewer, target sparrow.Viewer) {
	w.t.Helper()
	if _, err := w.svc.Relations.Follow(bg, v, target.AccountID, sparrow.FollowOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) post(v sparrow.Viewer, text string, vis sparrow.Visibility) sparrow.ID {
	w.t.Helper()
	w.clock.add(time.Millisecond)
	sv, err := w.svc.Statuses.Post(bg, v, sparrow.PostStatus{Text: text, Visibility: vis})
	if err != nil {
		w.t.Fatal(err)
	}
	return sv.Status.ID
}

// home pages v's whole home timeline with the given page size.
func (w *world) home(v sparrow.Viewer, limit int) []sparrow.ID {
	w.t.Helper()
	var out []sparrow.ID
	p := sparrow.Page{Limit: limit}
	for i := 0; i < 100; i++ {
		page, err := w.svc.Timelines.Home(bg, v, p)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, sv := range page {
			out = append(out, sv.Status.ID)
		}
		if len(page) < limit {
			break
		}
		p.MaxID = page[len(page)-1].Status.ID
	}
	w.svc.Feed.Wait()
	return out
}

// wantInbox checks that, outside pull mode, the reader's inbox is filled and
// holds n items: the push path, not only the pull fallback, served the reads.
func (w *world) wantInbox(v sparrow.Viewer, n int) {
	w.t.Helper()
	items, st, err := w.inboxes.Read(bg, v.AccountID, sparrow.Page{Limit: 1000})
	if err != nil {
		w.t.Fatal(err)
	}
	if w.mode == service.ModePull {
		if st.Exists {
			w.t.Fatalf("pull mode built an inbox")
		}
		return
	}
	if !st.Exists || !st.Filled || len(items) != n {
		w.t.Fatalf("inbox exists=%v filled=%v with %d items, want %d", st.Exists, st.Filled, len(items), n)
	}
}

func newestFirst(ids ...sparrow.ID) []sparrow.ID {
	out := slices.Clone(ids)
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

var modes = []string{service.ModeHybrid, service.ModePush, service.ModePull}

func TestHomeInEveryMode(t *testing.T) {
	forEachFeedBackend(t, func(t *testing.T, mode string) {
		{
			w := newWorld(t, mode, 800)
			reader, b, c, stranger := w.user("reader"), w.user("b"), w.user("c"), w.user("x")
			w.follow(reader, b)
			w.follow(reader, c)
			w.settle()
			home0 := w.home(reader, 3) // builds the inbox
			if len(home0) != 0 {
				t.Fatalf("empty graph home = %v", home0)
			}
			var want []sparrow.ID
			for i := 0; i < 4; i++ {
				want = append(want, w.post(b, "from b", sparrow.Public), w.post(c, "from c", sparrow.Unlisted))
				w.post(stranger, "noise", sparrow.Public)
			}
			want = append(want, w.post(reader, "my own", sparrow.Public))
			want = append(want, w.post(c, "private to followers", sparrow.Private))
			w.post(c, "direct to someone else", sparrow.Direct)
			w.settle()
			if got := w.home(reader, 3); !slices.Equal(got, newestFirst(want...)) {
				t.Fatalf("home = %v, want %v", got, newestFirst(want...))
			}
			w.wantInbox(reader, len(want))
			// since_id: only what is newer.
			latest := w.post(b, "latest", sparrow.Public)
			w.settle()
			page, err := w.svc.Timelines.Home(bg, reader, sparrow.Page{SinceID: newestFirst(want...)[0], Limit: 20})
			if err != nil || len(page) != 1 || page[0].Status.ID != latest {
				t.Fatalf("since_id page = %d items, %v", len(page), err)
			}
		}
	})
}

// TestPagingPastTheCap: an inbox of 5 never ends the timeline: older items
// come from the followees' profile feeds.
func TestPagingPastTheCap(t *testing.T) {
	forEachFeedBackend(t, func(t *testing.T, mode string) {
		{
			w := newWorld(t, mode, 5)
			reader, b := w.user("reader"), w.user("b")
			w.follow(reader, b)
			w.settle()
			w.home(reader, 2)
			var want []sparrow.ID
			for i := 0; i < 13; i++ {
				want = append(want, w.post(b, "post", sparrow.Public))
			}
			w.settle()
			for _, limit := range []int{1, 4, 40} {
				if got := w.home(reader, limit); !slices.Equal(got, newestFirst(want...)) {
					t.Fatalf("limit %d: %d items %v, want %d", limit, len(got), got, len(want))
				}
			}
		}
	})
}

// TestReturningUserRebuild: an inactive reader gets nothing pushed and its
// inbox dropped by the sweeper; its next read rebuilds by pull in the request.
func TestReturningUserRebuild(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		w := newWorld(t, service.ModeHybrid, 800)
		reader, b := w.user("reader"), w.user("b")
		w.follow(reader, b)
		w.settle()
		first := w.post(b, "before", sparrow.Public)
		w.settle()
		if got := w.home(reader, 10); !slices.Equal(got, []sparrow.ID{first}) {
			t.Fatalf("home = %v", got)
		}
		w.clock.add(8 * 24 * time.Hour) // the reader goes away; b stays active
		if err := w.svc.Feed.Touch(bg, b.AccountID); err != nil {
			t.Fatal(err)
		}
		dropped, _, err := w.svc.Feed.Sweep(bg)
		if err != nil || dropped == 0 {
			t.Fatalf("sweep dropped %d inboxes, %v", dropped, err)
		}
		second := w.post(b, "while away", sparrow.Public)
		w.settle()
		if got := w.home(reader, 10); !slices.Equal(got, []sparrow.ID{second, first}) {
			t.Fatalf("returning reader's home = %v, want %v", got, []sparrow.ID{second, first})
		}
		third := w.post(b, "after return", sparrow.Public)
		w.settle()
		if got := w.home(reader, 10); !slices.Equal(got, []sparrow.ID{third, second, first}) {
			t.Fatalf("after the rebuild = %v", got)
		}
	})
}

// TestHotTransitionsMissNothing: an author turns hot (recent list seeded from
// its profile) and ordinary again (recent items pushed, list dropped); no
// reader misses a post and none sees one twice, in every mode.
func TestHotTransitionsMissNothing(t *testing.T) {
	forEachFeedBackend(t, func(t *testing.T, mode string) {
		{
			w := newWorld(t, mode, 800)
			star := w.user("star")
			var fans []sparrow.Viewer
			for i := 0; i < 4; i++ {
				fans = append(fans, w.user("fan"))
			}
			reader := fans[0]
			w.follow(reader, star)
			w.settle()
			w.home(reader, 5)
			var want []sparrow.ID
			check := func(stage string) {
				t.Helper()
				w.settle()
				if got := w.home(reader, 3); !slices.Equal(got, newestFirst(want...)) {
					t.Fatalf("%s: home %v, want %v", stage, got, newestFirst(want...))
				}
			}
			want = append(want, w.post(star, "ordinary 1", sparrow.Public), w.post(star, "ordinary 2", sparrow.Public))
			check("ordinary")
			for _, f := range fans[1:] {
				w.follow(f, star)
			}
			w.settle() // 4 followers ≥ 3: hot
			if a, _ := w.st.Account(bg, star.AccountID); !a.Hot {
				t.Fatalf("star not hot with %d followers", a.FollowersCount)
			}
			for i := 0; i < 6; i++ { // more than the recent cap (4)
				want = append(want, w.post(star, "hot", sparrow.Public))
			}
			check("hot")
			for _, f := range fans[1:] {
				if _, err := w.svc.Relations.Unfollow(bg, f, star.AccountID); err != nil {
					t.Fatal(err)
				}
			}
			w.settle() // 1 follower, below 90% of 3: ordinary again
			if a, _ := w.st.Account(bg, star.AccountID); a.Hot {
				t.Fatalf("star still hot with %d followers", a.FollowersCount)
			}
			want = append(want, w.post(star, "cooling", sparrow.Public))
			check("cooling, list still merged")
			if _, _, err := w.svc.Feed.Sweep(bg); err != nil {
				t.Fatal(err)
			}
			want = append(want, w.post(star, "ordinary again", sparrow.Public))
			check("after the sweeper cooled the list")
		}
	})
}

// TestHotListsMergedAtEveryCut: a reader following two hot authors (recent
// lists capped at 4, so most of their posts are only in their profile feeds)
// and an ordinary one gets every post once, in order, whatever the page
// size: the merge's cutoff never skips an item that a list does not hold.
func TestHotListsMergedAtEveryCut(t *testing.T) {
	forEachFeedBackend(t, func(t *testing.T, mode string) {
		w := newWorld(t, mode, 800)
		reader, plain := w.user("reader"), w.user("plain")
		hot := []sparrow.Viewer{w.user("hot1"), w.user("hot2")}
		for _, h := range hot {
			for i := 0; i < 3; i++ {
				w.follow(w.user("fan"), h)
			}
			w.follow(reader, h)
		}
		w.follow(reader, plain)
		w.settle()
		for _, h := range hot {
			if a, _ := w.st.Account(bg, h.AccountID); !a.Hot {
				t.Fatalf("%v not hot with %d followers", h.AccountID, a.FollowersCount)
			}
		}
		w.home(reader, 5)
		var want []sparrow.ID
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 36; i++ {
			author := plain
			if k := rng.IntN(3); k < 2 {
				author = hot[k]
			}
			want = append(want, w.post(author, "post", sparrow.Public))
		}
		w.settle()
		for _, limit := range []int{1, 3, 5, 7, 40} {
			if got := w.home(reader, limit); !slices.Equal(got, newestFirst(want...)) {
				t.Fatalf("limit %d: %d items %v, want %d %v", limit, len(got), got, len(want), newestFirst(want...))
			}
		}
	})
}

// TestGraphAndContentChanges: follow merges, unfollow/block/mute remove,
// deletes vanish, edits show.
func TestGraphAndContentChanges(t *testing.T) {
	forEachFeedBackend(t, func(t *testing.T, mode string) {
		{
			w := newWorld(t, mode, 800)
			reader, b, c, d := w.user("reader"), w.user("b"), w.user("c"), w.user("d")
			w.follow(reader, b)
			w.settle()
			w.home(reader, 5)
			bPost := w.post(b, "b", sparrow.Public)
			cPost := w.post(c, "c", sparrow.Public)
			dPost := w.post(d, "d", sparrow.Public)
			w.settle()
			w.follow(reader, c) // merges c's earlier post
			w.follow(reader, d)
			w.settle()
			if got := w.home(reader, 10); !slices.Equal(got, newestFirst(bPost, cPost, dPost)) {
				t.Fatalf("after follows: %v", got)
			}
			if _, err := w.svc.Statuses.Edit(bg, b, bPost, sparrow.EditStatus{Text: "b edited"}); err != nil {
				t.Fatal(err)
			}
			page, _ := w.svc.Timelines.Home(bg, reader, sparrow.Page{Limit: 10})
			for _, sv := range page {
				if sv.Status.ID == bPost && sv.Status.Text != "b edited" {
					t.Fatalf("edited status shows %q", sv.Status.Text)
				}
			}
			if _, err := w.svc.Relations.Unfollow(bg, reader, c.AccountID); err != nil {
				t.Fatal(err)
			}
			if _, err := w.svc.Relations.Mute(bg, reader, d.AccountID, true); err != nil {
				t.Fatal(err)
			}
			if got := w.home(reader, 10); !slices.Equal(got, []sparrow.ID{bPost}) {
				t.Fatalf("before consumers ran, reads filter: %v", got)
			}
			w.settle()
			if got := w.home(reader, 10); !slices.Equal(got, []sparrow.ID{bPost}) {
				t.Fatalf("after unfollow and mute: %v", got)
			}
			if _, err := w.svc.Statuses.Delete(bg, b, bPost); err != nil {
				t.Fatal(err)
			}
			if got := w.home(reader, 10); len(got) != 0 {
				t.Fatalf("deleted status still shows: %v", got)
			}
			w.settle()
			blocked := w.post(b, "b again", sparrow.Public)
			w.settle()
			if _, err := w.svc.Relations.Block(bg, reader, b.AccountID); err != nil {
				t.Fatal(err)
			}
			w.settle()
			if got := w.home(reader, 10); slices.Contains(got, blocked) {
				t.Fatalf("blocked author still in home: %v", got)
			}
		}
	})
}

// TestDirectOnlyToMentioned: a direct status reaches the mentioned follower,
// not the other followers.
func TestDirectOnlyToMentioned(t *testing.T) {
	forEachFeedBackend(t, func(t *testing.T, mode string) {
		{
			w := newWorld(t, mode, 800)
			author, friend, other := w.user("author"), w.user("friend"), w.user("other")
			w.follow(friend, author)
			w.follow(other, author)
			w.settle()
			w.home(friend, 5)
			w.home(other, 5)
			acc, _ := w.st.Account(bg, friend.AccountID)
			dm := w.post(author, "@"+acc.Username+" psst", sparrow.Direct)
			w.settle()
			if got := w.home(friend, 10); !slices.Equal(got, []sparrow.ID{dm}) {
				t.Fatalf("mentioned follower's home = %v", got)
			}
			if got := w.home(other, 10); len(got) != 0 {
				t.Fatalf("a direct status leaked to %v", got)
			}
		}
	})
}

var _ = context.Background
