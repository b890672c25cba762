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

// target checks that v may act on id: a real account that is not v.
func (r *Relations) target(ctx context.Context, v sparrow.Viewer, id sparrow.ID, verb string) error {
	if err := needUser(v); err != nil {
		return err
	}
	if id == v.AccountID {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: You cannot %s yourself", verb)
	}
	_, err := r.d.Accounts.Account(ctx, id)
	return err
}

// setEdges writes v's forward edges with an EvEdges event, and keeps the
// following cache in step.
func (r *Relations) setEdges(ctx context.Context, v sparrow.Viewer, kind sparrow.EdgeKind, changes []sparrow.EdgeChange) error {
	now := r.d.Clock.Now().UTC()
	changed, err := r.store.SetEdges(ctx, kind, v.AccountID, changes, now, func(edges []sparrow.Edge) []sparrow.Event {
		return []sparrow.Event{sparrow.NewEvent(r.d.IDs.Next(v.AccountID.Shard()), sparrow.EvEdges, v.AccountID, sparrow.EdgePayload{Edges: edges}, now)}
	})
	if err == nil && kind == sparrow.Follow && len(changed) > 0 {
		_ = r.cache.Invalidate(ctx, v.AccountID)
	}
	return err
}

// Follow follows target, refusing when either side blocks the other.
func (r *Relations) Follow(ctx context.Context, v sparrow.Viewer, target sparrow.ID, o sparrow.FollowOptions) (*sparrow.Relationship, error) {
	if err := r.target(ctx, v, target, "follow"); err != nil {
		return nil, err
	}
	// The forward block rows are the source of truth: read target's own shard.
	theirs, err := r.store.Edges(ctx, sparrow.Block, target, []sparrow.ID{v.AccountID})
	if err != nil {
		return nil, err
	}
	mine, err := r.store.Edges(ctx, sparrow.Block, v.AccountID, []sparrow.ID{target})
	if err != nil {
		return nil, err
	}
	if theirs[v.AccountID].Active || mine[target].Active {
		return nil, sparrow.Errorf(sparrow.EForbidden, "This action is not allowed")
	}
	if err := r.setEdges(ctx, v, sparrow.Follow, []sparrow.EdgeChange{{To: target, Active: true, Reblogs: o.Reblogs, Notify: o.Notify}}); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

// Unfollow removes a follow (idempotent).
func (r *Relations) Unfollow(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	if err := r.target(ctx, v, target, "unfollow"); err != nil {
		return nil, err
	}
	if err := r.setEdges(ctx, v, sparrow.Follow, []sparrow.EdgeChange{{To: target, Active: false}}); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

// BulkFollow follows many accounts with one multi-row statement on v's shard.
func (r *Relations) BulkFollow(ctx context.Context, v sparrow.Viewer, targets []sparrow.ID) ([]*sparrow.Relationship, error) {
	if err := needUser(v); err != nil {
		return nil, err
	}
	if len(targets) > sparrow.MaxBulk {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Too many ids: at most %d per call", sparrow.MaxBulk)
	}
	ids := dedupe(targets, v.AccountID)
	existing, err := r.existing(ctx, ids)
	if err != nil {
		return nil, err
	}
	rows, err := r.store.RelationRows(ctx, v.AccountID, existing)
	if err != nil {
		return nil, err
	}
	var changes []sparrow.EdgeChange
	for _, id := range existing {
		if !rows.Blocking[id].Active && !rows.BlockedBy[id].Active && !rows.Following[id].Active {
			changes = append(changes, sparrow.EdgeChange{To: id, Active: true})
		}
	}
	if len(changes) > 0 {
		if err := r.setEdges(ctx, v, sparrow.Follow, changes); err != nil {
			return nil, err
		}
	}
	return r.relationships(ctx, v, existing)
}

// Block blocks target and drops v's follow of it; the target side drops its
// follow of v when the event reaches it (consumer, on the target's shard).
func (r *Relations) Block(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	if err := r.target(ctx, v, target, "block"); err != nil {
		return nil, err
	}
	if err := r.setEdges(ctx, v, sparrow.Block, []sparrow.EdgeChange{{To: target, Active: true}}); err != nil {
		return nil, err
	}
	if err := r.setEdges(ctx, v, sparrow.Follow, []sparrow.EdgeChange{{To: target, Active: false}}); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

// Unblock removes a block.
func (r *Relations) Unblock(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	if err := r.target(ctx, v, target, "unblock"); err != nil {
		return nil, err
	}
	if err := r.setEdges(ctx, v, sparrow.Block, []sparrow.EdgeChange{{To: target, Active: false}}); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

// Mute mutes target (and its notifications if asked).
func (r *Relations) Mute(ctx context.Context, v sparrow.Viewer, target sparrow.ID, notifications bool) (*sparrow.Relationship, error) {
	if err := r.target(ctx, v, target, "mute"); err != nil {
		return nil, err
	}
	if err := r.setEdges(ctx, v, sparrow.Mute, []sparrow.EdgeChange{{To: target, Active: true, Notify: &notifications}}); err != nil {
		return nil, err
	}
	return r.one(ctx, v, target)
}

// Unmute removes a mute.
func (r *Relations) Unmute(ctx context.Context, v sparrow.Viewer, target sparrow.ID) (*sparrow.Relationship, error) {
	if err := r.target(ctx, v, target, "unmute"); err != nil {
		return nil, err
	}
	if err := r.setEdges(ctx, v, sparrow.Mute, []sparrow.EdgeChange{{To: target, Active: false}}); err != nil {
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
	rows, err := r.store.RelationRows(ctx, v.AccountID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*sparrow.Relationship, 0, len(ids))
	for _, id := range ids {
		f := rows.Following[id]
		out = append(out, &sparrow.Relationship{ID: id, Following: f.Active, ShowingReblogs: f.Active && f.Reblogs,
			Notifying: f.Active && f.Notify, FollowedBy: rows.FollowedBy[id].Active, Blocking: rows.Blocking[id].Active,
			BlockedBy: rows.BlockedBy[id].Active, Muting: rows.Muting[id].Active, MutingNotifs: rows.Muting[id].Active && rows.Muting[id].Notify})
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

// Following pages the accounts an account follows, newest first.
func (r *Relations) Following(ctx context.Context, v sparrow.Viewer, account sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	if _, err := r.d.Accounts.Account(ctx, account); err != nil {
		return nil, err
	}
	edges, err := r.store.ListForward(ctx, sparrow.Follow, account, p.Normalize(80))
	return r.hydrateEdges(ctx, edges, err, func(e sparrow.Edge) sparrow.ID { return e.To })
}

// Followers pages the accounts that follow an account, newest first.
func (r *Relations) Followers(ctx context.Context, v sparrow.Viewer, account sparrow.ID, p sparrow.Page) ([]sparrow.AccountEdge, error) {
	if _, err := r.d.Accounts.Account(ctx, account); err != nil {
		return nil, err
	}
	edges, err := r.store.ListReverse(ctx, sparrow.Follow, account, p.Normalize(80))
	return r.hydrateEdges(ctx, edges, err, func(e sparrow.Edge) sparrow.ID { return e.From })
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
	out := make([]sparrow.AccountEdge, 0, len(edges))
	for i, e := range edges {
		if a := byID[ids[i]]; a != nil {
			out = append(out, sparrow.AccountEdge{Account: a, Cursor: e.EdgeID})
		}
	}
	return out, nil
}

// SearchAccounts finds accounts by exact acct, then by prefix of username or
// display name through the search terms.
func (r *Relations) SearchAccounts(ctx context.Context, v sparrow.Viewer, q string, limit int, following bool) ([]*sparrow.Account, error) {
	q = strings.TrimPrefix(strings.TrimSpace(q), "@")
	if q == "" {
		return nil, sparrow.Errorf(sparrow.EBadRequest, "Missing search query")
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
