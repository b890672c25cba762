package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"sparrow"
)

// fakeServer answers the workload's requests and records follows per token.
type fakeServer struct {
	mu        sync.Mutex
	byPath    map[string]int
	following map[string]map[string]bool // token → followed ids
	ever      map[string]bool            // token + " " + id ever followed
	bad       []string
}

func newFakeServer() *fakeServer {
	return &fakeServer{byPath: map[string]int{}, following: map[string]map[string]bool{}, ever: map[string]bool{}}
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	kind := r.Method + " " + r.URL.Path
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case len(parts) == 5 && parts[4] == "follow":
		kind = "follow"
		if f.following[tok] == nil {
			f.following[tok] = map[string]bool{}
		}
		f.following[tok][parts[3]] = true
		f.ever[tok+" "+parts[3]] = true
	case len(parts) == 5 && parts[4] == "unfollow":
		kind = "unfollow"
		if !f.ever[tok+" "+parts[3]] { // (two workers acting as one user may unfollow the same id twice)
			f.bad = append(f.bad, "unfollow of "+parts[3]+" never followed by this token")
		}
		delete(f.following[tok], parts[3])
	case len(parts) == 5 && parts[4] == "statuses":
		kind = "account_timeline"
	case r.URL.Path == "/api/v1/accounts/relationships":
		kind = "relationships"
		if n := len(r.URL.Query()["id[]"]); n != 20 {
			f.bad = append(f.bad, "relationships batch of wrong size")
		}
	}
	f.byPath[kind]++
	if r.Method == "POST" && r.URL.Path == "/api/v1/statuses" {
		w.Write([]byte(`{"id":"12345"}`))
		return
	}
	w.Write([]byte(`[]`))
}

func testWorkload(base string) *Workload {
	users := []User{{ID: 1, Token: "t1"}, {ID: 2, Token: "t2"}, {ID: 3, Token: "t3"}}
	return &Workload{Client: NewClient(base, 16), Readers: users, Targets: []sparrow.ID{1, 2, 3, 4, 5, 6, 7, 8},
		Mix: Mix{Home: 1, Account: 1, Post: 1, Relationships: 1, FollowToggle: 2}}
}

func TestClosedLoopMix(t *testing.T) {
	f := newFakeServer()
	srv := httptest.NewServer(f)
	defer srv.Close()
	w := testWorkload(srv.URL)
	res := w.ClosedLoopMix(context.Background(), 4, 300*time.Millisecond)
	if len(res) != len(mixOps) {
		t.Fatalf("%d results, want %d", len(res), len(mixOps))
	}
	for i, r := range res {
		if r.Op != mixOps[i] || r.Requests == 0 || r.Errors != 0 || r.P50 <= 0 {
			t.Errorf("result %+v: want op %s with requests, no errors", r, mixOps[i])
		}
	}
	w.UndoFollows(context.Background())
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bad) > 0 {
		t.Fatalf("bad requests: %v", f.bad[:min(3, len(f.bad))])
	}
	for tok, set := range f.following {
		if len(set) != 0 {
			t.Errorf("token %s still follows %v after UndoFollows", tok, set)
		}
	}
	if int64(f.byPath["POST /api/v1/statuses"]) < w.Posts() || w.Posts() == 0 {
		t.Errorf("%d posts counted, %d seen by the server", w.Posts(), f.byPath["POST /api/v1/statuses"])
	}
}

func TestOpenLoopMix(t *testing.T) {
	f := newFakeServer()
	srv := httptest.NewServer(f)
	defer srv.Close()
	w := testWorkload(srv.URL)
	res := w.OpenLoopMix(context.Background(), 400, 500*time.Millisecond, 8)
	var total int64
	for _, r := range res {
		total += r.Requests
		if r.Errors != 0 {
			t.Errorf("%s: %d errors", r.Op, r.Errors)
		}
	}
	if total < 100 || total > 210 {
		t.Errorf("%d requests at 400/s for 0.5 s, want about 200", total)
	}
}
