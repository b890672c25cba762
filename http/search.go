package http

import (
	"context"
	"net/http"
	"strings"

	"sparrow"
)

// Search limits. v2 search pages as Mastodon's RESULTS_LIMIT: 20 results per
// type by default, at most 40. Account search (v1) pages as account lists.
const (
	defaultSearchLimit = 20
	maxSearchLimit     = 40
	// maxSearchWindow bounds offset+limit: deeper pages are empty, which ends
	// a client's paging (see findAccounts).
	maxSearchWindow = 1000
)

// searchAccounts answers the accounts matching q
// (GET /api/v1/accounts/search): q is required (400 if missing or blank),
// limit defaults to 40 (at most 80), offset skips results, following=true
// keeps only accounts the viewer follows. resolve is accepted and ignored:
// Sparrow does not federate. A user token is required, as in Mastodon. The
// answer has no Link header: clients page with offset.
func (s *Server) searchAccounts(w http.ResponseWriter, r *http.Request, p *params) error {
	q, err := searchQuery(p)
	if err != nil {
		return err
	}
	offset, err := offsetParam(p)
	if err != nil {
		return err
	}
	limit := limitParam(p, defaultAccountsLimit, maxAccountsLimit)
	v := viewerFrom(r.Context())
	as, err := s.findAccounts(r.Context(), v, q, limit, offset, p.Bool("following"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.renderer(r).accounts(as))
	return nil
}

// search is Mastodon's v2 search (GET /api/v2/search):
// {"accounts": [...], "statuses": [], "hashtags": []}. q is required (400 if
// missing or blank). Only accounts are searched so far: with type "" or
// "accounts" the accounts are those of account search (limit defaults to 20,
// at most 40; offset; following); statuses and hashtags are always empty, and
// so is everything for type=statuses, type=hashtags or an unknown type.
// Status search will fill "statuses" for type "" and "statuses" later.
//
// Anonymous requests are allowed, but as in Mastodon one with offset or
// resolve=true is 401, and following is ignored for them. resolve is
// otherwise ignored: Sparrow does not federate.
func (s *Server) search(w http.ResponseWriter, r *http.Request, p *params) error {
	q, err := searchQuery(p)
	if err != nil {
		return err
	}
	v := viewerFrom(r.Context())
	if v.Anonymous() {
		if strings.TrimSpace(p.String("offset")) != "" {
			return sparrow.Errorf(sparrow.EUnauthorized, "Search queries pagination is not supported without authentication")
		}
		if p.Bool("resolve") {
			return sparrow.Errorf(sparrow.EUnauthorized, "Search queries that resolve remote resources are not supported without authentication")
		}
	}
	offset, err := offsetParam(p)
	if err != nil {
		return err
	}
	limit := limitParam(p, defaultSearchLimit, maxSearchLimit)
	out := SearchResults{Accounts: []Account{}, Statuses: []*Status{}, Hashtags: []Tag{}}
	switch p.String("type") {
	case "", "accounts":
		as, err := s.findAccounts(r.Context(), v, q, limit, offset, p.Bool("following") && !v.Anonymous())
		if err != nil {
			return err
		}
		out.Accounts = s.renderer(r).accounts(as)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// searchQuery returns the q parameter, trimmed; missing or blank is 400.
func searchQuery(p *params) (string, error) {
	q := strings.TrimSpace(p.String("q"))
	if q == "" {
		return "", sparrow.Errorf(sparrow.EBadRequest, "Missing q parameter")
	}
	return q, nil
}

// offsetParam returns the offset parameter, 0 if absent; malformed or
// negative is 400.
func offsetParam(p *params) (int, error) {
	n, err := p.Int("offset", 0)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, sparrow.Errorf(sparrow.EBadRequest, "Invalid value for offset")
	}
	return n, nil
}

// findAccounts returns up to limit accounts matching q after the first offset
// ones. A leading '@' of q is dropped ("@alice" finds alice; "@" alone finds
// nothing). SearchAccounts takes no offset, so findAccounts asks it for
// offset+limit results and drops the first offset: the service must order
// its results deterministically and honour limits up to maxSearchWindow. A
// window beyond maxSearchWindow is empty without asking the service.
func (s *Server) findAccounts(ctx context.Context, v sparrow.Viewer, q string, limit, offset int, following bool) ([]*sparrow.Account, error) {
	q = strings.TrimPrefix(q, "@")
	if q == "" || offset > maxSearchWindow-limit {
		return nil, nil
	}
	as, err := s.Relations.SearchAccounts(ctx, v, q, offset+limit, following)
	if err != nil {
		return nil, err
	}
	if offset >= len(as) {
		return nil, nil
	}
	as = as[offset:]
	return as[:min(len(as), limit)], nil
}
