package http

import (
	"context"
	"net/http"
	"strings"

	"sparrow"
)

// level is how much authentication a route needs.
type level int

const (
	// levelOpen routes never look at tokens (health, metrics, instance, OAuth).
	levelOpen level = iota
	// levelPublic routes serve anonymous requests, but a token that is sent
	// must be valid and, if the route names scopes, grant one of them
	// (Mastodon's authorize_if_got_token!).
	levelPublic
	// levelApp routes need a valid token, of an app or of a user.
	levelApp
	// levelUser routes need a user's token; an app-only token gets 422.
	levelUser
)

// access is a route's requirement: a level, the scopes of which the token must
// grant at least one (none: any scope), and the style of its error bodies.
type access struct {
	level  level
	scopes []sparrow.Scope
	oauth  bool // errors in RFC 6749 form (token and revoke endpoints)
}

// Access requirements for the route table.
var (
	// open: no token is looked at.
	open = access{level: levelOpen}
	// oauthEndpoint: no bearer token; client credentials in the request, and
	// RFC 6749 error bodies.
	oauthEndpoint = access{level: levelOpen, oauth: true}
)

// public returns levelPublic access: anonymous is fine, a sent token must be
// valid and grant one of scopes.
func public(scopes ...sparrow.Scope) access { return access{level: levelPublic, scopes: scopes} }

// anyToken returns levelApp access: an app or user token granting one of scopes.
func anyToken(scopes ...sparrow.Scope) access { return access{level: levelApp, scopes: scopes} }

// user returns levelUser access: a user token granting one of scopes.
func user(scopes ...sparrow.Scope) access { return access{level: levelUser, scopes: scopes} }

// bearerToken returns the access token of r: from "Authorization: Bearer",
// else from the access_token parameter (query or body), as Doorkeeper accepts.
// An empty bearer ("Bearer " is what go-mastodon sends when it has no token)
// counts as none. Other schemes (Basic) are not tokens.
func bearerToken(r *http.Request, p *params) string {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, _ := strings.Cut(strings.TrimSpace(h), " ")
		if strings.EqualFold(scheme, "Bearer") {
			if tok = strings.TrimSpace(tok); tok != "" {
				return tok
			}
		}
	}
	return strings.TrimSpace(p.String("access_token"))
}

// authenticate resolves r's token according to a and returns the viewer
// (the zero Viewer for anonymous requests). Its errors follow Mastodon:
// a missing or invalid token where one is needed is 401 "The access token is
// invalid"; a token without the scope is 403 "This action is outside the
// authorized scopes"; an app token where a user is needed is 422 "This method
// requires an authenticated user". The scope check comes before the user
// check, as in Mastodon. Failures of the auth service other than
// EUnauthorized (an outage) pass through.
func (s *Server) authenticate(r *http.Request, p *params, a access) (sparrow.Viewer, error) {
	if a.level == levelOpen {
		return sparrow.Viewer{}, nil
	}
	tok := bearerToken(r, p)
	if tok == "" {
		if a.level == levelPublic {
			return sparrow.Viewer{}, nil
		}
		return sparrow.Viewer{}, sparrow.Errorf(sparrow.EUnauthorized, msgInvalidToken)
	}
	v, err := s.Auth.Authenticate(r.Context(), tok)
	if err != nil {
		if sparrow.IsKind(err, sparrow.EUnauthorized) {
			return sparrow.Viewer{}, sparrow.WrapError(sparrow.EUnauthorized, err, msgInvalidToken)
		}
		return sparrow.Viewer{}, err
	}
	if len(a.scopes) > 0 && !allowsAny(v.Scopes, a.scopes) {
		return sparrow.Viewer{}, sparrow.Errorf(sparrow.EForbidden, msgOutsideScopes)
	}
	if a.level == levelUser && v.Anonymous() {
		return sparrow.Viewer{}, sparrow.Errorf(sparrow.EInvalid, msgUserRequired)
	}
	if s.OnAuthenticated != nil && !v.Anonymous() {
		// Activity marks are best effort: a failure never fails the request.
		if err := s.OnAuthenticated(r.Context(), v); err != nil && s.Logger != nil {
			s.Logger.Warn("activity mark", "err", err)
		}
	}
	return v, nil
}

// allowsAny reports whether have grants at least one of need.
func allowsAny(have sparrow.Scopes, need []sparrow.Scope) bool {
	for _, n := range need {
		if have.Allows(n) {
			return true
		}
	}
	return false
}

type viewerKey struct{}

// withViewer returns ctx carrying v.
func withViewer(ctx context.Context, v sparrow.Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// viewerFrom returns the viewer of a request's context; the zero (anonymous)
// Viewer if none.
func viewerFrom(ctx context.Context) sparrow.Viewer {
	v, _ := ctx.Value(viewerKey{}).(sparrow.Viewer)
	return v
}
