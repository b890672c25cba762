package app_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"sparrow"
	"sparrow/service"
)

// The authorization matrix: every read surface × every visibility × every
// relation of a viewer to an author, on both stacks, once with the bus
// running and once with the bus stopped and the caches stale while the
// relations change. It counts its checks and fails on any leak (something
// shown that the rules hide) and on any miss (something hidden that they
// show), so that it cannot pass by hiding everything.

// relation is how a viewer stands to the author when the surfaces are read.
type relation string

const (
	relSelf       relation = "self"
	relFollower   relation = "follower"
	relStranger   relation = "stranger"
	relBlocked    relation = "blocked"    // the author blocks the viewer (who followed it, and is mentioned)
	relBlocking   relation = "blocking"   // the viewer blocks the author (it followed it)
	relMuted      relation = "muted"      // the viewer follows and mutes the author
	relMentioned  relation = "mentioned"  // mentioned in every status, not a follower
	relAnonymous  relation = "anonymous"  // no token
	relRequested  relation = "requested"  // a pending follow request to the (locked) author
	relUnfollowed relation = "unfollowed" // a former follower
)

var relations = []relation{relSelf, relFollower, relStranger, relBlocked, relBlocking, relMuted, relMentioned,
	relAnonymous, relRequested, relUnfollowed}

var visibilities = []string{"public", "unlisted", "private", "direct"}

// canSee is the rule of a status of the author with visibility vis, for a
// viewer with relation r, as it stands after the relations changed.
func canSee(r relation, vis string) bool {
	public := vis == "public" || vis == "unlisted"
	switch r {
	case relSelf, relMentioned:
		return true
	case relBlocked:
		return false
	case relFollower, relMuted:
		return vis != "direct"
	}
	return public
}

// hides reports whether feeds hide the author's statuses from r.
func hides(r relation) bool { return r == relBlocked || r == relBlocking || r == relMuted }

// inHome reports whether the author's status of visibility vis belongs in
// r's home: the author's own, and a follower's (not direct: the follower is
// not mentioned); a muting follower's is hidden.
func inHome(r relation, vis string) bool {
	return r == relSelf || r == relFollower && vis != "direct"
}

// onProfile reports whether the author's profile feed lists a status of
// visibility vis to r.
func onProfile(r relation, vis string) bool {
	switch r {
	case relSelf:
		return true
	case relBlocked:
		return false
	case relFollower, relMuted:
		return vis != "direct"
	}
	return vis == "public" || vis == "unlisted"
}

// mstatus is one status of the matrix.
type mstatus struct {
	id    mastodon.ID
	vis   string
	reply bool // a reply to the thread root (else a top-level status with a hashtag and an object)
	after bool // posted after the relations changed
}

func (m mstatus) String() string {
	phase, kind := "before", "top"
	if m.after {
		phase = "after"
	}
	if m.reply {
		kind = "reply"
	}
	return m.vis + "/" + kind + "/" + phase
}

// matrix is one run: a server, the author, a third account whose thread the
// author replies to (and who reblogs the author), and a viewer per relation.
type matrix struct {
	t        *testing.T
	s        *server
	stalled  bool
	author   *user
	third    *user
	viewers  map[relation]*user // nil for relAnonymous
	statuses []mstatus
	root     mastodon.ID // the third account's public thread root
	reblog   mastodon.ID // the third account's reblog of the author's public top status
	fav      mastodon.ID // the status every viewer favourited (public, top, before)
	tag, obj string

	checks, leaks, misses int
}

// check records one check: what the rules say (want) against what the
// surface shows (got). leakOnly checks count only leaks: surfaces fed by
// the bus cannot show what was posted while it was stopped.
func (m *matrix) check(surface string, r relation, what string, want, got, leakOnly bool) {
	m.checks++
	switch {
	case got && !want:
		m.leaks++
		m.t.Errorf("LEAK: %s shows %s to %s", surface, what, r)
	case want && !got && !leakOnly:
		m.misses++
		m.t.Errorf("miss: %s hides %s from %s", surface, what, r)
	}
}

func (m *matrix) token(r relation) string {
	if u := m.viewers[r]; u != nil {
		return u.Token
	}
	return ""
}

// ids reads a JSON list of statuses (or of notifications, or a context or
// comment page) and returns the ids it shows: each status's and, for a
// reblog, its original's.
func (m *matrix) ids(r relation, path string) map[mastodon.ID]bool {
	m.t.Helper()
	var raw any
	code, body := m.s.raw("GET", path, m.token(r), "", nil)
	if code != 200 {
		m.t.Fatalf("GET %s as %s: HTTP %d %s", path, r, code, body)
	}
	decode(m.t, body, &raw)
	out := map[mastodon.ID]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			if id, ok := x["id"].(string); ok && x["content"] != nil {
				out[mastodon.ID(id)] = true
			}
			for _, k := range []string{"reblog", "status", "statuses", "descendants", "ancestors"} {
				if sub, ok := x[k]; ok && sub != nil {
					walk(sub)
				}
			}
		}
	}
	walk(raw)
	return out
}

// TestAuthorizationMatrix runs the matrix on every stack, with the bus
// running and with the bus stopped and the caches stale.
func TestAuthorizationMatrix(t *testing.T) {
	for _, st := range stacks {
		for _, stalled := range []bool{false, true} {
			name := st.name + "/live"
			if stalled {
				name = st.name + "/bus-stopped-caches-stale"
			}
			t.Run(name, func(t *testing.T) {
				m := &matrix{t: t, s: start(t, st.config(t)), stalled: stalled}
				m.setUp()
				m.run()
				t.Logf("%d checks, %d leaks, %d misses", m.checks, m.leaks, m.misses)
			})
		}
	}
}

// setUp builds the world: the locked author with its followers authorized
// and one request pending, every viewer following the third account, the
// statuses before the change, the relations' change (with the bus stopped
// and the caches put back as they were, if stalled), and the statuses after.
func (m *matrix) setUp() {
	t, s := m.t, m.s
	m.author, m.third = s.signup(""), s.signup("")
	m.viewers = map[relation]*user{relSelf: m.author}
	for _, r := range relations {
		if r != relSelf && r != relAnonymous {
			m.viewers[r] = s.signup("")
		}
	}
	m.tag = "matrix" + strings.ToLower(string(m.author.ID))
	m.obj = "book:matrix-" + string(m.author.ID)
	locked := true
	if _, err := m.author.AccountUpdate(ctx, &mastodon.Profile{Locked: &locked}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []relation{relFollower, relBlocked, relBlocking, relMuted, relUnfollowed, relRequested} {
		if rel, err := m.viewers[r].AccountFollow(ctx, m.author.ID); err != nil || !rel.Requested {
			t.Fatalf("%s's follow: %+v %v", r, rel, err)
		}
	}
	eventually(t, func() string {
		if got := s.followRequests(t, m.author); len(got) != 6 {
			return fmt.Sprintf("%d follow requests", len(got))
		}
		return ""
	})
	for _, r := range []relation{relFollower, relBlocked, relBlocking, relMuted, relUnfollowed} {
		if c := s.code("POST", "/api/v1/follow_requests/"+string(m.viewers[r].ID)+"/authorize", m.author); c != 200 {
			t.Fatalf("authorize %s: HTTP %d", r, c)
		}
	}
	for _, u := range m.viewers {
		if _, err := u.AccountFollow(ctx, m.third.ID); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, func() string {
		if a, _ := counts(t, m.author, m.author.ID); a != 5 {
			return fmt.Sprintf("author has %d followers", a)
		}
		if n, _ := counts(t, m.third, m.third.ID); n != int64(len(m.viewers)) {
			return fmt.Sprintf("third has %d followers", n)
		}
		return ""
	})
	for _, u := range m.viewers {
		homeIDs(t, u) // active, with an inbox
	}
	root, err := m.third.PostStatus(ctx, &mastodon.Toot{Status: "a thread", Visibility: "public"})
	if err != nil {
		t.Fatal(err)
	}
	m.root = root.ID
	m.postAll(false)
	rb, err := m.third.Reblog(ctx, m.statuses[0].id) // public, top, before
	if err != nil {
		t.Fatal(err)
	}
	m.reblog, m.fav = rb.ID, m.statuses[0].id
	for _, u := range m.viewers {
		if _, err := u.Favourite(ctx, m.fav); err != nil {
			t.Fatal(err)
		}
	}
	// Everything has reached every feed, inbox and notification list.
	fan, blocked := m.viewers[relFollower], m.viewers[relBlocked]
	m.converge(fan, blocked, false)

	var stale func()
	if m.stalled {
		var keys []string
		for _, u := range m.viewers {
			keys = append(keys, "fset:"+string(u.ID))
		}
		stale = s.staleCache(t, keys...)
		s.pauseBus(t)
	}
	steps := []struct {
		who  *user
		path string
	}{
		{m.author, "/api/v1/accounts/" + string(blocked.ID) + "/block"},
		{m.viewers[relBlocking], "/api/v1/accounts/" + string(m.author.ID) + "/block"},
		{m.viewers[relMuted], "/api/v1/accounts/" + string(m.author.ID) + "/mute"},
		{m.viewers[relUnfollowed], "/api/v1/accounts/" + string(m.author.ID) + "/unfollow"},
	}
	for _, st := range steps {
		if c := s.code("POST", st.path, st.who); c != 200 {
			t.Fatalf("POST %s: HTTP %d", st.path, c)
		}
	}
	if m.stalled {
		stale()
	} else {
		eventually(t, func() string {
			if a, _ := counts(t, m.author, m.author.ID); a != 2 {
				return fmt.Sprintf("author has %d followers after the changes", a)
			}
			return ""
		})
	}
	m.postAll(true)
	if !m.stalled {
		m.converge(fan, blocked, true)
	}
}

// postAll posts, for every visibility, a top-level status and a reply to the
// thread root, each mentioning the mentioned and the blocked viewers.
func (m *matrix) postAll(after bool) {
	phase := "before"
	if after {
		phase = "after"
	}
	at := "@" + m.viewers[relMentioned].Username + " @" + m.viewers[relBlocked].Username
	for _, reply := range []bool{false, true} {
		for _, vis := range visibilities {
			form := url.Values{"visibility": {vis}}
			if reply {
				form.Set("status", fmt.Sprintf("%s %s reply %s", at, vis, phase))
				form.Set("in_reply_to_id", string(m.root))
			} else {
				form.Set("status", fmt.Sprintf("%s %s %s #%s", at, vis, phase, m.tag))
				form.Set("object", m.obj)
			}
			var st struct {
				ID mastodon.ID `json:"id"`
			}
			if c := m.s.do("POST", "/api/v1/statuses", m.author.Token, form, &st); c != 200 {
				m.t.Fatalf("post %s: HTTP %d", form.Get("status"), c)
			}
			m.statuses = append(m.statuses, mstatus{id: st.ID, vis: vis, reply: reply, after: after})
		}
	}
}

// converge waits until the consumers have handled the statuses of a phase:
// the follower's home and the mentioned viewer's notifications hold the
// last one, and (before the change) the blocked viewer's home holds the
// private one, so that the stale inbox the test relies on exists.
func (m *matrix) converge(fan, blocked *user, after bool) {
	var private, last, reply mastodon.ID
	for _, st := range m.statuses {
		if st.after == after {
			last = st.id
			if st.vis == "private" && !st.reply {
				private = st.id
			}
			if st.vis == "public" && st.reply {
				reply = st.id
			}
		}
	}
	eventually(m.t, func() string {
		if !slices.Contains(homeIDs(m.t, fan), private) {
			return "the follower's home lacks the private status"
		}
		if !after && !slices.Contains(homeIDs(m.t, blocked), private) {
			return "the blocked viewer's home lacks the private status"
		}
		if !m.ids(relMentioned, "/api/v1/notifications?limit=80")[last] {
			return "the mentioned viewer lacks a notification"
		}
		if after {
			return ""
		}
		if !m.ids(relFollower, "/api/v1/timelines/tag/"+m.tag)[m.statuses[0].id] {
			return "the tag timeline lacks the public status"
		}
		if !m.ids(relFollower, "/api/v1/x/statuses/"+string(m.root)+"/comments?page=0")[reply] {
			return "the comment page lacks the public reply"
		}
		return ""
	})
}

// run reads every surface as every viewer and checks it against the rules.
func (m *matrix) run() {
	for _, r := range relations {
		m.statusSurfaces(r)
		m.feeds(r)
		m.graphLists(r)
	}
	if !m.stalled {
		m.streams()
	}
}

// graphLists checks the followers and following lists: the author's are
// empty to an account it blocks, and the author is left out of others'
// lists for an account it blocks and for one that blocks it.
func (m *matrix) graphLists(r relation) {
	accounts := func(path string) map[mastodon.ID]bool {
		var list []struct {
			ID mastodon.ID `json:"id"`
		}
		code, body := m.s.raw("GET", path, m.token(r), "", nil)
		if code != 200 {
			m.t.Fatalf("GET %s as %s: HTTP %d %s", path, r, code, body)
		}
		decode(m.t, body, &list)
		out := map[mastodon.ID]bool{}
		for _, a := range list {
			out[a.ID] = true
		}
		return out
	}
	follower := m.viewers[relFollower].ID
	got := accounts("/api/v1/accounts/" + string(m.author.ID) + "/followers")
	m.check("the author's followers", r, "its follower", r != relBlocked, got[follower], false)
	got = accounts("/api/v1/accounts/" + string(m.author.ID) + "/following")
	m.check("the author's following", r, "the third account", r != relBlocked, got[m.third.ID], false)
	listed := r != relBlocked && r != relBlocking
	got = accounts("/api/v1/accounts/" + string(m.third.ID) + "/followers")
	m.check("a third account's followers", r, "the author", listed, got[m.author.ID], false)
	got = accounts("/api/v1/accounts/" + string(follower) + "/following")
	m.check("a follower's following", r, "the author", listed, got[m.author.ID], false)
}

// statusSurfaces checks what is read through a status's own id.
func (m *matrix) statusSurfaces(r relation) {
	for _, st := range m.statuses {
		base := "/api/v1/statuses/" + string(st.id)
		want := canSee(r, st.vis)
		for _, path := range []string{base, base + "/context", base + "/history", base + "/reblogged_by", base + "/favourited_by",
			"/api/v1/x/statuses/" + string(st.id) + "/comments?page=0"} {
			code, _ := m.s.raw("GET", path, m.token(r), "", nil)
			if code != 200 && code != 404 {
				m.t.Errorf("GET %s as %s: HTTP %d", path, r, code)
			}
			m.check(strings.TrimPrefix(path, base), r, st.String(), want, code == 200, false)
		}
		code, _ := m.s.raw("GET", base+"/source", m.token(r), "", nil)
		wantCode := 404
		switch {
		case r == relAnonymous:
			wantCode = 401
		case r == relSelf:
			wantCode = 200
		case want:
			wantCode = 403
		}
		m.check("/source", r, st.String(), true, code == wantCode, false)
		if code != wantCode {
			m.t.Errorf("source of %s as %s: HTTP %d, want %d", st, r, code, wantCode)
		}
	}
}

// feeds checks the lists: home, profile, public, tag, object, the thread's
// context and comment page, favourites, notifications and search.
func (m *matrix) feeds(r relation) {
	bus := func(st mstatus) bool { return m.stalled && st.after } // not fed while the bus is stopped
	signedIn := r != relAnonymous
	var home, favs, notes, search map[mastodon.ID]bool
	if signedIn {
		home = m.ids(r, "/api/v1/timelines/home?limit=40")
		favs = m.ids(r, "/api/v1/favourites?limit=40")
		notes = m.ids(r, "/api/v1/notifications?limit=80")
		search = m.ids(r, "/api/v2/search?type=statuses&q="+url.QueryEscape(m.tag))
	}
	profile := m.ids(r, "/api/v1/accounts/"+string(m.author.ID)+"/statuses?limit=40")
	public := m.ids(r, "/api/v1/timelines/public?limit=40")
	tag := m.ids(r, "/api/v1/timelines/tag/"+m.tag+"?limit=40")
	obj := m.ids(r, "/api/v1/x/objects/"+strings.Replace(m.obj, ":", "/", 1)+"/statuses?limit=40")
	thread := m.ids(r, "/api/v1/statuses/"+string(m.root)+"/context")
	comments := m.ids(r, "/api/v1/x/statuses/"+string(m.root)+"/comments?page=0")
	for _, st := range m.statuses {
		what := st.String()
		see, shown := canSee(r, st.vis), canSee(r, st.vis) && !hides(r)
		if signedIn {
			// The favourited status also shows as the third account's
			// reblog in the home of whoever follows it, and in the
			// author's notifications (reblogged, favourited).
			fav := st.id == m.fav
			m.check("home", r, what, inHome(r, st.vis) || fav && shown, home[st.id], bus(st))
			m.check("notifications", r, what, r == relMentioned || fav && r == relSelf, notes[st.id], bus(st))
			m.check("search", r, what, false, search[st.id] && !see, true)
		}
		m.check("profile", r, what, onProfile(r, st.vis), profile[st.id], false)
		m.check("public", r, what, st.vis == "public" && !hides(r), public[st.id], bus(st))
		if st.reply {
			m.check("thread context", r, what, shown, thread[st.id], bus(st))
			m.check("thread comments", r, what, shown, comments[st.id], bus(st))
		} else {
			m.check("tag", r, what, st.vis == "public" && !hides(r), tag[st.id], bus(st))
			m.check("object", r, what, (st.vis == "public" || st.vis == "unlisted") && !hides(r), obj[st.id], bus(st))
		}
	}
	m.keyedFeeds(r, bus)
	if signedIn {
		// The third account's reblog of the author's public status, in the
		// home of everyone who follows the third account; and the favourite
		// every viewer made before the change.
		m.check("home (reblog)", r, "the third account's reblog", canSee(r, "public") && !hides(r), home[m.reblog], false)
		m.check("favourites", r, "the favourited public status", canSee(r, "public"), favs[m.fav], false)
	}
}

// keyedFeeds reads every registered keyed feed (GET /api/v1/x/feeds/{feed})
// under every key the routing rules give the matrix's statuses, so that a
// feed kind added later is in the matrix without a change here: a status is
// listed exactly when the rules route it there and r may see it.
func (m *matrix) keyedFeeds(r relation, bus func(mstatus) bool) {
	routed := map[string]map[mastodon.ID]bool{} // feed?key=… → statuses routed there
	for _, st := range m.statuses {
		s := &sparrow.Status{Visibility: sparrow.Visibility(st.vis)}
		if !st.reply {
			s.Tags, s.Object = []string{m.tag}, m.obj
		}
		for feed, keys := range service.KeyedFeedKeys(s) {
			for _, key := range keys {
				path := "/api/v1/x/feeds/" + feed + "?limit=40&key=" + url.QueryEscape(key)
				if routed[path] == nil {
					routed[path] = map[mastodon.ID]bool{}
				}
				routed[path][st.id] = true
			}
		}
	}
	if len(routed) < 3 {
		m.t.Fatalf("the statuses reach %d keyed feeds, want at least tag, object and public", len(routed))
	}
	for path, in := range routed {
		got := m.ids(r, path)
		for _, st := range m.statuses {
			m.check(path, r, st.String(), in[st.id] && canSee(r, st.vis) && !hides(r), got[st.id], bus(st))
		}
	}
}

// streams opens every viewer's user and public streams, has the author post
// one status per visibility and the third account a sentinel, and checks
// what each stream received before the sentinel.
func (m *matrix) streams() {
	type stream struct {
		r      relation
		public bool
		events chan mastodon.Event
	}
	var open []stream
	for _, r := range relations {
		u := m.viewers[r]
		client := mastodon.NewClient(&mastodon.Config{Server: m.s.url})
		if u != nil {
			client = u.Client
			open = append(open, stream{r, false, openStream(m.t, client.StreamingUser)})
		}
		open = append(open, stream{r, true, openStream(m.t, func(ctx context.Context) (chan mastodon.Event, error) {
			return client.StreamingPublic(ctx, true)
		})})
	}
	m.s.waitStreams(m.t, len(open))
	posted := map[mastodon.ID]string{}
	for _, vis := range visibilities {
		at := "@" + m.viewers[relMentioned].Username + " @" + m.viewers[relBlocked].Username
		st, err := m.author.PostStatus(ctx, &mastodon.Toot{Status: at + " live " + vis, Visibility: vis})
		if err != nil {
			m.t.Fatal(err)
		}
		posted[st.ID] = vis
	}
	sentinel, err := m.third.PostStatus(ctx, &mastodon.Toot{Status: "sentinel", Visibility: "public"})
	if err != nil {
		m.t.Fatal(err)
	}
	for _, st := range open {
		got := map[mastodon.ID]bool{}
		deadline := time.After(20 * time.Second)
	read:
		for {
			select {
			case e := <-st.events:
				if u, ok := e.(*mastodon.UpdateEvent); ok {
					if u.Status.ID == sentinel.ID {
						break read
					}
					got[u.Status.ID] = true
				}
			case <-deadline:
				m.t.Fatalf("%s's stream (public %v) never got the sentinel", st.r, st.public)
			}
		}
		for id, vis := range posted {
			if st.public {
				m.check("public stream", st.r, vis+"/live", vis == "public" && !hides(st.r), got[id], false)
			} else {
				m.check("user stream", st.r, vis+"/live", inHome(st.r, vis), got[id], false)
			}
		}
	}
}
