package http

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime/debug"
	"strings"

	"sparrow"
)

// responseWriter wraps an http.ResponseWriter to remember the status written.
// It keeps Flush and Hijack available (streaming, websockets) and unwraps for
// http.ResponseController.
type responseWriter struct {
	http.ResponseWriter
	status int // 0 until the header is written
}

// wrapWriter returns w as a *responseWriter, wrapping it only once.
func wrapWriter(w http.ResponseWriter) *responseWriter {
	if rw, ok := w.(*responseWriter); ok {
		return rw
	}
	return &responseWriter{ResponseWriter: w}
}

func (w *responseWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Status returns the status written, or 200 if none was (as net/http sends).
func (w *responseWriter) Status() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Flush flushes the underlying writer if it can.
func (w *responseWriter) Flush() {
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack hijacks the underlying connection if it can.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// recoverPanics turns a panic in next into a logged 500 JSON response (or,
// if the response had started, a logged and truncated one), so that a bug
// never kills the connection without an answer. http.ErrAbortHandler is
// re-raised: it is net/http's way to abort a response on purpose.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := wrapWriter(w)
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.logger().ErrorContext(r.Context(), "panic serving request",
				"method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if rw.status == 0 {
				for _, k := range []string{"Content-Length", "Content-Encoding", "Content-Disposition", "Link", "Location", "Cache-Control"} {
					rw.Header().Del(k) // what the handler set for the response it did not finish
				}
				writeJSON(rw, http.StatusInternalServerError, errorBody{Error: msgInternal})
			}
		}()
		next.ServeHTTP(rw, r)
	})
}

// limitBody caps r's body at the route's limit (see bodyLimit): a
// Content-Length over it is refused at once, and reading past it fails with
// *http.MaxBytesError, which parseParams turns into ETooLarge (413). It
// returns the error of a refused request.
func (s *Server) limitBody(w http.ResponseWriter, r *http.Request, pattern string) error {
	limit := s.bodyLimit(pattern)
	if limit < 0 || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	if r.ContentLength > limit {
		return sparrow.Errorf(sparrow.ETooLarge, "Request body too large (at most %d bytes)", limit)
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	return nil
}

// Limits of a request's line and headers, checked before routing. The
// server's own bound (net/http's MaxHeaderBytes, which answers in plain
// text) sits above them, so that these answer in Mastodon's JSON.
const (
	// MaxRequestURI bounds the path and query string: a relationships query
	// for sparrow.MaxBulk ids takes about 30 KiB.
	MaxRequestURI = 64 << 10
	// MaxHeaderBytes bounds the headers, names and values together.
	MaxHeaderBytes = 64 << 10
)

// limitHeaders answers 414 for a request line over MaxRequestURI and 431
// for headers over MaxHeaderBytes, with an error body.
func (s *Server) limitHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.RequestURI) > MaxRequestURI {
			writeJSON(w, http.StatusRequestURITooLong, errorBody{Error: fmt.Sprintf("Request URI too long (at most %d bytes)", MaxRequestURI)})
			return
		}
		n := 0
		for k, vs := range r.Header {
			for _, v := range vs {
				n += len(k) + len(v) + 4
			}
		}
		if n > MaxHeaderBytes {
			writeJSON(w, http.StatusRequestHeaderFieldsTooLarge, errorBody{Error: fmt.Sprintf("Request headers too large (at most %d bytes)", MaxHeaderBytes)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// corsPaths are the path prefixes browsers may call from other origins.
var corsPaths = []string{"/api/", "/oauth/token", "/oauth/revoke", "/.well-known/", "/nodeinfo/"}

// cors lets browser-based clients call the API from any origin, as Mastodon
// does. Requests authenticate with bearer tokens, never cookies, so allowing
// every origin exposes nothing. A preflight (OPTIONS with
// Access-Control-Request-Method) is answered 204 here.
func (s *Server) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hasAnyPrefix(r.URL.Path, corsPaths) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "Link, Idempotency-Key, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Sparrow-Partial")
		if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
			next.ServeHTTP(w, r)
			return
		}
		allowed := r.Header.Get("Access-Control-Request-Headers")
		if allowed == "" {
			allowed = "Authorization, Content-Type, Idempotency-Key"
		}
		h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", allowed)
		h.Set("Access-Control-Max-Age", "7200")
		w.WriteHeader(http.StatusNoContent)
	})
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// jsonFallback serves mux, replacing the plain-text 404 and 405 answers that
// ServeMux gives for unknown paths and wrong methods with Mastodon-style JSON
// (405 keeps its Allow header). Canonical-path redirects pass through.
func (s *Server) jsonFallback(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(&fallbackWriter{ResponseWriter: w}, r)
	})
}

// fallbackWriter rewrites 404 and 405 responses as JSON errors and discards
// the plain-text body written after them.
type fallbackWriter struct {
	http.ResponseWriter
	replaced bool
}

func (w *fallbackWriter) WriteHeader(code int) {
	var msg string
	switch code {
	case http.StatusNotFound:
		msg = msgNotFound
	case http.StatusMethodNotAllowed:
		msg = msgNotAllowed
	default:
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.replaced = true
	h := w.Header()
	h.Del("X-Content-Type-Options")
	h.Del("Content-Length")
	writeJSON(w.ResponseWriter, code, errorBody{Error: msg})
}

func (w *fallbackWriter) Write(b []byte) (int, error) {
	if w.replaced {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// requestInfo is per-request state shared between the outer middleware and
// the route wrapper: the matched route pattern, for metrics labels.
type requestInfo struct {
	route string
}

type requestInfoKey struct{}

// withRequestInfo returns ctx carrying a fresh requestInfo.
func withRequestInfo(ctx context.Context) (context.Context, *requestInfo) {
	info := &requestInfo{}
	return context.WithValue(ctx, requestInfoKey{}, info), info
}

// setRoute records the matched route pattern in ctx's requestInfo, if any.
func setRoute(ctx context.Context, pattern string) {
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		info.route = pattern
	}
}
