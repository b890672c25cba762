package service

import (
	"context"
	"slices"
	"strings"

	"sparrow"
)

// Relations implements sparrow.RelationService.
type Relations struct {
	d     Deps
	c     Config
	cache *FollowingCache
	store sparrow.RelationStore
	accs  *Accounts
}

var _ sparrow.RelationService = (*Relations)(nil)

func needUser(v sparrow.Viewer) error {
	if v.Anonymous() {
		return sparrow.Errorf(sparrow.EUnauthorized, "The access token is invalid")
	}
	return nil
}

// target checks that v may act on id: a real account that is not v. It
// returns the account.
func (r *Relations) target(ctx context.Context, v sparrow.Viewer, id sparrow.ID, verb string) (*sparrow.Account, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	if id == v.AccountID {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Validation failed: You cannot %s yourself", verb)
	}
	return r.d.Accounts.Account(ctx, id)
}

// setEdges writes from's forward edges (of any kinds, in one transaction)
// with an EvEdges event, and keeps the following cache in step (see
// invalidate). It returns the edges that changed.
func (r *Relations) setEdges(ctx context.Context, from sparrow.ID, changes ...sparrow.EdgeChange) ([]sparrow.Edge, error) {
	return setEdges(ctx, r.d, r.cache, from, changes...)
}

// setEdges is Relations.setEdges for the services and consumers that write
// edges on behalf of an account.
func setEdges(ctx context.Context, d Deps, cache *FollowingCache, from sparrow.ID, changes ...sparrow.EdgeChange) ([]sparrow.Edge, error) {
	now := d.Clock.Now().UTC()
	changed, err := d.Relations.SetEdges(ctx, from, changes, now, func(edges []sparrow.Edge) []sparrow.Event {
		return []sparrow.Event{sparrow.NewEvent(d.IDs.Next(from.Shard()), sparrow.EvEdges, from, sparrow.EdgePayload{Edges: edges}, now)}
	})
	if err != nil {
		return nil, err
	}
	if cache != nil && slices.ContainsFunc(changed, func(e sparrow.Edge) bool { return e.Kind == sparrow.Follow }) {
		cache.invalidate(ctx, from)
	}
	return changed, nil
}

// blocked reports whether a and b block each other in either direction, from
// their own block rows (each on its owner's shard: the sources of truth).
// BulkFollow applies the same rule to many accounts in two reads.
func blocked(ctx context.Context, store sparrow.RelationStore, a, b sparrow.ID) (bool, error) {
	for _, pair := range [][2]sparrow.ID{{a, b}, {b, a}} {
		rows, err := store.Edges(ctx, sparrow.Block, pair[0], []sparrow.ID{pair[1]})
		if err != nil {
			return false, err
		}
		if rows[pair[1]].Active {
			return true, nil
		}
	}
	return false, nil
}

// Follow follows target, refusing when either side blocks the other. A
// locked target gets a follow request instead (until it authorizes it);
// an existing follow only has its options updated.
func (r *Relations) Follow(ctx context.Context, v sparrow.Viewer, target sparrow.ID, o sparrow.FollowOptions) (*sparrow.Relationship, error) {
	acct, err := r.target(ctx, v, target, "follow")
	if err != nil {
		return nil, err
	}
	if b, berr := blocked(ctx, r.store, v.AccountID, target); berr != nil {
		return nil, berr
	} else if b {
		return nil, sparrow.Errorf(sparrow.EForbidden, "This action is not allowed")
	}
	mine, err := r.store.Edges(ctx, sparrow.Follow, v.AccountID, []sparrow.ID{target})
	if err != nil {
		return nil, err
	}
	if _, err := r.setEdges(ctx, v.AccountID, followChanges(target, acct.Locked && !mine[target].Active, o.Reblogs, o.Notify)...); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

// followChanges are the changes of a follow of target: a follow request if
// request (a locked target not followed yet), else the follow itself, which
// ends any request left from when target was locked.
func followChanges(target sparrow.ID, request bool, reblogs, notify *bool) []sparrow.EdgeChange {
	if request {
		return []sparrow.EdgeChange{{Kind: sparrow.FollowRequest, To: target, Active: true, Reblogs: reblogs, Notify: notify}}
	}
	return []sparrow.EdgeChange{
		{Kind: sparrow.FollowRequest, To: target, Active: false},
		{Kind: sparrow.Follow, To: target, Active: true, Reblogs: reblogs, Notify: notify},
	}
}

// Unfollow removes a follow, or withdraws a follow request (idempotent).
func (r *Relations) Unfollow(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	if _, err := r.target(ctx, v, target, "unfollow"); err != nil {
		return nil, err
	}
	if _, err := r.setEdges(ctx, v.AccountID, sparrow.EdgeChange{Kind: sparrow.Follow, To: target, Active: false},
		sparrow.EdgeChange{Kind: sparrow.FollowRequest, To: target, Active: false}); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

// BulkFollow follows many accounts with one multi-row statement on v's
// shard: unknown, blocked and already followed accounts are skipped, locked
// ones get follow requests.
func (r *Relations) BulkFollow(ctx context.Context, v sparrow.Viewer, targets []sparrow.ID) ([]*sparrow.Relationship, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	if len(targets) > sparrow.MaxBulk {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Too many ids: at most %d per call", sparrow.MaxBulk)
	}
	ids := dedupe(targets, v.AccountID)
	if len(ids) == 0 {
		return nil, nil
	}
	accs, err := r.d.Accounts.Accounts(ctx, ids)
	if err != nil {
		return nil, err
	}
	locked := make(map[sparrow.ID]bool, len(accs))
	for _, a := range accs {
		locked[a.ID] = a.Locked
	}
	existing := slices.DeleteFunc(slices.Clone(ids), func(id sparrow.ID) bool { _, ok := locked[id]; return !ok })
	rows, err := r.store.RelationRows(ctx, v.AccountID, existing, sparrow.PartFollowing|sparrow.PartRequested|sparrow.PartBlocking)
	if err != nil {
		return nil, err
	}
	theirs, err := r.store.EdgesTo(ctx, sparrow.Block, existing, v.AccountID) // their own block rows
	if err != nil {
		return nil, err
	}
	var changes []sparrow.EdgeChange
	for _, id := range existing {
		if !rows.Blocking[id].Active && !theirs[id].Active && !rows.Following[id].Active && !rows.Requested[id].Active {
			changes = append(changes, followChanges(id, locked[id], nil, nil)...)
		}
	}
	if len(changes) > 0 {
		if _, err := r.setEdges(ctx, v.AccountID, changes...); err != nil {
			return nil, err
		}
	}
	return r.relationships(ctx, v, existing)
}

// FollowRequests pages the accounts that ask to follow v, newest first: the
// reverse rows on v's shard, each confirmed by the requester's own row (a
// withdrawn request is not listed while the reverse copy lags), without the
// accounts v blocks or that block v.
func (r *Relations) FollowRequests(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	edges, err := r.store.ListReverse(ctx, sparrow.FollowRequest, v.AccountID, p.Normalize(80))
	if err != nil || len(edges) == 0 {
		return nil, err
	}
	from := make([]sparrow.ID, len(edges))
	for i, e := range edges {
		from[i] = e.From
	}
	pending, err := r.store.EdgesTo(ctx, sparrow.FollowRequest, from, v.AccountID)
	if err != nil {
		return nil, err
	}
	// Strict: a requester whose store stops answering after the pending
	// read is not taken as not blocking v; the read fails instead.
	blocks, err := r.store.EdgesTo(sparrow.Strict(ctx), sparrow.Block, from, v.AccountID)
	if err != nil {
		return nil, err
	}
	rows, err := r.store.RelationRows(sparrow.Strict(ctx), v.AccountID, from, sparrow.PartBlocking)
	if err != nil {
		return nil, err
	}
	edges = slices.DeleteFunc(edges, func(e sparrow.Edge) bool {
		return !pending[e.From].Active || blocks[e.From].Active || rows.Blocking[e.From].Active
	})
	return r.hydrateEdges(ctx, edges, nil, func(e sparrow.Edge) sparrow.ID { return e.From })
}

// AuthorizeFollowRequest turns requester's pending request into a follow of
// v, in one transaction on requester's shard (where both rows live), with
// the options requested. The transaction checks that the request is still
// pending, so that a request withdrawn meanwhile never becomes a follow.
func (r *Relations) AuthorizeFollowRequest(ctx context.Context, v sparrow.Viewer, requester sparrow.ID) (*sparrow.Relationship, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	if err := authorizeFollow(ctx, r.d, r.store, r.cache, requester, v.AccountID); err != nil {
		return nil, err
	}
	rel, err := r.one(ctx, v, requester)
	if rel != nil {
		rel.FollowedBy, rel.RequestedBy = true, false // as committed; v's reverse copies catch up later
	}
	return rel, err
}

// authorizeFollow turns requester's pending request to follow target into
// the follow (see AuthorizeFollowRequest); ENotFound if there is no pending
// request, or if either blocks the other.
func authorizeFollow(ctx context.Context, d Deps, store sparrow.RelationStore, cache *FollowingCache, requester, target sparrow.ID) error {
	req, err := store.Edges(ctx, sparrow.FollowRequest, requester, []sparrow.ID{target})
	if err != nil {
		return err
	}
	e := req[target]
	if !e.Active {
		return notFound
	}
	if b, berr := blocked(ctx, store, requester, target); berr != nil || b {
		if berr == nil {
			berr = notFound
		}
		return berr
	}
	pending := true
	_, err = setEdges(ctx, d, cache, requester,
		sparrow.EdgeChange{Kind: sparrow.FollowRequest, To: target, Active: false, Expect: &pending},
		sparrow.EdgeChange{Kind: sparrow.Follow, To: target, Active: true, Reblogs: &e.Reblogs, Notify: &e.Notify})
	if sparrow.IsKind(err, sparrow.EConflict) {
		return notFound
	}
	return err
}

// RejectFollowRequest drops requester's pending request, on requester's shard.
func (r *Relations) RejectFollowRequest(ctx context.Context, v sparrow.Viewer, requester sparrow.ID) (*sparrow.Relationship, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	pending := true
	_, err := r.setEdges(ctx, requester, sparrow.EdgeChange{Kind: sparrow.FollowRequest, To: v.AccountID, Active: false, Expect: &pending})
	if sparrow.IsKind(err, sparrow.EConflict) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	rel, err := r.one(ctx, v, requester)
	if rel != nil {
		rel.RequestedBy = false // as committed
	}
	return rel, err
}

// Block blocks target and, in the same transaction on v's shard, ends v's
// follow of target and v's follow request to it. Target's follow of v and
// its request end when the event reaches target's shard (FollowerSync);
// meanwhile every read decides from v's block row, which hides everything.
func (r *Relations) Block(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	if _, err := r.target(ctx, v, target, "block"); err != nil {
		return nil, err
	}
	if _, err := r.setEdges(ctx, v.AccountID, sparrow.EdgeChange{Kind: sparrow.Block, To: target, Active: true},
		sparrow.EdgeChange{Kind: sparrow.Follow, To: target, Active: false},
		sparrow.EdgeChange{Kind: sparrow.FollowRequest, To: target, Active: false}); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

// Unblock removes a block.
func (r *Relations) Unblock(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	if _, err := r.target(ctx, v, target, "unblock"); err != nil {
		return nil, err
	}
	if _, err := r.setEdges(ctx, v.AccountID, sparrow.EdgeChange{Kind: sparrow.Block, To: target, Active: false}); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

// Mute mutes target (and its notifications if asked).
func (r *Relations) Mute(ctx context.Context, v sparrow.Viewer, target sparrow.ID, notifications bool) (*sparrow.Relationship, error) {
	if _, err := r.target(ctx, v, target, "mute"); err != nil {
		return nil, err
	}
	if _, err := r.setEdges(ctx, v.AccountID, sparrow.EdgeChange{Kind: sparrow.Mute, To: target, Active: true, Notify: &notifications}); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

// Unmute removes a mute.
func (r *Relations) Unmute(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	if _, err := r.target(ctx, v, target, "unmute"); err != nil {
		return nil, err
	}
	if _, err := r.setEdges(ctx, v.AccountID, sparrow.EdgeChange{Kind: sparrow.Mute, To: target, Active: false}); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

func (r *Relations) one(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.Relationship, error) {
	rel, err := r.relationships(ctx, v, []sparrow.ID{id})
	if err != nil || len(rel) == 0 {
		return nil, err
	}
	return rel[0], nil
}

// Relationships answers for existing accounts among ids.
func (r *Relations) Relationships(ctx context.Context, v sparrow.Viewer, ids []sparrow.ID) ([]*sparrow.Relationship, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	if len(ids) > sparrow.MaxBulk {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Too many ids: at most %d per call", sparrow.MaxBulk)
	}
	existing, err := r.existing(ctx, dedupe(ids, 0))
	if err != nil {
		return nil, err
	}
	return r.relationships(ctx, v, existing)
}

// relationships builds Relationship entities from one RelationRows read.
func (r *Relations) relationships(ctx context.Context, v sparrow.Viewer, ids []sparrow.ID) ([]*sparrow.Relationship, error) {
	rows, err := r.store.RelationRows(ctx, v.AccountID, ids, sparrow.AllParts)
	if err != nil {
		return nil, err
	}
	out := make([]*sparrow.Relationship, 0, len(ids))
	for _, id := range ids {
		f := rows.Following[id]
		out = append(out, &sparrow.Relationship{ID: id, Following: f.Active, ShowingReblogs: f.Active && f.Reblogs,
			Notifying: f.Active && f.Notify, FollowedBy: rows.FollowedBy[id].Active, Blocking: rows.Blocking[id].Active,
			BlockedBy: rows.BlockedBy[id].Active, Muting: rows.Muting[id].Active, MutingNotifs: rows.Muting[id].Active && rows.Muting[id].Notify,
			Requested: rows.Requested[id].Active, RequestedBy: rows.RequestedBy[id].Active})
	}
	return out, nil
}

// existing keeps the ids of accounts that exist, in order.
func (r *Relations) existing(ctx context.Context, ids []sparrow.ID) ([]sparrow.ID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	found, err := r.d.Accounts.AccountsExist(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := ids[:0:0]
	for _, id := range ids {
		if found[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// dedupe drops duplicates and skip, keeping the first occurrence's order.
func dedupe(ids []sparrow.ID, skip sparrow.ID) []sparrow.ID {
	seen := make(map[sparrow.ID]bool, len(ids))
	out := make([]sparrow.ID, 0, len(ids))
	for _, id := range ids {
		if id != skip && id > 0 && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Following pages the accounts an account follows, newest first, as v may
// see them (graphPage).
func (r *Relations) Following(ctx context.Context, v sparrow.Viewer, account sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	return r.graphPage(ctx, v, account, p, false)
}

// Followers pages the accounts that follow an account, newest first, as v
// may see them (graphPage).
func (r *Relations) Followers(ctx context.Context, v sparrow.Viewer, account sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	return r.graphPage(ctx, v, account, p, true)
}

// graphPage pages account's follows (or, if followers, its followers) with
// Mastodon's block rules, decided from the sources of truth: an empty page
// when the account blocks v, and without the accounts v blocks or that block
// v (each read with the account, from its own block rows).
func (r *Relations) graphPage(ctx context.Context, v sparrow.Viewer, account sparrow.ID, p sparrow.Page, followers bool) ([]sparrow.AccountEdge, error) {
	accs, blockers, err := r.d.Accounts.AccountsSeenBy(sparrow.Strict(ctx), v.AccountID, []sparrow.ID{account})
	if err != nil {
		return nil, err
	}
	if len(accs) == 0 {
		return nil, notFound
	}
	if blockers[account] {
		return nil, nil
	}
	var edges []sparrow.Edge
	other := func(e sparrow.Edge) sparrow.ID { return e.To }
	if followers {
		edges, err = r.store.ListReverse(ctx, sparrow.Follow, account, p.Normalize(80))
		other = func(e sparrow.Edge) sparrow.ID { return e.From }
	} else {
		edges, err = r.store.ListForward(ctx, sparrow.Follow, account, p.Normalize(80))
	}
	if err != nil || len(edges) == 0 {
		return nil, err
	}
	ids := make([]sparrow.ID, len(edges))
	for i, e := range edges {
		ids[i] = other(e)
	}
	listed, blockers, err := r.d.Accounts.AccountsSeenBy(ctx, v.AccountID, ids)
	if err != nil {
		return nil, err
	}
	var blocking sparrow.RelationRows
	if !v.Anonymous() {
		if blocking, err = r.store.RelationRows(sparrow.Strict(ctx), v.AccountID, ids, sparrow.PartBlocking); err != nil {
			return nil, err
		}
	}
	byID := make(map[sparrow.ID]*sparrow.Account, len(listed))
	for _, a := range listed {
		if !blockers[a.ID] && !blocking.Blocking[a.ID].Active {
			byID[a.ID] = a
		}
	}
	return edgePage(edges, ids, byID), nil
}

// Blocks pages v's blocks.
func (r *Relations) Blocks(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	edges, err := r.store.ListForward(ctx, sparrow.Block, v.AccountID, p.Normalize(80))
	return r.hydrateEdges(ctx, edges, err, func(e sparrow.Edge) sparrow.ID { return e.To })
}

// Mutes pages v's mutes.
func (r *Relations) Mutes(ctx context.Context, v sparrow.Viewer, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	edges, err := r.store.ListForward(ctx, sparrow.Mute, v.AccountID, p.Normalize(80))
	return r.hydrateEdges(ctx, edges, err, func(e sparrow.Edge) sparrow.ID { return e.To })
}

func (r *Relations) hydrateEdges(ctx context.Context, edges []sparrow.Edge, err error, other func(sparrow.Edge) sparrow.ID) ([]sparrow.AccountEdge, error) {
	if err != nil || len(edges) == 0 {
		return nil, err
	}
	ids := make([]sparrow.ID, len(edges))
	for i, e := range edges {
		ids[i] = other(e)
	}
	accs, err := r.d.Accounts.Accounts(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[sparrow.ID]*sparrow.Account, len(accs))
	for _, a := range accs {
		byID[a.ID] = a
	}
	return edgePage(edges, ids, byID), nil
}

// edgePage pairs each edge with its account (ids[i] is edges[i]'s other
// end), leaving out the edges whose account is not in byID.
func edgePage(edges []sparrow.Edge, ids []sparrow.ID, byID map[sparrow.ID]*sparrow.Account) []sparrow.AccountEdge {
	out := make([]sparrow.AccountEdge, 0, len(edges))
	for i, e := range edges {
		if a := byID[ids[i]]; a != nil {
			out = append(out, sparrow.AccountEdge{Account: a, Cursor: e.EdgeID})
		}
	}
	return out
}

// SearchAccounts finds accounts by exact acct, then by prefix of username or
// display name through the search terms.
func (r *Relations) SearchAccounts(ctx context.Context, v sparrow.Viewer, q string, limit int, following bool) ([]*sparrow.Account, error) {
	q = strings.TrimPrefix(strings.TrimSpace(q), "@")
	if q == "" {
		return nil, sparrow.Errorf(sparrow.EBadRequest, "Missing search query")
	}
	if err := checkText("Search query", q, maxSearchQuery); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 40
	}
	if limit > 1000 { // the HTTP layer pages with offset+limit up to 1000
		limit = 1000
	}
	var out []*sparrow.Account
	seen := map[sparrow.ID]bool{}
	add := func(a *sparrow.Account) {
		if !seen[a.ID] && len(out) < limit {
			seen[a.ID] = true
			out = append(out, a)
		}
	}
	if exact, err := r.accs.Lookup(ctx, v, q); err == nil {
		add(exact)
	} else if !sparrow.IsKind(err, sparrow.ENotFound) {
		return nil, err
	}
	if strings.Contains(q, "@") {
		return r.onlyFollowed(ctx, v, out, following)
	}
	prefix := strings.ToLower(q)
	ids, err := r.store.SearchAccountTerms(ctx, prefix, 4*limit)
	if err != nil {
		return nil, err
	}
	accs, err := r.d.Accounts.Accounts(ctx, dedupe(ids, 0))
	if err != nil {
		return nil, err
	}
	byID := make(map[sparrow.ID]*sparrow.Account, len(accs))
	for _, a := range accs {
		byID[a.ID] = a
	}
	for _, id := range dedupe(ids, 0) {
		a := byID[id]
		if a != nil && slices.ContainsFunc(accountTerms(a), func(t string) bool { return strings.HasPrefix(t, prefix) }) {
			add(a) // terms can be stale: keep only current matches
		}
	}
	return r.onlyFollowed(ctx, v, out, following)
}

func (r *Relations) onlyFollowed(ctx context.Context, v sparrow.Viewer, accs []*sparrow.Account, following bool) ([]*sparrow.Account, error) {
	if !following || v.Anonymous() {
		return accs, nil
	}
	ids, err := r.cache.Following(ctx, v.AccountID)
	if err != nil {
		return nil, err
	}
	out := accs[:0:0]
	for _, a := range accs {
		if _, ok := slices.BinarySearch(ids, a.ID); ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// accountTerms are the lower-cased terms an account is found by: its
// username, its display name, and each word of the display name.
func accountTerms(a *sparrow.Account) []string {
	terms := []string{strings.ToLower(a.Username)}
	if dn := strings.ToLower(strings.TrimSpace(a.DisplayName)); dn != "" {
		terms = append(terms, dn)
		if words := strings.Fields(dn); len(words) > 1 {
			terms = append(terms, words...)
		}
	}
	return terms
}
