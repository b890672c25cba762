package app_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"sparrow"
	"sparrow/app"
	"sparrow/internal/faultproxy"
	"sparrow/internal/testenv"
	"sparrow/mysql"
)

// faultWorld is a scale-out server whose first store (the even logical
// shards), Redis and NATS are each reached through a fault proxy, with
// users on both stores who all follow one another. (Sign-ups take genes in
// turn, so users alternate between the stores.)
type faultWorld struct {
	t                      *testing.T
	s                      *server
	storeA, redis, bus     *faultproxy.Proxy
	onA, onB               []*user
	posts                  []mastodon.ID // every status posted, each expected in every home
	clientID, clientSecret string
	password               string
}

func newProxy(t *testing.T, target string) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func newFaultWorld(t *testing.T) *faultWorld {
	base, redisURL, natsURL := testenv.MySQLURL(t), testenv.RedisURL(t), testenv.NATSURL(t)
	tag := rand.Uint32()
	a, b := fmt.Sprintf("%ssparrow_fault_%d_a", base, tag), fmt.Sprintf("%ssparrow_fault_%d_b", base, tag)
	t.Cleanup(func() {
		mysql.DropDatabase(context.Background(), a)
		mysql.DropDatabase(context.Background(), b)
	})
	prefix := fmt.Sprintf("sparrowfault%d:", tag)
	testenv.CleanRedis(t, redisURL, prefix)
	host := func(raw string) string { u, _ := url.Parse(raw); return u.Host }
	w := &faultWorld{t: t, password: "correct horse battery",
		storeA: newProxy(t, host(base)), redis: newProxy(t, host(redisURL)), bus: newProxy(t, host(natsURL))}
	ua, _ := url.Parse(a)
	ua.Host, ua.RawQuery = w.storeA.Addr(), "io_timeout=1s&dial_timeout=1s"
	ur, _ := url.Parse(redisURL)
	ur.Host = w.redis.Addr()
	var spec []string
	for shard := 0; shard < sparrow.NumShards; shard++ {
		dsn := b
		if shard%2 == 0 {
			dsn = ua.String()
		}
		spec = append(spec, fmt.Sprintf("%d=%s", shard, dsn))
	}
	w.s = start(t, app.Config{DataDir: t.TempDir(), Shards: strings.Join(spec, ","),
		RedisURL: ur.String(), NATSURL: "nats://" + w.bus.Addr(), Stream: fmt.Sprintf("SPARROWFAULT%d", tag), RedisPrefix: prefix})
	t.Cleanup(func() { // before the server's own cleanup, which needs them
		w.storeA.Up()
		w.redis.Up()
		w.bus.Up()
	})
	for len(w.onA) < 3 || len(w.onB) < 3 {
		u := w.s.signup("")
		id, _ := sparrow.ParseID(string(u.ID))
		if id.Shard()%2 == 0 {
			w.onA = append(w.onA, u)
		} else {
			w.onB = append(w.onB, u)
		}
	}
	c := w.s.newApp("read write follow")
	w.clientID, w.clientSecret = c.Config.ClientID, c.Config.ClientSecret
	all := w.all()
	for _, u := range all {
		var ids []string
		for _, o := range all {
			if o != u {
				ids = append(ids, string(o.ID))
			}
		}
		if code := w.s.do("POST", "/api/v1/x/follows", u.Token, url.Values{"id[]": ids}, nil); code != 200 {
			t.Fatalf("bulk follow: HTTP %d", code)
		}
	}
	eventually(t, func() string {
		for _, u := range all {
			if n, _ := counts(t, u, u.ID); n != int64(len(all)-1) {
				return fmt.Sprintf("%s has %d followers", u.Username, n)
			}
		}
		return ""
	})
	for _, u := range all {
		homeIDs(t, u) // active, with an inbox
		w.posts = append(w.posts, post(t, u, "before the faults", "public"))
	}
	w.converge("before the faults")
	return w
}

func (w *faultWorld) all() []*user { return append(slices.Clone(w.onA), w.onB...) }

// call sends a request as u and returns the status, the body, the response
// headers and how long it took.
func (w *faultWorld) call(u *user, method, path string, form url.Values) (int, string, http.Header, time.Duration) {
	w.t.Helper()
	req, _ := http.NewRequest(method, w.s.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if u != nil {
		req.Header.Set("Authorization", "Bearer "+u.Token)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body, took := string(b), time.Since(start)
	if resp.StatusCode >= 500 && resp.StatusCode != 503 {
		w.t.Errorf("%s %s: HTTP %d %s", method, path, resp.StatusCode, body)
	}
	if resp.StatusCode == 503 && (resp.Header.Get("Retry-After") == "" || !strings.Contains(body, sparrow.MsgUnavailable)) {
		w.t.Errorf("%s %s: a 503 without Retry-After or with a backend's words: %s", method, path, body)
	}
	return resp.StatusCode, body, resp.Header, took
}

// want checks a request's status, and that a request the fault should
// answer at once does so.
func (w *faultWorld) want(u *user, method, path string, form url.Values, code int, fast bool) (string, http.Header) {
	w.t.Helper()
	got, body, h, took := w.call(u, method, path, form)
	if got != code {
		w.t.Errorf("%s %s: HTTP %d, want %d: %s", method, path, got, code, body)
	}
	if fast && took > time.Second {
		w.t.Errorf("%s %s took %v, want an answer at once", method, path, took)
	}
	return body, h
}

// converge waits until every user's home holds every status posted.
func (w *faultWorld) converge(what string) {
	w.t.Helper()
	eventually(w.t, func() string {
		for _, u := range w.all() {
			home := homeIDs(w.t, u)
			for _, id := range w.posts {
				if !slices.Contains(home, id) {
					return fmt.Sprintf("%s: %s's home lacks %s", what, u.Username, id)
				}
			}
			if len(home) != len(slices.Compact(slices.Sorted(slices.Values(home)))) {
				return fmt.Sprintf("%s: %s's home shows a status twice: %v", what, u.Username, home)
			}
		}
		return ""
	})
}

// storeAOut checks what a store that is down or hangs does: its users get
// 503 at once (their tokens live there), the other store's users are served
// (home and notifications marked partial, their own writes accepted), and a
// read of what the store holds is a 503 at once. Then the store comes back,
// and everything posted meanwhile reaches every home.
func (w *faultWorld) storeAOut(fault func(), name string) {
	t := w.t
	a, b := w.onA[0], w.onB[0]
	aStatus := w.posts[0] // posted by onA[0]
	var during []mastodon.ID
	fault()
	// The first requests that need the store fail within its I/O timeout
	// and open its circuit.
	for i := 0; i < 3; i++ {
		w.call(b, "GET", "/api/v1/statuses/"+string(aStatus), nil)
	}
	w.want(a, "GET", "/api/v1/accounts/verify_credentials", nil, 503, true)
	w.want(b, "GET", "/api/v1/statuses/"+string(aStatus), nil, 503, true)
	w.want(b, "GET", "/api/v1/accounts/"+string(a.ID), nil, 503, true)
	w.want(b, "POST", "/api/v1/statuses/"+string(aStatus)+"/favourite", nil, 503, true)
	for _, u := range w.onB {
		w.want(u, "GET", "/api/v1/accounts/verify_credentials", nil, 200, true)
		body, h := w.want(u, "GET", "/api/v1/timelines/home?limit=40", nil, 200, true)
		if h.Get("X-Sparrow-Partial") == "" {
			t.Errorf("%s: %s's home is not marked partial: %s", name, u.Username, body)
		}
		for _, o := range w.onA {
			if strings.Contains(body, `"id":"`+string(o.ID)+`"`) {
				t.Errorf("%s: %s's home shows an account of the store that is out", name, u.Username)
			}
		}
		w.want(u, "GET", "/api/v1/notifications", nil, 200, true)
		var st struct {
			ID mastodon.ID `json:"id"`
		}
		body, _ = w.want(u, "POST", "/api/v1/statuses", url.Values{"status": {name + " by " + u.Username}}, 200, true)
		decode(t, []byte(body), &st)
		w.posts = append(w.posts, st.ID)
		during = append(during, st.ID)
	}
	// The healthy store's users get one another's posts meanwhile: the
	// fan-out does not wait for the store that is out.
	eventually(t, func() string {
		for _, u := range w.onB {
			_, body, _, _ := w.call(u, "GET", "/api/v1/timelines/home?limit=40", nil)
			for _, id := range during {
				if !strings.Contains(body, `"id":"`+string(id)+`"`) {
					return fmt.Sprintf("%s: %s's home lacks %s, posted on the healthy store", name, u.Username, id)
				}
			}
		}
		return ""
	})
	w.storeA.Up()
	eventually(t, func() string {
		if code, _, _, _ := w.call(a, "GET", "/api/v1/accounts/verify_credentials", nil); code != 200 {
			return fmt.Sprintf("after %s: the store's users still get HTTP %d", name, code)
		}
		return ""
	})
	w.converge("after " + name)
	if _, h := w.want(b, "GET", "/api/v1/timelines/home?limit=40", nil, 200, false); h.Get("X-Sparrow-Partial") != "" {
		t.Errorf("after %s: the home is still partial", name)
	}
}

// TestFailureIsConfined: one MariaDB store down, then hanging; Redis down;
// NATS frozen. Each time the requests that need the failed service get a
// fast 503 (with Retry-After, and no backend detail), the others are
// served, nothing acknowledged is lost, and everything recovers by itself.
func TestFailureIsConfined(t *testing.T) {
	w := newFaultWorld(t)
	t.Run("store down", func(t *testing.T) {
		w.t = t
		w.storeAOut(w.storeA.Down, "store down")
	})
	t.Run("store hanging", func(t *testing.T) {
		w.t = t
		w.storeAOut(w.storeA.Freeze, "store hanging")
	})
	t.Run("redis down", func(t *testing.T) {
		w.t = t
		w.redis.Down()
		for _, u := range w.all() {
			w.want(u, "GET", "/api/v1/timelines/home?limit=40", nil, 200, true)
			w.want(u, "GET", "/api/v1/notifications", nil, 200, true)
			var st struct {
				ID mastodon.ID `json:"id"`
			}
			body, _ := w.want(u, "POST", "/api/v1/statuses", url.Values{"status": {"redis down by " + u.Username}}, 200, true)
			decode(t, []byte(body), &st)
			w.posts = append(w.posts, st.ID)
		}
		// Logins go on (rate limits counted per process meanwhile).
		u := w.onB[0]
		form := url.Values{"grant_type": {"password"}, "client_id": {w.clientID}, "client_secret": {w.clientSecret},
			"username": {u.Username + "@example.com"}, "password": {w.password}, "scope": {"read"}}
		w.want(nil, "POST", "/oauth/token", form, 200, true)
		// Homes are pulled from the stores while Redis is down: complete.
		if home := homeIDs(t, u); !slices.Contains(home, w.posts[len(w.posts)-1]) {
			t.Errorf("a home pulled while Redis is down lacks the last post")
		}
		w.redis.Up()
		w.converge("after redis down")
	})
	t.Run("nats frozen", func(t *testing.T) {
		w.t = t
		w.bus.Freeze()
		mention := w.onA[1]
		for _, u := range w.onB {
			var st struct {
				ID mastodon.ID `json:"id"`
			}
			body, _ := w.want(u, "POST", "/api/v1/statuses", url.Values{"status": {"@" + mention.Username + " nats frozen"}}, 200, true)
			decode(t, []byte(body), &st)
			w.posts = append(w.posts, st.ID)
			w.want(u, "GET", "/api/v1/timelines/home?limit=40", nil, 200, true)
		}
		// The fault is real: nothing flows while the bus is frozen.
		time.Sleep(2 * time.Second)
		if ns, _ := mention.GetNotifications(ctx, nil); slices.ContainsFunc(ns, func(n *mastodon.Notification) bool { return n.Type == "mention" }) {
			t.Fatal("a mention was notified through a frozen bus")
		}
		w.bus.Up()
		w.converge("after nats frozen")
		eventually(t, func() string {
			ns, err := mention.GetNotifications(ctx, nil)
			if err != nil {
				return err.Error()
			}
			n := 0
			for _, x := range ns {
				if x.Type == "mention" {
					n++
				}
			}
			if n != len(w.onB) {
				return fmt.Sprintf("%d mentions of %d arrived", n, len(w.onB))
			}
			return ""
		})
	})
}
