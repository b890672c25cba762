package http

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"sparrow"
	"sparrow/stream"
)

// DefaultMaxBodyBytes is the request body limit of the routes without one
// of their own (routeBodyLimits) when Server.MaxBodyBytes is 0: the largest
// of them, a status of 500 characters sent as JSON with every character
// escaped, takes under 8 KiB.
const DefaultMaxBodyBytes = 16 << 10

// Server is the HTTP API of Sparrow. The wiring sets its fields, then serves
// Handler(). A Server holds no other state: everything Handler needs is built
// per call, and metrics go to Registry.
type Server struct {
	Auth     sparrow.AuthService
	Accounts sparrow.AccountService
	Statuses sparrow.StatusService
	// Relations serves follows, blocks, mutes, relation lists and account
	// search (relations.go, search.go).
	Relations sparrow.RelationService
	// Timelines serves the home, public, hashtag and object timelines
	// (timelines.go); Notifications the notifications API (notifications.go).
	// Their routes answer 503 while they are nil.
	Timelines     sparrow.TimelineService
	Notifications sparrow.NotificationService
	// Interactions serves reblogs, favourites, threads and comment pages
	// (interactions.go); its routes answer 503 while it is nil.
	Interactions sparrow.InteractionService
	// Streams is the process's hub of live streams, serving the streaming
	// API (streaming.go); its routes answer 503 while it is nil.
	Streams *stream.Hub
	// OnAuthenticated, if set, is called for every request authenticated as
	// a user (the feed's "last seen" mark, throttled by its receiver).
	OnAuthenticated func(ctx context.Context, v sparrow.Viewer) error
	// Instance describes this server; it is called for every instance request.
	Instance func(ctx context.Context) sparrow.Instance

	// Domain is the host (and port) of this server, e.g. "localhost:8080";
	// local accounts' acct is their username, and "user@Domain" resolves too.
	Domain string
	// BaseURL is the public URL of this server without a trailing slash, e.g.
	// "http://localhost:8080". Entity URLs and Link headers are built on it.
	BaseURL string

	// Logger receives server errors and recovered panics; nil discards them.
	Logger *slog.Logger
	// Registry receives the HTTP metrics and is served at /metrics. If nil,
	// Handler uses a fresh registry of its own. Handler registers only its
	// own collectors; the wiring adds Go and process collectors if it wants them.
	Registry *prometheus.Registry
	// MaxBodyBytes limits the request bodies of the routes without a limit
	// of their own (routeBodyLimits); 0 means DefaultMaxBodyBytes, and a
	// negative value means no limit. Larger bodies get 413.
	MaxBodyBytes int64
}

// Handler returns the HTTP handler of the API. Every route, including unknown
// ones, answers JSON errors; a panic in a handler is logged and becomes a 500.
// The API answers browsers from any origin (CORS), as Mastodon does.
// It returns an error-free handler even if Registry already holds its
// collectors (from an earlier call): it reuses them.
func (s *Server) Handler() http.Handler {
	reg := s.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	m := newMetrics(reg)

	mux := http.NewServeMux()
	for _, rt := range s.routes(m) {
		mux.Handle(rt.pattern, s.wrap(rt, m))
	}

	var h http.Handler = s.jsonFallback(mux)
	h = s.limitHeaders(h)
	h = s.recoverPanics(h)
	h = s.cors(h)
	h = m.instrument(h)
	return h
}

// logger returns s.Logger, or a logger that discards everything.
func (s *Server) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// baseURL returns BaseURL without a trailing slash.
func (s *Server) baseURL() string { return strings.TrimRight(s.BaseURL, "/") }
