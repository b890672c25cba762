package http

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"sparrow"
	"sparrow/stream"
)

// handlerFunc is an endpoint: it gets the request's merged parameters (the
// viewer is in r's context, see viewerFrom) and either writes a response and
// returns nil, or writes nothing and returns an error for the route wrapper to
// write in the route's error style.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p *params) error

// route is one line of the route table: a Go 1.22 ServeMux pattern
// ("METHOD /path/{wildcard}"), its access requirement and its handler.
type route struct {
	pattern string
	access  access
	handle  handlerFunc
}

// Granular scopes named by the routes. A top-level scope grants its granular
// scopes (sparrow.Scopes.Allows).
const (
	scopeReadAccounts  sparrow.Scope = "read:accounts"
	scopeWriteAccounts sparrow.Scope = "write:accounts"
	scopeReadStatuses  sparrow.Scope = "read:statuses"
	scopeWriteStatuses sparrow.Scope = "write:statuses"
	scopeProfile       sparrow.Scope = "profile"
	scopeReadFollows   sparrow.Scope = "read:follows"
	scopeWriteFollows  sparrow.Scope = "write:follows"
	scopeReadBlocks    sparrow.Scope = "read:blocks"
	scopeWriteBlocks   sparrow.Scope = "write:blocks"
	scopeReadMutes     sparrow.Scope = "read:mutes"
	scopeWriteMutes    sparrow.Scope = "write:mutes"
	scopeReadSearch    sparrow.Scope = "read:search"
	// scopeFollow is Mastodon's deprecated "follow" scope, which still grants
	// the relation scopes (read:follows, write:follows, read:blocks, …): the
	// relation routes accept it besides their granular scope.
	scopeFollow = sparrow.ScopeFollow
)

// routes is the route table. To add an endpoint, add a line here and write
// its handler; the wrapper parses parameters, authenticates, and writes errors.
// Scopes follow Mastodon's controllers.
func (s *Server) routes(m *metrics) []route {
	return []route{
		{"GET /health", open, s.health},
		{"GET /metrics", open, adapt(m.handler())},

		// OAuth and apps (oauth.go, authorize.go).
		{"POST /api/v1/apps", open, s.createApp},
		{"GET /api/v1/apps/verify_credentials", anyToken(), s.verifyAppCredentials},
		{"POST /oauth/token", oauthEndpoint, s.token},
		{"POST /oauth/revoke", oauthEndpoint, s.revoke},
		{"GET /oauth/authorize", open, s.authorizeForm},
		{"GET /oauth/authorize/{$}", open, s.authorizeForm}, // toot adds a slash
		{"POST /oauth/authorize", open, s.authorize},
		{"POST /oauth/authorize/{$}", open, s.authorize},

		// Accounts (accounts.go).
		{"POST /api/v1/accounts", anyToken(scopeWriteAccounts), s.register},
		{"GET /api/v1/accounts/verify_credentials", user(scopeReadAccounts, scopeProfile), s.verifyCredentials},
		{"PATCH /api/v1/accounts/update_credentials", user(scopeWriteAccounts), s.updateCredentials},
		{"GET /api/v1/accounts/lookup", public(scopeReadAccounts), s.lookupAccount},
		{"GET /api/v1/accounts/{id}", public(scopeReadAccounts), s.getAccount},
		{"GET /api/v1/accounts/{id}/statuses", public(scopeReadStatuses), s.accountStatuses},

		// Relations (relations.go) and search (search.go).
		{"POST /api/v1/accounts/{id}/follow", user(scopeWriteFollows, scopeFollow), s.follow},
		{"POST /api/v1/accounts/{id}/unfollow", user(scopeWriteFollows, scopeFollow), s.unfollow},
		{"POST /api/v1/accounts/{id}/block", user(scopeWriteBlocks, scopeFollow), s.block},
		{"POST /api/v1/accounts/{id}/unblock", user(scopeWriteBlocks, scopeFollow), s.unblock},
		{"POST /api/v1/accounts/{id}/mute", user(scopeWriteMutes, scopeFollow), s.mute},
		{"POST /api/v1/accounts/{id}/unmute", user(scopeWriteMutes, scopeFollow), s.unmute},
		{"GET /api/v1/accounts/relationships", user(scopeReadFollows, scopeFollow), s.relationships},
		{"GET /api/v1/accounts/{id}/following", public(scopeReadAccounts), s.following},
		{"GET /api/v1/accounts/{id}/followers", public(scopeReadAccounts), s.followers},
		{"GET /api/v1/blocks", user(scopeReadBlocks, scopeFollow), s.blocks},
		{"GET /api/v1/mutes", user(scopeReadMutes, scopeFollow), s.mutes},
		{"GET /api/v1/follow_requests", user(scopeReadFollows, scopeFollow), s.followRequests},
		{"POST /api/v1/follow_requests/{id}/authorize", user(scopeWriteFollows, scopeFollow), s.authorizeFollowRequest},
		{"POST /api/v1/follow_requests/{id}/reject", user(scopeWriteFollows, scopeFollow), s.rejectFollowRequest},
		{"POST /api/v1/x/follows", user(scopeWriteFollows, scopeFollow), s.bulkFollow},
		{"GET /api/v1/accounts/search", user(scopeReadAccounts), s.searchAccounts},
		{"GET /api/v2/search", public(scopeReadSearch), s.search},

		// Statuses (statuses.go).
		{"POST /api/v1/statuses", user(scopeWriteStatuses), s.postStatus},
		{"GET /api/v1/statuses/{id}", public(scopeReadStatuses), s.getStatus},
		{"PUT /api/v1/statuses/{id}", user(scopeWriteStatuses), s.editStatus},
		{"DELETE /api/v1/statuses/{id}", user(scopeWriteStatuses), s.deleteStatus},
		{"GET /api/v1/statuses/{id}/history", public(scopeReadStatuses), s.statusHistory},
		{"GET /api/v1/statuses/{id}/source", user(scopeReadStatuses), s.statusSource},

		// Reblogs, favourites, threads and comment pages (interactions.go).
		// The account lists accept read:accounts too, as Mastodon's controllers ask for it.
		{"POST /api/v1/statuses/{id}/reblog", user(scopeWriteStatuses), s.reblog},
		{"POST /api/v1/statuses/{id}/unreblog", user(scopeWriteStatuses), s.unreblog},
		{"GET /api/v1/statuses/{id}/reblogged_by", public(scopeReadStatuses, scopeReadAccounts), s.rebloggedBy},
		{"POST /api/v1/statuses/{id}/favourite", user(scopeWriteFavourites), s.favourite},
		{"POST /api/v1/statuses/{id}/unfavourite", user(scopeWriteFavourites), s.unfavourite},
		{"GET /api/v1/statuses/{id}/favourited_by", public(scopeReadStatuses, scopeReadAccounts), s.favouritedBy},
		{"GET /api/v1/favourites", user(scopeReadFavourites), s.favourites},
		{"GET /api/v1/statuses/{id}/context", public(scopeReadStatuses), s.statusContext},
		{"GET /api/v1/x/statuses/{id}/comments", public(scopeReadStatuses), s.comments},

		// Timelines (timelines.go).
		{"GET /api/v1/timelines/home", user(scopeReadStatuses), s.homeTimeline},
		{"GET /api/v1/timelines/public", public(scopeReadStatuses), s.publicTimeline},
		{"GET /api/v1/timelines/tag/{hashtag}", public(scopeReadStatuses), s.tagTimeline},
		{"GET /api/v1/x/objects/{type}/{key}/statuses", public(scopeReadStatuses), s.objectStatuses},
		{"GET /api/v1/x/feeds/{feed}", public(scopeReadStatuses), s.keyedFeed},

		// Notifications (notifications.go).
		{"GET /api/v1/notifications", user(scopeReadNotifications), s.listNotifications},
		{"GET /api/v1/notifications/{id}", user(scopeReadNotifications), s.getNotification},
		{"POST /api/v1/notifications/clear", user(scopeWriteNotifications), s.clearNotifications},
		{"POST /api/v1/notifications/{id}/dismiss", user(scopeWriteNotifications), s.dismissNotification},

		// Streaming (streaming.go): Server-Sent Events, and a WebSocket on /api/v1/streaming.
		{"GET /api/v1/streaming/health", open, s.streamingHealth},
		{"GET /api/v1/streaming/user", user(scopeReadStatuses), s.streamSSE(stream.User)},
		{"GET /api/v1/streaming/user/notification", user(scopeReadNotifications), s.streamSSE(stream.UserNotification)},
		{"GET /api/v1/streaming/public", public(), s.streamSSE(stream.Public)},
		{"GET /api/v1/streaming/public/local", public(), s.streamSSE(stream.PublicLocal)},
		{"GET /api/v1/streaming", public(), s.streaming},
		{"GET /api/v1/streaming/{$}", public(), s.streaming},

		// Instance (instance.go).
		{"GET /api/v1/instance", open, s.instanceV1},
		{"GET /api/v2/instance", open, s.instanceV2},
	}
}

// bulkBodyBytes is the body limit of the bulk routes: sparrow.MaxBulk ids,
// as a form ("id%5B%5D=" and 19 digits each) or as JSON, take under 32 KiB.
const bulkBodyBytes = 64 << 10

// routeBodyLimits are the body limits of the routes that take more than
// the default (Server.MaxBodyBytes, DefaultMaxBodyBytes unless set). Every
// route accepts parameters in a body, GET routes included.
var routeBodyLimits = map[string]int64{
	"POST /api/v1/x/follows":             bulkBodyBytes,
	"GET /api/v1/accounts/relationships": bulkBodyBytes,
}

// bodyLimit returns the body limit of the route with pattern.
func (s *Server) bodyLimit(pattern string) int64 {
	if n, ok := routeBodyLimits[pattern]; ok {
		return n
	}
	if s.MaxBodyBytes == 0 {
		return DefaultMaxBodyBytes
	}
	return s.MaxBodyBytes
}

// wrap turns a route into an http.Handler: it records the route pattern for
// metrics, limits the body, parses the parameters, authenticates per the
// route's access, puts the viewer in the context and runs the handler,
// writing any error in the route's style. Nothing before authentication
// costs more than the route's body limit and the parameter limits allow.
func (s *Server) wrap(rt route, m *metrics) http.Handler {
	fail := s.writeError
	if rt.access.oauth {
		fail = s.writeOAuthError
	}
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		setRoute(r.Context(), rt.pattern)
		w, r := answering(rw, r, func() { m.partial.WithLabelValues(rt.pattern).Inc() })
		if err := s.limitBody(w, r, rt.pattern); err != nil {
			fail(w, r, err)
			return
		}
		p, err := parseParams(r)
		if r.MultipartForm != nil {
			// The server removes the temporary files of its own request
			// only, and r is a copy (it carries the request info).
			defer r.MultipartForm.RemoveAll()
		}
		if err != nil {
			fail(w, r, err)
			return
		}
		v, err := s.authenticate(r, p, rt.access)
		if err != nil {
			fail(w, r, err)
			return
		}
		r = r.WithContext(withViewer(r.Context(), v))
		if err := rt.handle(w, r, p); err != nil {
			fail(w, r, err)
		}
	})
}

// PartialHeader marks an answer that leaves out what an unavailable store
// holds (a Sparrow extension): its value is how many parts of the reads
// were skipped. Reads (GET) may answer so; writes never do.
const PartialHeader = "X-Sparrow-Partial"

// answerWriter adds, when the header is written, the headers that describe
// how the request was served: PartialHeader if its reads skipped something
// (gaps, GET requests only), and Mastodon's X-RateLimit-* if a service noted
// a rate limit that applies to it.
type answerWriter struct {
	*responseWriter
	gaps    *sparrow.Gaps      // nil: no partial reads
	limit   *sparrow.RateLimit // what the services noted
	partial func()             // counts a partial answer
	done    bool
}

// answering returns w and r set up for an answerWriter: r's context carries
// the rate-limit recorder and, for a GET, allows partial reads.
func answering(w http.ResponseWriter, r *http.Request, partial func()) (*answerWriter, *http.Request) {
	ctx, limit := sparrow.WithRateLimit(r.Context())
	aw := &answerWriter{responseWriter: wrapWriter(w), limit: limit, partial: partial}
	if r.Method == http.MethodGet {
		ctx, aw.gaps = sparrow.WithGaps(ctx)
	}
	return aw, r.WithContext(ctx)
}

func (w *answerWriter) headers() {
	if w.done || w.status != 0 {
		return
	}
	w.done = true
	h := w.Header()
	if n := w.gaps.Count(); n > 0 {
		h.Set(PartialHeader, strconv.FormatInt(n, 10))
		w.partial()
	}
	if limit, remaining, reset, ok := w.limit.Get(); ok {
		h.Set("X-RateLimit-Limit", strconv.FormatInt(limit, 10))
		h.Set("X-RateLimit-Remaining", strconv.FormatInt(remaining, 10))
		h.Set("X-RateLimit-Reset", reset.UTC().Format("2006-01-02T15:04:05.000Z"))
	}
}

func (w *answerWriter) WriteHeader(code int) {
	w.headers()
	w.responseWriter.WriteHeader(code)
}

func (w *answerWriter) Write(b []byte) (int, error) {
	w.headers()
	return w.responseWriter.Write(b)
}

// Routes returns the patterns of every route ("METHOD /path/{wildcard}"),
// in the route table's order: for tests that exercise every route, and for
// documentation.
func Routes() []string {
	s := &Server{}
	var out []string
	for _, rt := range s.routes(newMetrics(prometheus.NewRegistry())) {
		out = append(out, rt.pattern)
	}
	return out
}

// adapt makes a plain http.Handler a handlerFunc (it ignores the parameters).
func adapt(h http.Handler) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ *params) error {
		h.ServeHTTP(w, r)
		return nil
	}
}

// health answers 200 "ok" while the process serves requests.
func (s *Server) health(w http.ResponseWriter, r *http.Request, _ *params) error {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok"))
	return nil
}
