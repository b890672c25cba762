package http

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"sparrow"
)

// notifFake is an in-memory NotificationService over canned views, newest
// first, recording its calls.
type notifFake struct {
	mu        sync.Mutex
	views     []*sparrow.NotificationView
	viewer    sparrow.Viewer
	filter    sparrow.NotificationFilter
	page      sparrow.Page
	dismissed []sparrow.ID
	cleared   int
}

func (f *notifFake) List(ctx context.Context, v sparrow.Viewer, flt sparrow.NotificationFilter, p sparrow.Page) ([]*sparrow.NotificationView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.viewer, f.filter, f.page = v, flt, p
	var out []*sparrow.NotificationView
	for _, nv := range f.views {
		n := nv.Notification
		if !p.Contains(n.ID) || len(out) >= p.Limit || len(flt.Types) > 0 && !slices.Contains(flt.Types, n.Type) ||
			slices.Contains(flt.ExcludeTypes, n.Type) || flt.From != 0 && flt.From != n.From {
			continue
		}
		out = append(out, nv)
	}
	return out, nil
}

func (f *notifFake) Get(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.NotificationView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, nv := range f.views {
		if nv.Notification.ID == id && nv.Notification.Recipient == v.AccountID {
			return nv, nil
		}
	}
	return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
}

func (f *notifFake) Dismiss(ctx context.Context, v sparrow.Viewer, id sparrow.ID) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.viewer, f.dismissed = v, append(f.dismissed, id)
	return nil
}

func (f *notifFake) Clear(ctx context.Context, v sparrow.Viewer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.viewer = v
	f.cleared++
	return nil
}

// notifID is the id of the n-th notification (ordered like statuses).
func notifID(n int) sparrow.ID { return statusID(n) + 1<<9 }

// withNotifications gives h alice's notifications 1..n, newest first: odd
// ones are bob's mentions of status n, even ones bob's follows.
func withNotifications(h *harness, n int) *notifFake {
	f := &notifFake{}
	for i := n; i >= 1; i-- {
		x := &sparrow.Notification{ID: notifID(i), Recipient: aliceID, Type: sparrow.NotifyFollow, From: bobID,
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
		nv := &sparrow.NotificationView{Notification: x, Account: h.accounts.accounts[bobID]}
		if i%2 == 1 {
			st := h.statuses.add(&sparrow.Status{ID: statusID(i), AccountID: bobID, Text: "hi @alice", Mentions: []sparrow.ID{aliceID}})
			x.Type, x.StatusID, nv.Status = sparrow.NotifyMention, st.ID, h.statuses.view(st)
		}
		f.views = append(f.views, nv)
	}
	h.srv.Notifications = f
	return f
}

func decodeList(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("body %q is not a JSON array: %v", body, err)
	}
	return out
}

func TestNotificationEntities(t *testing.T) {
	h := newHarness(t)
	withNotifications(h, 2)
	w := h.do(t, req{method: "GET", path: "/api/v1/notifications", token: tokUser})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	got := decodeList(t, w.Body.Bytes())
	if len(got) != 2 {
		t.Fatalf("got %d notifications", len(got))
	}
	follow, mention := got[0], got[1]
	if follow["id"] != notifID(2).String() || follow["type"] != "follow" || follow["group_key"] != "ungrouped-"+notifID(2).String() ||
		follow["created_at"] != "2025-03-14T15:11:26.535Z" || follow["account"].(map[string]any)["id"] != bobID.String() {
		t.Errorf("follow = %v", follow)
	}
	if _, ok := follow["status"]; ok {
		t.Errorf("a follow notification has a status: %v", follow)
	}
	st, _ := mention["status"].(map[string]any)
	if mention["type"] != "mention" || st == nil || st["id"] != statusID(1).String() || st["account"].(map[string]any)["id"] != bobID.String() {
		t.Errorf("mention = %v", mention)
	}

	w = h.do(t, req{method: "GET", path: "/api/v1/notifications/" + notifID(1).String(), token: tokUser})
	if m := decodeMap(t, w.Body.Bytes()); w.Code != 200 || m["id"] != notifID(1).String() || m["type"] != "mention" {
		t.Errorf("get: %d %v", w.Code, m)
	}
	for _, path := range []string{"/api/v1/notifications/" + notifID(9).String(), "/api/v1/notifications/abc"} {
		if w := h.do(t, req{method: "GET", path: path, token: tokUser}); w.Code != 404 {
			t.Errorf("GET %s: %d, want 404", path, w.Code)
		}
	}
}

func TestNotificationFiltersAndLinks(t *testing.T) {
	h := newHarness(t)
	f := withNotifications(h, 9)
	path := "/api/v1/notifications"
	w := h.do(t, req{method: "GET", token: tokUser,
		path: path + "?types[]=mention&types[]=follow&exclude_types[]=reblog&account_id=" + bobID.String() + "&limit=2&max_id=" + notifID(9).String()})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	want := sparrow.NotificationFilter{Types: []sparrow.NotificationType{"mention", "follow"}, ExcludeTypes: []sparrow.NotificationType{"reblog"}, From: bobID}
	if !slices.Equal(f.filter.Types, want.Types) || !slices.Equal(f.filter.ExcludeTypes, want.ExcludeTypes) || f.filter.From != bobID {
		t.Errorf("filter = %+v, want %+v", f.filter, want)
	}
	if f.page != (sparrow.Page{MaxID: notifID(9), Limit: 2}) || f.viewer.AccountID != aliceID {
		t.Errorf("page %+v viewer %+v", f.page, f.viewer)
	}
	got := decodeList(t, w.Body.Bytes())
	if len(got) != 2 || got[0]["id"] != notifID(8).String() || got[1]["id"] != notifID(7).String() {
		t.Fatalf("page = %v", got)
	}
	next, prev := parseLink(t, w.Header().Get("Link"))
	for _, u := range []*url.URL{next, prev} {
		q := u.Query()
		if u.Path != path || !slices.Equal(q["types[]"], []string{"mention", "follow"}) || q.Get("exclude_types[]") != "reblog" ||
			q.Get("account_id") != bobID.String() || q.Get("limit") != "2" {
			t.Errorf("link %s lost the filters", u)
		}
	}
	if next.Query().Get("max_id") != notifID(7).String() || prev.Query().Get("min_id") != notifID(8).String() {
		t.Errorf("next %s prev %s", next, prev)
	}
	w = h.do(t, req{method: "GET", path: next.RequestURI(), token: tokUser})
	if got := decodeList(t, w.Body.Bytes()); len(got) != 2 || got[0]["id"] != notifID(6).String() {
		t.Errorf("next page = %v", got)
	}

	// exclude_types alone filters; an empty page has no Link.
	w = h.do(t, req{method: "GET", path: path + "?exclude_types[]=follow&exclude_types[]=mention", token: tokUser})
	if w.Body.String() != "[]\n" || w.Header().Get("Link") != "" {
		t.Errorf("everything excluded: %s %q", w.Body, w.Header().Get("Link"))
	}
	w = h.do(t, req{method: "GET", path: path + "?exclude_types[]=follow", token: tokUser})
	for _, n := range decodeList(t, w.Body.Bytes()) {
		if n["type"] != "mention" {
			t.Errorf("exclude_types=follow listed %v", n)
		}
	}

	// Limits: 40 by default, at most 80; a malformed cursor is 400.
	h.do(t, req{method: "GET", path: path, token: tokUser})
	if f.page.Limit != 40 {
		t.Errorf("default limit %d", f.page.Limit)
	}
	h.do(t, req{method: "GET", path: path + "?limit=500", token: tokUser})
	if f.page.Limit != 80 {
		t.Errorf("max limit %d", f.page.Limit)
	}
	if w := h.do(t, req{method: "GET", path: path + "?max_id=x", token: tokUser}); w.Code != 400 {
		t.Errorf("bad max_id: %d", w.Code)
	}
}

func TestNotificationWritesAndAccess(t *testing.T) {
	h := newHarness(t)
	f := withNotifications(h, 2)
	w := h.do(t, req{method: "POST", path: "/api/v1/notifications/" + notifID(2).String() + "/dismiss", token: tokUser})
	if w.Code != 200 || w.Body.String() != "{}\n" || !slices.Equal(f.dismissed, []sparrow.ID{notifID(2)}) {
		t.Errorf("dismiss: %d %s %v", w.Code, w.Body, f.dismissed)
	}
	w = h.do(t, req{method: "POST", path: "/api/v1/notifications/clear", token: tokUser})
	if w.Code != 200 || w.Body.String() != "{}\n" || f.cleared != 1 || f.viewer.AccountID != aliceID {
		t.Errorf("clear: %d %s %d", w.Code, w.Body, f.cleared)
	}
	for _, tc := range []struct {
		method, path, token string
		code                int
	}{
		{"GET", "/api/v1/notifications", "", 401},
		{"GET", "/api/v1/notifications", tokApp, 422}, // needs a user
		{"GET", "/api/v1/notifications", tokReadOnly, 200},
		{"POST", "/api/v1/notifications/clear", tokReadOnly, 403},
		{"POST", "/api/v1/notifications/" + notifID(1).String() + "/dismiss", tokReadOnly, 403},
		{"POST", "/api/v1/notifications/x/dismiss", tokUser, 404},
	} {
		if w := h.do(t, req{method: tc.method, path: tc.path, token: tc.token}); w.Code != tc.code {
			t.Errorf("%s %s with %q: %d, want %d", tc.method, tc.path, tc.token, w.Code, tc.code)
		}
	}
	if f.cleared != 1 || len(f.dismissed) != 1 {
		t.Errorf("a refused request reached the service")
	}
	h.srv.Notifications = nil
	if w := h.do(t, req{method: "GET", path: "/api/v1/notifications", token: tokUser}); w.Code != 503 {
		t.Errorf("without a service: %d", w.Code)
	}
}
