package http

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sparrow"
)

// Test fixtures: a user token with all scopes, a read-only user token, an
// app-only token, and the accounts and statuses of the fake services.
const (
	tokUser     = "tok-user"
	tokReadOnly = "tok-read"
	tokApp      = "tok-app"
	tokDown     = "tok-down" // Authenticate fails with EUnavailable
	clientID    = "cid"
	clientSec   = "csecret"
	testBase    = "https://sparrow.test"
	testDomain  = "sparrow.test"
)

var (
	aliceID = sparrow.ID(1<<30 + 1)
	bobID   = sparrow.ID(1<<30 + 2)
	appID   = sparrow.ID(77)
	// t0 is a fixed creation time; statuses get ids at t0 + n minutes.
	t0 = time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)
)

func statusID(n int) sparrow.ID {
	return sparrow.MinIDAt(t0.Add(time.Duration(n)*time.Minute)) | sparrow.ID(n)
}

// fakeAuth is an in-memory AuthService that records what it was asked.
type fakeAuth struct {
	mu        sync.Mutex
	tokens    map[string]sparrow.Viewer
	newApp    sparrow.NewApp
	grant     sparrow.Grant
	authz     sparrow.Authorization
	revoked   []string
	issueErr  error // returned by IssueToken if set
	createErr error
}

func newFakeAuth() *fakeAuth {
	return &fakeAuth{tokens: map[string]sparrow.Viewer{
		tokUser:     {AccountID: aliceID, AppID: appID, Scopes: sparrow.Scopes{"read", "write", "follow"}},
		tokReadOnly: {AccountID: aliceID, AppID: appID, Scopes: sparrow.Scopes{"read"}},
		tokApp:      {AppID: appID, Scopes: sparrow.Scopes{"read", "write"}},
	}}
}

func (f *fakeAuth) app() *sparrow.App {
	return &sparrow.App{ID: appID, Name: "Test <App>", Website: "https://app.example",
		RedirectURIs: []string{"urn:ietf:wg:oauth:2.0:oob", "https://app.example/cb"},
		Scopes:       sparrow.Scopes{"read", "write"}, ClientID: clientID}
}

func (f *fakeAuth) CreateApp(ctx context.Context, n sparrow.NewApp) (*sparrow.App, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.newApp = n
	if f.createErr != nil {
		return nil, "", f.createErr
	}
	if n.Name == "" {
		return nil, "", sparrow.Errorf(sparrow.EInvalid, "Validation failed: Application name can't be blank")
	}
	a := f.app()
	a.Name, a.RedirectURIs = n.Name, n.RedirectURIs
	return a, clientSec, nil
}

func (f *fakeAuth) IssueToken(ctx context.Context, g sparrow.Grant) (*sparrow.IssuedToken, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.grant = g
	if f.issueErr != nil {
		return nil, f.issueErr
	}
	if g.ClientID != clientID || g.ClientSecret != clientSec {
		return nil, sparrow.Errorf(sparrow.EUnauthorized, "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.")
	}
	switch g.GrantType {
	case "client_credentials":
		return &sparrow.IssuedToken{AccessToken: tokApp, Scopes: sparrow.Scopes{"read", "write"}, CreatedAt: 1700000000}, nil
	case "password":
		if g.Username != "alice@example.com" || g.Password != "secret" {
			return nil, sparrow.Errorf(sparrow.EInvalid, "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.")
		}
	case "authorization_code":
		if g.Code != "the-code" {
			return nil, sparrow.Errorf(sparrow.EInvalid, "invalid code")
		}
	}
	return &sparrow.IssuedToken{AccessToken: tokUser, Scopes: sparrow.Scopes{"read", "write", "follow"}, CreatedAt: 1700000000}, nil
}

func (f *fakeAuth) Authorize(ctx context.Context, a sparrow.Authorization) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.authz = a
	switch {
	case a.Email == "ghost@example.com":
		return "", sparrow.Errorf(sparrow.ENotFound, "Invalid email or password.")
	case a.Password == "down":
		return "", sparrow.WrapError(sparrow.EInternal, io.ErrUnexpectedEOF, "db exploded at 10.0.0.7")
	case a.Email != "alice@example.com" || a.Password != "secret":
		return "", sparrow.Errorf(sparrow.EUnauthorized, "Invalid email or password.")
	}
	return "the-code", nil
}

func (f *fakeAuth) Revoke(ctx context.Context, id, secret, token string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != clientID || secret != clientSec {
		return sparrow.Errorf(sparrow.EForbidden, "You are not authorized to revoke this token")
	}
	f.revoked = append(f.revoked, token)
	return nil
}

func (f *fakeAuth) Authenticate(ctx context.Context, bearer string) (sparrow.Viewer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if bearer == tokDown {
		return sparrow.Viewer{}, sparrow.Errorf(sparrow.EUnavailable, "Auth store unavailable")
	}
	v, ok := f.tokens[bearer]
	if !ok {
		return sparrow.Viewer{}, sparrow.Errorf(sparrow.EUnauthorized, "unknown token")
	}
	return v, nil
}

func (f *fakeAuth) AppOf(ctx context.Context, v sparrow.Viewer) (*sparrow.App, error) {
	if v.AppID != appID {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	return f.app(), nil
}

// fakeAccounts is an in-memory AccountService holding alice and bob.
type fakeAccounts struct {
	mu       sync.Mutex
	accounts map[sparrow.ID]*sparrow.Account
	reg      sparrow.Registration
	regBy    sparrow.Viewer
	update   sparrow.AccountUpdate
	err      error // returned by every method if set
}

func newFakeAccounts() *fakeAccounts {
	return &fakeAccounts{accounts: map[sparrow.ID]*sparrow.Account{
		aliceID: {ID: aliceID, Username: "alice", Email: "alice@example.com", PasswordHash: "$argon2id$secret",
			DisplayName: "Alice <3", Note: "Hello & welcome\nto <my> page", CreatedAt: t0,
			StatusesCount: 2, FollowersCount: 3, FollowingCount: 4, LastStatusAt: t0.Add(48 * time.Hour)},
		bobID: {ID: bobID, Username: "bob", Email: "bob@example.com", CreatedAt: t0},
	}}
}

func (f *fakeAccounts) Register(ctx context.Context, v sparrow.Viewer, r sparrow.Registration) (*sparrow.IssuedToken, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reg, f.regBy = r, v
	if f.err != nil {
		return nil, f.err
	}
	return &sparrow.IssuedToken{AccessToken: "tok-new", Scopes: sparrow.Scopes{"read", "write"}, CreatedAt: 1700000001}, nil
}

func (f *fakeAccounts) Account(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	a, ok := f.accounts[id]
	if !ok {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	return a, nil
}

func (f *fakeAccounts) Lookup(ctx context.Context, v sparrow.Viewer, acct string) (*sparrow.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	name, _, _ := strings.Cut(acct, "@")
	for _, a := range f.accounts {
		if strings.EqualFold(a.Username, name) {
			return a, nil
		}
	}
	return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
}

func (f *fakeAccounts) UpdateCredentials(ctx context.Context, v sparrow.Viewer, u sparrow.AccountUpdate) (*sparrow.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.update = u
	a := *f.accounts[v.AccountID]
	if u.DisplayName != nil {
		a.DisplayName = *u.DisplayName
	}
	if u.Note != nil {
		a.Note = *u.Note
	}
	if u.Locked != nil {
		a.Locked = *u.Locked
	}
	if u.Bot != nil {
		a.Bot = *u.Bot
	}
	return &a, nil
}

// panicID is a status id whose lookup panics, to test recovery.
const panicID = sparrow.ID(666)

// fakeStatuses is an in-memory StatusService.
type fakeStatuses struct {
	mu       sync.Mutex
	accounts *fakeAccounts
	statuses map[sparrow.ID]*sparrow.Status
	posted   sparrow.PostStatus
	edited   sparrow.EditStatus
	filter   sparrow.StatusFilter
	page     sparrow.Page
	feed     []sparrow.ID // what AccountStatuses returns
	err      error        // returned by every method if set
}

func newFakeStatuses(accounts *fakeAccounts) *fakeStatuses {
	return &fakeStatuses{accounts: accounts, statuses: map[sparrow.ID]*sparrow.Status{}}
}

func (f *fakeStatuses) add(s *sparrow.Status) *sparrow.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statuses[s.ID] = s
	return s
}

// view builds the view of a status, as a service would.
func (f *fakeStatuses) view(s *sparrow.Status) *sparrow.StatusView {
	sv := &sparrow.StatusView{Status: s, Accounts: map[sparrow.ID]*sparrow.Account{}}
	sv.Accounts[s.AccountID] = f.accounts.accounts[s.AccountID]
	for _, m := range s.Mentions {
		if a := f.accounts.accounts[m]; a != nil {
			sv.Accounts[m] = a
		}
	}
	if s.ReblogOfID != 0 {
		if r := f.statuses[s.ReblogOfID]; r != nil {
			sv.Reblog = f.view(r)
		}
	}
	if s.QuoteID != 0 {
		if q := f.statuses[s.QuoteID]; q != nil {
			sv.Quote = f.view(q)
		}
	}
	return sv
}

func (f *fakeStatuses) Post(ctx context.Context, v sparrow.Viewer, p sparrow.PostStatus) (*sparrow.StatusView, error) {
	f.mu.Lock()
	f.posted = p
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	if p.Text == "" {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Validation failed: Text can't be blank")
	}
	s := f.add(&sparrow.Status{ID: statusID(100), AccountID: v.AccountID, Text: p.Text, Visibility: p.Visibility,
		SpoilerText: p.SpoilerText, Sensitive: p.Sensitive, Language: p.Language, InReplyToID: p.InReplyToID})
	return f.view(s), nil
}

func (f *fakeStatuses) Status(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	if id == panicID {
		panic("fake status store exploded")
	}
	if f.err != nil {
		return nil, f.err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.statuses[id]
	if !ok {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	return f.view(s), nil
}

func (f *fakeStatuses) Edit(ctx context.Context, v sparrow.Viewer, id sparrow.ID, e sparrow.EditStatus) (*sparrow.StatusView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.edited = e
	s, ok := f.statuses[id]
	if !ok || s.AccountID != v.AccountID {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	c := *s
	c.Text, c.SpoilerText, c.Sensitive, c.EditedAt = e.Text, e.SpoilerText, e.Sensitive, t0.Add(time.Hour)
	f.statuses[id] = &c
	return f.view(&c), nil
}

func (f *fakeStatuses) Delete(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.statuses[id]
	if !ok || s.AccountID != v.AccountID {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	delete(f.statuses, id)
	return f.view(s), nil
}

func (f *fakeStatuses) History(ctx context.Context, v sparrow.Viewer, id sparrow.ID) ([]sparrow.StatusEdit, *sparrow.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.statuses[id]
	if !ok {
		return nil, nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	return []sparrow.StatusEdit{
		{StatusID: id, Version: 1, Text: "first <draft>", CreatedAt: t0},
		{StatusID: id, Version: 2, Text: s.Text, SpoilerText: "cw", Sensitive: true, CreatedAt: t0.Add(time.Hour)},
	}, f.accounts.accounts[s.AccountID], nil
}

func (f *fakeStatuses) AccountStatuses(ctx context.Context, v sparrow.Viewer, accountID sparrow.ID, flt sparrow.StatusFilter, p sparrow.Page) ([]*sparrow.StatusView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filter, f.page = flt, p
	if f.err != nil {
		return nil, f.err
	}
	var out []*sparrow.StatusView
	for _, id := range f.feed {
		if s := f.statuses[id]; s != nil && p.Contains(id) && len(out) < p.Limit {
			out = append(out, f.view(s))
		}
	}
	return out, nil
}

// fakeRelations is a RelationService that records its last call and answers
// from canned data: relationships are built from the call, lists page over
// edges and search returns found.
type fakeRelations struct {
	mu            sync.Mutex
	calls         []string // method names, in call order
	viewer        sparrow.Viewer
	target        sparrow.ID // single-target methods; Following/Followers' account
	opts          sparrow.FollowOptions
	notifications bool
	ids           []sparrow.ID // Relationships, BulkFollow
	page          sparrow.Page
	edges         []sparrow.AccountEdge // what the lists page over, newest first
	query         string
	limit         int
	following     bool
	found         []*sparrow.Account // what SearchAccounts returns, up to limit
	err           error              // returned by every method if set
}

func (f *fakeRelations) record(method string, v sparrow.Viewer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, method)
	f.viewer = v
	return f.err
}

// lastCall returns the last method called, or "".
func (f *fakeRelations) lastCall() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return ""
	}
	return f.calls[len(f.calls)-1]
}

func (f *fakeRelations) one(method string, v sparrow.Viewer, target sparrow.ID, rel sparrow.Relationship) (*sparrow.Relationship, error) {
	if err := f.record(method, v); err != nil {
		return nil, err
	}
	f.target = target
	rel.ID = target
	return &rel, nil
}

func (f *fakeRelations) Follow(ctx context.Context, v sparrow.Viewer, target sparrow.ID, o sparrow.FollowOptions) (*sparrow.Relationship, error) {
	f.opts = o
	reblogs := o.Reblogs == nil || *o.Reblogs
	notify := o.Notify != nil && *o.Notify
	return f.one("Follow", v, target, sparrow.Relationship{Following: true, ShowingReblogs: reblogs, Notifying: notify})
}

func (f *fakeRelations) AuthorizeFollowRequest(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	return f.one("AuthorizeFollowRequest", v, target, sparrow.Relationship{FollowedBy: true})
}

func (f *fakeRelations) RejectFollowRequest(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	return f.one("RejectFollowRequest", v, target, sparrow.Relationship{})
}

func (f *fakeRelations) FollowRequests(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	return f.list("FollowRequests", v, v.AccountID, p)
}

func (f *fakeRelations) Unfollow(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	return f.one("Unfollow", v, target, sparrow.Relationship{})
}

func (f *fakeRelations) Block(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	return f.one("Block", v, target, sparrow.Relationship{Blocking: true})
}

func (f *fakeRelations) Unblock(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	return f.one("Unblock", v, target, sparrow.Relationship{})
}

func (f *fakeRelations) Mute(ctx context.Context, v sparrow.Viewer, target sparrow.ID, notifications bool) (*sparrow.Relationship, error) {
	f.notifications = notifications
	return f.one("Mute", v, target, sparrow.Relationship{Muting: true, MutingNotifs: notifications})
}

func (f *fakeRelations) Unmute(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	return f.one("Unmute", v, target, sparrow.Relationship{})
}

func (f *fakeRelations) many(method string, v sparrow.Viewer, ids []sparrow.ID, following bool) ([]*sparrow.Relationship, error) {
	if err := f.record(method, v); err != nil {
		return nil, err
	}
	f.ids = ids
	out := make([]*sparrow.Relationship, len(ids))
	for i, id := range ids {
		out[i] = &sparrow.Relationship{ID: id, Following: following, ShowingReblogs: following}
	}
	return out, nil
}

func (f *fakeRelations) BulkFollow(ctx context.Context, v sparrow.Viewer, targets []sparrow.ID) ([]*sparrow.Relationship, error) {
	return f.many("BulkFollow", v, targets, true)
}

func (f *fakeRelations) Relationships(ctx context.Context, v sparrow.Viewer, ids []sparrow.ID) ([]*sparrow.Relationship, error) {
	return f.many("Relationships", v, ids, false)
}

// list pages f.edges by cursor, newest first (descending pages only).
func (f *fakeRelations) list(method string, v sparrow.Viewer, account sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	if err := f.record(method, v); err != nil {
		return nil, err
	}
	f.target, f.page = account, p
	var out []sparrow.AccountEdge
	for _, e := range f.edges {
		if p.Contains(e.Cursor) && len(out) < p.Limit {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f *fakeRelations) Following(ctx context.Context, v sparrow.Viewer, account sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	return f.list("Following", v, account, p)
}

func (f *fakeRelations) Followers(ctx context.Context, v sparrow.Viewer, account sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	return f.list("Followers", v, account, p)
}

func (f *fakeRelations) Blocks(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	return f.list("Blocks", v, 0, p)
}

func (f *fakeRelations) Mutes(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	return f.list("Mutes", v, 0, p)
}

func (f *fakeRelations) SearchAccounts(ctx context.Context, v sparrow.Viewer, q string, limit int, following bool) ([]*sparrow.Account, error) {
	if err := f.record("SearchAccounts", v); err != nil {
		return nil, err
	}
	f.query, f.limit, f.following = q, limit, following
	return f.found[:min(limit, len(f.found))], nil
}

// harness is a Server on fakes, with its log captured.
type harness struct {
	srv       *Server
	h         http.Handler
	auth      *fakeAuth
	accounts  *fakeAccounts
	statuses  *fakeStatuses
	relations *fakeRelations
	reg       *prometheus.Registry
	log       *bytes.Buffer
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	auth, accounts := newFakeAuth(), newFakeAccounts()
	statuses := newFakeStatuses(accounts)
	relations := &fakeRelations{}
	log := &bytes.Buffer{}
	reg := prometheus.NewRegistry()
	srv := &Server{
		Auth: auth, Accounts: accounts, Statuses: statuses, Relations: relations,
		Instance: func(context.Context) sparrow.Instance {
			return sparrow.Instance{Title: "Sparrow Test", Description: "A test server", Version: "0.1.0",
				SourceURL: "https://example.com/sparrow", MaxChars: 500, Registrations: true,
				ContactEmail: "admin@sparrow.test", UserCount: 2, StatusCount: 5}
		},
		Domain: testDomain, BaseURL: testBase + "/",
		Logger:       slog.New(slog.NewTextHandler(log, nil)),
		Registry:     reg,
		MaxBodyBytes: 4 << 10,
	}
	return &harness{srv: srv, h: srv.Handler(), auth: auth, accounts: accounts, statuses: statuses, relations: relations, reg: reg, log: log}
}

// req describes a test request.
type req struct {
	method, path string
	token        string // bearer token, or ""
	ctype        string
	body         string
	header       http.Header
}

func (h *harness) do(t *testing.T, r req) *httptest.ResponseRecorder {
	t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr := httptest.NewRequest(r.method, r.path, body)
	hr.RemoteAddr = "192.0.2.7:54321"
	if r.ctype != "" {
		hr.Header.Set("Content-Type", r.ctype)
	}
	if r.token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.token)
	}
	for k, vs := range r.header {
		hr.Header[k] = vs
	}
	w := httptest.NewRecorder()
	h.h.ServeHTTP(w, hr)
	return w
}
