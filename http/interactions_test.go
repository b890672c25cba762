package http

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"sparrow"
)

// fakeInteractions is an InteractionService over the harness's fake
// statuses: it records its last call and answers from canned data. Statuses
// it does not know are ENotFound; reblogging a private or direct status is
// EForbidden, as the service contract says.
type fakeInteractions struct {
	mu       sync.Mutex
	statuses *fakeStatuses
	calls    []string
	viewer   sparrow.Viewer
	id       sparrow.ID
	vis      sparrow.Visibility
	page     sparrow.Page
	comment  int                   // the page Comments was asked for
	edges    []sparrow.AccountEdge // what RebloggedBy and FavouritedBy page over, newest first
	favs     []sparrow.StatusEdge  // what Favourites pages over, newest first
	thread   *sparrow.ContextView  // what Context returns
	comments sparrow.CommentPage   // what Comments returns (Page set from the call)
	err      error                 // returned by every method if set
}

// record notes a call on id and returns the view of id (nil for id 0), or
// f.err, or ENotFound.
func (f *fakeInteractions) record(method string, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	f.mu.Lock()
	f.calls = append(f.calls, method)
	f.viewer, f.id = v, id
	err := f.err
	f.mu.Unlock()
	if err != nil || id == 0 {
		return nil, err
	}
	f.statuses.mu.Lock()
	defer f.statuses.mu.Unlock()
	s, ok := f.statuses.statuses[id]
	if !ok {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	return f.statuses.view(s), nil
}

// lastCall returns the last method called, or "".
func (f *fakeInteractions) lastCall() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return ""
	}
	return f.calls[len(f.calls)-1]
}

func (f *fakeInteractions) Context(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.ContextView, error) {
	if _, err := f.record("Context", v, id); err != nil {
		return nil, err
	}
	return f.thread, nil
}

func (f *fakeInteractions) Comments(ctx context.Context, v sparrow.Viewer, id sparrow.ID, page int) (*sparrow.CommentPage, error) {
	if _, err := f.record("Comments", v, id); err != nil {
		return nil, err
	}
	f.comment = page
	cp := f.comments
	cp.Page = page
	return &cp, nil
}

func (f *fakeInteractions) Reblog(ctx context.Context, v sparrow.Viewer, id sparrow.ID, vis sparrow.Visibility) (*sparrow.StatusView, error) {
	orig, err := f.record("Reblog", v, id)
	if err != nil {
		return nil, err
	}
	f.vis = vis
	if ov := orig.Status.Visibility; ov == sparrow.Private || ov == sparrow.Direct {
		return nil, sparrow.Errorf(sparrow.EForbidden, "This action is not allowed")
	}
	if vis == "" {
		vis = sparrow.Public
	}
	rb := f.statuses.add(&sparrow.Status{ID: statusID(50), AccountID: v.AccountID, ReblogOfID: id, Visibility: vis})
	f.statuses.mu.Lock()
	sv := f.statuses.view(rb)
	f.statuses.mu.Unlock()
	sv.Reblog.Reblogged = true
	return sv, nil
}

func (f *fakeInteractions) Unreblog(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	return f.record("Unreblog", v, id)
}

func (f *fakeInteractions) RebloggedBy(ctx context.Context, v sparrow.Viewer, id sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	return f.accounts("RebloggedBy", v, id, p)
}

func (f *fakeInteractions) Favourite(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	sv, err := f.record("Favourite", v, id)
	if sv != nil {
		sv.Favourited = true
	}
	return sv, err
}

func (f *fakeInteractions) Unfavourite(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	return f.record("Unfavourite", v, id)
}

func (f *fakeInteractions) FavouritedBy(ctx context.Context, v sparrow.Viewer, id sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	return f.accounts("FavouritedBy", v, id, p)
}

// accounts pages f.edges by cursor (descending pages only).
func (f *fakeInteractions) accounts(method string, v sparrow.Viewer, id sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	if _, err := f.record(method, v, id); err != nil {
		return nil, err
	}
	f.page = p
	var out []sparrow.AccountEdge
	for _, e := range f.edges {
		if p.Contains(e.Cursor) && len(out) < p.Limit {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f *fakeInteractions) Favourites(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]sparrow.StatusEdge, error) {
	if _, err := f.record("Favourites", v, 0); err != nil {
		return nil, err
	}
	f.page = p
	var out []sparrow.StatusEdge
	for _, e := range f.favs {
		if p.Contains(e.Cursor) && len(out) < p.Limit {
			out = append(out, e)
		}
	}
	return out, nil
}

// Statuses of the interaction tests: bob's public and private statuses.
var (
	publicID  = statusID(1)
	privateID = statusID(2)
)

// newInteractionHarness is a harness whose server has a fakeInteractions,
// with bob's public and private statuses stored.
func newInteractionHarness(t *testing.T) (*harness, *fakeInteractions) {
	t.Helper()
	h := newHarness(t)
	h.statuses.add(&sparrow.Status{ID: publicID, AccountID: bobID, Text: "public", Visibility: sparrow.Public})
	h.statuses.add(&sparrow.Status{ID: privateID, AccountID: bobID, Text: "private", Visibility: sparrow.Private})
	f := &fakeInteractions{statuses: h.statuses}
	h.srv.Interactions = f
	h.h = h.srv.Handler()
	return h, f
}

// view returns the fake's view of a stored status.
func (h *harness) view(id sparrow.ID) *sparrow.StatusView {
	h.statuses.mu.Lock()
	defer h.statuses.mu.Unlock()
	return h.statuses.view(h.statuses.statuses[id])
}

func statusPath(id sparrow.ID, action string) string {
	return "/api/v1/statuses/" + id.String() + "/" + action
}

// errorMessage returns the "error" of a JSON error body, failing if there is none.
func errorMessage(t *testing.T, body []byte) string {
	t.Helper()
	msg, ok := decodeMap(t, body)["error"].(string)
	if !ok || msg == "" {
		t.Fatalf("body %s has no error message", body)
	}
	return msg
}

func TestReblog(t *testing.T) {
	tests := []struct {
		name string
		r    req
		want sparrow.Visibility // what the service gets
	}{
		{"default visibility", req{}, ""},
		{"form unlisted", req{ctype: formType, body: "visibility=unlisted"}, sparrow.Unlisted},
		{"json private", req{ctype: "application/json", body: `{"visibility":"private"}`}, sparrow.Private},
		{"query public", req{path: "?visibility=public"}, sparrow.Public},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, f := newInteractionHarness(t)
			r := tc.r
			r.method, r.path, r.token = "POST", statusPath(publicID, "reblog")+r.path, tokUser
			w := h.do(t, r)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if f.lastCall() != "Reblog" || f.id != publicID || f.viewer.AccountID != aliceID || f.vis != tc.want {
				t.Errorf("call %q id %v viewer %+v visibility %q, want Reblog of %v by alice with %q",
					f.lastCall(), f.id, f.viewer, f.vis, publicID, tc.want)
			}
			got := decodeMap(t, w.Body.Bytes())
			wantVis := string(tc.want)
			if wantVis == "" {
				wantVis = "public"
			}
			if got["id"] != statusID(50).String() || got["visibility"] != wantVis {
				t.Errorf("reblog id %v visibility %v, want %v %s", got["id"], got["visibility"], statusID(50), wantVis)
			}
			if acct, _ := got["account"].(map[string]any); acct["id"] != aliceID.String() {
				t.Errorf("reblog account = %v, want alice", got["account"])
			}
			inner, ok := got["reblog"].(map[string]any)
			if !ok || inner["id"] != publicID.String() || inner["reblogged"] != true || inner["favourited"] != false {
				t.Errorf("nested reblog = %v, want the original with reblogged true", got["reblog"])
			}
			if got["reblogged"] != false {
				t.Errorf("wrapper reblogged = %v, want the wrapper view's own flag (false)", got["reblogged"])
			}
		})
	}
}

func TestReblogErrors(t *testing.T) {
	tests := []struct {
		name   string
		r      req
		code   int
		errMsg string // "" = any message
		called bool   // whether the service is reached
	}{
		{"anonymous", req{path: statusPath(publicID, "reblog")}, 401, msgInvalidToken, false},
		{"read-only token", req{path: statusPath(publicID, "reblog"), token: tokReadOnly}, 403, msgOutsideScopes, false},
		{"app token", req{path: statusPath(publicID, "reblog"), token: tokApp}, 422, msgUserRequired, false},
		{"direct visibility", req{path: statusPath(publicID, "reblog") + "?visibility=direct", token: tokUser}, 422, "", false},
		{"unknown visibility", req{path: statusPath(publicID, "reblog") + "?visibility=everyone", token: tokUser}, 422, "", false},
		{"malformed id", req{path: "/api/v1/statuses/abc/reblog", token: tokUser}, 404, msgNotFound, false},
		{"unknown status", req{path: statusPath(statusID(9), "reblog"), token: tokUser}, 404, msgNotFound, true},
		{"private status", req{path: statusPath(privateID, "reblog"), token: tokUser}, 403, "This action is not allowed", true},
		{"unreblog anonymous", req{path: statusPath(publicID, "unreblog")}, 401, msgInvalidToken, false},
		{"unreblog unknown", req{path: statusPath(statusID(9), "unreblog"), token: tokUser}, 404, msgNotFound, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, f := newInteractionHarness(t)
			r := tc.r
			r.method = "POST"
			w := h.do(t, r)
			if w.Code != tc.code {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.code, w.Body)
			}
			msg := errorMessage(t, w.Body.Bytes())
			if tc.errMsg != "" && msg != tc.errMsg {
				t.Errorf("error %q, want %q", msg, tc.errMsg)
			}
			if called := f.lastCall() != ""; called != tc.called {
				t.Errorf("service called: %v (%q), want %v", called, f.lastCall(), tc.called)
			}
		})
	}
}

func TestUnreblogAnswersOriginal(t *testing.T) {
	h, f := newInteractionHarness(t)
	w := h.do(t, req{method: "POST", path: statusPath(publicID, "unreblog"), token: tokUser})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if f.lastCall() != "Unreblog" || f.id != publicID || f.viewer.AccountID != aliceID {
		t.Errorf("call %q id %v viewer %+v", f.lastCall(), f.id, f.viewer)
	}
	got := decodeMap(t, w.Body.Bytes())
	if got["id"] != publicID.String() || got["reblog"] != nil || got["reblogged"] != false {
		t.Errorf("body = %v, want the original with reblogged false", got)
	}
}

func TestFavourite(t *testing.T) {
	tokWriteFavs, tokWriteStatuses := "tok-write-favs", "tok-write-statuses"
	tests := []struct {
		path, token, call string
		code              int
		favourited        any
	}{
		{statusPath(publicID, "favourite"), tokUser, "Favourite", 200, true},
		{statusPath(publicID, "favourite"), tokWriteFavs, "Favourite", 200, true},
		{statusPath(publicID, "unfavourite"), tokUser, "Unfavourite", 200, false},
		{statusPath(publicID, "favourite"), "", "", 401, nil},
		{statusPath(publicID, "unfavourite"), "", "", 401, nil},
		{statusPath(publicID, "favourite"), tokReadOnly, "", 403, nil},
		{statusPath(publicID, "favourite"), tokWriteStatuses, "", 403, nil},
		{statusPath(publicID, "unfavourite"), tokApp, "", 422, nil},
		{statusPath(statusID(9), "favourite"), tokUser, "Favourite", 404, nil},
		{statusPath(statusID(9), "unfavourite"), tokUser, "Unfavourite", 404, nil},
		{"/api/v1/statuses/0/favourite", tokUser, "", 404, nil},
	}
	for _, tc := range tests {
		t.Run(tc.path+" "+tc.token, func(t *testing.T) {
			h, f := newInteractionHarness(t)
			h.auth.tokens[tokWriteFavs] = sparrow.Viewer{AccountID: aliceID, AppID: appID, Scopes: sparrow.Scopes{"write:favourites"}}
			h.auth.tokens[tokWriteStatuses] = sparrow.Viewer{AccountID: aliceID, AppID: appID, Scopes: sparrow.Scopes{"write:statuses"}}
			w := h.do(t, req{method: "POST", path: tc.path, token: tc.token})
			if w.Code != tc.code {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.code, w.Body)
			}
			if f.lastCall() != tc.call {
				t.Errorf("call %q, want %q", f.lastCall(), tc.call)
			}
			if tc.code != 200 {
				errorMessage(t, w.Body.Bytes())
				return
			}
			got := decodeMap(t, w.Body.Bytes())
			if got["id"] != publicID.String() || got["favourited"] != tc.favourited || f.viewer.AccountID != aliceID {
				t.Errorf("id %v favourited %v viewer %+v, want %v %v alice", got["id"], got["favourited"], f.viewer, publicID, tc.favourited)
			}
		})
	}
}

// seedInteractionEdges gives the fake n account edges whose cursors differ
// from the accounts' ids: edge i (newest first) has cursor statusID(n-i) and
// account bob or alice, alternately.
func seedInteractionEdges(h *harness, f *fakeInteractions, n int) {
	for i := 0; i < n; i++ {
		a := h.accounts.accounts[bobID]
		if i%2 == 1 {
			a = h.accounts.accounts[aliceID]
		}
		f.edges = append(f.edges, sparrow.AccountEdge{Account: a, Cursor: statusID(n - i)})
	}
}

func TestInteractionAccountLists(t *testing.T) {
	for _, action := range []string{"reblogged_by", "favourited_by"} {
		call := map[string]string{"reblogged_by": "RebloggedBy", "favourited_by": "FavouritedBy"}[action]
		t.Run(action, func(t *testing.T) {
			h, f := newInteractionHarness(t)
			seedInteractionEdges(h, f, 5)
			f.edges[2].Account = nil // deleted meanwhile: left out, but bounds the page
			path := statusPath(publicID, action)
			w := h.do(t, req{method: "GET", path: path + "?limit=3&foo=bar"})
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if f.lastCall() != call || f.id != publicID || !f.viewer.Anonymous() || f.page.Limit != 3 {
				t.Errorf("call %q id %v viewer %+v page %+v", f.lastCall(), f.id, f.viewer, f.page)
			}
			got := decodeList(t, w.Body.Bytes())
			if len(got) != 2 || got[0]["id"] != bobID.String() || got[1]["id"] != aliceID.String() {
				t.Errorf("body = %s, want bob then alice", w.Body)
			}
			next, prev := parseLink(t, w.Header().Get("Link"))
			if q := next.Query(); q.Get("max_id") != statusID(3).String() || q.Get("limit") != "3" || q.Get("foo") != "bar" || next.Path != path {
				t.Errorf("next = %s, want max_id = the last edge's cursor %v", next, statusID(3))
			}
			if q := prev.Query(); q.Get("min_id") != statusID(5).String() || q.Has("max_id") {
				t.Errorf("prev = %s, want min_id = the first edge's cursor %v", prev, statusID(5))
			}

			for q, want := range map[string]int{"": 40, "?limit=80": 80, "?limit=500": 80, "?limit=x": 40} {
				if w := h.do(t, req{method: "GET", path: path + q}); w.Code != 200 || f.page.Limit != want {
					t.Errorf("%q: status %d, limit %d, want %d", q, w.Code, f.page.Limit, want)
				}
			}
			h.do(t, req{method: "GET", path: path + "?since_id=5&min_id=6&max_id=9"})
			if p := f.page; p.SinceID != 5 || p.MinID != 6 || p.MaxID != 9 {
				t.Errorf("page = %+v", p)
			}
			if w := h.do(t, req{method: "GET", path: path + "?max_id=x"}); w.Code != 400 {
				t.Errorf("malformed max_id: status %d, want 400", w.Code)
			}
			f.edges = nil
			if w := h.do(t, req{method: "GET", path: path}); w.Body.String() != "[]\n" || w.Header().Get("Link") != "" {
				t.Errorf("empty list: %q with Link %q, want [] without Link", w.Body, w.Header().Get("Link"))
			}
			if w := h.do(t, req{method: "GET", path: statusPath(statusID(9), action)}); w.Code != 404 {
				t.Errorf("unknown status: %d, want 404", w.Code)
			}
		})
	}
}

func TestInteractionAccountListsAccess(t *testing.T) {
	tokReadAccounts, tokWrite := "tok-read-accounts", "tok-write-only"
	tests := []struct {
		token string
		code  int
	}{
		{"", 200},
		{tokUser, 200},
		{tokApp, 200},
		{tokReadAccounts, 200},
		{tokWrite, 403},
		{"bogus", 401},
	}
	for _, tc := range tests {
		h, _ := newInteractionHarness(t)
		h.auth.tokens[tokReadAccounts] = sparrow.Viewer{AccountID: aliceID, Scopes: sparrow.Scopes{"read:accounts"}}
		h.auth.tokens[tokWrite] = sparrow.Viewer{AccountID: aliceID, Scopes: sparrow.Scopes{"write"}}
		for _, action := range []string{"reblogged_by", "favourited_by"} {
			if w := h.do(t, req{method: "GET", path: statusPath(publicID, action), token: tc.token}); w.Code != tc.code {
				t.Errorf("%s with %q: status %d, want %d", action, tc.token, w.Code, tc.code)
			}
		}
	}
}

func TestFavouritesList(t *testing.T) {
	h, f := newInteractionHarness(t)
	h.statuses.add(&sparrow.Status{ID: statusID(3), AccountID: aliceID, Text: "mine", Visibility: sparrow.Unlisted})
	fav := func(id sparrow.ID) *sparrow.StatusView {
		sv := h.view(id)
		sv.Favourited = true
		return sv
	}
	// Cursors are the favourites' ids, unrelated to the statuses' ids.
	f.favs = []sparrow.StatusEdge{
		{Status: fav(publicID), Cursor: 900},
		{Status: nil, Cursor: 800}, // deleted meanwhile
		{Status: fav(statusID(3)), Cursor: 700},
		{Status: fav(privateID), Cursor: 600},
	}
	w := h.do(t, req{method: "GET", path: "/api/v1/favourites?limit=3", token: tokUser})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if f.lastCall() != "Favourites" || f.viewer.AccountID != aliceID || f.page.Limit != 3 {
		t.Errorf("call %q viewer %+v page %+v", f.lastCall(), f.viewer, f.page)
	}
	got := decodeList(t, w.Body.Bytes())
	if len(got) != 2 || got[0]["id"] != publicID.String() || got[1]["id"] != statusID(3).String() {
		t.Fatalf("body = %s, want the public status then alice's", w.Body)
	}
	for _, st := range got {
		if st["favourited"] != true {
			t.Errorf("status %v favourited = %v, want true", st["id"], st["favourited"])
		}
	}
	next, prev := parseLink(t, w.Header().Get("Link"))
	if q := next.Query(); q.Get("max_id") != "700" || q.Get("limit") != "3" || next.Path != "/api/v1/favourites" {
		t.Errorf("next = %s, want max_id=700 (the last edge's cursor)", next)
	}
	if q := prev.Query(); q.Get("min_id") != "900" {
		t.Errorf("prev = %s, want min_id=900 (the first edge's cursor)", prev)
	}
	w = h.do(t, req{method: "GET", path: next.RequestURI(), token: tokUser})
	if got := decodeList(t, w.Body.Bytes()); f.page.MaxID != 700 || len(got) != 1 || got[0]["id"] != privateID.String() {
		t.Errorf("next page: page %+v, body %s", f.page, w.Body)
	}

	for q, want := range map[string]int{"": 20, "?limit=40": 40, "?limit=41": 40, "?limit=-1": 20} {
		if w := h.do(t, req{method: "GET", path: "/api/v1/favourites" + q, token: tokUser}); w.Code != 200 || f.page.Limit != want {
			t.Errorf("%q: status %d, limit %d, want %d", q, w.Code, f.page.Limit, want)
		}
	}
}

func TestFavouritesListAccess(t *testing.T) {
	tokReadFavs, tokReadStatuses := "tok-read-favs", "tok-read-statuses"
	tests := []struct {
		token string
		code  int
	}{
		{"", 401},
		{tokApp, 422},
		{tokReadStatuses, 403},
		{tokReadFavs, 200},
		{tokReadOnly, 200},
	}
	for _, tc := range tests {
		h, f := newInteractionHarness(t)
		h.auth.tokens[tokReadFavs] = sparrow.Viewer{AccountID: aliceID, Scopes: sparrow.Scopes{"read:favourites"}}
		h.auth.tokens[tokReadStatuses] = sparrow.Viewer{AccountID: aliceID, Scopes: sparrow.Scopes{"read:statuses"}}
		w := h.do(t, req{method: "GET", path: "/api/v1/favourites", token: tc.token})
		if w.Code != tc.code {
			t.Errorf("token %q: status %d, want %d: %s", tc.token, w.Code, tc.code, w.Body)
		}
		if called := f.lastCall() != ""; called != (tc.code == 200) {
			t.Errorf("token %q: service called %v", tc.token, called)
		}
		if tc.code == 200 && w.Body.String() != "[]\n" {
			t.Errorf("token %q: empty favourites = %q, want []", tc.token, w.Body)
		}
	}
}

func TestStatusContext(t *testing.T) {
	h, f := newInteractionHarness(t)
	h.statuses.add(&sparrow.Status{ID: statusID(3), AccountID: aliceID, Text: "reply", InReplyToID: publicID, InReplyToAccountID: bobID})
	h.statuses.add(&sparrow.Status{ID: statusID(4), AccountID: bobID, Text: "reply 2", InReplyToID: statusID(3), InReplyToAccountID: aliceID})
	f.thread = &sparrow.ContextView{
		Ancestors:   []*sparrow.StatusView{h.view(publicID)},
		Descendants: []*sparrow.StatusView{h.view(statusID(4)), nil},
	}
	w := h.do(t, req{method: "GET", path: statusPath(statusID(3), "context")})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if f.lastCall() != "Context" || f.id != statusID(3) || !f.viewer.Anonymous() {
		t.Errorf("call %q id %v viewer %+v", f.lastCall(), f.id, f.viewer)
	}
	var got struct {
		Ancestors   []map[string]any `json:"ancestors"`
		Descendants []map[string]any `json:"descendants"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Ancestors) != 1 || got.Ancestors[0]["id"] != publicID.String() {
		t.Errorf("ancestors = %v", got.Ancestors)
	}
	if len(got.Descendants) != 1 || got.Descendants[0]["id"] != statusID(4).String() || got.Descendants[0]["in_reply_to_id"] != statusID(3).String() {
		t.Errorf("descendants = %v", got.Descendants)
	}
	if m := decodeMap(t, w.Body.Bytes()); len(m) != 2 {
		t.Errorf("context keys = %v, want ancestors and descendants only", m)
	}

	// An empty thread has arrays, not nulls.
	f.thread = &sparrow.ContextView{}
	w = h.do(t, req{method: "GET", path: statusPath(publicID, "context"), token: tokUser})
	if w.Code != 200 || w.Body.String() != `{"ancestors":[],"descendants":[]}`+"\n" {
		t.Errorf("empty context: %d %s", w.Code, w.Body)
	}
	if w := h.do(t, req{method: "GET", path: statusPath(statusID(9), "context")}); w.Code != 404 || errorMessage(t, w.Body.Bytes()) != msgNotFound {
		t.Errorf("unknown status: %d %s", w.Code, w.Body)
	}
	if w := h.do(t, req{method: "GET", path: statusPath(publicID, "context"), token: "bogus"}); w.Code != 401 {
		t.Errorf("bad token: %d, want 401", w.Code)
	}
}

// commentsPath is the comment pages' path of a status, with a query.
func commentsPath(id sparrow.ID, query string) string {
	return "/api/v1/x/statuses/" + id.String() + "/comments" + query
}

func TestComments(t *testing.T) {
	h, f := newInteractionHarness(t)
	h.statuses.add(&sparrow.Status{ID: statusID(3), AccountID: aliceID, Text: "first", InReplyToID: publicID})
	h.statuses.add(&sparrow.Status{ID: statusID(4), AccountID: bobID, Text: "second", InReplyToID: publicID})
	f.comments = sparrow.CommentPage{PageSize: 3, Pages: 4,
		Statuses: []*sparrow.StatusView{h.view(statusID(3)), h.view(statusID(4))}} // short: one deleted

	tests := []struct {
		query      string
		page       int
		next, prev any // JSON values
	}{
		{"", 0, 1.0, nil},
		{"?page=0", 0, 1.0, nil},
		{"?page=1", 1, 2.0, 0.0},
		{"?page=3", 3, nil, 2.0},
		{"?page=7", 7, nil, 3.0}, // past the end: prev is the last page
		{"?page=%2B2", 2, 3.0, 1.0},
	}
	for _, tc := range tests {
		w := h.do(t, req{method: "GET", path: commentsPath(publicID, tc.query)})
		if w.Code != 200 {
			t.Fatalf("%q: status %d: %s", tc.query, w.Code, w.Body)
		}
		if f.lastCall() != "Comments" || f.id != publicID || f.comment != tc.page {
			t.Errorf("%q: call %q id %v page %d, want page %d", tc.query, f.lastCall(), f.id, f.comment, tc.page)
		}
		got := decodeMap(t, w.Body.Bytes())
		want := map[string]any{"page": float64(tc.page), "page_size": 3.0, "pages": 4.0, "next_page": tc.next, "prev_page": tc.prev}
		sts, _ := got["statuses"].([]any)
		delete(got, "statuses")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: body = %v, want %v", tc.query, got, want)
		}
		if len(sts) != 2 || sts[0].(map[string]any)["id"] != statusID(3).String() || sts[1].(map[string]any)["id"] != statusID(4).String() {
			t.Errorf("%q: statuses = %v, want the page's two comments, oldest first", tc.query, sts)
		}
	}
	if w := h.do(t, req{method: "GET", path: commentsPath(publicID, "?page=1"), token: tokUser}); w.Code != 200 || f.viewer.AccountID != aliceID {
		t.Errorf("with a token: status %d viewer %+v", w.Code, f.viewer)
	}
}

func TestCommentsEmptyAndErrors(t *testing.T) {
	h, f := newInteractionHarness(t)
	w := h.do(t, req{method: "GET", path: commentsPath(publicID, "")})
	if w.Code != 200 || w.Body.String() != `{"page":0,"page_size":0,"pages":0,"next_page":null,"prev_page":null,"statuses":[]}`+"\n" {
		t.Errorf("no comments: %d %s", w.Code, w.Body)
	}
	for _, q := range []string{"?page=-1", "?page=x", "?page=1.5", "?page=99999999999999999999"} {
		f.calls = nil
		w := h.do(t, req{method: "GET", path: commentsPath(publicID, q)})
		if w.Code != 422 || !strings.Contains(errorMessage(t, w.Body.Bytes()), "page") {
			t.Errorf("%q: %d %s, want 422 naming page", q, w.Code, w.Body)
		}
		if f.lastCall() != "" {
			t.Errorf("%q: service called", q)
		}
	}
	if w := h.do(t, req{method: "GET", path: commentsPath(statusID(9), "")}); w.Code != 404 {
		t.Errorf("unknown status: %d, want 404", w.Code)
	}
	if w := h.do(t, req{method: "GET", path: "/api/v1/x/statuses/x/comments"}); w.Code != 404 {
		t.Errorf("malformed id: %d, want 404", w.Code)
	}
}

func TestInteractionServiceErrorsPassThrough(t *testing.T) {
	h, f := newInteractionHarness(t)
	f.err = sparrow.Errorf(sparrow.EForbidden, "Nope")
	for _, r := range []req{
		{method: "POST", path: statusPath(publicID, "favourite"), token: tokUser},
		{method: "POST", path: statusPath(publicID, "unreblog"), token: tokUser},
		{method: "GET", path: statusPath(publicID, "context")},
		{method: "GET", path: statusPath(publicID, "favourited_by")},
		{method: "GET", path: "/api/v1/favourites", token: tokUser},
		{method: "GET", path: commentsPath(publicID, "")},
	} {
		if w := h.do(t, r); w.Code != 403 || errorMessage(t, w.Body.Bytes()) != "Nope" {
			t.Errorf("%s %s: %d %s, want 403 Nope", r.method, r.path, w.Code, w.Body)
		}
	}
}

func TestInteractionsUnavailable(t *testing.T) {
	h := newHarness(t) // no InteractionService
	h.statuses.add(&sparrow.Status{ID: publicID, AccountID: bobID, Text: "public"})
	for _, r := range []req{
		{method: "POST", path: statusPath(publicID, "reblog"), token: tokUser},
		{method: "POST", path: statusPath(publicID, "favourite"), token: tokUser},
		{method: "GET", path: statusPath(publicID, "reblogged_by")},
		{method: "GET", path: "/api/v1/favourites", token: tokUser},
		{method: "GET", path: statusPath(publicID, "context")},
		{method: "GET", path: commentsPath(publicID, "")},
	} {
		if w := h.do(t, r); w.Code != 503 {
			t.Errorf("%s %s: %d, want 503", r.method, r.path, w.Code)
		}
	}
}

func TestStatusInteractionFlags(t *testing.T) {
	h := newHarness(t)
	h.statuses.add(&sparrow.Status{ID: publicID, AccountID: bobID, Text: "original"})
	h.statuses.add(&sparrow.Status{ID: statusID(3), AccountID: aliceID, ReblogOfID: publicID})
	sv := h.view(statusID(3))
	sv.Favourited, sv.Reblogged = false, false
	sv.Reblog.Favourited, sv.Reblog.Reblogged = true, true

	rd := renderer{base: testBase, domain: testDomain, viewer: sparrow.Viewer{AccountID: aliceID}}
	st, err := rd.status(sv)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(st)
	got := decodeMap(t, data)
	inner := got["reblog"].(map[string]any)
	if got["favourited"] != false || got["reblogged"] != false || inner["favourited"] != true || inner["reblogged"] != true {
		t.Errorf("flags: wrapper %v/%v nested %v/%v, want false/false and true/true",
			got["favourited"], got["reblogged"], inner["favourited"], inner["reblogged"])
	}
	if inner["muted"] != false || inner["bookmarked"] != false {
		t.Errorf("muted %v bookmarked %v, want false", inner["muted"], inner["bookmarked"])
	}

	sv.Favourited = true
	st, _ = rd.status(sv)
	if *st.Favourited != true {
		t.Errorf("wrapper favourited = %v, want the wrapper view's flag", *st.Favourited)
	}

	// Anonymous viewers get no viewer flags at all, whatever the view says.
	anon := renderer{base: testBase, domain: testDomain}
	st, _ = anon.status(sv)
	data, _ = json.Marshal(st)
	got = decodeMap(t, data)
	inner = got["reblog"].(map[string]any)
	for _, m := range []map[string]any{got, inner} {
		for _, k := range []string{"favourited", "reblogged"} {
			if _, ok := m[k]; ok {
				t.Errorf("anonymous: %s present in %v", k, m["id"])
			}
		}
	}
}
