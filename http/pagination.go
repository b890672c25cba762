package http

import (
	"net/http"
	"net/url"
	"strconv"

	"sparrow"
)

// pageParams reads Mastodon's paging parameters max_id, since_id, min_id and
// limit into a normalised sparrow.Page (limit defaults to
// sparrow.DefaultLimit and is clamped to [1, max]). A malformed cursor is 400
// rather than silently ignored: a client that sends garbage would otherwise
// get the newest page and may loop. A malformed limit is the default, as in
// Mastodon.
func pageParams(p *params, max int) (sparrow.Page, error) {
	return pageParamsDefault(p, sparrow.DefaultLimit, max)
}

// pageParamsDefault is pageParams with def as the default limit (account
// lists default to 40, statuses to 20).
func pageParamsDefault(p *params, def, max int) (sparrow.Page, error) {
	var pg sparrow.Page
	for _, c := range []struct {
		key string
		dst *sparrow.ID
	}{{"max_id", &pg.MaxID}, {"since_id", &pg.SinceID}, {"min_id", &pg.MinID}} {
		id, err := p.ID(c.key)
		if err != nil {
			return sparrow.Page{}, sparrow.Errorf(sparrow.EBadRequest, "Invalid %s", c.key)
		}
		*c.dst = id
	}
	pg.Limit = limitParam(p, def, max)
	return pg.Normalize(max), nil
}

// limitParam reads the limit parameter: def when absent, malformed or not
// positive (as Mastodon does), at most max.
func limitParam(p *params, def, max int) int {
	n, err := p.Int("limit", def)
	if err != nil || n <= 0 {
		n = def
	}
	return min(n, max)
}

// cursorParams are the query parameters a Link header replaces. access_token
// is dropped so that links never carry credentials.
var cursorParams = []string{"max_id", "since_id", "min_id", "limit", "access_token"}

// setLinkHeader sets Mastodon's Link header for a page of items, newest
// first, whose first (newest) and last (oldest) ids are given:
//
//	<BASE/path?…&max_id=LAST&limit=N>; rel="next", <BASE/path?…&min_id=FIRST&limit=N>; rel="prev"
//
// keeping the request's other query parameters. next leads to older items,
// prev to newer ones. It sets nothing for an empty page (n == 0), which tells
// clients that they have reached the end.
func (s *Server) setLinkHeader(w http.ResponseWriter, r *http.Request, n int, first, last sparrow.ID, limit int) {
	if n == 0 {
		return
	}
	next := s.pageURL(r, "max_id", last, limit)
	prev := s.pageURL(r, "min_id", first, limit)
	w.Header().Set("Link", "<"+next+`>; rel="next", <`+prev+`>; rel="prev"`)
}

// pageURL is the URL of r's path on BaseURL with its query, the cursors
// replaced by cursor=id and limit.
func (s *Server) pageURL(r *http.Request, cursor string, id sparrow.ID, limit int) string {
	q := r.URL.Query()
	for _, k := range cursorParams {
		q.Del(k)
		q.Del(k + "[]")
	}
	q.Set(cursor, id.String())
	q.Set("limit", strconv.Itoa(limit))
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	return s.baseURL() + u.RequestURI()
}
