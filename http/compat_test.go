package http

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	mastodon "github.com/mattn/go-mastodon"
)

// TestGoMastodonClient drives the API with the go-mastodon client that
// Sparrow must serve unmodified, over the fake services: it catches entity
// shapes that the client cannot decode and paging it cannot follow.
func TestGoMastodonClient(t *testing.T) {
	h := newHarness(t)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.h.ServeHTTP(w, r) }))
	defer ts.Close()
	h.srv.BaseURL = ts.URL // Link headers must lead back to this server
	h.h = h.srv.Handler()
	seedFeed(h, 5)
	ctx := context.Background()

	app, err := mastodon.RegisterApp(ctx, &mastodon.AppConfig{Server: ts.URL, ClientName: "go-mastodon", Scopes: "read write follow"})
	if err != nil {
		t.Fatalf("RegisterApp: %v", err)
	}
	if app.ClientID != clientID || app.ClientSecret != clientSec || app.ID != mastodon.ID(appID.String()) {
		t.Errorf("app = %+v", app)
	}

	c := mastodon.NewClient(&mastodon.Config{Server: ts.URL, ClientID: app.ClientID, ClientSecret: app.ClientSecret})
	if _, ierr := c.GetInstance(ctx); ierr != nil { // anonymous, with an empty bearer
		t.Fatalf("GetInstance anonymously: %v", ierr)
	}
	if aerr := c.Authenticate(ctx, "alice@example.com", "wrong"); aerr == nil {
		t.Error("Authenticate with a wrong password succeeded")
	}
	if aerr := c.Authenticate(ctx, "alice@example.com", "secret"); aerr != nil {
		t.Fatalf("Authenticate: %v", aerr)
	}

	me, err := c.GetAccountCurrentUser(ctx)
	if err != nil {
		t.Fatalf("GetAccountCurrentUser: %v", err)
	}
	if me.ID != mastodon.ID(aliceID.String()) || me.Username != "alice" || me.CreatedAt.IsZero() || me.Source == nil {
		t.Errorf("me = %+v", me)
	}

	st, err := c.PostStatus(ctx, &mastodon.Toot{Status: "hello #go", Visibility: mastodon.VisibilityUnlisted})
	if err != nil {
		t.Fatalf("PostStatus: %v", err)
	}
	if st.Visibility != "unlisted" || st.Account.Username != "alice" || st.CreatedAt.IsZero() {
		t.Errorf("posted = %+v", st)
	}
	if got, gerr := c.GetStatus(ctx, st.ID); gerr != nil || got.ID != st.ID {
		t.Errorf("GetStatus: %v, %v", got, gerr)
	}

	var ids []mastodon.ID
	for s, serr := range c.AccountStatuses(ctx, mastodon.ID(aliceID.String()), &mastodon.Pagination{Limit: 2}) {
		if serr != nil {
			t.Fatalf("AccountStatuses: %v", serr)
		}
		ids = append(ids, s.ID)
		if len(ids) > 10 {
			t.Fatal("paging does not end")
		}
	}
	if len(ids) != 5 || ids[0] != mastodon.ID(statusID(5).String()) || ids[4] != mastodon.ID(statusID(1).String()) {
		t.Errorf("paged ids = %v", ids)
	}

	if in, ierr := c.GetInstance(ctx); ierr != nil || in.Stats == nil || in.Stats.UserCount != 2 || in.Version == "" {
		t.Errorf("GetInstance: %+v, %v", in, ierr)
	}
	if v, verr := c.VerifyAppCredentials(ctx); verr != nil || v.Name != "Test <App>" {
		t.Errorf("VerifyAppCredentials: %+v, %v", v, verr)
	}
	if _, herr := c.GetStatusHistory(ctx, st.ID); herr != nil {
		t.Errorf("GetStatusHistory: %v", herr)
	}
	if src, serr := c.GetStatusSource(ctx, st.ID); serr != nil || src.Text != "hello #go" {
		t.Errorf("GetStatusSource: %+v, %v", src, serr)
	}
	if _, uerr := c.UpdateStatus(ctx, &mastodon.Toot{Status: "edited"}, st.ID); uerr != nil {
		t.Errorf("UpdateStatus: %v", uerr)
	}
	if derr := c.DeleteStatus(ctx, st.ID); derr != nil {
		t.Errorf("DeleteStatus: %v", derr)
	}
	_, err = c.GetStatus(ctx, st.ID)
	var apiErr *mastodon.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Message != "Record not found" {
		t.Errorf("GetStatus after delete: %v", err)
	}
	if err := c.RevokeToken(ctx); err != nil {
		t.Errorf("RevokeToken: %v", err)
	}

	// A reblog with a quote decodes too.
	seedThread(h)
	if _, err := c.GetStatus(ctx, mastodon.ID(statusID(3).String())); err != nil {
		t.Errorf("GetStatus(reblog): %v", err)
	}
}

// TestGoMastodonRelations drives the relation and search endpoints with
// go-mastodon: relationships decode, and paging followers through Link
// headers built from edge cursors visits every account once and ends.
func TestGoMastodonRelations(t *testing.T) {
	h := newHarness(t)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.h.ServeHTTP(w, r) }))
	defer ts.Close()
	h.srv.BaseURL = ts.URL
	h.h = h.srv.Handler()
	seedEdges(h, 5)
	seedFound(h, 2)
	ctx := context.Background()
	c := mastodon.NewClient(&mastodon.Config{Server: ts.URL, AccessToken: tokUser})
	bob := mastodon.ID(bobID.String())

	if rel, err := c.AccountFollow(ctx, bob); err != nil || rel.ID != bob || !rel.Following || !rel.ShowingReblogs {
		t.Errorf("AccountFollow: %+v, %v", rel, err)
	}
	if rel, err := c.AccountMute(ctx, bob); err != nil || !rel.Muting || !rel.MutingNotifications {
		t.Errorf("AccountMute: %+v, %v", rel, err)
	}
	if rel, err := c.AccountBlock(ctx, bob); err != nil || !rel.Blocking {
		t.Errorf("AccountBlock: %+v, %v", rel, err)
	}
	rels, err := c.GetAccountRelationships(ctx, []string{bobID.String(), aliceID.String()})
	if err != nil || len(rels) != 2 || rels[0].ID != bob {
		t.Errorf("GetAccountRelationships: %+v, %v", rels, err)
	}

	var cursors []mastodon.ID
	pg := &mastodon.Pagination{Limit: 2}
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("paging followers does not end")
		}
		accounts, err := c.GetAccountFollowers(ctx, mastodon.ID(aliceID.String()), pg)
		if err != nil {
			t.Fatalf("GetAccountFollowers: %v", err)
		}
		if len(accounts) == 0 {
			break
		}
		cursors = append(cursors, pg.MaxID)
		pg = &mastodon.Pagination{Limit: 2, MaxID: pg.MaxID}
	}
	want := []mastodon.ID{mastodon.ID(statusID(4).String()), mastodon.ID(statusID(2).String()), mastodon.ID(statusID(1).String())}
	if !reflect.DeepEqual(cursors, want) {
		t.Errorf("next cursors = %v, want the edges' %v", cursors, want)
	}

	if as, err := c.AccountsSearch(ctx, "u", 10); err != nil || len(as) != 2 || as[0].Username != "u100" {
		t.Errorf("AccountsSearch: %+v, %v", as, err)
	}
	if res, err := c.Search(ctx, "u", false); err != nil || len(res.Accounts) != 2 || res.Statuses == nil || res.Hashtags == nil {
		t.Errorf("Search: %+v, %v", res, err)
	}
	if bl, err := c.GetBlocks(ctx, nil); err != nil || len(bl) != 5 {
		t.Errorf("GetBlocks: %d, %v", len(bl), err)
	}
}
