package http

import (
	"encoding/json"
	"net/url"
	"regexp"
	"testing"

	"sparrow"
)

// seedFeed stores n statuses by alice, ids statusID(1..n), as her feed (newest first).
func seedFeed(h *harness, n int) {
	for i := n; i >= 1; i-- {
		h.statuses.add(&sparrow.Status{ID: statusID(i), AccountID: aliceID, Text: "s"})
		h.statuses.feed = append(h.statuses.feed, statusID(i))
	}
}

var linkRE = regexp.MustCompile(`^<([^>]+)>; rel="next", <([^>]+)>; rel="prev"$`)

func parseLink(t *testing.T, link string) (next, prev *url.URL) {
	t.Helper()
	m := linkRE.FindStringSubmatch(link)
	if m == nil {
		t.Fatalf("Link = %q, want next and prev", link)
	}
	next, err1 := url.Parse(m[1])
	prev, err2 := url.Parse(m[2])
	if err1 != nil || err2 != nil {
		t.Fatalf("Link URLs: %v %v", err1, err2)
	}
	return next, prev
}

func TestAccountStatusesLinkHeader(t *testing.T) {
	h := newHarness(t)
	seedFeed(h, 5)
	path := "/api/v1/accounts/" + aliceID.String() + "/statuses"
	w := h.do(t, req{method: "GET", path: path + "?limit=2&exclude_replies=true&only_media=0&access_token=" + tokUser + "&since_id=" + statusID(1).String()})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var got []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got) != 2 {
		t.Fatalf("body: %v %s", err, w.Body)
	}
	if got[0]["id"] != statusID(5).String() || got[1]["id"] != statusID(4).String() {
		t.Errorf("ids = %v, %v", got[0]["id"], got[1]["id"])
	}
	if p := h.statuses.page; p.Limit != 2 || p.SinceID != statusID(1) || p.MaxID != 0 {
		t.Errorf("page = %+v", p)
	}
	if f := h.statuses.filter; !f.ExcludeReplies || f.OnlyMedia || f.ExcludeReblogs || f.Pinned {
		t.Errorf("filter = %+v", f)
	}

	next, prev := parseLink(t, w.Header().Get("Link"))
	for _, u := range []*url.URL{next, prev} {
		if u.Scheme+"://"+u.Host != testBase || u.Path != path {
			t.Errorf("link %s not on BaseURL and path", u)
		}
		q := u.Query()
		if q.Get("limit") != "2" || q.Get("exclude_replies") != "true" || q.Get("only_media") != "0" {
			t.Errorf("link %s lost the other parameters", u)
		}
		if q.Has("access_token") || q.Has("since_id") {
			t.Errorf("link %s keeps access_token or since_id", u)
		}
	}
	if q := next.Query(); q.Get("max_id") != statusID(4).String() || q.Has("min_id") {
		t.Errorf("next = %s, want max_id of the last item", next)
	}
	if q := prev.Query(); q.Get("min_id") != statusID(5).String() || q.Has("max_id") {
		t.Errorf("prev = %s, want min_id of the first item", prev)
	}

	// Following next gives the older page.
	w = h.do(t, req{method: "GET", path: next.RequestURI()})
	got = nil
	json.Unmarshal(w.Body.Bytes(), &got)
	if len(got) != 2 || got[0]["id"] != statusID(3).String() {
		t.Errorf("next page = %s", w.Body)
	}
}

func TestAccountStatusesEmptyPageHasNoLink(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "GET", path: "/api/v1/accounts/" + aliceID.String() + "/statuses"})
	if w.Code != 200 || w.Body.String() != "[]\n" {
		t.Errorf("empty page: %d %q, want []", w.Code, w.Body)
	}
	if l := w.Header().Get("Link"); l != "" {
		t.Errorf("Link = %q on an empty page", l)
	}
}

func TestPageParams(t *testing.T) {
	h := newHarness(t)
	seedFeed(h, 1)
	path := "/api/v1/accounts/" + aliceID.String() + "/statuses"
	for q, want := range map[string]int{"": 20, "?limit=0": 20, "?limit=100": 40, "?limit=abc": 20, "?limit=7": 7} {
		if w := h.do(t, req{method: "GET", path: path + q}); w.Code != 200 || h.statuses.page.Limit != want {
			t.Errorf("%q: status %d, limit %d, want %d", q, w.Code, h.statuses.page.Limit, want)
		}
	}
	for _, q := range []string{"?max_id=abc", "?since_id=-1", "?min_id=1.5"} {
		w := h.do(t, req{method: "GET", path: path + q})
		if w.Code != 400 {
			t.Errorf("%q: status %d, want 400", q, w.Code)
		}
	}
	h.do(t, req{method: "GET", path: path + "?min_id=5&max_id=9"})
	if p := h.statuses.page; p.MinID != 5 || p.MaxID != 9 {
		t.Errorf("page = %+v", p)
	}
}
