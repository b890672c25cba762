package http

import (
	"encoding/json"
	"net/url"
	"reflect"
	"testing"

	"sparrow"
)

// seedFound makes the fake search find n accounts, ids 100..100+n-1.
func seedFound(h *harness, n int) {
	for i := 0; i < n; i++ {
		id := sparrow.ID(100 + i)
		h.relations.found = append(h.relations.found, &sparrow.Account{ID: id, Username: "u" + id.String(), CreatedAt: t0})
	}
}

// accountIDs decodes a JSON array of accounts into their ids.
func accountIDs(t *testing.T, body []byte) []string {
	t.Helper()
	var got []map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %q is not an array: %v", body, err)
	}
	ids := []string{}
	for _, a := range got {
		ids = append(ids, a["id"].(string))
	}
	return ids
}

func TestSearchAccountsNeedsQ(t *testing.T) {
	for _, path := range []string{"/api/v1/accounts/search", "/api/v1/accounts/search?q=", "/api/v1/accounts/search?q=%20%09",
		"/api/v2/search", "/api/v2/search?q=++&type=accounts"} {
		h := newHarness(t)
		w := h.do(t, req{method: "GET", path: path, token: tokUser})
		if w.Code != 400 || h.relations.lastCall() != "" {
			t.Errorf("%s: status %d, call %q; want 400 without a call", path, w.Code, h.relations.lastCall())
			continue
		}
		assertJSONError(t, w.Body.Bytes(), "Missing q parameter")
	}
}

func TestSearchAccounts(t *testing.T) {
	h := newHarness(t)
	seedFound(h, 3)
	w := h.do(t, req{method: "GET", path: "/api/v1/accounts/search?q=%40u1&following=true&resolve=true", token: tokUser})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if f := h.relations; f.query != "u1" || f.limit != 40 || !f.following || f.viewer.AccountID != aliceID {
		t.Errorf("SearchAccounts(q=%q, limit=%d, following=%v) by %+v", f.query, f.limit, f.following, f.viewer)
	}
	if got := accountIDs(t, w.Body.Bytes()); !reflect.DeepEqual(got, []string{"100", "101", "102"}) {
		t.Errorf("ids = %v", got)
	}
	if m := decodeMap(t, []byte(mustJSON(t, w.Body.Bytes(), 0))); m["username"] != "u100" || m["acct"] != "u100" {
		t.Errorf("account = %v", m)
	}

	for q, want := range map[string]int{"": 40, "&limit=0": 40, "&limit=80": 80, "&limit=81": 80, "&limit=5": 5} {
		h.do(t, req{method: "GET", path: "/api/v1/accounts/search?q=u" + q, token: tokUser})
		if h.relations.limit != want || h.relations.following {
			t.Errorf("%q: limit %d following %v, want %d false", q, h.relations.limit, h.relations.following, want)
		}
	}
}

// mustJSON returns element i of a JSON array, re-encoded.
func mustJSON(t *testing.T, body []byte, i int) string {
	t.Helper()
	var arr []json.RawMessage
	if err := json.Unmarshal(body, &arr); err != nil || len(arr) <= i {
		t.Fatalf("body %q has no element %d: %v", body, i, err)
	}
	return string(arr[i])
}

func TestSearchAccountsOffset(t *testing.T) {
	tests := []struct {
		query     string
		code      int
		asked     int // limit passed to the service; 0: not called
		wantFirst string
		wantN     int
	}{
		{"&limit=2&offset=3", 200, 5, "103", 2},
		{"&limit=2&offset=9", 200, 11, "109", 1},
		{"&limit=2&offset=10", 200, 12, "", 0},
		{"&limit=80&offset=920", 200, 1000, "", 0},
		{"&limit=80&offset=921", 200, 0, "", 0},
		{"&offset=9223372036854775807", 200, 0, "", 0},
		{"&offset=-1", 400, 0, "", 0},
		{"&offset=two", 400, 0, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			h := newHarness(t)
			seedFound(h, 10)
			w := h.do(t, req{method: "GET", path: "/api/v1/accounts/search?q=u" + tc.query, token: tokUser})
			if w.Code != tc.code {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.code, w.Body)
			}
			if tc.asked == 0 {
				if h.relations.lastCall() != "" {
					t.Errorf("called %q with limit %d, want no call", h.relations.lastCall(), h.relations.limit)
				}
			} else if h.relations.limit != tc.asked {
				t.Errorf("asked for %d, want %d", h.relations.limit, tc.asked)
			}
			if tc.code != 200 {
				return
			}
			got := accountIDs(t, w.Body.Bytes())
			if len(got) != tc.wantN || (tc.wantN > 0 && got[0] != tc.wantFirst) {
				t.Errorf("ids = %v, want %d from %s", got, tc.wantN, tc.wantFirst)
			}
		})
	}
}

func TestSearchAtSignAlone(t *testing.T) {
	h := newHarness(t)
	seedFound(h, 1)
	w := h.do(t, req{method: "GET", path: "/api/v1/accounts/search?q=%40", token: tokUser})
	if w.Code != 200 || w.Body.String() != "[]\n" || h.relations.lastCall() != "" {
		t.Errorf("q=@: %d %q, call %q; want [] without a call", w.Code, w.Body, h.relations.lastCall())
	}
}

func TestSearchV2(t *testing.T) {
	tests := []struct {
		query    string
		accounts int // 0: no call expected
	}{
		{"", 3},
		{"&type=accounts", 3},
		{"&type=statuses", 0},
		{"&type=hashtags", 0},
		{"&type=bogus", 0},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			h := newHarness(t)
			seedFound(h, 3)
			w := h.do(t, req{method: "GET", path: "/api/v2/search?q=u" + tc.query, token: tokUser})
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			var got struct {
				Accounts []map[string]any `json:"accounts"`
				Statuses []any            `json:"statuses"`
				Hashtags []any            `json:"hashtags"`
			}
			m := decodeMap(t, w.Body.Bytes())
			if len(m) != 3 || m["statuses"] == nil || m["hashtags"] == nil || m["accounts"] == nil {
				t.Fatalf("body = %s, want accounts, statuses and hashtags arrays", w.Body)
			}
			json.Unmarshal(w.Body.Bytes(), &got)
			if len(got.Accounts) != tc.accounts || len(got.Statuses) != 0 || len(got.Hashtags) != 0 {
				t.Errorf("body = %s, want %d accounts", w.Body, tc.accounts)
			}
			if called := h.relations.lastCall() == "SearchAccounts"; called != (tc.accounts > 0) {
				t.Errorf("SearchAccounts called: %v", called)
			}
			if tc.accounts > 0 && (h.relations.limit != 20 || h.relations.query != "u") {
				t.Errorf("SearchAccounts(q=%q, limit=%d), want u and the default 20", h.relations.query, h.relations.limit)
			}
		})
	}
}

func TestSearchV2Params(t *testing.T) {
	h := newHarness(t)
	seedFound(h, 50)
	w := h.do(t, req{method: "GET", path: "/api/v2/search?q=u&limit=100&offset=1&following=1", token: tokUser})
	if w.Code != 200 || h.relations.limit != 41 || !h.relations.following {
		t.Errorf("status %d, asked limit %d following %v; want 40+1 and true", w.Code, h.relations.limit, h.relations.following)
	}
	var got struct{ Accounts []map[string]any }
	json.Unmarshal(w.Body.Bytes(), &got)
	if len(got.Accounts) != 40 || got.Accounts[0]["id"] != "101" {
		t.Errorf("%d accounts from %v, want 40 from 101", len(got.Accounts), got.Accounts[0]["id"])
	}
}

func TestSearchV2Anonymous(t *testing.T) {
	tests := []struct {
		query  string
		code   int
		errMsg string
	}{
		{"&following=true", 200, ""},
		{"&resolve=false", 200, ""},
		{"&offset=0", 401, "Search queries pagination is not supported without authentication"},
		{"&resolve=true", 401, "Search queries that resolve remote resources are not supported without authentication"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			for _, tok := range []string{"", tokApp} {
				h := newHarness(t)
				seedFound(h, 1)
				w := h.do(t, req{method: "GET", path: "/api/v2/search?q=u" + tc.query, token: tok})
				if w.Code != tc.code {
					t.Fatalf("token %q: status %d, want %d: %s", tok, w.Code, tc.code, w.Body)
				}
				if tc.errMsg != "" {
					assertJSONError(t, w.Body.Bytes(), tc.errMsg)
					continue
				}
				if h.relations.lastCall() != "SearchAccounts" || h.relations.following {
					t.Errorf("token %q: call %q following %v; want a search without following", tok, h.relations.lastCall(), h.relations.following)
				}
			}
		})
	}
	// A user may page and resolve.
	h := newHarness(t)
	q := url.Values{"q": {"u"}, "offset": {"0"}, "resolve": {"true"}}
	if w := h.do(t, req{method: "GET", path: "/api/v2/search?" + q.Encode(), token: tokUser}); w.Code != 200 {
		t.Errorf("user with offset and resolve: status %d", w.Code)
	}
}
