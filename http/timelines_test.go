package http

import (
	"context"
	"slices"
	"sync"
	"testing"

	"sparrow"
)

// timelineFake is a TimelineService paging one list of statuses (newest
// first) for every timeline, recording its last call.
type timelineFake struct {
	mu       sync.Mutex
	statuses *fakeStatuses
	feed     []sparrow.ID
	calls    []string
	viewer   sparrow.Viewer
	page     sparrow.Page
	args     []string // Keyed's feed and key
	err      error
}

func (f *timelineFake) read(method string, v sparrow.Viewer, p sparrow.Page, args ...string) ([]*sparrow.StatusView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls, f.viewer, f.page, f.args = append(f.calls, method), v, p, args
	if f.err != nil {
		return nil, f.err
	}
	var out []*sparrow.StatusView
	for _, id := range f.feed {
		if p.Contains(id) && len(out) < p.Limit {
			out = append(out, f.statuses.view(f.statuses.statuses[id]))
		}
	}
	return out, nil
}

func (f *timelineFake) Home(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]*sparrow.StatusView, error) {
	return f.read("Home", v, p)
}

func (f *timelineFake) Keyed(ctx context.Context, v sparrow.Viewer, feed, key string, p sparrow.Page) ([]*sparrow.StatusView, error) {
	return f.read("Keyed", v, p, feed, key)
}

func (f *timelineFake) lastCall() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return ""
	}
	return f.calls[len(f.calls)-1]
}

// withTimelines gives h a timeline service over alice's statuses 1..n.
func withTimelines(h *harness, n int) *timelineFake {
	seedFeed(h, n)
	f := &timelineFake{statuses: h.statuses, feed: h.statuses.feed}
	h.srv.Timelines = f
	return f
}

func TestTimelineRoutes(t *testing.T) {
	for _, tc := range []struct {
		path, token, method string
		args                []string
	}{
		{"/api/v1/timelines/public", "", "Keyed", []string{"public", ""}},
		{"/api/v1/timelines/public?local=true", tokUser, "Keyed", []string{"public", ""}},
		{"/api/v1/timelines/tag/Go", "", "Keyed", []string{"tag", "Go"}},
		{"/api/v1/timelines/tag/%E9%BA%BB%E9%9B%80", tokReadOnly, "Keyed", []string{"tag", "麻雀"}},
		{"/api/v1/timelines/home", tokUser, "Home", nil},
		{"/api/v1/x/objects/book/isbn-9787111/statuses", "", "Keyed", []string{"object", "book:isbn-9787111"}},
		{"/api/v1/x/objects/url/a%2Fb/statuses", "", "Keyed", []string{"object", "url:a/b"}},
		{"/api/v1/x/feeds/tag?key=Go", "", "Keyed", []string{"tag", "Go"}},
		{"/api/v1/x/feeds/object?key=book:isbn-1", tokUser, "Keyed", []string{"object", "book:isbn-1"}},
		{"/api/v1/x/feeds/public", "", "Keyed", []string{"public", ""}},
	} {
		h := newHarness(t)
		f := withTimelines(h, 3)
		w := h.do(t, req{method: "GET", path: tc.path, token: tc.token})
		if w.Code != 200 {
			t.Errorf("GET %s: %d %s", tc.path, w.Code, w.Body)
			continue
		}
		if f.lastCall() != tc.method || !slices.Equal(f.args, tc.args) {
			t.Errorf("GET %s called %s%q, want %s%q", tc.path, f.lastCall(), f.args, tc.method, tc.args)
		}
		if want := tc.token != ""; !f.viewer.Anonymous() != want {
			t.Errorf("GET %s: viewer %+v", tc.path, f.viewer)
		}
		if got := decodeList(t, w.Body.Bytes()); len(got) != 3 || got[0]["id"] != statusID(3).String() {
			t.Errorf("GET %s = %s", tc.path, w.Body)
		}
	}
}

func TestTimelineLinksAndParams(t *testing.T) {
	h := newHarness(t)
	f := withTimelines(h, 5)
	path := "/api/v1/timelines/tag/go"
	w := h.do(t, req{method: "GET", path: path + "?limit=2&local=true"})
	got := decodeList(t, w.Body.Bytes())
	if w.Code != 200 || len(got) != 2 || f.page != (sparrow.Page{Limit: 2}) {
		t.Fatalf("%d %s page %+v", w.Code, w.Body, f.page)
	}
	next, prev := parseLink(t, w.Header().Get("Link"))
	if next.Path != path || next.Query().Get("max_id") != statusID(4).String() || next.Query().Get("local") != "true" ||
		prev.Query().Get("min_id") != statusID(5).String() {
		t.Errorf("links %s %s", next, prev)
	}
	w = h.do(t, req{method: "GET", path: next.RequestURI()})
	if got := decodeList(t, w.Body.Bytes()); len(got) != 2 || got[0]["id"] != statusID(3).String() {
		t.Errorf("next page %s", w.Body)
	}
	h.do(t, req{method: "GET", path: "/api/v1/timelines/public?limit=100"})
	if f.page.Limit != sparrow.MaxLimit {
		t.Errorf("limit %d, want at most %d", f.page.Limit, sparrow.MaxLimit)
	}

	// remote and only_media can match nothing: [] without asking the service.
	f.calls = nil
	for _, q := range []string{"/api/v1/timelines/public?remote=true", "/api/v1/timelines/public?only_media=1", path + "?only_media=true"} {
		if w := h.do(t, req{method: "GET", path: q}); w.Code != 200 || w.Body.String() != "[]\n" || w.Header().Get("Link") != "" {
			t.Errorf("GET %s: %d %s", q, w.Code, w.Body)
		}
	}
	if len(f.calls) != 0 {
		t.Errorf("calls %v", f.calls)
	}
	if w := h.do(t, req{method: "GET", path: path + "?any[]=rust"}); w.Code != 422 {
		t.Errorf("any[]: %d", w.Code)
	}
}

func TestTimelineErrorsAndAccess(t *testing.T) {
	h := newHarness(t)
	f := withTimelines(h, 1)
	for _, tc := range []struct {
		path, token string
		code        int
	}{
		{"/api/v1/timelines/home", "", 401},
		{"/api/v1/timelines/home", tokApp, 422},
		{"/api/v1/timelines/public?max_id=zz", "", 400},
	} {
		if w := h.do(t, req{method: "GET", path: tc.path, token: tc.token}); w.Code != tc.code {
			t.Errorf("GET %s with %q: %d, want %d", tc.path, tc.token, w.Code, tc.code)
		}
	}
	f.err = sparrow.Errorf(sparrow.ENotFound, "Record not found")
	if w := h.do(t, req{method: "GET", path: "/api/v1/timelines/tag/bad-tag"}); w.Code != 404 {
		t.Errorf("service not found: %d", w.Code)
	}
	h.srv.Timelines = nil
	if w := h.do(t, req{method: "GET", path: "/api/v1/timelines/public"}); w.Code != 503 {
		t.Errorf("without a service: %d", w.Code)
	}
}
