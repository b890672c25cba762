package http

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"sparrow"
)

const formType = "application/x-www-form-urlencoded"

func accountPath(id sparrow.ID, action string) string {
	return "/api/v1/accounts/" + id.String() + "/" + action
}

func TestRelationshipEntity(t *testing.T) {
	rel := relationship(&sparrow.Relationship{ID: bobID, Following: true, FollowedBy: false, Blocking: true,
		BlockedBy: true, Muting: false, MutingNotifs: true, Requested: true, ShowingReblogs: false, Notifying: true})
	data, _ := json.Marshal(rel)
	got := decodeMap(t, data)
	want := map[string]any{
		"id": bobID.String(), "following": true, "showing_reblogs": false, "notifying": true, "languages": nil,
		"followed_by": false, "blocking": true, "blocked_by": true, "muting": false, "muting_notifications": true,
		"requested": true, "requested_by": false, "domain_blocking": false, "endorsed": false, "note": "",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("relationship = %v\nwant           %v", got, want)
	}
}

func TestFollowOptions(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name           string
		r              req
		reblogs, notif *bool
	}{
		{"no options", req{}, nil, nil},
		{"form options", req{ctype: formType, body: "reblogs=false&notify=1"}, &no, &yes},
		{"json options", req{ctype: "application/json", body: `{"reblogs":true}`}, &yes, nil},
		{"query options", req{path: "?notify=false"}, nil, &no},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			r := tc.r
			r.method, r.path, r.token = "POST", accountPath(bobID, "follow")+r.path, tokUser
			w := h.do(t, r)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			f := h.relations
			if f.lastCall() != "Follow" || f.target != bobID || f.viewer.AccountID != aliceID {
				t.Errorf("call %q target %v viewer %+v", f.lastCall(), f.target, f.viewer)
			}
			if !reflect.DeepEqual(f.opts.Reblogs, tc.reblogs) || !reflect.DeepEqual(f.opts.Notify, tc.notif) {
				t.Errorf("options reblogs=%v notify=%v, want %v %v", f.opts.Reblogs, f.opts.Notify, tc.reblogs, tc.notif)
			}
			m := decodeMap(t, w.Body.Bytes())
			if m["id"] != bobID.String() || m["following"] != true || m["showing_reblogs"] != (tc.reblogs == nil || *tc.reblogs) {
				t.Errorf("relationship = %v", m)
			}
		})
	}
}

func TestRelationActions(t *testing.T) {
	tests := []struct {
		action, method, field string // field: the relationship flag the fake sets
	}{
		{"unfollow", "Unfollow", ""},
		{"block", "Block", "blocking"},
		{"unblock", "Unblock", ""},
		{"mute", "Mute", "muting"},
		{"unmute", "Unmute", ""},
	}
	for _, tc := range tests {
		t.Run(tc.action, func(t *testing.T) {
			h := newHarness(t)
			w := h.do(t, req{method: "POST", path: accountPath(bobID, tc.action), token: tokUser})
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if c := h.relations.lastCall(); c != tc.method || h.relations.target != bobID {
				t.Errorf("called %q on %v, want %s on bob", c, h.relations.target, tc.method)
			}
			m := decodeMap(t, w.Body.Bytes())
			if m["id"] != bobID.String() || (tc.field != "" && m[tc.field] != true) {
				t.Errorf("relationship = %v", m)
			}
		})
	}
}

func TestRelationActionErrors(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "POST", path: "/api/v1/accounts/nope/follow", token: tokUser})
	if w.Code != 404 || h.relations.lastCall() != "" {
		t.Errorf("malformed id: status %d, call %q; want 404 without a call", w.Code, h.relations.lastCall())
	}
	for kind, code := range map[sparrow.Kind]int{sparrow.EForbidden: 403, sparrow.ENotFound: 404, sparrow.EInvalid: 422} {
		h.relations.err = sparrow.Errorf(kind, "refused: %v", kind)
		w := h.do(t, req{method: "POST", path: accountPath(bobID, "follow"), token: tokUser})
		if w.Code != code {
			t.Errorf("%v: status %d, want %d", kind, w.Code, code)
		}
		assertJSONError(t, w.Body.Bytes(), fmt.Sprintf("refused: %v", kind))
	}
}

func TestMuteParams(t *testing.T) {
	tests := []struct {
		name, body string
		code       int
		notif      bool
	}{
		{"default hides notifications", "", 200, true},
		{"notifications=false", "notifications=false", 200, false},
		{"notifications=true", "notifications=true", 200, true},
		{"indefinite duration", "duration=0", 200, true},
		{"timed mute", "duration=3600", 422, false},
		{"malformed duration", "duration=soon", 400, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do(t, req{method: "POST", path: accountPath(bobID, "mute"), token: tokUser, ctype: formType, body: tc.body})
			if w.Code != tc.code {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.code, w.Body)
			}
			if tc.code != 200 {
				if h.relations.lastCall() != "" {
					t.Errorf("rejected mute called %q", h.relations.lastCall())
				}
				return
			}
			if h.relations.lastCall() != "Mute" || h.relations.notifications != tc.notif {
				t.Errorf("call %q notifications %v, want Mute %v", h.relations.lastCall(), h.relations.notifications, tc.notif)
			}
		})
	}
}

// idValues returns n distinct account ids as strings.
func idValues(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = sparrow.ID(1000 + i).String()
	}
	return out
}

// idForms are the encodings of an id list accepted by the bulk endpoints.
func idForms(method, path string, ids []string) map[string]req {
	q := url.Values{"id[]": ids}.Encode()
	js, _ := json.Marshal(map[string][]string{"id": ids})
	jsBrackets, _ := json.Marshal(map[string][]string{"id[]": ids})
	return map[string]req{
		"query id[]":      {method: method, path: path + "?" + q},
		"form id[]":       {method: method, path: path, ctype: formType, body: q},
		"json id array":   {method: method, path: path, ctype: "application/json", body: string(js)},
		"json id[] array": {method: method, path: path, ctype: "application/json", body: string(jsBrackets)},
	}
}

func TestRelationshipsIDForms(t *testing.T) {
	ids := []string{bobID.String(), aliceID.String()}
	for name, r := range idForms("GET", "/api/v1/accounts/relationships", ids) {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			r.token = tokUser
			w := h.do(t, r)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if want := []sparrow.ID{bobID, aliceID}; !reflect.DeepEqual(h.relations.ids, want) {
				t.Errorf("service got %v, want %v", h.relations.ids, want)
			}
			var got []map[string]any
			json.Unmarshal(w.Body.Bytes(), &got)
			if len(got) != 2 || got[0]["id"] != bobID.String() || got[1]["id"] != aliceID.String() {
				t.Errorf("body = %s", w.Body)
			}
		})
	}
	t.Run("query single id", func(t *testing.T) {
		h := newHarness(t)
		h.do(t, req{method: "GET", path: "/api/v1/accounts/relationships?id=" + bobID.String(), token: tokUser})
		if want := []sparrow.ID{bobID}; !reflect.DeepEqual(h.relations.ids, want) {
			t.Errorf("service got %v, want %v", h.relations.ids, want)
		}
	})
}

func TestRelationshipsSkipsMalformedAndDuplicateIDs(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "GET", token: tokUser,
		path: "/api/v1/accounts/relationships?id[]=abc&id[]=" + bobID.String() + "&id[]=-3&id[]=&id[]=" + bobID.String() + "&id[]=0&id[]=7"})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if want := []sparrow.ID{bobID, 7}; !reflect.DeepEqual(h.relations.ids, want) {
		t.Errorf("service got %v, want %v", h.relations.ids, want)
	}
}

func TestRelationshipsWithoutIDs(t *testing.T) {
	for _, path := range []string{"/api/v1/accounts/relationships", "/api/v1/accounts/relationships?id[]=x"} {
		h := newHarness(t)
		w := h.do(t, req{method: "GET", path: path, token: tokUser})
		if w.Code != 200 || w.Body.String() != "[]\n" || h.relations.lastCall() != "" {
			t.Errorf("%s: %d %q, call %q; want [] without a call", path, w.Code, w.Body, h.relations.lastCall())
		}
	}
}

func TestBulkIDLimit(t *testing.T) {
	for _, ep := range []struct{ method, path, call string }{
		{"GET", "/api/v1/accounts/relationships", "Relationships"},
		{"POST", "/api/v1/x/follows", "BulkFollow"},
	} {
		for name, r := range idForms(ep.method, ep.path, idValues(sparrow.MaxBulk+1)) {
			t.Run(ep.call+" over the limit/"+name, func(t *testing.T) {
				h := newHarness(t)
				r.token = tokUser
				h.srv.MaxBodyBytes = 1 << 20
				h.h = h.srv.Handler()
				w := h.do(t, r)
				if w.Code != 422 || h.relations.lastCall() != "" {
					t.Fatalf("status %d, call %q; want 422 without a call: %s", w.Code, h.relations.lastCall(), w.Body)
				}
				assertJSONError(t, w.Body.Bytes(), fmt.Sprintf("Too many ids: at most %d are allowed", sparrow.MaxBulk))
			})
		}
		t.Run(ep.call+" at the limit", func(t *testing.T) {
			h := newHarness(t)
			h.srv.MaxBodyBytes = 1 << 20
			h.h = h.srv.Handler()
			r := idForms(ep.method, ep.path, idValues(sparrow.MaxBulk))["form id[]"]
			r.token = tokUser
			w := h.do(t, r)
			if w.Code != 200 || h.relations.lastCall() != ep.call || len(h.relations.ids) != sparrow.MaxBulk {
				t.Errorf("status %d, call %q with %d ids; want 200 and %d ids", w.Code, h.relations.lastCall(), len(h.relations.ids), sparrow.MaxBulk)
			}
		})
	}
}

func TestBulkFollow(t *testing.T) {
	ids := []string{bobID.String(), "junk", "42"}
	for name, r := range idForms("POST", "/api/v1/x/follows", ids) {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			r.token = tokUser
			w := h.do(t, r)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if want := []sparrow.ID{bobID, 42}; h.relations.lastCall() != "BulkFollow" || !reflect.DeepEqual(h.relations.ids, want) {
				t.Errorf("call %q with %v, want BulkFollow %v", h.relations.lastCall(), h.relations.ids, want)
			}
			if h.relations.viewer.AccountID != aliceID {
				t.Errorf("viewer = %+v", h.relations.viewer)
			}
			var got []map[string]any
			json.Unmarshal(w.Body.Bytes(), &got)
			if len(got) != 2 || got[0]["id"] != bobID.String() || got[0]["following"] != true || got[1]["id"] != "42" {
				t.Errorf("body = %s", w.Body)
			}
		})
	}
	t.Run("missing id", func(t *testing.T) {
		h := newHarness(t)
		w := h.do(t, req{method: "POST", path: "/api/v1/x/follows", token: tokUser, ctype: "application/json", body: `{"id":[]}`})
		if w.Code != 400 || h.relations.lastCall() != "" {
			t.Errorf("status %d, call %q; want 400 without a call", w.Code, h.relations.lastCall())
		}
	})
	t.Run("only malformed ids", func(t *testing.T) {
		h := newHarness(t)
		w := h.do(t, req{method: "POST", path: "/api/v1/x/follows?id[]=junk", token: tokUser})
		if w.Code != 200 || w.Body.String() != "[]\n" || h.relations.lastCall() != "" {
			t.Errorf("status %d %q, call %q; want [] without a call", w.Code, w.Body, h.relations.lastCall())
		}
	})
}

// seedEdges gives the fake relation lists n edges whose cursors (edge ids)
// differ from their accounts' ids: edge i (newest first) has cursor
// statusID(n-i) and account bob or alice, alternately.
func seedEdges(h *harness, n int) {
	for i := 0; i < n; i++ {
		a := h.accounts.accounts[bobID]
		if i%2 == 1 {
			a = h.accounts.accounts[aliceID]
		}
		h.relations.edges = append(h.relations.edges, sparrow.AccountEdge{Account: a, Cursor: statusID(n - i)})
	}
}

func TestRelationListsLinkFromCursors(t *testing.T) {
	tests := []struct{ path, call, token string }{
		{accountPath(aliceID, "following"), "Following", ""},
		{accountPath(aliceID, "followers"), "Followers", tokUser},
		{"/api/v1/blocks", "Blocks", tokUser},
		{"/api/v1/mutes", "Mutes", tokUser},
	}
	for _, tc := range tests {
		t.Run(tc.call, func(t *testing.T) {
			h := newHarness(t)
			seedEdges(h, 5)
			w := h.do(t, req{method: "GET", path: tc.path + "?limit=2&foo=bar", token: tc.token})
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if h.relations.lastCall() != tc.call || h.relations.page.Limit != 2 {
				t.Errorf("call %q page %+v", h.relations.lastCall(), h.relations.page)
			}
			if strings.Contains(tc.path, "/accounts/") && h.relations.target != aliceID {
				t.Errorf("listed account %v, want alice", h.relations.target)
			}
			var got []map[string]any
			json.Unmarshal(w.Body.Bytes(), &got)
			if len(got) != 2 || got[0]["id"] != bobID.String() || got[1]["id"] != aliceID.String() {
				t.Errorf("body = %s", w.Body)
			}
			next, prev := parseLink(t, w.Header().Get("Link"))
			if q := next.Query(); q.Get("max_id") != statusID(4).String() || q.Get("limit") != "2" || q.Get("foo") != "bar" || next.Path != tc.path {
				t.Errorf("next = %s, want max_id = the last edge's cursor %v", next, statusID(4))
			}
			if q := prev.Query(); q.Get("min_id") != statusID(5).String() || q.Has("max_id") {
				t.Errorf("prev = %s, want min_id = the first edge's cursor %v", prev, statusID(5))
			}

			// Following next gives the older edges.
			w = h.do(t, req{method: "GET", path: next.RequestURI(), token: tc.token})
			got = nil
			json.Unmarshal(w.Body.Bytes(), &got)
			if h.relations.page.MaxID != statusID(4) || len(got) != 2 || got[0]["id"] != bobID.String() {
				t.Errorf("next page: page %+v, body %s", h.relations.page, w.Body)
			}
		})
	}
}

func TestRelationListPaging(t *testing.T) {
	h := newHarness(t)
	path := accountPath(bobID, "followers")
	for q, want := range map[string]int{"": 40, "?limit=0": 40, "?limit=80": 80, "?limit=500": 80, "?limit=x": 40, "?limit=3": 3} {
		if w := h.do(t, req{method: "GET", path: path + q}); w.Code != 200 || h.relations.page.Limit != want {
			t.Errorf("%q: status %d, limit %d, want %d", q, w.Code, h.relations.page.Limit, want)
		}
	}
	if w := h.do(t, req{method: "GET", path: path + "?max_id=x"}); w.Code != 400 {
		t.Errorf("malformed max_id: status %d, want 400", w.Code)
	}
	h.do(t, req{method: "GET", path: path + "?since_id=5&min_id=6&max_id=9"})
	if p := h.relations.page; p.SinceID != 5 || p.MinID != 6 || p.MaxID != 9 {
		t.Errorf("page = %+v", p)
	}
	w := h.do(t, req{method: "GET", path: path})
	if w.Body.String() != "[]\n" || w.Header().Get("Link") != "" {
		t.Errorf("empty list: %q with Link %q, want [] without Link", w.Body, w.Header().Get("Link"))
	}
}

func TestRelationListSkipsMissingAccounts(t *testing.T) {
	h := newHarness(t)
	h.relations.edges = []sparrow.AccountEdge{{Account: h.accounts.accounts[bobID], Cursor: 30}, {Cursor: 20}}
	w := h.do(t, req{method: "GET", path: "/api/v1/blocks", token: tokUser})
	var got []map[string]any
	json.Unmarshal(w.Body.Bytes(), &got)
	if len(got) != 1 || got[0]["id"] != bobID.String() {
		t.Errorf("body = %s, want bob only", w.Body)
	}
	next, _ := parseLink(t, w.Header().Get("Link"))
	if next.Query().Get("max_id") != "20" {
		t.Errorf("next = %s, want the account-less edge's cursor 20", next)
	}
}

func TestRelationAccess(t *testing.T) {
	tokFollow, tokWrite, tokReadAccounts := "tok-follow", "tok-write", "tok-read-accounts"
	tests := []struct {
		name   string
		r      req
		code   int
		errMsg string
	}{
		{"anonymous follow", req{method: "POST", path: accountPath(bobID, "follow")}, 401, msgInvalidToken},
		{"read-only follow", req{method: "POST", path: accountPath(bobID, "follow"), token: tokReadOnly}, 403, msgOutsideScopes},
		{"read-only block", req{method: "POST", path: accountPath(bobID, "block"), token: tokReadOnly}, 403, msgOutsideScopes},
		{"read-only mute", req{method: "POST", path: accountPath(bobID, "mute"), token: tokReadOnly}, 403, msgOutsideScopes},
		{"read-only bulk follow", req{method: "POST", path: "/api/v1/x/follows?id=5", token: tokReadOnly}, 403, msgOutsideScopes},
		{"app token follow", req{method: "POST", path: accountPath(bobID, "follow"), token: tokApp}, 422, msgUserRequired},
		{"follow scope follows", req{method: "POST", path: accountPath(bobID, "follow"), token: tokFollow}, 200, ""},
		{"write scope unfollows", req{method: "POST", path: accountPath(bobID, "unfollow"), token: tokWrite}, 200, ""},
		{"anonymous relationships", req{method: "GET", path: "/api/v1/accounts/relationships?id=5"}, 401, msgInvalidToken},
		{"read-only relationships", req{method: "GET", path: "/api/v1/accounts/relationships?id=5", token: tokReadOnly}, 200, ""},
		{"write-only relationships", req{method: "GET", path: "/api/v1/accounts/relationships?id=5", token: tokWrite}, 403, msgOutsideScopes},
		{"anonymous followers", req{method: "GET", path: accountPath(bobID, "followers")}, 200, ""},
		{"anonymous following", req{method: "GET", path: accountPath(bobID, "following")}, 200, ""},
		{"write-only following", req{method: "GET", path: accountPath(bobID, "following"), token: tokWrite}, 403, msgOutsideScopes},
		{"anonymous blocks", req{method: "GET", path: "/api/v1/blocks"}, 401, msgInvalidToken},
		{"app token mutes", req{method: "GET", path: "/api/v1/mutes", token: tokApp}, 422, msgUserRequired},
		{"follow scope blocks", req{method: "GET", path: "/api/v1/blocks", token: tokFollow}, 200, ""},
		{"write-only mutes", req{method: "GET", path: "/api/v1/mutes", token: tokWrite}, 403, msgOutsideScopes},
		{"anonymous account search", req{method: "GET", path: "/api/v1/accounts/search?q=bob"}, 401, msgInvalidToken},
		{"app token account search", req{method: "GET", path: "/api/v1/accounts/search?q=bob", token: tokApp}, 422, msgUserRequired},
		{"read:accounts account search", req{method: "GET", path: "/api/v1/accounts/search?q=bob", token: tokReadAccounts}, 200, ""},
		{"anonymous v2 search", req{method: "GET", path: "/api/v2/search?q=bob"}, 200, ""},
		{"read:accounts v2 search", req{method: "GET", path: "/api/v2/search?q=bob", token: tokReadAccounts}, 403, msgOutsideScopes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.auth.tokens[tokFollow] = sparrow.Viewer{AccountID: aliceID, AppID: appID, Scopes: sparrow.Scopes{"follow"}}
			h.auth.tokens[tokWrite] = sparrow.Viewer{AccountID: aliceID, AppID: appID, Scopes: sparrow.Scopes{"write"}}
			h.auth.tokens[tokReadAccounts] = sparrow.Viewer{AccountID: aliceID, AppID: appID, Scopes: sparrow.Scopes{"read:accounts"}}
			w := h.do(t, tc.r)
			if w.Code != tc.code {
				t.Fatalf("status = %d, want %d; body %s", w.Code, tc.code, w.Body)
			}
			if tc.errMsg != "" {
				assertJSONError(t, w.Body.Bytes(), tc.errMsg)
				if c := h.relations.lastCall(); c != "" {
					t.Errorf("refused request called %q", c)
				}
			}
		})
	}
}
