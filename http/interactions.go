package http

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"sparrow"
)

// Scopes of the favourite routes (Mastodon's FavouritesController and
// Statuses::FavouritesController).
const (
	scopeReadFavourites  sparrow.Scope = "read:favourites"
	scopeWriteFavourites sparrow.Scope = "write:favourites"
)

// The favourites list pages as Mastodon's: 20 by default, at most 40.
const (
	defaultFavouritesLimit = sparrow.DefaultLimit
	maxFavouritesLimit     = sparrow.MaxLimit
)

// StatusContext is https://docs.joinmastodon.org/entities/Context/: the thread
// around a status. Both lists are always arrays, never null.
type StatusContext struct {
	Ancestors   []*Status `json:"ancestors"`
	Descendants []*Status `json:"descendants"`
}

// CommentPage is the body of Sparrow's fixed comment pages
// (GET /api/v1/x/statuses/{id}/comments): page is the page answered,
// page_size the number of comments a full page holds, pages the number of
// pages assigned so far, statuses the comments of the page, oldest first
// (never null). next_page and prev_page are the neighbouring page numbers,
// or null where there is none.
type CommentPage struct {
	Page     int       `json:"page"`
	PageSize int       `json:"page_size"`
	Pages    int       `json:"pages"`
	NextPage *int      `json:"next_page"`
	PrevPage *int      `json:"prev_page"`
	Statuses []*Status `json:"statuses"`
}

// interactions returns s.Interactions, or EUnavailable if the server was
// built without it.
func (s *Server) interactions() (sparrow.InteractionService, error) {
	if s.Interactions == nil {
		return nil, sparrow.Errorf(sparrow.EUnavailable, "Interactions are not available")
	}
	return s.Interactions, nil
}

// statusOp runs op for the viewer and the {id} path wildcard (malformed:
// 404) and writes the resulting status. Service errors pass through: ENotFound
// is 404, EForbidden 403, and so on.
func (s *Server) statusOp(w http.ResponseWriter, r *http.Request,
	op func(ix sparrow.InteractionService, ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error)) error {
	ix, err := s.interactions()
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	sv, err := op(ix, r.Context(), viewerFrom(r.Context()), id)
	if err != nil {
		return err
	}
	if sv == nil || sv.Status == nil {
		return sparrow.Errorf(sparrow.EInternal, "interaction service returned no status for %d", id)
	}
	return s.writeStatus(w, r, sv, false)
}

// reblog reblogs {id} as the viewer (POST /api/v1/statuses/{id}/reblog) and
// answers the reblog: a Status whose reblog is the original. visibility is
// public, unlisted or private; absent or empty leaves it to the service
// (public). Any other value, direct included, is 422 without calling the
// service. Reblogging is idempotent: the viewer's existing reblog is answered
// again. A private or direct original is 403 (the service's EForbidden), a
// status the viewer cannot see 404.
func (s *Server) reblog(w http.ResponseWriter, r *http.Request, p *params) error {
	vis := sparrow.Visibility(strings.TrimSpace(p.String("visibility")))
	switch vis {
	case "", sparrow.Public, sparrow.Unlisted, sparrow.Private:
	default:
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: Visibility is not included in the list")
	}
	return s.statusOp(w, r, func(ix sparrow.InteractionService, ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
		return ix.Reblog(ctx, v, id, vis)
	})
}

// unreblog removes the viewer's reblog of {id}, if any
// (POST /api/v1/statuses/{id}/unreblog), and answers the original status.
func (s *Server) unreblog(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.statusOp(w, r, sparrow.InteractionService.Unreblog)
}

// favourite favourites {id} as the viewer (POST /api/v1/statuses/{id}/favourite),
// idempotently, and answers the status.
func (s *Server) favourite(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.statusOp(w, r, sparrow.InteractionService.Favourite)
}

// unfavourite removes the viewer's favourite of {id}, if any
// (POST /api/v1/statuses/{id}/unfavourite), and answers the status.
func (s *Server) unfavourite(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.statusOp(w, r, sparrow.InteractionService.Unfavourite)
}

// rebloggedBy answers the accounts that reblogged {id}, newest reblog first
// (GET /api/v1/statuses/{id}/reblogged_by); it pages like the followers list
// (see accountPage: limit 40 by default, at most 80, Link header from the
// edges' cursors).
func (s *Server) rebloggedBy(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.statusAccounts(w, r, p, sparrow.InteractionService.RebloggedBy)
}

// favouritedBy answers the accounts that favourited {id}, newest favourite
// first (GET /api/v1/statuses/{id}/favourited_by); it pages as rebloggedBy.
func (s *Server) favouritedBy(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.statusAccounts(w, r, p, sparrow.InteractionService.FavouritedBy)
}

// statusAccounts pages the accounts list of the {id} status with accountPage.
func (s *Server) statusAccounts(w http.ResponseWriter, r *http.Request, p *params,
	list func(ix sparrow.InteractionService, ctx context.Context, v sparrow.Viewer, id sparrow.ID, pg sparrow.Page) ([]sparrow.AccountEdge, error)) error {
	ix, err := s.interactions()
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	return s.accountPage(w, r, p, func(ctx context.Context, v sparrow.Viewer, pg sparrow.Page) ([]sparrow.AccountEdge, error) {
		return list(ix, ctx, v, id, pg)
	})
}

// favourites answers the viewer's favourited statuses, newest favourite first
// (GET /api/v1/favourites): max_id, since_id, min_id and limit (20 by
// default, at most 40) page by the favourite's id, not the status's, as
// Mastodon does; the Link header carries the first and last edges' cursors.
// An edge without a status (deleted meanwhile) is left out of the body but
// still bounds the page.
func (s *Server) favourites(w http.ResponseWriter, r *http.Request, p *params) error {
	ix, err := s.interactions()
	if err != nil {
		return err
	}
	pg, err := pageParamsDefault(p, defaultFavouritesLimit, maxFavouritesLimit)
	if err != nil {
		return err
	}
	edges, err := ix.Favourites(r.Context(), viewerFrom(r.Context()), pg)
	if err != nil {
		return err
	}
	rd := s.renderer(r)
	out := make([]*Status, 0, len(edges))
	for _, e := range edges {
		if e.Status == nil || e.Status.Status == nil {
			continue
		}
		st, err := rd.status(e.Status)
		if err != nil {
			return err
		}
		out = append(out, st)
	}
	if len(edges) > 0 {
		s.setLinkHeader(w, r, len(edges), edges[0].Cursor, edges[len(edges)-1].Cursor, pg.Limit)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// statusContext answers the thread of {id} (GET /api/v1/statuses/{id}/context):
// {"ancestors": [...], "descendants": [...]}, ancestors oldest first and
// descendants in thread order, as the service returns them. A status the
// viewer cannot see is 404.
func (s *Server) statusContext(w http.ResponseWriter, r *http.Request, p *params) error {
	ix, err := s.interactions()
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	cv, err := ix.Context(r.Context(), viewerFrom(r.Context()), id)
	if err != nil {
		return err
	}
	if cv == nil {
		cv = &sparrow.ContextView{}
	}
	rd := s.renderer(r)
	anc, err := renderViews(rd, cv.Ancestors)
	if err != nil {
		return err
	}
	desc, err := renderViews(rd, cv.Descendants)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, StatusContext{Ancestors: anc, Descendants: desc})
	return nil
}

// comments is a Sparrow extension, GET /api/v1/x/statuses/{id}/comments: one
// fixed page of the replies to {id} (docs/seeds.md#seed-001's comment pages). Every reply
// is given a page once, when it is posted, from the number of replies the
// status ever had: reply number k (0-based) is on page k div page_size, for
// good. So a page never shifts when replies are deleted or added, and a
// client can cache and link pages by number; the price is that a page may
// hold fewer than page_size comments (or none) after deletions.
//
// page (query or body) is the 0-based page number, 0 when absent; anything
// but an integer ≥ 0 is 422. The answer is a CommentPage: the comments of the
// page oldest first, pages (how many pages are assigned so far), next_page
// (page+1, null when page+1 ≥ pages) and prev_page (the nearest existing page
// before page, i.e. min(page, pages) − 1, null when that is below 0, so
// always null for page 0). A page at or past pages is an empty page, not an
// error. No Link header: pages are numbered, not cursored. Public (a token,
// if sent, needs read:statuses); a status the viewer cannot see is 404.
func (s *Server) comments(w http.ResponseWriter, r *http.Request, p *params) error {
	ix, err := s.interactions()
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	page, err := pageNumber(p, "page")
	if err != nil {
		return err
	}
	cp, err := ix.Comments(r.Context(), viewerFrom(r.Context()), id, page)
	if err != nil {
		return err
	}
	if cp == nil {
		return sparrow.Errorf(sparrow.EInternal, "interaction service returned no comment page for %d", id)
	}
	sts, err := renderViews(s.renderer(r), cp.Statuses)
	if err != nil {
		return err
	}
	out := CommentPage{Page: cp.Page, PageSize: cp.PageSize, Pages: cp.Pages, Statuses: sts}
	if next := cp.Page + 1; next < cp.Pages {
		out.NextPage = &next
	}
	if prev := min(cp.Page, cp.Pages) - 1; prev >= 0 {
		out.PrevPage = &prev
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// pageNumber reads key as a page number: 0 when absent or empty, EInvalid
// (422) for anything but a decimal integer ≥ 0.
func pageNumber(p *params, key string) (int, error) {
	s := strings.TrimSpace(p.String(key))
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, sparrow.Errorf(sparrow.EInvalid, "Invalid %s: expected an integer of 0 or more", key)
	}
	return n, nil
}

// renderViews renders views in order, skipping nil views (never nil: an
// empty list is []).
func renderViews(rd renderer, svs []*sparrow.StatusView) ([]*Status, error) {
	out := make([]*Status, 0, len(svs))
	for _, sv := range svs {
		if sv == nil || sv.Status == nil {
			continue
		}
		st, err := rd.status(sv)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}
