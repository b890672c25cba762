// Package http is Sparrow's HTTP layer: it serves the subset of Mastodon's
// client REST API and OAuth endpoints that Sparrow implements, on top of the
// service interfaces of package sparrow (AuthService, AccountService,
// StatusService, RelationService). It holds no business rules: it parses
// parameters, resolves the bearer token to a sparrow.Viewer, enforces each
// route's token and scope requirements, calls a service and renders the
// result as a Mastodon entity.
//
// The package is organised by concept:
//
//   - server.go:     Server (the configuration the wiring sets) and Handler
//   - routes.go:     the route table; adding an endpoint is one line there plus a handler
//   - middleware.go: panic recovery, body limit, CORS, JSON 404/405, response writer wrapper
//   - params.go:     query, form, multipart and JSON parameters merged, typed getters
//   - errors.go:     sparrow.Kind → HTTP status and Mastodon / RFC 6749 error bodies
//   - auth.go:       bearer tokens, viewers in contexts, per-route access requirements
//   - oauth.go:      /api/v1/apps, /oauth/token, /oauth/revoke
//   - authorize.go:  the /oauth/authorize HTML login form
//   - pagination.go: max_id/since_id/min_id/limit and Link headers
//   - entities.go:   Mastodon JSON entities; render.go turns domain values into them;
//     content.go turns plain text into Mastodon's HTML content
//   - accounts.go, statuses.go, instance.go: the endpoint handlers
//   - relations.go:  follows, blocks, mutes, follow requests, relationships,
//     relation lists and the bulk-follow extension (POST /api/v1/x/follows)
//   - interactions.go: favourites, reblogs, their lists, comment pages
//   - timelines.go:  home, public, tag, object and profile timelines
//   - notifications.go: notifications
//   - streaming.go:  the streaming API (WebSocket and server-sent events)
//   - search.go:     account search (v1) and v2 search (accounts only so far)
//   - metrics.go:    Prometheus metrics and /metrics
//
// Handlers have the signature of handlerFunc: they receive the merged
// parameters and return an error, which the route wrapper writes in the
// route's error style (Mastodon's {"error": ...} or RFC 6749's). Internal
// error details are logged, never sent to clients.
package http
