package http

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"sparrow"
	"sparrow/stream"
)

// streamPolicy admits every status everywhere, hydrated by the fake
// statuses service (as the REST endpoints hydrate it).
type streamPolicy struct{ statuses *fakeStatuses }

func (p streamPolicy) Home(ctx context.Context, v sparrow.Viewer, s *sparrow.Status) (*sparrow.StatusView, error) {
	return p.statuses.view(s), nil
}

func (p streamPolicy) Public(ctx context.Context, v sparrow.Viewer, s *sparrow.Status) (*sparrow.StatusView, error) {
	return p.statuses.view(s), nil
}

func (p streamPolicy) InHome(ctx context.Context, user, author sparrow.ID) (bool, error) {
	return true, nil
}

func (p streamPolicy) OnPublic(s *sparrow.Status) bool { return true }

// streamHarness is a harness served over real HTTP, with a hub.
type streamHarness struct {
	*harness
	hub   *stream.Hub
	url   string
	notif *notifFake
}

func newStreamHarness(t *testing.T) *streamHarness {
	t.Helper()
	old := streamHeartbeat
	streamHeartbeat = 100 * time.Millisecond
	t.Cleanup(func() { streamHeartbeat = old })
	h := newHarness(t)
	notif := withNotifications(h, 1)
	hub := stream.NewHub(stream.Options{Policy: streamPolicy{h.statuses}, Notifications: notif})
	h.srv.Streams = hub
	ts := httptest.NewServer(h.h)
	t.Cleanup(func() {
		hub.Close() // ends the streams, so that the server can close
		ts.Close()
		noStreamLeaks(t)
	})
	return &streamHarness{harness: h, hub: hub, url: ts.URL, notif: notif}
}

// event posts a status event by alice to the hub and returns the status.
func (sh *streamHarness) event(typ sparrow.EventType, n int) *sparrow.Status {
	st := sh.statuses.add(&sparrow.Status{ID: statusID(n), AccountID: aliceID, Text: "hello @bob", Mentions: []sparrow.ID{bobID},
		Visibility: sparrow.Public})
	sh.hub.HandleEvent(context.Background(), sparrow.NewEvent(sparrow.ID(n), typ, st.ID, sparrow.StatusPayload{Status: st}, t0))
	return st
}

// waitConns waits until the hub has n connections.
func (sh *streamHarness) waitConns(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); sh.hub.Len() != n; {
		if time.Now().After(deadline) {
			t.Fatalf("hub has %d connections, want %d", sh.hub.Len(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// restJSON returns the compact JSON body of a REST GET, for comparisons.
func (sh *streamHarness) restJSON(t *testing.T, path string) string {
	t.Helper()
	w := sh.do(t, req{method: "GET", path: path, token: tokUser})
	if w.Code != 200 {
		t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
	}
	return strings.TrimSpace(w.Body.String())
}

// sse is an open Server-Sent Events stream.
type sse struct {
	resp   *http.Response
	lines  *bufio.Scanner
	cancel context.CancelFunc
}

func openSSE(t *testing.T, url, token string) *sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &sse{resp: resp, lines: bufio.NewScanner(resp.Body), cancel: cancel}
	s.lines.Buffer(nil, 1<<20)
	t.Cleanup(s.close)
	return s
}

func (s *sse) close() { s.cancel(); s.resp.Body.Close() }

// next returns the next block (lines up to a blank line), joined by "\n".
func (s *sse) next(t *testing.T) string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		var block []string
		for s.lines.Scan() {
			if s.lines.Text() == "" {
				break
			}
			block = append(block, s.lines.Text())
		}
		done <- strings.Join(block, "\n")
	}()
	select {
	case b := <-done:
		return b
	case <-time.After(5 * time.Second):
		t.Fatal("no SSE block within 5s")
		return ""
	}
}

// nextEvent skips heartbeats and returns the next event block.
func (s *sse) nextEvent(t *testing.T) string {
	t.Helper()
	for {
		if b := s.next(t); !strings.HasPrefix(b, ":") {
			return b
		}
	}
}

// noStreamLeaks fails t if streaming handlers (hijacked WebSockets
// included, which the test server does not track) are still running.
func noStreamLeaks(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "sparrow/http.(*Server).serveWS") && !strings.Contains(stacks, "sparrow/http.(*Server).serveSSE") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("streaming handlers left running:\n%s", stacks)
		}
	}
}

func TestStreamingHealth(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "GET", path: "/api/v1/streaming/health"})
	if w.Code != 200 || w.Body.String() != "OK" {
		t.Errorf("health: %d %q", w.Code, w.Body)
	}
}

func TestStreamingErrors(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		path, token string
		want        int
	}{
		{"/api/v1/streaming/user", tokUser, 503}, // no hub
		{"/api/v1/streaming/user", "", 401},
		{"/api/v1/streaming/user", "nope", 401},
		{"/api/v1/streaming/user", tokApp, 422},
		{"/api/v1/streaming/public", "nope", 401},
		{"/api/v1/streaming?stream=hashtag", "", 400},
		{"/api/v1/streaming", "", 400},
		{"/api/v1/streaming?stream=user", "", 401},
		{"/api/v1/streaming/direct", tokUser, 404},
	} {
		w := h.do(t, req{method: "GET", path: c.path, token: c.token})
		var e struct{ Error string }
		if w.Code != c.want || json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == "" {
			t.Errorf("GET %s (token %q): %d %s, want %d with an error", c.path, c.token, w.Code, w.Body, c.want)
		}
	}
}

func TestStreamAllowed(t *testing.T) {
	user := sparrow.Viewer{AccountID: aliceID, Scopes: sparrow.Scopes{"read:statuses"}}
	for _, c := range []struct {
		v    sparrow.Viewer
		name string
		want sparrow.Kind
	}{
		{sparrow.Viewer{}, stream.Public, ""},
		{sparrow.Viewer{}, stream.User, sparrow.EUnauthorized},
		{sparrow.Viewer{AppID: 1, Scopes: sparrow.Scopes{"read"}}, stream.User, sparrow.EInvalid},
		{user, stream.User, ""},
		{user, stream.UserNotification, sparrow.EForbidden},
		{sparrow.Viewer{AccountID: aliceID, Scopes: sparrow.Scopes{"read"}}, stream.UserNotification, ""},
		{user, "list", sparrow.EBadRequest},
	} {
		if got := sparrow.ErrorKind(streamAllowed(c.v, c.name)); got != c.want {
			t.Errorf("streamAllowed(%+v, %s) = %q, want %q", c.v, c.name, got, c.want)
		}
	}
}

// TestSSEUserStream: updates, edits, notifications and deletions arrive as
// Mastodon's events, with the entities the REST endpoints render; the
// heartbeat flows; the connection leaves the hub with the client.
func TestSSEUserStream(t *testing.T) {
	sh := newStreamHarness(t)
	s := openSSE(t, sh.url+"/api/v1/streaming/user", tokReadOnly)
	if s.resp.StatusCode != 200 || s.resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("open: %d %s", s.resp.StatusCode, s.resp.Header.Get("Content-Type"))
	}
	if b := s.next(t); b != ":)" {
		t.Fatalf("first block %q", b)
	}
	sh.waitConns(t, 1)

	st := sh.event(sparrow.EvStatusCreated, 3)
	if got, want := s.nextEvent(t), "event: update\ndata: "+sh.restJSON(t, "/api/v1/statuses/"+st.ID.String()); got != want {
		t.Errorf("update:\n got %s\nwant %s", got, want)
	}
	sh.event(sparrow.EvStatusEdited, 3)
	if got := s.nextEvent(t); !strings.HasPrefix(got, "event: status.update\ndata: {\"id\":\""+st.ID.String()+"\"") {
		t.Errorf("edit: %s", got)
	}
	n := sh.notif.views[0].Notification
	sh.hub.HandleNotification(context.Background(), aliceID, n.ID)
	if got, want := s.nextEvent(t), "event: notification\ndata: "+sh.restJSON(t, "/api/v1/notifications/"+n.ID.String()); got != want {
		t.Errorf("notification:\n got %s\nwant %s", got, want)
	}
	sh.event(sparrow.EvStatusDeleted, 3)
	if got, want := s.nextEvent(t), "event: delete\ndata: "+st.ID.String(); got != want {
		t.Errorf("delete: %s, want %s", got, want)
	}
	if b := s.next(t); b != ":thump" {
		t.Errorf("heartbeat %q", b)
	}
	s.close()
	sh.waitConns(t, 0)
}

// TestSSEPublicStreams: anonymous public streams, the stream parameter on
// /api/v1/streaming, and the end of streams when the hub closes.
func TestSSEPublicStreams(t *testing.T) {
	sh := newStreamHarness(t)
	pub := openSSE(t, sh.url+"/api/v1/streaming/public", "")
	local := openSSE(t, sh.url+"/api/v1/streaming/public/local", "")
	param := openSSE(t, sh.url+"/api/v1/streaming?stream=public:local", "")
	sh.waitConns(t, 3)
	st := sh.event(sparrow.EvStatusCreated, 4)
	for _, s := range []*sse{pub, local, param} {
		if got := s.nextEvent(t); !strings.HasPrefix(got, "event: update\ndata: {\"id\":\""+st.ID.String()+"\"") {
			t.Errorf("public: %s", got)
		}
	}
	sh.hub.Close()
	for _, s := range []*sse{pub, local, param} {
		for s.lines.Scan() {
		}
	}
	sh.waitConns(t, 0)
}

// dialWS opens the WebSocket.
func dialWS(t *testing.T, base, query string, header http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ws, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/api/v1/streaming"+query, header)
	if err == nil {
		t.Cleanup(func() { ws.Close() })
	}
	return ws, resp, err
}

// readWS reads the next message, as Mastodon's client libraries decode it.
func readWS(t *testing.T, ws *websocket.Conn) map[string]any {
	t.Helper()
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	var m map[string]any
	if err := ws.ReadJSON(&m); err != nil {
		t.Fatalf("read: %v", err)
	}
	return m
}

// TestWebSocket: Mastodon's multiplexed WebSocket, with the stream
// parameter, subscribe and unsubscribe messages, and errors.
func TestWebSocket(t *testing.T) {
	sh := newStreamHarness(t)
	if _, resp, err := dialWS(t, sh.url, "?stream=user", nil); err == nil || resp == nil || resp.StatusCode != 401 {
		t.Fatalf("user stream without a token: %v %v", resp, err)
	}
	ws, _, err := dialWS(t, sh.url, "?stream=user&access_token="+tokUser, nil)
	if err != nil {
		t.Fatal(err)
	}
	sh.waitConns(t, 1)
	st := sh.event(sparrow.EvStatusCreated, 5)
	m := readWS(t, ws)
	if want := sh.restJSON(t, "/api/v1/statuses/"+st.ID.String()); m["event"] != "update" || m["payload"] != want ||
		len(m["stream"].([]any)) != 1 || m["stream"].([]any)[0] != "user" {
		t.Errorf("update = %v", m)
	}

	ws.WriteJSON(map[string]string{"type": "subscribe", "stream": "hashtag"})
	if m := readWS(t, ws); m["error"] != "Unknown stream type" || m["status"] != float64(400) {
		t.Errorf("unknown stream = %v", m)
	}
	ws.WriteJSON(map[string]string{"type": "subscribe", "stream": "public"})
	ws.WriteJSON(map[string]string{"type": "unsubscribe", "stream": "user"})
	ws.WriteJSON(map[string]string{"type": "subscribe", "stream": "public:remote"})
	if m := readWS(t, ws); m["status"] != float64(400) { // commands apply in order: the others are done
		t.Errorf("unknown stream = %v", m)
	}
	sh.event(sparrow.EvStatusDeleted, 5)
	if m := readWS(t, ws); m["event"] != "delete" || m["payload"] != st.ID.String() || m["stream"].([]any)[0] != "public" {
		t.Errorf("delete = %v", m)
	}

	// An anonymous socket may not subscribe to user; the token may come as
	// the subprotocol, which is echoed.
	anon, _, err := dialWS(t, sh.url, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	anon.WriteJSON(map[string]string{"type": "subscribe", "stream": "user"})
	if m := readWS(t, anon); m["status"] != float64(401) {
		t.Errorf("anonymous user subscription = %v", m)
	}
	if _, resp, derr := dialWS(t, sh.url, "?stream=public", http.Header{"Sec-WebSocket-Protocol": {"nope"}}); derr == nil || resp.StatusCode != 401 {
		t.Errorf("invalid token as subprotocol: %v %v", resp, derr)
	}
	proto, resp, err := dialWS(t, sh.url, "?stream=user:notification", http.Header{"Sec-WebSocket-Protocol": {tokUser}})
	if err != nil || resp.Header.Get("Sec-WebSocket-Protocol") != tokUser {
		t.Fatalf("token as subprotocol: %v %v", resp, err)
	}
	sh.waitConns(t, 3)
	sh.hub.HandleNotification(context.Background(), aliceID, sh.notif.views[0].Notification.ID)
	if m := readWS(t, proto); m["event"] != "notification" || m["stream"].([]any)[0] != "user:notification" {
		t.Errorf("notification = %v", m)
	}

	// Closing the hub closes the sockets (going away).
	sh.hub.Close()
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err = ws.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Errorf("after the hub closed: %v", err)
	}
}

// TestWebSocketClientLeaves: a client that goes away leaves the hub.
func TestWebSocketClientLeaves(t *testing.T) {
	sh := newStreamHarness(t)
	ws, _, err := dialWS(t, sh.url, "?stream=public", nil)
	if err != nil {
		t.Fatal(err)
	}
	sh.waitConns(t, 1)
	ws.SetReadDeadline(time.Now().Add(time.Second))
	ws.SetPingHandler(func(string) error { ws.Close(); return nil }) // the first ping
	ws.ReadMessage()
	sh.waitConns(t, 0)
}
