package http

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"sparrow"
	"sparrow/stream"
)

// Streaming API (Mastodon's streaming server, served by the API itself):
// Server-Sent Events on /api/v1/streaming/<stream> and a WebSocket on
// /api/v1/streaming. Messages come from Server.Streams, the process's hub,
// already filtered for the viewer; they are rendered here exactly as the
// REST endpoints render statuses and notifications.

// streamHeartbeat is how often an open stream shows it is alive: an SSE
// comment ":thump" or a WebSocket ping (a variable for tests).
var streamHeartbeat = 15 * time.Second

// streamWriteTimeout bounds each write to a streaming client; a client that
// does not read for that long is disconnected.
const streamWriteTimeout = 10 * time.Second

// streams returns s.Streams, or EUnavailable if the server has none.
func (s *Server) streams() (*stream.Hub, error) {
	if s.Streams == nil {
		return nil, sparrow.Errorf(sparrow.EUnavailable, "Streaming is unavailable")
	}
	return s.Streams, nil
}

// streamingHealth answers GET /api/v1/streaming/health with "OK", as
// Mastodon's streaming server does.
func (s *Server) streamingHealth(w http.ResponseWriter, r *http.Request, _ *params) error {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("OK"))
	return nil
}

// streamAllowed checks that v may subscribe to stream name, as Mastodon's
// streaming server does: public streams are open; user needs a signed-in
// account and read:statuses, user:notification read:notifications (read
// grants both). Errors: EBadRequest for an unknown stream, EUnauthorized
// without a token, EInvalid for an app-only token, EForbidden without the
// scope.
func streamAllowed(v sparrow.Viewer, name string) error {
	if !stream.Known(name) {
		return sparrow.Errorf(sparrow.EBadRequest, "Unknown stream type")
	}
	if !stream.NeedsUser(name) {
		return nil
	}
	if v.Anonymous() && v.AppID == 0 {
		return sparrow.Errorf(sparrow.EUnauthorized, "Missing access token")
	}
	scope := scopeReadStatuses
	if name == stream.UserNotification {
		scope = scopeReadNotifications
	}
	if !v.Scopes.Allows(scope) {
		return sparrow.Errorf(sparrow.EForbidden, msgOutsideScopes)
	}
	if v.Anonymous() {
		return sparrow.Errorf(sparrow.EInvalid, msgUserRequired)
	}
	return nil
}

// streamSSE returns the handler of GET /api/v1/streaming/<name> (the route
// has checked the token and scopes).
func (s *Server) streamSSE(name string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ *params) error {
		return s.serveSSE(w, r, viewerFrom(r.Context()), name)
	}
}

// serveSSE subscribes v to stream name and writes its messages as
// Server-Sent Events until the client leaves or the hub drops the
// connection: "event: <event>\ndata: <payload>\n\n", with the status or
// notification JSON as payload (the status id for delete), a ":)" comment
// first and a ":thump" comment every streamHeartbeat. Errors are returned
// (and answered as JSON) only before the stream starts.
func (s *Server) serveSSE(w http.ResponseWriter, r *http.Request, v sparrow.Viewer, name string) error {
	hub, err := s.streams()
	if err != nil {
		return err
	}
	conn, err := hub.Connect(v, name)
	if err != nil {
		return err
	}
	defer conn.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(chunk string) bool {
		if err := rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		if _, err := w.Write([]byte(chunk)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send(":)\n\n") {
		return nil
	}
	rd := s.streamRenderer(v)
	tick := time.NewTicker(streamHeartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-conn.Done():
			return nil
		case <-tick.C:
			if !send(":thump\n\n") {
				return nil
			}
		case m := <-conn.Messages():
			payload, err := s.streamPayload(rd, m)
			if err != nil {
				continue // logged
			}
			if !send("event: " + m.Event + "\ndata: " + payload + "\n\n") {
				return nil
			}
		}
	}
}

// streamRenderer is the renderer for a stream's viewer.
func (s *Server) streamRenderer(v sparrow.Viewer) renderer {
	return renderer{base: s.baseURL(), domain: s.Domain, viewer: v}
}

// streamPayload renders a message's payload: the Status or Notification
// entity as JSON (on one line), or the status id of a delete. A view that
// cannot be rendered is logged and skipped.
func (s *Server) streamPayload(rd renderer, m stream.Message) (string, error) {
	var entity any
	var err error
	switch m.Event {
	case stream.EventDelete:
		return m.StatusID.String(), nil
	case stream.EventNotification:
		entity, err = rd.notification(m.Notification)
	default:
		entity, err = rd.status(m.Status)
	}
	var b []byte
	if err == nil {
		b, err = json.Marshal(entity)
	}
	if err != nil {
		s.logger().Error("stream: render", "event", m.Event, "err", err)
		return "", err
	}
	return string(b), nil
}

// Limits of the WebSocket.
const (
	wsReadLimit = 4 << 10 // client messages are small commands
	wsReplies   = 8       // replies to commands waiting to be written
)

// wsMessage is a message of Mastodon's WebSocket: payload is the entity's
// JSON as a string (the status id for delete).
type wsMessage struct {
	Stream  []string `json:"stream"`
	Event   string   `json:"event"`
	Payload string   `json:"payload"`
}

// wsCommand is a client message: {"type":"subscribe","stream":"user"}.
type wsCommand struct {
	Type   string `json:"type"`
	Stream string `json:"stream"`
}

// wsError answers a command that failed, as Mastodon does.
type wsError struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// streaming serves GET /api/v1/streaming. A WebSocket upgrade opens
// Mastodon's multiplexed WebSocket: the stream parameter (optional)
// subscribes at once, and client messages {"type":"subscribe"|"unsubscribe",
// "stream":…} change the subscriptions later. The token comes from the
// Authorization header, the access_token parameter or, as browsers send it,
// the Sec-WebSocket-Protocol header. A plain request serves the stream
// parameter's stream as Server-Sent Events. Errors in the request (unknown
// stream, missing token or scope) are answered before any upgrade.
func (s *Server) streaming(w http.ResponseWriter, r *http.Request, p *params) error {
	v := viewerFrom(r.Context())
	name := p.String("stream")
	if !websocket.IsWebSocketUpgrade(r) {
		if err := streamAllowed(v, name); err != nil {
			return err
		}
		return s.serveSSE(w, r, v, name)
	}
	v, respHeader, err := s.wsProtocolViewer(r, p, v)
	if err != nil {
		return err
	}
	var initial []string
	if name != "" {
		if err = streamAllowed(v, name); err != nil {
			return err
		}
		initial = []string{name}
	}
	hub, err := s.streams()
	if err != nil {
		return err
	}
	conn, err := hub.Connect(v, initial...)
	if err != nil {
		return err
	}
	defer conn.Close()
	up := websocket.Upgrader{
		// Tokens, never cookies, authenticate: any origin may connect (as CORS allows).
		CheckOrigin: func(*http.Request) bool { return true },
	}
	ws, err := up.Upgrade(w, r, respHeader)
	if err != nil {
		return nil // the upgrader has answered
	}
	s.serveWS(ws, conn)
	return nil
}

// wsProtocolViewer returns the viewer of a WebSocket request that carries no
// other token but one in Sec-WebSocket-Protocol (as browsers, which cannot
// set headers, send it), with the response header that echoes the protocol;
// otherwise v unchanged. An invalid token is EUnauthorized.
func (s *Server) wsProtocolViewer(r *http.Request, p *params, v sparrow.Viewer) (sparrow.Viewer, http.Header, error) {
	proto := r.Header.Get("Sec-WebSocket-Protocol")
	if proto == "" || !v.Anonymous() || v.AppID != 0 || bearerToken(r, p) != "" {
		return v, nil, nil
	}
	v, err := s.Auth.Authenticate(r.Context(), proto)
	if sparrow.IsKind(err, sparrow.EUnauthorized) {
		return v, nil, sparrow.WrapError(sparrow.EUnauthorized, err, msgInvalidToken)
	}
	if err != nil {
		return v, nil, err
	}
	h := http.Header{}
	h.Set("Sec-WebSocket-Protocol", proto) // browsers require the echo
	return v, h, nil
}

// serveWS runs an upgraded WebSocket until the client leaves, stops
// answering pings, or the hub drops the connection: it writes the
// connection's messages and a ping every streamHeartbeat, while a reader
// goroutine applies the client's commands. It returns after closing ws and
// once the reader has stopped.
func (s *Server) serveWS(ws *websocket.Conn, conn *stream.Conn) {
	v := conn.Viewer()
	replies := make(chan []byte, wsReplies)
	readDone := make(chan struct{})
	alive := func() error { return ws.SetReadDeadline(time.Now().Add(2*streamHeartbeat + streamWriteTimeout)) }
	ws.SetReadLimit(wsReadLimit)
	alive()
	ws.SetPongHandler(func(string) error { return alive() })
	go func() {
		defer close(readDone)
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			alive()
			if reply := wsApply(conn, v, data); reply != nil {
				select {
				case replies <- reply:
				default: // a client flooding commands loses replies, not the stream
				}
			}
		}
	}()
	defer func() {
		ws.Close()
		<-readDone
	}()

	rd := s.streamRenderer(v)
	write := func(data []byte) bool {
		ws.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		return ws.WriteMessage(websocket.TextMessage, data) == nil
	}
	tick := time.NewTicker(streamHeartbeat)
	defer tick.Stop()
	for {
		select {
		case <-readDone:
			return
		case <-conn.Done():
			code := websocket.CloseGoingAway
			if errors.Is(conn.Err(), stream.ErrSlowClient) {
				code = websocket.CloseTryAgainLater
			}
			ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(time.Second))
			return
		case <-tick.C:
			if ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(streamWriteTimeout)) != nil {
				return
			}
		case reply := <-replies:
			if !write(reply) {
				return
			}
		case m := <-conn.Messages():
			payload, err := s.streamPayload(rd, m)
			if err != nil {
				continue // logged
			}
			data, _ := json.Marshal(wsMessage{Stream: []string{m.Stream}, Event: m.Event, Payload: payload})
			if !write(data) {
				return
			}
		}
	}
}

// wsApply applies a client command to conn and returns the error message to
// send back, or nil. Unknown command types are ignored.
func wsApply(conn *stream.Conn, v sparrow.Viewer, data []byte) []byte {
	var cmd wsCommand
	if err := json.Unmarshal(data, &cmd); err != nil {
		return wsErrorMessage(sparrow.Errorf(sparrow.EBadRequest, "Invalid JSON"))
	}
	var err error
	switch cmd.Type {
	case "subscribe":
		if err = streamAllowed(v, cmd.Stream); err == nil {
			err = conn.Subscribe(cmd.Stream)
		}
	case "unsubscribe":
		conn.Unsubscribe(cmd.Stream)
	}
	if err != nil {
		return wsErrorMessage(err)
	}
	return nil
}

// wsErrorMessage renders err as Mastodon's WebSocket error message.
func wsErrorMessage(err error) []byte {
	b, _ := json.Marshal(wsError{Error: sparrow.ErrorMessage(err), Status: statusOf(sparrow.ErrorKind(err))})
	return b
}
