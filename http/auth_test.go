package http

import (
	"net/http"
	"strings"
	"testing"

	"sparrow"
)

func TestAccessRequirements(t *testing.T) {
	status := "/api/v1/statuses/" + statusID(1).String()
	tests := []struct {
		name   string
		r      req
		code   int
		errMsg string // "" when the request succeeds
	}{
		{"user route without token", req{method: "GET", path: "/api/v1/accounts/verify_credentials"}, 401, msgInvalidToken},
		{"user route with unknown token", req{method: "GET", path: "/api/v1/accounts/verify_credentials", token: "nope"}, 401, msgInvalidToken},
		{"user route with app token", req{method: "GET", path: "/api/v1/accounts/verify_credentials", token: tokApp}, 422, msgUserRequired},
		{"user route with user token", req{method: "GET", path: "/api/v1/accounts/verify_credentials", token: tokUser}, 200, ""},
		{"write route with read token", req{method: "POST", path: "/api/v1/statuses", token: tokReadOnly, ctype: "application/x-www-form-urlencoded", body: "status=hi"}, 403, msgOutsideScopes},
		{"delete with read token", req{method: "DELETE", path: status, token: tokReadOnly}, 403, msgOutsideScopes},
		{"empty bearer is anonymous on public route", req{method: "GET", path: status, header: http.Header{"Authorization": {"Bearer "}}}, 200, ""},
		{"empty bearer on user route", req{method: "GET", path: "/api/v1/accounts/verify_credentials", header: http.Header{"Authorization": {"Bearer "}}}, 401, msgInvalidToken},
		{"anonymous on public route", req{method: "GET", path: status}, 200, ""},
		{"invalid token on public route", req{method: "GET", path: status, token: "nope"}, 401, msgInvalidToken},
		{"app token on public route", req{method: "GET", path: status, token: tokApp}, 200, ""},
		{"access_token query parameter", req{method: "GET", path: "/api/v1/accounts/verify_credentials?access_token=" + tokUser}, 200, ""},
		{"empty bearer then access_token", req{method: "GET", path: "/api/v1/accounts/verify_credentials?access_token=" + tokUser, header: http.Header{"Authorization": {"Bearer "}}}, 200, ""},
		{"access_token form parameter", req{method: "PATCH", path: "/api/v1/accounts/update_credentials", ctype: "application/x-www-form-urlencoded", body: "access_token=" + tokUser + "&bot=1"}, 200, ""},
		{"lower-case bearer scheme", req{method: "GET", path: "/api/v1/accounts/verify_credentials", header: http.Header{"Authorization": {"bearer " + tokUser}}}, 200, ""},
		{"basic auth is not a token", req{method: "GET", path: "/api/v1/accounts/verify_credentials", header: http.Header{"Authorization": {"Basic Y2lkOmNzZWNyZXQ="}}}, 401, msgInvalidToken},
		{"auth outage is 503, not anonymous", req{method: "GET", path: status, token: tokDown}, 503, sparrow.MsgUnavailable},
		{"app route without token", req{method: "GET", path: "/api/v1/apps/verify_credentials"}, 401, msgInvalidToken},
		{"app route with app token", req{method: "GET", path: "/api/v1/apps/verify_credentials", token: tokApp}, 200, ""},
		{"open route ignores bad token", req{method: "GET", path: "/api/v1/instance", token: "nope"}, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.statuses.add(&sparrow.Status{ID: statusID(1), AccountID: aliceID, Text: "hi", Visibility: sparrow.Public})
			w := h.do(t, tc.r)
			if w.Code != tc.code {
				t.Fatalf("status = %d, want %d; body %s", w.Code, tc.code, w.Body)
			}
			if tc.errMsg != "" {
				assertJSONError(t, w.Body.Bytes(), tc.errMsg)
			}
			if tc.code == 401 && !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge: %q", w.Header().Get("WWW-Authenticate"))
			}
		})
	}
}

func TestViewerReachesServices(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "POST", path: "/api/v1/accounts", token: tokApp, ctype: "application/json",
		body: `{"username":"carol","email":"c@example.com","password":"pw12345678","agreement":true,"locale":"fr","reason":"hi"}`})
	if w.Code != 200 {
		t.Fatalf("status = %d; body %s", w.Code, w.Body)
	}
	if h.accounts.regBy.AppID != appID || h.accounts.regBy.AccountID != 0 {
		t.Errorf("Register got viewer %+v, want the app token's", h.accounts.regBy)
	}
	want := sparrow.Registration{Username: "carol", Email: "c@example.com", Password: "pw12345678", Agreement: true, Locale: "fr", Reason: "hi"}
	if h.accounts.reg != want {
		t.Errorf("Register got %+v, want %+v", h.accounts.reg, want)
	}
	got := decodeMap(t, w.Body.Bytes())
	if got["access_token"] != "tok-new" || got["token_type"] != "Bearer" || got["scope"] != "read write" || got["created_at"] != float64(1700000001) {
		t.Errorf("token = %v", got)
	}
}

func TestRegisterNeedsWriteAccountsScope(t *testing.T) {
	h := newHarness(t)
	h.auth.tokens["tok-app-read"] = sparrow.Viewer{AppID: appID, Scopes: sparrow.Scopes{"read"}}
	w := h.do(t, req{method: "POST", path: "/api/v1/accounts", token: "tok-app-read", ctype: "application/json", body: `{"username":"x"}`})
	if w.Code != 403 {
		t.Fatalf("status = %d, want 403", w.Code)
	}
	// A granular scope is enough.
	h.auth.tokens["tok-app-granular"] = sparrow.Viewer{AppID: appID, Scopes: sparrow.Scopes{"write:accounts"}}
	w = h.do(t, req{method: "POST", path: "/api/v1/accounts", token: "tok-app-granular", ctype: "application/json", body: `{"username":"x"}`})
	if w.Code != 200 {
		t.Fatalf("granular scope: status = %d, want 200; body %s", w.Code, w.Body)
	}
}

func TestProfileScopeAllowsVerifyCredentials(t *testing.T) {
	h := newHarness(t)
	h.auth.tokens["tok-profile"] = sparrow.Viewer{AccountID: aliceID, AppID: appID, Scopes: sparrow.Scopes{"profile"}}
	if w := h.do(t, req{method: "GET", path: "/api/v1/accounts/verify_credentials", token: "tok-profile"}); w.Code != 200 {
		t.Errorf("verify_credentials with profile scope: %d", w.Code)
	}
	if w := h.do(t, req{method: "GET", path: "/api/v1/accounts/" + aliceID.String(), token: "tok-profile"}); w.Code != 403 {
		t.Errorf("account with only profile scope: %d, want 403", w.Code)
	}
}
