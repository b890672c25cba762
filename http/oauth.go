package http

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"sparrow"
)

// createApp registers an OAuth app (POST /api/v1/apps): client_name,
// redirect_uris (a string of URIs separated by spaces or newlines, or an
// array), scopes and website. It answers the Application with its client id
// and secret, which are shown only here.
func (s *Server) createApp(w http.ResponseWriter, r *http.Request, p *params) error {
	app, secret, err := s.Auth.CreateApp(r.Context(), sparrow.NewApp{
		Name:         p.String("client_name"),
		Website:      p.String("website"),
		RedirectURIs: splitFields(p.Strings("redirect_uris")),
		Scopes:       joinParam(p, "scopes"),
	})
	if err != nil {
		return err
	}
	noStore(w)
	writeJSON(w, http.StatusOK, s.renderer(r).application(app, secret))
	return nil
}

// verifyAppCredentials answers the app of the token
// (GET /api/v1/apps/verify_credentials), without its client credentials.
func (s *Server) verifyAppCredentials(w http.ResponseWriter, r *http.Request, p *params) error {
	app, err := s.Auth.AppOf(r.Context(), viewerFrom(r.Context()))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.renderer(r).application(app, ""))
	return nil
}

// Grant types Sparrow supports.
var grantTypes = map[string]bool{"password": true, "client_credentials": true, "authorization_code": true}

// token runs an OAuth grant (POST /oauth/token): grant_type (password,
// client_credentials or authorization_code), client_id and client_secret (or
// HTTP Basic credentials), username and password, code, redirect_uri,
// scope (or scopes) and code_verifier. It answers {"access_token",
// "token_type": "Bearer", "scope", "created_at"}. Errors are RFC 6749's: an
// unknown grant type is unsupported_grant_type and a malformed scope
// invalid_scope, checked here; others come from the service's error kinds
// (see oauthCode).
func (s *Server) token(w http.ResponseWriter, r *http.Request, p *params) error {
	gt := p.String("grant_type")
	if gt == "" {
		return &oauthError{"invalid_request", http.StatusBadRequest, "Missing required parameter: grant_type."}
	}
	if !grantTypes[gt] {
		return &oauthError{"unsupported_grant_type", http.StatusBadRequest,
			"The authorization grant type is not supported by the authorization server."}
	}
	scope := joinParam(p, "scope")
	if scope == "" {
		scope = joinParam(p, "scopes")
	}
	if _, err := sparrow.ParseScopes(scope); err != nil {
		return &oauthError{"invalid_scope", http.StatusBadRequest, sparrow.ErrorMessage(err)}
	}
	id, secret := clientCredentials(r, p)
	tok, err := s.Auth.IssueToken(r.Context(), sparrow.Grant{
		GrantType:    gt,
		ClientID:     id,
		ClientSecret: secret,
		Scopes:       scope,
		Username:     p.String("username"),
		Password:     p.String("password"),
		Code:         p.String("code"),
		RedirectURI:  p.String("redirect_uri"),
		CodeVerifier: p.String("code_verifier"),
		RemoteAddr:   remoteHost(r),
	})
	if err != nil {
		return err
	}
	noStore(w)
	writeJSON(w, http.StatusOK, token(tok))
	return nil
}

// revoke revokes a token (POST /oauth/revoke): client_id, client_secret (or
// HTTP Basic credentials) and token. It answers {} also for unknown tokens.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request, p *params) error {
	id, secret := clientCredentials(r, p)
	if err := s.Auth.Revoke(r.Context(), id, secret, p.String("token")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct{}{})
	return nil
}

// clientCredentials returns the client id and secret from the parameters, or
// else from HTTP Basic authentication (whose parts RFC 6749 §2.3.1 form-encodes).
func clientCredentials(r *http.Request, p *params) (id, secret string) {
	id, secret = p.String("client_id"), p.String("client_secret")
	if id != "" {
		return id, secret
	}
	u, pw, ok := r.BasicAuth()
	if !ok {
		return id, secret
	}
	return formDecode(u), formDecode(pw)
}

// formDecode undoes application/x-www-form-urlencoded encoding, keeping s if
// it is not validly encoded.
func formDecode(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

// remoteHost is the client's IP address (r.RemoteAddr without the port).
func remoteHost(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// joinParam joins the values of key with spaces: scopes may come as one
// string or as an array.
func joinParam(p *params, key string) string {
	return strings.TrimSpace(strings.Join(p.Strings(key), " "))
}

// splitFields splits each value on whitespace (redirect URIs may be sent as
// one string with one URI per line) and returns all the fields.
func splitFields(values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, strings.Fields(v)...)
	}
	return out
}
