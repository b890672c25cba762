package http

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"sparrow"
)

// oobRedirectURI is the out-of-band redirect URI: the code is shown to the
// user, who pastes it into the app (toot does this).
const oobRedirectURI = "urn:ietf:wg:oauth:2.0:oob"

// authorizePage is what the authorization page shows. html/template escapes
// every field in its context.
type authorizePage struct {
	ClientID            string
	RedirectURI         string
	Scope               string
	State               string
	CodeChallenge       string
	CodeChallengeMethod string
	Email               string   // echoed back after a failed attempt; never the password
	Scopes              []string // Scope, split for display
	Error               string   // why the last attempt failed
	Code                string   // the out-of-band code, once authorized
	Fatal               bool     // the request is invalid: show Error, no form
}

var authorizeTemplate = template.Must(template.New("authorize").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Authorize – Sparrow</title>
<style>
body{font-family:system-ui,sans-serif;max-width:28em;margin:3em auto;padding:0 1em;line-height:1.4}
label{display:block;margin:1em 0 .3em}
input[type=email],input[type=password],input[type=text]{width:100%;padding:.5em;box-sizing:border-box}
button{margin-top:1.2em;padding:.5em 1.5em}
.error{color:#b00020}
.code{font-family:monospace;font-size:1.3em;word-break:break-all}
</style>
</head>
<body>
{{- if .Code}}
<h1>Authorization code</h1>
<p>Copy this code and paste it into the application:</p>
<p><input class="code" type="text" readonly value="{{.Code}}" aria-label="Authorization code"></p>
{{- else if .Fatal}}
<h1>Authorization failed</h1>
<p class="error" role="alert">{{.Error}}</p>
{{- else}}
<h1>Authorize an application</h1>
<p>An application asks for access to your account with these permissions:
{{range .Scopes}}<code>{{.}}</code> {{end}}</p>
{{- with .Error}}
<p class="error" role="alert">{{.}}</p>
{{- end}}
<form method="post">
<input type="hidden" name="response_type" value="code">
<input type="hidden" name="client_id" value="{{.ClientID}}">
<input type="hidden" name="redirect_uri" value="{{.RedirectURI}}">
<input type="hidden" name="scope" value="{{.Scope}}">
<input type="hidden" name="state" value="{{.State}}">
<input type="hidden" name="code_challenge" value="{{.CodeChallenge}}">
<input type="hidden" name="code_challenge_method" value="{{.CodeChallengeMethod}}">
<label for="email">Email</label>
<input id="email" type="email" name="email" value="{{.Email}}" required autocomplete="username" autofocus>
<label for="password">Password</label>
<input id="password" type="password" name="password" required autocomplete="current-password">
<button type="submit">Authorize</button>
</form>
{{- end}}
</body>
</html>
`))

// authorizeRequest reads the authorization request's parameters.
func authorizeRequest(p *params) authorizePage {
	scope := joinParam(p, "scope")
	if scope == "" {
		scope = joinParam(p, "scopes")
	}
	shown := strings.Fields(strings.NewReplacer("+", " ", ",", " ").Replace(scope))
	if len(shown) == 0 {
		shown = []string{string(sparrow.ScopeRead)}
	}
	return authorizePage{
		ClientID:            p.String("client_id"),
		RedirectURI:         p.String("redirect_uri"),
		Scope:               scope,
		State:               p.String("state"),
		CodeChallenge:       p.String("code_challenge"),
		CodeChallengeMethod: p.String("code_challenge_method"),
		Email:               p.String("email"),
		Scopes:              shown,
	}
}

// checkAuthorizeRequest marks pg fatal if the request cannot be served:
// response_type must be "code" (it may be absent on the form's own POST
// only) and client_id is required.
func checkAuthorizeRequest(pg *authorizePage, p *params, requireType bool) {
	switch rt := p.String("response_type"); {
	case rt == "code", rt == "" && !requireType:
	default:
		pg.Fatal, pg.Error = true, "unsupported_response_type: only response_type=code is supported."
		return
	}
	if pg.ClientID == "" {
		pg.Fatal, pg.Error = true, "invalid_request: client_id is required."
	}
}

// authorizeForm serves the login form of the authorization code flow
// (GET /oauth/authorize): response_type=code, client_id, redirect_uri, scope,
// state, code_challenge and code_challenge_method are kept in hidden fields.
// An invalid request gets an error page (400) and no form.
func (s *Server) authorizeForm(w http.ResponseWriter, r *http.Request, p *params) error {
	pg := authorizeRequest(p)
	pg.Email = ""
	checkAuthorizeRequest(&pg, p, true)
	if pg.Fatal {
		return renderAuthorize(w, http.StatusBadRequest, pg)
	}
	return renderAuthorize(w, http.StatusOK, pg)
}

// authorize checks the form (POST /oauth/authorize) with Auth.Authorize. On
// success it redirects (302) to redirect_uri with code (and state) added to
// its query, or, for the out-of-band URI (or none), shows the code. On
// failure it shows the form again with the service's message: 401 for bad
// credentials (also when the account is unknown), 422 for invalid requests,
// 429 when rate limited; server errors are logged.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, p *params) error {
	pg := authorizeRequest(p)
	checkAuthorizeRequest(&pg, p, false)
	if pg.Fatal {
		return renderAuthorize(w, http.StatusBadRequest, pg)
	}
	code, err := s.Auth.Authorize(r.Context(), sparrow.Authorization{
		ClientID:            pg.ClientID,
		RedirectURI:         pg.RedirectURI,
		Scopes:              pg.Scope,
		Email:               pg.Email,
		Password:            p.String("password"),
		CodeChallenge:       pg.CodeChallenge,
		CodeChallengeMethod: pg.CodeChallengeMethod,
		RemoteAddr:          remoteHost(r),
	})
	if err != nil {
		status := statusOf(sparrow.ErrorKind(err))
		if status == http.StatusNotFound {
			status = http.StatusUnauthorized
		}
		if status >= 500 {
			s.logger().ErrorContext(r.Context(), "authorize failed", "status", status, "err", err)
		}
		pg.Error = sparrow.ErrorMessage(err)
		return renderAuthorize(w, status, pg)
	}
	if pg.RedirectURI == "" || pg.RedirectURI == oobRedirectURI {
		pg.Code = code
		return renderAuthorize(w, http.StatusOK, pg)
	}
	u, err := url.Parse(pg.RedirectURI)
	if err != nil {
		pg.Fatal, pg.Error = true, "invalid_request: the redirect URI is malformed."
		return renderAuthorize(w, http.StatusBadRequest, pg)
	}
	q := u.Query()
	q.Set("code", code)
	if pg.State != "" {
		q.Set("state", pg.State)
	}
	u.RawQuery = q.Encode()
	noStore(w)
	http.Redirect(w, r, u.String(), http.StatusFound)
	return nil
}

// renderAuthorize writes the authorization page with status, with headers
// that keep it out of caches and frames.
func renderAuthorize(w http.ResponseWriter, status int, pg authorizePage) error {
	var buf bytes.Buffer
	if err := authorizeTemplate.Execute(&buf, pg); err != nil {
		return sparrow.WrapError(sparrow.EInternal, err, "rendering the authorization page")
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	noStore(w)
	w.WriteHeader(status)
	w.Write(buf.Bytes())
	return nil
}
