package http

import (
	"context"
	"net/http"
	"strings"

	"sparrow"
)

// Account lists (following, followers, blocks, mutes, account search) page
// as Mastodon's DEFAULT_ACCOUNTS_LIMIT: 40 by default, at most 80.
const (
	defaultAccountsLimit = 40
	maxAccountsLimit     = 80
)

// follow makes the viewer follow {id} (POST /api/v1/accounts/{id}/follow):
// reblogs (show the account's reblogs in home) and notify (notify on its
// posts) are passed as nil when absent, so that an existing follow keeps its
// options and a new one gets the service's defaults. languages[] is accepted
// and ignored: Sparrow does not filter follows by language (the
// relationship's languages is null). It answers the Relationship.
func (s *Server) follow(w http.ResponseWriter, r *http.Request, p *params) error {
	o := sparrow.FollowOptions{Reblogs: p.OptBool("reblogs"), Notify: p.OptBool("notify")}
	return s.changeRelation(w, r, func(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.Relationship, error) {
		return s.Relations.Follow(ctx, v, id, o)
	})
}

// unfollow removes the viewer's follow of {id}, if any
// (POST /api/v1/accounts/{id}/unfollow), and answers the Relationship.
func (s *Server) unfollow(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.changeRelation(w, r, s.Relations.Unfollow)
}

// block blocks {id} (POST /api/v1/accounts/{id}/block), which also removes
// the follows in both directions, and answers the Relationship.
func (s *Server) block(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.changeRelation(w, r, s.Relations.Block)
}

// unblock removes the viewer's block of {id}
// (POST /api/v1/accounts/{id}/unblock) and answers the Relationship.
func (s *Server) unblock(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.changeRelation(w, r, s.Relations.Unblock)
}

// mute mutes {id} (POST /api/v1/accounts/{id}/mute): notifications (default
// true) says whether its notifications are hidden too. Timed mutes are not
// supported: a non-zero duration is 422 rather than a silently permanent
// mute (duration=0, "indefinitely", is accepted). It answers the Relationship.
func (s *Server) mute(w http.ResponseWriter, r *http.Request, p *params) error {
	notifications := true
	if p.Has("notifications") {
		notifications = p.Bool("notifications")
	}
	duration, err := p.Int("duration", 0)
	if err != nil {
		return err
	}
	if duration != 0 {
		return sparrow.Errorf(sparrow.EInvalid, "Timed mutes are not supported")
	}
	return s.changeRelation(w, r, func(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.Relationship, error) {
		return s.Relations.Mute(ctx, v, id, notifications)
	})
}

// unmute removes the viewer's mute of {id} (POST /api/v1/accounts/{id}/unmute)
// and answers the Relationship.
func (s *Server) unmute(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.changeRelation(w, r, s.Relations.Unmute)
}

// changeRelation runs op for the viewer and the {id} path wildcard (malformed:
// 404) and writes the resulting Relationship.
func (s *Server) changeRelation(w http.ResponseWriter, r *http.Request,
	op func(context.Context, sparrow.Viewer, sparrow.ID) (*sparrow.Relationship, error)) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	rel, err := op(r.Context(), viewerFrom(r.Context()), id)
	if err != nil {
		return err
	}
	if rel == nil {
		return sparrow.Errorf(sparrow.EInternal, "relation service returned no relationship for %d", id)
	}
	writeJSON(w, http.StatusOK, relationship(rel))
	return nil
}

// relationships answers the viewer's Relationships with the accounts of id[]
// (or a single id) (GET /api/v1/accounts/relationships), in the service's
// order; see idList for how the list is read. No ids is [] (the service is
// not called), as in Mastodon.
func (s *Server) relationships(w http.ResponseWriter, r *http.Request, p *params) error {
	ids, err := idList(p, "id")
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		writeJSON(w, http.StatusOK, []Relationship{})
		return nil
	}
	rels, err := s.Relations.Relationships(r.Context(), viewerFrom(r.Context()), ids)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, relationships(rels))
	return nil
}

// bulkFollow is a Sparrow extension, POST /api/v1/x/follows: the viewer
// follows every account of id[] in one call (docs/seeds.md#seed-000's one-click follow of
// a selection of accounts), with the default follow options. id[] may come
// from a form body, a JSON body ({"id": ["1", "2"]}) or the query string, and
// is read as idList reads it: more than sparrow.MaxBulk values is 422,
// malformed ids are skipped, as are (by the service) unknown, blocked and own
// ids. A request without id is 400. Scope write:follows (or follow), user
// token required. It answers the Relationships of the accounts followed, in
// the service's order; [] when no id remains.
func (s *Server) bulkFollow(w http.ResponseWriter, r *http.Request, p *params) error {
	if !p.Has("id") {
		return sparrow.Errorf(sparrow.EBadRequest, "Missing id parameter")
	}
	ids, err := idList(p, "id")
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		writeJSON(w, http.StatusOK, []Relationship{})
		return nil
	}
	rels, err := s.Relations.BulkFollow(r.Context(), viewerFrom(r.Context()), ids)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, relationships(rels))
	return nil
}

// idList reads the id list key (id[], id or a JSON array, see params) of a
// bulk call. More than sparrow.MaxBulk values, counted as sent, is EInvalid
// (422). Malformed and empty values are skipped: they name no account, and
// Mastodon ignores unknown ids. Duplicates are dropped, keeping the first.
func idList(p *params, key string) ([]sparrow.ID, error) {
	raw := p.Strings(key)
	if len(raw) > sparrow.MaxBulk {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Too many ids: at most %d are allowed", sparrow.MaxBulk)
	}
	seen := make(map[sparrow.ID]bool, len(raw))
	ids := make([]sparrow.ID, 0, len(raw))
	for _, s := range raw {
		id, err := sparrow.ParseID(strings.TrimSpace(s))
		if err != nil || seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	return ids, nil
}

// following answers the accounts {id} follows, newest follow first
// (GET /api/v1/accounts/{id}/following); see accountPage.
func (s *Server) following(w http.ResponseWriter, r *http.Request, p *params) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	return s.accountPage(w, r, p, func(ctx context.Context, v sparrow.Viewer, pg sparrow.Page) ([]sparrow.AccountEdge, error) {
		return s.Relations.Following(ctx, v, id, pg)
	})
}

// followers answers the accounts following {id}, newest follow first
// (GET /api/v1/accounts/{id}/followers); see accountPage.
func (s *Server) followers(w http.ResponseWriter, r *http.Request, p *params) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	return s.accountPage(w, r, p, func(ctx context.Context, v sparrow.Viewer, pg sparrow.Page) ([]sparrow.AccountEdge, error) {
		return s.Relations.Followers(ctx, v, id, pg)
	})
}

// blocks answers the accounts the viewer blocks, newest block first
// (GET /api/v1/blocks); see accountPage.
func (s *Server) blocks(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.accountPage(w, r, p, s.Relations.Blocks)
}

// mutes answers the accounts the viewer mutes, newest mute first
// (GET /api/v1/mutes); see accountPage.
func (s *Server) mutes(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.accountPage(w, r, p, s.Relations.Mutes)
}

// followRequests answers the accounts asking to follow the viewer (a locked
// account), newest request first (GET /api/v1/follow_requests); see
// accountPage.
func (s *Server) followRequests(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.accountPage(w, r, p, s.Relations.FollowRequests)
}

// authorizeFollowRequest lets {id} follow the viewer
// (POST /api/v1/follow_requests/{id}/authorize) and answers the
// Relationship; 404 if {id} has no pending request.
func (s *Server) authorizeFollowRequest(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.changeRelation(w, r, s.Relations.AuthorizeFollowRequest)
}

// rejectFollowRequest drops {id}'s request to follow the viewer
// (POST /api/v1/follow_requests/{id}/reject) and answers the Relationship;
// 404 if {id} has no pending request.
func (s *Server) rejectFollowRequest(w http.ResponseWriter, r *http.Request, p *params) error {
	return s.changeRelation(w, r, s.Relations.RejectFollowRequest)
}

// accountPage reads the paging parameters (max_id, since_id, min_id, limit
// default 40, at most 80), gets a page of edges from list and writes their
// accounts with a Link header. The cursors are the edges' ids, not the
// accounts': next is max_id=<last edge's cursor>, prev min_id=<first edge's
// cursor>, as Mastodon pages these lists by the relation's id. An edge without
// an account (deleted meanwhile) is left out of the body but still bounds the
// page.
func (s *Server) accountPage(w http.ResponseWriter, r *http.Request, p *params,
	list func(context.Context, sparrow.Viewer, sparrow.Page) ([]sparrow.AccountEdge, error)) error {
	pg, err := pageParamsDefault(p, defaultAccountsLimit, maxAccountsLimit)
	if err != nil {
		return err
	}
	edges, err := list(r.Context(), viewerFrom(r.Context()), pg)
	if err != nil {
		return err
	}
	rd := s.renderer(r)
	out := make([]Account, 0, len(edges))
	for _, e := range edges {
		if e.Account != nil {
			out = append(out, rd.account(e.Account))
		}
	}
	if len(edges) > 0 {
		s.setLinkHeader(w, r, len(edges), edges[0].Cursor, edges[len(edges)-1].Cursor, pg.Limit)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
