package http

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"sparrow"
)

// Messages of the errors the HTTP layer itself produces, as Mastodon words them.
const (
	msgInvalidToken  = "The access token is invalid"
	msgOutsideScopes = "This action is outside the authorized scopes"
	msgUserRequired  = "This method requires an authenticated user"
	msgNotFound      = "Record not found"
	msgNotAllowed    = "Method not allowed"
	msgInternal      = sparrow.MsgInternal
)

// statusOf maps an error kind to its HTTP status. It is the only place that
// does; unknown kinds are 500.
func statusOf(k sparrow.Kind) int {
	switch k {
	case sparrow.EBadRequest:
		return http.StatusBadRequest
	case sparrow.EInvalid:
		return http.StatusUnprocessableEntity
	case sparrow.EUnauthorized:
		return http.StatusUnauthorized
	case sparrow.EForbidden:
		return http.StatusForbidden
	case sparrow.ENotFound:
		return http.StatusNotFound
	case sparrow.EConflict:
		return http.StatusConflict
	case sparrow.ETooLarge:
		return http.StatusRequestEntityTooLarge
	case sparrow.ERateLimited:
		return http.StatusTooManyRequests
	case sparrow.EUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// errorBody is Mastodon's error entity.
type errorBody struct {
	Error string `json:"error"`
}

// writeError writes err as Mastodon does: the status of its kind and
// {"error": sparrow.ErrorMessage(err)}, so that internal details never reach
// the client. Server errors (5xx) are logged with their cause. A 401
// carries a Bearer WWW-Authenticate challenge.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := statusOf(sparrow.ErrorKind(err))
	msg := sparrow.ErrorMessage(err)
	if code == http.StatusInternalServerError {
		msg = msgInternal // whatever the kind, a 500 explains nothing
	}
	s.logFailure(r, code, err)
	setRetryAfter(w, code, err)
	if code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="Sparrow", error="invalid_token"`)
	}
	writeJSON(w, code, errorBody{Error: msg})
}

// defaultRetryAfter is the Retry-After of a 503 or 429 whose error names none.
const defaultRetryAfter = 5 * time.Second

// setRetryAfter sets Retry-After (whole seconds, at least 1) on a 503 or
// 429, from the error's retry hint or defaultRetryAfter.
func setRetryAfter(w http.ResponseWriter, code int, err error) {
	if code != http.StatusServiceUnavailable && code != http.StatusTooManyRequests {
		return
	}
	d := sparrow.RetryAfter(err)
	if d <= 0 {
		d = defaultRetryAfter
	}
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))))
}

// logFailure logs a server-side failure with its cause: every 500, and a
// 503 at debug level (a down dependency answers many requests so; its
// state changes are logged once where they are detected).
func (s *Server) logFailure(r *http.Request, code int, err error) {
	switch {
	case code == http.StatusServiceUnavailable:
		s.logger().DebugContext(r.Context(), "request failed: unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
	case code >= 500:
		s.logger().ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "status", code, "err", err)
	}
}

// writeJSON writes v as JSON with the given status.
func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		// Entities are plain structs; this is a bug. Keep the response valid.
		code, data = http.StatusInternalServerError, []byte(`{"error":"Internal server error"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	w.Write(data)
	w.Write([]byte("\n"))
}

// oauthError is an RFC 6749 §5.2 error decided by the HTTP layer itself
// (unsupported_grant_type, invalid_scope, invalid_request), which the kind of
// a service error cannot express.
type oauthError struct {
	Code        string // RFC 6749 error code
	Status      int
	Description string
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

// oauthBody is RFC 6749's error response.
type oauthBody struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// oauthCode maps a service error kind to an RFC 6749 error code and status:
// bad client credentials are invalid_client (401), a bad grant (wrong
// password, unknown or used code, mismatched redirect URI) invalid_grant
// (400), a malformed request invalid_request (400), a refused client
// unauthorized_client (403), and rate limits and outages temporarily_unavailable.
func oauthCode(k sparrow.Kind) (string, int) {
	switch k {
	case sparrow.EUnauthorized:
		return "invalid_client", http.StatusUnauthorized
	case sparrow.EInvalid, sparrow.ENotFound:
		return "invalid_grant", http.StatusBadRequest
	case sparrow.EBadRequest, sparrow.EConflict:
		return "invalid_request", http.StatusBadRequest
	case sparrow.ETooLarge:
		return "invalid_request", http.StatusRequestEntityTooLarge
	case sparrow.EForbidden:
		return "unauthorized_client", http.StatusForbidden
	case sparrow.ERateLimited:
		return "temporarily_unavailable", http.StatusTooManyRequests
	case sparrow.EUnavailable:
		return "temporarily_unavailable", http.StatusServiceUnavailable
	}
	return "server_error", http.StatusInternalServerError
}

// writeOAuthError writes err as RFC 6749 §5.2 does, for the token and revoke
// endpoints: {"error": code, "error_description": message}, never cached.
func (s *Server) writeOAuthError(w http.ResponseWriter, r *http.Request, err error) {
	var (
		code   string
		status int
		desc   = sparrow.ErrorMessage(err)
		oe     *oauthError
	)
	switch {
	case errors.As(err, &oe):
		code, status, desc = oe.Code, oe.Status, oe.Description
	default:
		code, status = oauthCode(sparrow.ErrorKind(err))
	}
	s.logFailure(r, status, err)
	setRetryAfter(w, status, err)
	if status == http.StatusUnauthorized {
		if _, _, ok := r.BasicAuth(); ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="Sparrow"`)
		}
	}
	noStore(w)
	writeJSON(w, status, oauthBody{Error: code, ErrorDescription: desc})
}

// noStore marks a response as never to be cached (tokens, codes, secrets).
func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}
