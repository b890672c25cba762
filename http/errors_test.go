package http

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"sparrow"
)

func TestErrorKindsMapToStatusAndBody(t *testing.T) {
	tests := []struct {
		kind sparrow.Kind
		code int
	}{
		{sparrow.EBadRequest, 400},
		{sparrow.EInvalid, 422},
		{sparrow.EUnauthorized, 401},
		{sparrow.EForbidden, 403},
		{sparrow.ENotFound, 404},
		{sparrow.EConflict, 409},
		{sparrow.ERateLimited, 429},
		{sparrow.EUnavailable, 503},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind), func(t *testing.T) {
			h := newHarness(t)
			h.statuses.err = sparrow.WrapError(tc.kind, errors.New("secret cause at 10.1.2.3"), "message for %s", tc.kind)
			w := h.do(t, req{method: "GET", path: "/api/v1/statuses/" + statusID(1).String()})
			if w.Code != tc.code {
				t.Fatalf("status = %d, want %d", w.Code, tc.code)
			}
			if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q", ct)
			}
			want := "message for " + string(tc.kind)
			if tc.code >= 500 {
				want = sparrow.MsgUnavailable // a 5xx body never carries the backend's words
			}
			assertJSONError(t, w.Body.Bytes(), want)
			if strings.Contains(w.Body.String(), "10.1.2.3") {
				t.Error("the hidden cause leaked into the body")
			}
			if got := w.Header().Get("Retry-After"); (tc.code == 503 || tc.code == 429) != (got != "") {
				t.Errorf("Retry-After = %q on a %d", got, tc.code)
			}
		})
	}
}

func TestInternalErrorsAreHiddenAndLogged(t *testing.T) {
	for name, err := range map[string]error{
		"plain error":   errors.New("pq: connection refused to 10.1.2.3"),
		"internal kind": sparrow.WrapError(sparrow.EInternal, errors.New("disk 10.1.2.3 full"), "store failed at 10.1.2.3"),
		"unknown kind":  sparrow.Errorf(sparrow.Kind("weird"), "weird at 10.1.2.3"),
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			h.statuses.err = err
			w := h.do(t, req{method: "GET", path: "/api/v1/statuses/" + statusID(1).String()})
			if w.Code != 500 {
				t.Fatalf("status = %d, want 500", w.Code)
			}
			assertJSONError(t, w.Body.Bytes(), msgInternal)
			if !strings.Contains(h.log.String(), "10.1.2.3") {
				t.Errorf("the cause was not logged; log: %s", h.log)
			}
		})
	}
}

func TestStatusOfCoversEveryKind(t *testing.T) {
	seen := map[int]sparrow.Kind{}
	for _, k := range []sparrow.Kind{sparrow.EBadRequest, sparrow.EInvalid, sparrow.EUnauthorized, sparrow.EForbidden,
		sparrow.ENotFound, sparrow.EConflict, sparrow.ERateLimited, sparrow.EUnavailable, sparrow.EInternal} {
		c := statusOf(k)
		if prev, dup := seen[c]; dup {
			t.Errorf("%s and %s both map to %d", prev, k, c)
		}
		seen[c] = k
	}
	if statusOf(sparrow.EInternal) != 500 || statusOf("") != 500 {
		t.Error("internal and unknown kinds must be 500")
	}
}

func TestMalformedPathIDIs404(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "GET", path: "/api/v1/statuses/not-a-number"})
	if w.Code != 404 {
		t.Fatalf("status = %d, want 404", w.Code)
	}
	assertJSONError(t, w.Body.Bytes(), "Record not found")
}

func TestOAuthErrorBodies(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		basic    bool
		issueErr error
		code     int
		oauth    string
	}{
		{"bad client", "grant_type=password&client_id=cid&client_secret=wrong&username=a&password=b", false, nil, 401, "invalid_client"},
		{"bad password", "grant_type=password&client_id=cid&client_secret=csecret&username=alice@example.com&password=nope", false, nil, 400, "invalid_grant"},
		{"unsupported grant", "grant_type=refresh_token&client_id=cid&client_secret=csecret", false, nil, 400, "unsupported_grant_type"},
		{"missing grant", "client_id=cid&client_secret=csecret", false, nil, 400, "invalid_request"},
		{"bad scope", "grant_type=client_credentials&client_id=cid&client_secret=csecret&scope=read+admin%3Aall+bogus", false, nil, 400, "invalid_scope"},
		{"rate limited", "grant_type=password&client_id=cid&client_secret=csecret", false, sparrow.Errorf(sparrow.ERateLimited, "Too many attempts"), 429, "temporarily_unavailable"},
		{"bad request", "grant_type=password&client_id=cid&client_secret=csecret", false, sparrow.Errorf(sparrow.EBadRequest, "Missing username"), 400, "invalid_request"},
		{"internal", "grant_type=password&client_id=cid&client_secret=csecret", false, errors.New("boom"), 500, "server_error"},
		{"basic bad client", "grant_type=client_credentials", true, nil, 401, "invalid_client"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.auth.issueErr = tc.issueErr
			r := req{method: "POST", path: "/oauth/token", ctype: "application/x-www-form-urlencoded", body: tc.body}
			if tc.basic {
				r.header = http.Header{"Authorization": {"Basic Y2lkOndyb25n"}} // cid:wrong
			}
			w := h.do(t, r)
			if w.Code != tc.code {
				t.Fatalf("status = %d, want %d; body %s", w.Code, tc.code, w.Body)
			}
			assertOAuthError(t, w.Body.Bytes(), tc.oauth)
			if w.Header().Get("Cache-Control") != "no-store" {
				t.Error("OAuth errors must not be cached")
			}
			if tc.basic && !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Basic") {
				t.Errorf("WWW-Authenticate = %q, want a Basic challenge", w.Header().Get("WWW-Authenticate"))
			}
			if tc.oauth == "server_error" && strings.Contains(w.Body.String(), "boom") {
				t.Error("internal cause leaked")
			}
		})
	}
}

func TestRevokeErrorsAreOAuthStyle(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "POST", path: "/oauth/revoke", ctype: "application/x-www-form-urlencoded",
		body: "client_id=cid&client_secret=wrong&token=x"})
	if w.Code != 403 {
		t.Fatalf("status = %d, want 403; body %s", w.Code, w.Body)
	}
	assertOAuthError(t, w.Body.Bytes(), "unauthorized_client")
}

// TestUnavailableBodyHidesBackendAndSaysWhenToRetry: a 503 body is the
// fixed message whatever the dependency said (here a Redis key), and
// Retry-After comes from the error's retry hint, rounded up to seconds.
func TestUnavailableBodyHidesBackendAndSaysWhenToRetry(t *testing.T) {
	h := newHarness(t)
	h.statuses.err = sparrow.Unavailable(errors.New("dial tcp 10.1.2.3:6379"), 1500*time.Millisecond, `redis: count "login:ip:127.0.0.1"`)
	w := h.do(t, req{method: "GET", path: "/api/v1/statuses/" + statusID(1).String()})
	if w.Code != 503 || w.Header().Get("Retry-After") != "2" {
		t.Fatalf("status %d, Retry-After %q; want 503 and 2", w.Code, w.Header().Get("Retry-After"))
	}
	assertJSONError(t, w.Body.Bytes(), sparrow.MsgUnavailable)
}
