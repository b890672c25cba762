package app_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestAuthorizationCodeWithPKCE walks the browser flow: the login form, the
// redirect with a code, and the code exchange with its PKCE verifier. A code
// works once, and a wrong verifier is refused.
func TestAuthorizationCodeWithPKCE(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		u := s.signup("")
		var app struct {
			ClientID     string `json:"client_id"`
			ClientSecret string `json:"client_secret"`
		}
		const cb = "http://127.0.0.1:9/callback"
		if code := s.do("POST", "/api/v1/apps", "", url.Values{"client_name": {"web"}, "redirect_uris": {cb}, "scopes": {"read write"}}, &app); code != 200 {
			t.Fatalf("apps: %d", code)
		}
		verifier := "a-verifier-that-is-long-enough-for-pkce-0123456789"
		sum := sha256.Sum256([]byte(verifier))
		challenge := base64.RawURLEncoding.EncodeToString(sum[:])
		q := url.Values{"response_type": {"code"}, "client_id": {app.ClientID}, "redirect_uri": {cb}, "scope": {"read"},
			"state": {"xyz"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
		code, page := s.raw("GET", "/oauth/authorize?"+q.Encode(), "", "", nil)
		if code != 200 || !strings.Contains(string(page), `name="password"`) {
			t.Fatalf("authorize form: %d", code)
		}
		login := func(password string) *http.Response {
			form := url.Values{"email": {u.Username + "@example.com"}, "password": {password}}
			for k, v := range q {
				form[k] = v
			}
			c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := c.PostForm(s.url+"/oauth/authorize", form)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp
		}
		if resp := login("wrong password"); resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Fatalf("wrong password on the form: HTTP %d, want 4xx", resp.StatusCode)
		}
		resp := login("correct horse battery")
		loc, err := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != 302 || err != nil || loc.Query().Get("code") == "" || loc.Query().Get("state") != "xyz" {
			t.Fatalf("authorize: HTTP %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		authCode := loc.Query().Get("code")
		exchange := func(code, verifier string) (int, string) {
			var tok struct {
				AccessToken string `json:"access_token"`
			}
			st := s.do("POST", "/oauth/token", "", url.Values{"grant_type": {"authorization_code"}, "client_id": {app.ClientID},
				"client_secret": {app.ClientSecret}, "code": {code}, "redirect_uri": {cb}, "code_verifier": {verifier}}, &tok)
			return st, tok.AccessToken
		}
		if st, _ := exchange(authCode, "not-the-verifier"); st != 400 {
			t.Fatalf("wrong verifier: HTTP %d, want 400", st)
		}
		// The failed attempt consumed the code: codes work once, whatever happens.
		resp = login("correct horse battery")
		loc, _ = url.Parse(resp.Header.Get("Location"))
		st, token := exchange(loc.Query().Get("code"), verifier)
		if st != 200 || token == "" {
			t.Fatalf("exchange: HTTP %d", st)
		}
		var me struct{ ID string }
		if code := s.do("GET", "/api/v1/accounts/verify_credentials", token, nil, &me); code != 200 || me.ID != string(u.ID) {
			t.Fatalf("token from the code: HTTP %d, account %s", code, me.ID)
		}
		if st, _ := exchange(loc.Query().Get("code"), verifier); st != 400 {
			t.Fatalf("code reused: HTTP %d, want 400", st)
		}
		// The token carries the scope asked for (read), not the app's write.
		s.wantError("POST", "/api/v1/statuses", token, []byte("status=x"), "application/x-www-form-urlencoded", 403)
	})
}
