package http

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"sparrow"
)

func TestCreateApp(t *testing.T) {
	tests := []struct {
		name, ctype, body string
		wantURIs          []string
		wantScopes        string
	}{
		{"form, newline separated", "application/x-www-form-urlencoded",
			"client_name=toot&redirect_uris=" + url.QueryEscape("urn:ietf:wg:oauth:2.0:oob\nhttps://a.example/cb") + "&scopes=read+write&website=https://toot.example",
			[]string{"urn:ietf:wg:oauth:2.0:oob", "https://a.example/cb"}, "read write"},
		{"json array", "application/json",
			`{"client_name":"toot","redirect_uris":["urn:ietf:wg:oauth:2.0:oob","https://a.example/cb"],"scopes":"read write","website":"https://toot.example"}`,
			[]string{"urn:ietf:wg:oauth:2.0:oob", "https://a.example/cb"}, "read write"},
		{"form array", "application/x-www-form-urlencoded",
			"client_name=toot&redirect_uris[]=urn:ietf:wg:oauth:2.0:oob&redirect_uris[]=https://a.example/cb&scopes[]=read&scopes[]=write&website=https://toot.example",
			[]string{"urn:ietf:wg:oauth:2.0:oob", "https://a.example/cb"}, "read write"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do(t, req{method: "POST", path: "/api/v1/apps", ctype: tc.ctype, body: tc.body})
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			want := sparrow.NewApp{Name: "toot", Website: "https://toot.example", RedirectURIs: tc.wantURIs, Scopes: tc.wantScopes}
			if !reflect.DeepEqual(h.auth.newApp, want) {
				t.Errorf("CreateApp got %+v, want %+v", h.auth.newApp, want)
			}
			m := decodeMap(t, w.Body.Bytes())
			wantBody := map[string]any{
				"id": appID.String(), "name": "toot", "website": "https://app.example",
				"scopes":        []any{"read", "write"},
				"redirect_uri":  "urn:ietf:wg:oauth:2.0:oob\nhttps://a.example/cb",
				"redirect_uris": []any{"urn:ietf:wg:oauth:2.0:oob", "https://a.example/cb"},
				"client_id":     clientID, "client_secret": clientSec, "client_secret_expires_at": float64(0),
				"vapid_key": "",
			}
			if !reflect.DeepEqual(m, wantBody) {
				t.Errorf("app =\n%#v\nwant\n%#v", m, wantBody)
			}
		})
	}
}

func TestCreateAppValidation(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "POST", path: "/api/v1/apps", ctype: "application/json", body: `{"redirect_uris":"urn:ietf:wg:oauth:2.0:oob"}`})
	if w.Code != 422 {
		t.Fatalf("status %d, want 422", w.Code)
	}
	assertJSONError(t, w.Body.Bytes(), "Validation failed: Application name can't be blank")
}

func TestVerifyAppCredentials(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "GET", path: "/api/v1/apps/verify_credentials", token: tokApp})
	m := decodeMap(t, w.Body.Bytes())
	if m["name"] != "Test <App>" || m["vapid_key"] != "" {
		t.Errorf("app = %v", m)
	}
	for _, k := range []string{"client_id", "client_secret", "client_secret_expires_at"} {
		if _, ok := m[k]; ok {
			t.Errorf("verify_credentials shows %s", k)
		}
	}
}

func TestTokenGrants(t *testing.T) {
	tests := []struct {
		name   string
		r      req
		want   sparrow.Grant
		scope  string
		access string
	}{
		{"password, form (go-mastodon)", req{ctype: "application/x-www-form-urlencoded",
			body: "client_id=cid&client_secret=csecret&grant_type=password&username=alice%40example.com&password=secret&scope=read+write+follow&redirect_uri=urn%3Aietf%3Awg%3Aoauth%3A2.0%3Aoob"},
			sparrow.Grant{GrantType: "password", ClientID: clientID, ClientSecret: clientSec, Scopes: "read write follow",
				Username: "alice@example.com", Password: "secret", RedirectURI: oobRedirectURI, RemoteAddr: "192.0.2.7"},
			"read write follow", tokUser},
		{"client credentials, json (toot)", req{ctype: "application/json",
			body: `{"client_id":"cid","client_secret":"csecret","grant_type":"client_credentials","redirect_uri":"urn:ietf:wg:oauth:2.0:oob","scope":"read write"}`},
			sparrow.Grant{GrantType: "client_credentials", ClientID: clientID, ClientSecret: clientSec, Scopes: "read write",
				RedirectURI: oobRedirectURI, RemoteAddr: "192.0.2.7"},
			"read write", tokApp},
		{"authorization code, basic auth, scopes", req{ctype: "application/x-www-form-urlencoded",
			header: http.Header{"Authorization": {"Basic Y2lkOmNzZWNyZXQ="}}, // cid:csecret
			body:   "grant_type=authorization_code&code=the-code&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&code_verifier=v3r&scopes=read"},
			sparrow.Grant{GrantType: "authorization_code", ClientID: clientID, ClientSecret: clientSec, Scopes: "read",
				Code: "the-code", RedirectURI: "https://app.example/cb", CodeVerifier: "v3r", RemoteAddr: "192.0.2.7"},
			"read write follow", tokUser},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			tc.r.method, tc.r.path = "POST", "/oauth/token"
			w := h.do(t, tc.r)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if h.auth.grant != tc.want {
				t.Errorf("grant = %+v\nwant    %+v", h.auth.grant, tc.want)
			}
			m := decodeMap(t, w.Body.Bytes())
			want := map[string]any{"access_token": tc.access, "token_type": "Bearer", "scope": tc.scope, "created_at": float64(1700000000)}
			if !reflect.DeepEqual(m, want) {
				t.Errorf("token = %v, want %v", m, want)
			}
			if w.Header().Get("Cache-Control") != "no-store" {
				t.Error("token response may be cached")
			}
		})
	}
}

func TestRevoke(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "POST", path: "/oauth/revoke", ctype: "application/x-www-form-urlencoded",
		body: "client_id=cid&client_secret=csecret&token=" + tokUser})
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != "{}" {
		t.Fatalf("revoke: %d %q", w.Code, w.Body)
	}
	if !reflect.DeepEqual(h.auth.revoked, []string{tokUser}) {
		t.Errorf("revoked = %v", h.auth.revoked)
	}
}

func TestAuthorizeForm(t *testing.T) {
	h := newHarness(t)
	q := url.Values{"response_type": {"code"}, "client_id": {`c"id<x>`}, "redirect_uri": {"https://app.example/cb"},
		"scope": {"read write"}, "state": {`s"><script>alert(1)</script>`}, "code_challenge": {"ch"}, "code_challenge_method": {"S256"}}
	for _, path := range []string{"/oauth/authorize?", "/oauth/authorize/?"} {
		w := h.do(t, req{method: "GET", path: path + q.Encode()})
		if w.Code != 200 {
			t.Fatalf("%s: status %d: %s", path, w.Code, w.Body)
		}
		body := w.Body.String()
		if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
			t.Errorf("Content-Type = %q", w.Header().Get("Content-Type"))
		}
		if strings.Contains(body, "<script>alert(1)") || strings.Contains(body, `c"id<x>`) {
			t.Error("parameters are not escaped")
		}
		for _, want := range []string{`name="email"`, `name="password"`, `name="client_id" value="c&#34;id&lt;x&gt;"`,
			`name="code_challenge" value="ch"`, `name="code_challenge_method" value="S256"`, `name="state" value="s&#34;&gt;&lt;script&gt;`,
			`<code>read</code> <code>write</code>`} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: form lacks %s", path, want)
			}
		}
		if w.Header().Get("X-Frame-Options") != "DENY" {
			t.Error("form may be framed")
		}
	}
	if w := h.do(t, req{method: "GET", path: "/oauth/authorize?response_type=token&client_id=x"}); w.Code != 400 || strings.Contains(w.Body.String(), "<form") {
		t.Errorf("response_type=token: %d, want 400 without a form", w.Code)
	}
	if w := h.do(t, req{method: "GET", path: "/oauth/authorize?response_type=code"}); w.Code != 400 {
		t.Errorf("missing client_id: %d, want 400", w.Code)
	}
}

func authorizeBody(email, password, redirect, state string) string {
	return url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "scope": {"read"},
		"state": {state}, "email": {email}, "password": {password}, "code_challenge": {"ch"}, "code_challenge_method": {"S256"}}.Encode()
}

func TestAuthorizeRedirects(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "POST", path: "/oauth/authorize", ctype: "application/x-www-form-urlencoded",
		body: authorizeBody("alice@example.com", "secret", "https://app.example/cb?keep=1", "xyz")})
	if w.Code != http.StatusFound {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	loc, err := url.Parse(w.Header().Get("Location"))
	if err != nil || loc.Host != "app.example" || loc.Path != "/cb" {
		t.Fatalf("Location = %q", w.Header().Get("Location"))
	}
	if q := loc.Query(); q.Get("code") != "the-code" || q.Get("state") != "xyz" || q.Get("keep") != "1" {
		t.Errorf("Location query = %v", q)
	}
	want := sparrow.Authorization{ClientID: clientID, RedirectURI: "https://app.example/cb?keep=1", Scopes: "read",
		Email: "alice@example.com", Password: "secret", CodeChallenge: "ch", CodeChallengeMethod: "S256", RemoteAddr: "192.0.2.7"}
	if h.auth.authz != want {
		t.Errorf("Authorize got %+v\nwant %+v", h.auth.authz, want)
	}
}

func TestAuthorizeOutOfBand(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "POST", path: "/oauth/authorize/", ctype: "application/x-www-form-urlencoded",
		body: authorizeBody("alice@example.com", "secret", oobRedirectURI, "")})
	if w.Code != 200 || !strings.Contains(w.Body.String(), `value="the-code"`) || strings.Contains(w.Body.String(), "<form") {
		t.Errorf("oob: %d %s", w.Code, w.Body)
	}
}

func TestAuthorizeBadCredentialsRerendersForm(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "POST", path: "/oauth/authorize", ctype: "application/x-www-form-urlencoded",
		body: authorizeBody(`alice@example.com"><b>`, "wrong-pw", "https://app.example/cb", "xyz")})
	if w.Code != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", w.Code)
	}
	body := w.Body.String()
	for _, want := range []string{"<form", "Invalid email or password.", `value="alice@example.com&#34;&gt;&lt;b&gt;"`, `name="state" value="xyz"`} {
		if !strings.Contains(body, want) {
			t.Errorf("re-rendered form lacks %q", want)
		}
	}
	if strings.Contains(body, "wrong-pw") {
		t.Error("the password is echoed back")
	}

	w = h.do(t, req{method: "POST", path: "/oauth/authorize", ctype: "application/x-www-form-urlencoded",
		body: authorizeBody("ghost@example.com", "secret", "https://app.example/cb", "")})
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "<form") {
		t.Errorf("unknown account: %d, want 401 with the form", w.Code)
	}

	w = h.do(t, req{method: "POST", path: "/oauth/authorize", ctype: "application/x-www-form-urlencoded",
		body: authorizeBody("alice@example.com", "down", "https://app.example/cb", "")})
	if w.Code != 500 || strings.Contains(w.Body.String(), "10.0.0.7") || !strings.Contains(h.log.String(), "10.0.0.7") {
		t.Errorf("internal error: %d, body leaks or log lacks the cause: %s", w.Code, w.Body)
	}
}
