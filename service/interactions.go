package service

import (
	"context"
	"slices"

	"sparrow"
)

// Interactions implements sparrow.InteractionService: docs/seeds.md#seed-001's comments and
// reposts (message-to-message relations with fixed pages, kept and ever
// counters, its delete semantics) and favourites.
type Interactions struct {
	d        Deps
	c        Config
	statuses *Statuses
}

var _ sparrow.InteractionService = (*Interactions)(nil)

// maxThread bounds the statuses of one context answer (Mastodon's limit too).
const maxThread = 4000

// Reblog reposts a visible public or unlisted status (its original, if it is
// itself a reblog). One live reblog per account and original: a repeated
// reblog returns the existing one.
func (s *Interactions) Reblog(ctx context.Context, v sparrow.Viewer, id sparrow.ID, vis sparrow.Visibility) (*sparrow.StatusView, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	orig, err := s.statuses.visible(ctx, v, id)
	if err != nil {
		return nil, err
	}
	if orig.ReblogOfID != 0 {
		if orig, err = s.statuses.visible(ctx, v, orig.ReblogOfID); err != nil {
			return nil, err
		}
	}
	if orig.Visibility == sparrow.Private || orig.Visibility == sparrow.Direct {
		return nil, sparrow.Errorf(sparrow.EForbidden, "This action is not allowed")
	}
	if vis == "" {
		vis = sparrow.Public
	}
	if vis != sparrow.Public && vis != sparrow.Unlisted && vis != sparrow.Private {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Validation failed: Visibility is not included in the list")
	}
	now := s.d.Clock.Now().UTC()
	st := &sparrow.Status{ID: s.d.IDs.Next(v.AccountID.Shard()), AccountID: v.AccountID, Type: sparrow.Repost,
		ReblogOfID: orig.ID, Visibility: vis, AppID: v.AppID, CreatedAt: now, Version: 1}
	ev := sparrow.NewEvent(s.d.IDs.Next(st.ID.Shard()), sparrow.EvStatusCreated, st.ID, sparrow.StatusPayload{Status: st}, now)
	stored, _, err := s.d.Statuses.CreateStatus(ctx, sparrow.NewStatus{Status: st, IdempotencyKey: reblogKey(orig.ID)}, ev)
	if err != nil {
		return nil, err
	}
	return s.statuses.view(ctx, v, stored, readOwn)
}

// reblogKey is the idempotency key of v's one reblog of an original. Keys
// that clients send are stored under another prefix (clientKey), so that
// none can collide with it.
func reblogKey(original sparrow.ID) string { return "reblog:" + original.String() }

// Unreblog deletes v's reblog of a status, if any, and returns the original.
func (s *Interactions) Unreblog(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	orig, err := s.statuses.visible(ctx, v, id)
	if err != nil {
		return nil, err
	}
	mine, err := s.d.References.ReblogsOf(ctx, v.AccountID, []sparrow.ID{orig.ID})
	if err != nil {
		return nil, err
	}
	if rb, ok := mine[orig.ID]; ok {
		if _, err := s.statuses.Delete(ctx, v, rb); err != nil && !sparrow.IsKind(err, sparrow.ENotFound) {
			return nil, err
		}
	}
	return s.statuses.view(ctx, v, orig, readDirect)
}

// RebloggedBy pages the accounts with a plain reblog of a status (quotes are
// reposts too, but not reblogs), newest first, by reblog id.
func (s *Interactions) RebloggedBy(ctx context.Context, v sparrow.Viewer, id sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	if _, err := s.statuses.visible(ctx, v, id); err != nil {
		return nil, err
	}
	p = p.Normalize(80)
	refs, err := s.d.References.References(ctx, id, sparrow.RefRepost, p)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	ids := make([]sparrow.ID, len(refs))
	for i, r := range refs {
		ids[i] = r.Status
	}
	sts, err := s.d.Statuses.Statuses(ctx, ids)
	if err != nil {
		return nil, err
	}
	plain := map[sparrow.ID]bool{}
	for _, st := range sts {
		plain[st.ID] = st.ReblogOfID == id && !st.Deleted()
	}
	var authors []sparrow.ID
	for _, r := range refs {
		if plain[r.Status] {
			authors = append(authors, r.Author)
		}
	}
	byID, err := s.accountsByID(ctx, authors)
	if err != nil {
		return nil, err
	}
	var out []sparrow.AccountEdge
	for _, r := range refs {
		if a := byID[r.Author]; a != nil && plain[r.Status] {
			out = append(out, sparrow.AccountEdge{Account: a, Cursor: r.Status})
		}
	}
	return out, nil
}

func (s *Interactions) accountsByID(ctx context.Context, ids []sparrow.ID) (map[sparrow.ID]*sparrow.Account, error) {
	out := map[sparrow.ID]*sparrow.Account{}
	if len(ids) == 0 {
		return out, nil
	}
	accs, err := s.d.Accounts.Accounts(ctx, dedupe(ids, 0))
	for _, a := range accs {
		out[a.ID] = a
	}
	return out, err
}

// favourite sets or clears v's favourite edge with its event.
func (s *Interactions) favourite(ctx context.Context, v sparrow.Viewer, id sparrow.ID, on bool) (*sparrow.StatusView, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	st, err := s.statuses.visible(ctx, v, id)
	if err != nil {
		return nil, err
	}
	now := s.d.Clock.Now().UTC()
	_, err = s.d.Relations.SetEdges(ctx, v.AccountID, []sparrow.EdgeChange{{Kind: sparrow.Favourite, To: st.ID, Active: on}}, now,
		func(edges []sparrow.Edge) []sparrow.Event {
			return []sparrow.Event{sparrow.NewEvent(s.d.IDs.Next(v.AccountID.Shard()), sparrow.EvEdges, v.AccountID, sparrow.EdgePayload{Edges: edges}, now)}
		})
	if err != nil {
		return nil, err
	}
	return s.statuses.view(ctx, v, st, readDirect)
}

// Favourite favourites a visible status (idempotent).
func (s *Interactions) Favourite(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	return s.favourite(ctx, v, id, true)
}

// Unfavourite removes a favourite (idempotent).
func (s *Interactions) Unfavourite(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	return s.favourite(ctx, v, id, false)
}

// FavouritedBy pages who favourited a status (the reverse rows, on the
// status's shard), newest first.
func (s *Interactions) FavouritedBy(ctx context.Context, v sparrow.Viewer, id sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	if _, err := s.statuses.visible(ctx, v, id); err != nil {
		return nil, err
	}
	edges, err := s.d.Relations.ListReverse(ctx, sparrow.Favourite, id, p.Normalize(80))
	if err != nil || len(edges) == 0 {
		return nil, err
	}
	ids := make([]sparrow.ID, len(edges))
	for i, e := range edges {
		ids[i] = e.From
	}
	byID, err := s.accountsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []sparrow.AccountEdge
	for _, e := range edges {
		if a := byID[e.From]; a != nil {
			out = append(out, sparrow.AccountEdge{Account: a, Cursor: e.EdgeID})
		}
	}
	return out, nil
}

// Favourites pages v's own favourites (forward rows, on v's shard).
func (s *Interactions) Favourites(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]sparrow.StatusEdge, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	edges, err := s.d.Relations.ListForward(ctx, sparrow.Favourite, v.AccountID, p.Normalize(sparrow.MaxLimit))
	if err != nil || len(edges) == 0 {
		return nil, err
	}
	ids := make([]sparrow.ID, len(edges))
	for i, e := range edges {
		ids[i] = e.To
	}
	views, err := s.statuses.visibleViews(ctx, v, ids, readDirect)
	if err != nil {
		return nil, err
	}
	var out []sparrow.StatusEdge
	for _, e := range edges {
		if sv := views[e.To]; sv != nil {
			out = append(out, sparrow.StatusEdge{Status: sv, Cursor: e.EdgeID})
		}
	}
	return out, nil
}

// Comments returns one fixed comment page, oldest first.
func (s *Interactions) Comments(ctx context.Context, v sparrow.Viewer, id sparrow.ID, page int) (*sparrow.CommentPage, error) {
	if page < 0 {
		return nil, sparrow.Errorf(sparrow.EInvalid, "page must be 0 or more")
	}
	st, err := s.statuses.visible(ctx, v, id)
	if err != nil {
		return nil, err
	}
	size := s.c.CommentPageSize
	out := &sparrow.CommentPage{Page: page, PageSize: size, Pages: int((st.RepliesEver + int64(size) - 1) / int64(size))}
	refs, err := s.d.References.ReferencePage(ctx, id, sparrow.RefComment, page)
	if err != nil || len(refs) == 0 {
		return out, err
	}
	ids := make([]sparrow.ID, len(refs))
	for i, r := range refs {
		ids[i] = r.Status
	}
	views, err := s.statuses.visibleViews(ctx, v, ids, readFeed)
	if err != nil {
		return nil, err
	}
	for _, cid := range ids { // oldest first: the page's order
		if sv := views[cid]; sv != nil {
			out.Statuses = append(out.Statuses, sv)
		}
	}
	return out, nil
}

// Context returns a status's ancestors (following in_reply_to up) and its
// descendants (the comment relations, depth first in id order).
func (s *Interactions) Context(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.ContextView, error) {
	st, err := s.statuses.visible(ctx, v, id)
	if err != nil {
		return nil, err
	}
	out := &sparrow.ContextView{}
	var up []sparrow.ID
	for parent := st.InReplyToID; parent != 0 && len(up) < 40; {
		p, serr := s.d.Statuses.Status(ctx, parent)
		if sparrow.IsKind(serr, sparrow.ENotFound) || sparrow.SkipUnavailable(ctx, serr) {
			break // gone, or on a store that does not answer (a partial read)
		}
		if serr != nil {
			return nil, serr
		}
		up = append(up, p.ID)
		parent = p.InReplyToID
	}
	slices.Reverse(up)
	children := map[sparrow.ID][]sparrow.ID{}
	queue, total := []sparrow.ID{id}, 0
	for len(queue) > 0 && total < maxThread {
		cur := queue[0]
		queue = queue[1:]
		refs, rerr := s.d.References.References(ctx, cur, sparrow.RefComment, sparrow.Page{Limit: 1000})
		if sparrow.SkipUnavailable(ctx, rerr) {
			continue // this branch's relations are on a store that does not answer
		}
		if rerr != nil {
			return nil, rerr
		}
		for i := len(refs) - 1; i >= 0 && total < maxThread; i-- { // oldest first
			children[cur] = append(children[cur], refs[i].Status)
			queue = append(queue, refs[i].Status)
			total++
		}
	}
	var down []sparrow.ID
	var walk func(sparrow.ID)
	walk = func(n sparrow.ID) {
		for _, c := range children[n] {
			down = append(down, c)
			walk(c)
		}
	}
	walk(id)
	views, err := s.statuses.visibleViews(ctx, v, append(slices.Clone(up), down...), readFeed)
	if err != nil {
		return nil, err
	}
	for _, a := range up {
		if sv := views[a]; sv != nil {
			out.Ancestors = append(out.Ancestors, sv)
		}
	}
	for _, d := range down {
		if sv := views[d]; sv != nil {
			out.Descendants = append(out.Descendants, sv)
		}
	}
	return out, nil
}

// HandleReferences is the consumer that keeps docs/seeds.md#seed-001's message relations:
// a new comment, reblog or quote is recorded on the referenced status's shard
// with its fixed page and counters; a deleted one is removed (kept count −1,
// ever count unchanged). Idempotent.
func (s *Interactions) HandleReferences(ctx context.Context, e sparrow.Event) error {
	if e.Type != sparrow.EvStatusCreated && e.Type != sparrow.EvStatusDeleted {
		return nil
	}
	st, err := e.DecodeStatus()
	if err != nil {
		return err
	}
	refs := []struct {
		ref  sparrow.ID
		kind sparrow.RefKind
	}{{st.InReplyToID, sparrow.RefComment}, {st.ReblogOfID, sparrow.RefRepost}, {st.QuoteID, sparrow.RefRepost}}
	for _, r := range refs {
		if r.ref == 0 {
			continue
		}
		var err error
		switch e.Type {
		case sparrow.EvStatusCreated:
			_, err = s.d.References.AddReference(ctx, sparrow.Reference{Ref: r.ref, Kind: r.kind, Status: st.ID, Author: st.AccountID,
				CreatedAt: st.CreatedAt}, s.c.CommentPageSize, s.d.IDs.Next)
			if sparrow.IsKind(err, sparrow.ENotFound) {
				err = nil // the referenced status is gone for good
			}
		case sparrow.EvStatusDeleted:
			err = s.d.References.RemoveReference(ctx, r.ref, r.kind, st.ID, s.d.IDs.Next)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
