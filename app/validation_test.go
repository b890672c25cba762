package app_test

import (
	"strings"
	"testing"
)

// TestStoredFieldsValidatedAlikeOnEveryBackend: every string a client sends
// to be stored is checked for length and UTF-8 by the service, so that the
// answer is the same 4xx on SQLite (which enforces nothing) and on MariaDB
// (whose columns used to reject it with a 500).
func TestStoredFieldsValidatedAlikeOnEveryBackend(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		u := s.signup("")
		form := "application/x-www-form-urlencoded"
		long := strings.Repeat("a", 1025)
		uris := "urn:ietf:wg:oauth:2.0:oob"
		for len(uris) < 3000 {
			uris += "+https://example.com/callback/" + strings.Repeat("x", 100)
		}
		cases := []struct {
			name, method, path, body, header string
			want                             int
		}{
			{"language over 16 characters", "POST", "/api/v1/statuses", "status=x&language=" + strings.Repeat("e", 17), "", 422},
			{"language not a tag", "POST", "/api/v1/statuses", "status=x&language=en%20us", "", 422},
			{"language invalid UTF-8", "POST", "/api/v1/statuses", "status=x&language=%FF%FE", "", 422},
			{"object invalid UTF-8", "POST", "/api/v1/statuses", "status=x&object=book:%FF", "", 422},
			{"spoiler invalid UTF-8", "POST", "/api/v1/statuses", "status=x&spoiler_text=%C3", "", 422},
			{"Idempotency-Key invalid UTF-8", "POST", "/api/v1/statuses", "status=x", "\xff\xfe", 422},
			{"Idempotency-Key over 128 bytes", "POST", "/api/v1/statuses", "status=x", strings.Repeat("k", 129), 422},
			{"edit language", "PUT", "/api/v1/statuses/STATUS", "status=y&language=%FF", "", 422},
			{"display name invalid UTF-8", "PATCH", "/api/v1/accounts/update_credentials", "display_name=%FFab", "", 422},
			{"display name over 30 characters", "PATCH", "/api/v1/accounts/update_credentials", "display_name=" + strings.Repeat("名", 31), "", 422},
			{"note invalid UTF-8", "PATCH", "/api/v1/accounts/update_credentials", "note=%E4%B8", "", 422},
			{"app name invalid UTF-8", "POST", "/api/v1/apps", "client_name=%FF&redirect_uris=urn:ietf:wg:oauth:2.0:oob", "", 422},
			{"app name over 60 characters", "POST", "/api/v1/apps", "client_name=" + strings.Repeat("n", 61) + "&redirect_uris=urn:ietf:wg:oauth:2.0:oob", "", 422},
			{"app website over 1024 bytes", "POST", "/api/v1/apps", "client_name=x&redirect_uris=urn:ietf:wg:oauth:2.0:oob&website=https://example.com/" + long, "", 422},
			{"app website not a URL", "POST", "/api/v1/apps", "client_name=x&redirect_uris=urn:ietf:wg:oauth:2.0:oob&website=javascript:alert(1)", "", 422},
			{"redirect URIs over 2000 bytes", "POST", "/api/v1/apps", "client_name=x&redirect_uris=" + uris, "", 422},
			{"redirect URIs over the body limit", "POST", "/api/v1/apps", "client_name=x&redirect_uris=" + strings.Repeat(uris, 30), "", 413},
			{"scope with a long granular part", "POST", "/api/v1/apps", "client_name=x&redirect_uris=urn:ietf:wg:oauth:2.0:oob&scopes=read:" + long, "", 422},
			{"sign-up email invalid UTF-8", "POST", "/api/v1/accounts", "username=zz9&email=z%FF@example.com&password=12345678&agreement=true", "APP", 422},
			{"login name invalid UTF-8", "POST", "/oauth/token", "grant_type=password&client_id=CLIENT&client_secret=SECRET&username=%FF@x.com&password=12345678", "", 400},
			{"client id invalid UTF-8", "POST", "/oauth/token", "grant_type=client_credentials&client_id=%FF&client_secret=x", "", 401},
			{"search query invalid UTF-8", "GET", "/api/v1/accounts/search?q=%FF", "", "", 422},
			{"lookup invalid UTF-8", "GET", "/api/v1/accounts/lookup?acct=%FF", "", "", 404},
			{"object feed invalid UTF-8", "GET", "/api/v1/x/objects/book/%FF/statuses", "", "", 404},
			{"keyed feed unknown", "GET", "/api/v1/x/feeds/nosuchfeed?key=x", "", "", 404},
			{"keyed feed impossible key", "GET", "/api/v1/x/feeds/public?key=x", "", "", 404},
			{"keyed feed tag invalid UTF-8", "GET", "/api/v1/x/feeds/tag?key=%FF", "", "", 404},
			{"notification types unknown", "GET", "/api/v1/notifications?types[]=%FF", "", "", 200},
		}
		st := post(t, u, "to edit", "public")
		appClient := s.newApp("read write follow")
		var appTok struct {
			AccessToken string `json:"access_token"`
		}
		s.do("POST", "/oauth/token", "", map[string][]string{"grant_type": {"client_credentials"}, "client_id": {appClient.Config.ClientID},
			"client_secret": {appClient.Config.ClientSecret}, "scope": {"read write follow"}}, &appTok)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s.t = t
				path := strings.Replace(c.path, "STATUS", string(st), 1)
				body := strings.NewReplacer("CLIENT", appClient.Config.ClientID, "SECRET", appClient.Config.ClientSecret).Replace(c.body)
				token, header := u.Token, c.header
				if header == "APP" {
					token, header = appTok.AccessToken, ""
				}
				var code int
				var got []byte
				if header != "" {
					code, got = s.rawHeader(c.method, path, token, form, body, "Idempotency-Key", header)
				} else {
					code, got = s.raw(c.method, path, token, form, strings.NewReader(body))
				}
				if code != c.want {
					t.Errorf("HTTP %d %s, want %d", code, got, c.want)
				}
				if code >= 300 && !strings.Contains(string(got), `"error"`) {
					t.Errorf("no error body: %s", got)
				}
			})
		}
	})
}
