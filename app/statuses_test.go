package app_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"
)

var ctx = context.Background()

// TestPostReadPage is the new user's tour: register, log in, post (Chinese
// included), read by id, and page the profile feed through Link headers.
func TestPostReadPage(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		u := s.signup("")
		var posted []*mastodon.Status
		for i := 0; i < 7; i++ {
			st, err := u.PostStatus(ctx, &mastodon.Toot{Status: fmt.Sprintf("第%d条微博 #麻雀 hello", i), Visibility: "public"})
			if err != nil {
				t.Fatalf("post %d: %v", i, err)
			}
			posted = append(posted, st)
		}
		got, err := u.GetStatus(ctx, posted[3].ID)
		if err != nil || !strings.Contains(got.Content, "第3条微博") || got.Account.ID != u.ID {
			t.Fatalf("GetStatus = %+v, %v", got, err)
		}
		if len(got.Tags) != 1 || got.Tags[0].Name != "麻雀" {
			t.Fatalf("tags = %+v", got.Tags)
		}
		// Page the profile feed 3 at a time, following Link headers.
		var seen []mastodon.ID
		pg := &mastodon.Pagination{Limit: 3}
		for pages := 0; pages < 5; pages++ {
			sts, err := u.GetAccountStatuses(ctx, u.ID, pg)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range sts {
				seen = append(seen, st.ID)
			}
			if pg.MaxID == "" || len(sts) == 0 {
				break
			}
			pg = &mastodon.Pagination{MaxID: pg.MaxID, Limit: 3}
		}
		if len(seen) != 7 {
			t.Fatalf("paged %d statuses, want 7: %v", len(seen), seen)
		}
		for i, id := range seen {
			if id != posted[6-i].ID {
				t.Fatalf("page order: got %v at %d, want %v", id, i, posted[6-i].ID)
			}
		}
		me, _ := u.GetAccountCurrentUser(ctx)
		if me.StatusesCount != 7 {
			t.Fatalf("statuses_count = %d, want 7", me.StatusesCount)
		}
	})
}

func TestEditDeleteHistory(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		u, other := s.signup(""), s.signup("")
		st, err := u.PostStatus(ctx, &mastodon.Toot{Status: "first draft"})
		if err != nil {
			t.Fatal(err)
		}
		var edited mastodon.Status
		if code := s.do("PUT", "/api/v1/statuses/"+string(st.ID), u.Token, url.Values{"status": {"second draft"}}, &edited); code != 200 {
			t.Fatalf("edit: HTTP %d", code)
		}
		if edited.ID != st.ID || !strings.Contains(edited.Content, "second draft") || edited.EditedAt.IsZero() {
			t.Fatalf("edited = %+v", edited)
		}
		var hist []struct{ Content string }
		if code := s.do("GET", "/api/v1/statuses/"+string(st.ID)+"/history", u.Token, nil, &hist); code != 200 || len(hist) != 2 ||
			!strings.Contains(hist[0].Content, "first draft") || !strings.Contains(hist[1].Content, "second draft") {
			t.Fatalf("history: %d %+v", code, hist)
		}
		// Someone else can neither edit nor delete it: 404, as Mastodon answers.
		s.wantError("PUT", "/api/v1/statuses/"+string(st.ID), other.Token, []byte("status=hijack"), "application/x-www-form-urlencoded", 404)
		s.wantError("DELETE", "/api/v1/statuses/"+string(st.ID), other.Token, nil, "", 404)
		if err := u.DeleteStatus(ctx, st.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := u.GetStatus(ctx, st.ID); err == nil {
			t.Fatal("deleted status still readable")
		}
		s.wantError("GET", "/api/v1/statuses/"+string(st.ID), u.Token, nil, "", 404)
		me, _ := u.GetAccountCurrentUser(ctx)
		if me.StatusesCount != 0 {
			t.Fatalf("statuses_count = %d after delete", me.StatusesCount)
		}
	})
}

func TestVisibilityAndIdempotency(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		author, stranger, friend := s.signup(""), s.signup(""), s.signup("")
		direct, err := author.PostStatus(ctx, &mastodon.Toot{Status: "@" + friend.Username + " secret", Visibility: "direct"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := friend.GetStatus(ctx, direct.ID); err != nil {
			t.Fatalf("mentioned account cannot read a direct status: %v", err)
		}
		s.wantError("GET", "/api/v1/statuses/"+string(direct.ID), stranger.Token, nil, "", 404)
		s.wantError("GET", "/api/v1/statuses/"+string(direct.ID), "", nil, "", 404)
		private, _ := author.PostStatus(ctx, &mastodon.Toot{Status: "followers only", Visibility: "private"})
		s.wantError("GET", "/api/v1/statuses/"+string(private.ID), stranger.Token, nil, "", 404)
		sts, _ := stranger.GetAccountStatuses(ctx, author.ID, nil)
		if len(sts) != 0 {
			t.Fatalf("stranger sees %d private/direct statuses on the profile", len(sts))
		}
		own, _ := author.GetAccountStatuses(ctx, author.ID, nil)
		if len(own) != 2 {
			t.Fatalf("author sees %d own statuses, want 2", len(own))
		}
		// The same Idempotency-Key gives the same status once.
		var a1, a2 mastodon.Status
		for _, out := range []*mastodon.Status{&a1, &a2} {
			code, body := s.rawWithHeader("POST", "/api/v1/statuses", author.Token, "Idempotency-Key", "abc-123", url.Values{"status": {"only once"}})
			if code != 200 {
				t.Fatalf("post: HTTP %d %s", code, body)
			}
			decode(t, body, out)
		}
		if a1.ID != a2.ID {
			t.Fatalf("idempotent retry created a second status: %s, %s", a1.ID, a2.ID)
		}
	})
}

// TestBadInput: every malformed request gets a 4xx with Mastodon's error body.
func TestBadInput(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		u, other := s.signup(""), s.signup("")
		form := "application/x-www-form-urlencoded"
		st, _ := u.PostStatus(ctx, &mastodon.Toot{Status: "mine"})
		cases := []struct {
			name, method, path, token, ctype, body string
			want                                   int
		}{
			{"empty text", "POST", "/api/v1/statuses", u.Token, form, "status=", 422},
			{"blank text", "POST", "/api/v1/statuses", u.Token, form, "status=%20%20", 422},
			{"over-long text", "POST", "/api/v1/statuses", u.Token, form, "status=" + strings.Repeat("长", 501), 422},
			{"unknown visibility", "POST", "/api/v1/statuses", u.Token, form, "status=x&visibility=friends", 422},
			{"malformed JSON", "POST", "/api/v1/statuses", u.Token, "application/json", `{"status":`, 400},
			{"no token", "POST", "/api/v1/statuses", "", form, "status=x", 401},
			{"bad token", "POST", "/api/v1/statuses", "not-a-token", form, "status=x", 401},
			{"unknown status", "GET", "/api/v1/statuses/123456789", u.Token, "", "", 404},
			{"malformed status id", "GET", "/api/v1/statuses/abc", u.Token, "", "", 404},
			{"unknown account", "GET", "/api/v1/accounts/123456789", u.Token, "", "", 404},
			{"malformed account id", "GET", "/api/v1/accounts/-1/statuses", u.Token, "", "", 404},
			{"delete someone else's", "DELETE", "/api/v1/statuses/" + string(st.ID), other.Token, "", "", 404},
			{"reply to unknown", "POST", "/api/v1/statuses", u.Token, form, "status=x&in_reply_to_id=999999", 404},
			{"wrong grant type", "POST", "/oauth/token", "", form, "grant_type=magic&client_id=x&client_secret=y", 400},
			{"unknown client", "POST", "/oauth/token", "", form, "grant_type=password&client_id=x&client_secret=y&username=a&password=b", 401},
			{"sign-up without app token", "POST", "/api/v1/accounts", "", form, "username=zz&email=zz@example.com&password=12345678&agreement=true", 401},
			{"lookup unknown", "GET", "/api/v1/accounts/lookup?acct=ghost", "", "", "", 404},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s.t = t
				s.wantError(c.method, c.path, c.token, []byte(c.body), c.ctype, c.want)
			})
		}
	})
}

// TestWrongPasswordAndRateLimit: wrong passwords are invalid_grant, and
// repeated failures are throttled even for the right password.
func TestWrongPasswordAndRateLimit(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		u := s.signup("")
		c := s.newApp("read write")
		var last int
		for i := 0; i < 6; i++ {
			last = s.do("POST", "/oauth/token", "", url.Values{"grant_type": {"password"}, "client_id": {c.Config.ClientID},
				"client_secret": {c.Config.ClientSecret}, "username": {u.Username + "@example.com"}, "password": {"wrong password"}}, nil)
			if i < 5 && last != 400 {
				t.Fatalf("wrong password #%d: HTTP %d, want 400", i+1, last)
			}
		}
		if last != 429 {
			t.Fatalf("sixth failed login: HTTP %d, want 429", last)
		}
		if err := c.Authenticate(ctx, u.Username+"@example.com", "correct horse battery"); err == nil {
			t.Fatal("a throttled account could still log in")
		}
	})
}

func TestInstanceAndCredentials(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		u := s.signup("")
		in, err := u.GetInstance(ctx)
		if err != nil || in.Title == "" || in.Version == "" {
			t.Fatalf("instance = %+v, %v", in, err)
		}
		var v2 struct {
			Configuration struct {
				Statuses struct {
					MaxCharacters int `json:"max_characters"`
				} `json:"statuses"`
			} `json:"configuration"`
		}
		if code := s.do("GET", "/api/v2/instance", "", nil, &v2); code != 200 || v2.Configuration.Statuses.MaxCharacters != 500 {
			t.Fatalf("v2 instance: %d %+v", code, v2)
		}
		name := "麻雀"
		acc, err := u.AccountUpdate(ctx, &mastodon.Profile{DisplayName: &name})
		if err != nil || acc.DisplayName != name {
			t.Fatalf("update_credentials: %+v %v", acc, err)
		}
		found, err := u.AccountLookup(ctx, u.Username)
		if err != nil || found.ID != u.ID || found.DisplayName != name {
			t.Fatalf("lookup: %+v %v", found, err)
		}
		if err := u.RevokeToken(ctx); err != nil {
			t.Fatalf("revoke: %v", err)
		}
		if _, err := u.GetAccountCurrentUser(ctx); err == nil {
			t.Fatal("revoked token still works")
		}
	})
}

// TestEventsReachTheBus: posts and edits are relayed from the outbox to the bus.
func TestEventsReachTheBus(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		got := make(chan string, 16)
		err := s.app.Bus.Subscribe(ctx, "e2e_watch", nil, func(_ context.Context, e sparrowEvent) error {
			got <- string(e.Type) + ":" + e.Subject.String()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		u := s.signup("")
		st, _ := u.PostStatus(ctx, &mastodon.Toot{Status: "hello bus"})
		s.do("PUT", "/api/v1/statuses/"+string(st.ID), u.Token, url.Values{"status": {"edited"}}, nil)
		want := map[string]bool{"status.created:" + string(st.ID): true, "status.edited:" + string(st.ID): true}
		deadline := time.After(15 * time.Second)
		for len(want) > 0 {
			select {
			case k := <-got:
				delete(want, k)
			case <-deadline:
				t.Fatalf("events never arrived: %v", want)
			}
		}
	})
}
