package service

import (
	"context"
	"slices"

	"sparrow"
)

// The read policy of statuses (docs/seeds.md#seed-002's RouteService rules for privacy),
// applied to every read and written once for every backend. Every decision
// is made from the sources of truth, read when the decision is made:
//
//   - the viewer's own forward rows on the viewer's shard (follows, follow
//     requests, blocks, mutes), which the viewer's writes commit to;
//   - the authors' own forward block rows, on the authors' shards, which
//     the authors' blocks commit to (the same stores as their statuses).
//
// Never from the following-set cache, the reverse tables (followers,
// blocked_by), the inboxes or anything else the bus keeps: those lag behind
// the writes, so a decision taken from them could show what a block, an
// unfollow or a locked account has just hidden. They may only narrow what a
// page looks at (which candidates to load), never widen what it shows.
//
// The rules, as Mastodon's:
//   - deleted statuses: nobody;
//   - anonymous viewers: public and unlisted statuses;
//   - the author: everything of its own;
//   - an author that blocks the viewer: nothing (404 on every surface);
//   - public and unlisted: everyone else;
//   - private: the accounts it mentions and the author's followers (a
//     pending follow request is not a follow);
//   - direct: the accounts it mentions.
//
// Feeds (home, public, tag, object, threads, comment pages) also hide the
// statuses of accounts the viewer blocks or mutes, and reblogs of them.

// policy reads the rows that privacy decisions need.
type policy struct {
	rel sparrow.RelationStore
}

// access is what one viewer may see of the authors it has loaded so far:
// the viewer's own rows with each author and whether each author blocks
// the viewer, all read from the sources of truth. One access serves one
// request; it loads what a decision needs the first time it is needed
// (ensure) and never serves a decision about an author it has not loaded
// (it denies).
type access struct {
	p       policy
	v       sparrow.Viewer
	blocked map[sparrow.ID]bool // author → its block row points at v (loaded for every key)
	rows    sparrow.RelationRows
	rowsFor map[sparrow.ID]bool // authors whose rows with v are in rows
}

// access returns an empty access for v.
func (p policy) access(v sparrow.Viewer) *access {
	return &access{p: p, v: v, blocked: map[sparrow.ID]bool{}, rowsFor: map[sparrow.ID]bool{},
		rows: sparrow.RelationRows{Following: map[sparrow.ID]sparrow.Edge{}, Blocking: map[sparrow.ID]sparrow.Edge{},
			Muting: map[sparrow.ID]sparrow.Edge{}}}
}

// ensure loads, for the authors not loaded yet, whether they block v (one
// read per physical store of the authors) and, if withRows, v's rows with
// them (ensureRows). Anonymous viewers and v itself need nothing.
func (a *access) ensure(ctx context.Context, authors []sparrow.ID, withRows bool) error {
	if a.v.Anonymous() {
		return nil
	}
	var blocks []sparrow.ID
	for _, id := range authors {
		if _, ok := a.blocked[id]; !ok && id != a.v.AccountID && id != 0 && !slices.Contains(blocks, id) {
			blocks = append(blocks, id)
		}
	}
	if len(blocks) > 0 {
		// Strict: an author whose store does not answer is not taken as
		// not blocking; the read fails instead. (Reads load the authors'
		// statuses first, from the same stores, so this asks only stores
		// that have just answered.)
		got, err := a.p.rel.EdgesTo(sparrow.Strict(ctx), sparrow.Block, blocks, a.v.AccountID)
		if err != nil {
			return err
		}
		for _, id := range blocks {
			a.blocked[id] = got[id].Active
		}
	}
	if withRows {
		return a.ensureRows(ctx, authors)
	}
	return nil
}

// ensureRows loads v's rows with the accounts not loaded yet (one read on
// v's shard): whom v follows, blocks and mutes (sparrow.PolicyParts),
// without the accounts' own block rows (see ensure).
func (a *access) ensureRows(ctx context.Context, ids []sparrow.ID) error {
	if a.v.Anonymous() {
		return nil
	}
	var rows []sparrow.ID
	for _, id := range ids {
		if id != a.v.AccountID && id != 0 && !a.rowsFor[id] && !slices.Contains(rows, id) {
			rows = append(rows, id)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	got, err := a.p.rel.RelationRows(ctx, a.v.AccountID, rows, sparrow.PolicyParts)
	if err != nil {
		return err
	}
	for _, pair := range []struct{ into, from map[sparrow.ID]sparrow.Edge }{
		{a.rows.Following, got.Following}, {a.rows.Blocking, got.Blocking}, {a.rows.Muting, got.Muting},
	} {
		for id, e := range pair.from {
			pair.into[id] = e
		}
	}
	for _, id := range rows {
		a.rowsFor[id] = true
	}
	return nil
}

// noteBlocks records, for the accounts just loaded (ids) that are not
// loaded yet, whether each blocks v: blockers, read with them from their
// own block rows (AccountStore.AccountsSeenBy).
func (a *access) noteBlocks(ids []sparrow.ID, blockers map[sparrow.ID]bool) {
	for _, id := range ids {
		if _, ok := a.blocked[id]; !ok {
			a.blocked[id] = blockers[id]
		}
	}
}

// rowsNeeded returns the authors of sts whose rows with v canSee needs: those
// of the private statuses v is neither the author of nor mentioned in; for
// feeds, which also apply v's blocks and mutes, every author.
func (a *access) rowsNeeded(sts []*sparrow.Status, feed bool) []sparrow.ID {
	var out []sparrow.ID
	for _, s := range sts {
		if feed || s.Visibility == sparrow.Private && s.AccountID != a.v.AccountID && !slices.Contains(s.Mentions, a.v.AccountID) {
			out = append(out, s.AccountID)
		}
	}
	return out
}

// ensureFor loads what canSee needs for sts: the authors' block rows, and
// v's rows with the authors of the private statuses v is neither the
// author of nor mentioned in; for feeds, which also apply v's blocks and
// mutes, v's rows with every author.
func (a *access) ensureFor(ctx context.Context, sts []*sparrow.Status, feed bool) error {
	if a.v.Anonymous() {
		return nil
	}
	authors := make([]sparrow.ID, len(sts))
	for i, s := range sts {
		authors[i] = s.AccountID
	}
	if err := a.ensure(ctx, authors, false); err != nil {
		return err
	}
	return a.ensureRows(ctx, a.rowsNeeded(sts, feed))
}

// canSee reports whether v may see s (see the rules above). A decision
// about an author that was not loaded is a denial.
func (a *access) canSee(s *sparrow.Status) bool {
	if s.Deleted() {
		return false
	}
	public := s.Visibility == sparrow.Public || s.Visibility == sparrow.Unlisted
	if a.v.Anonymous() {
		return public
	}
	author := s.AccountID
	if author == a.v.AccountID {
		return true
	}
	if blocked, loaded := a.blocked[author]; blocked || !loaded {
		return false
	}
	if public || slices.Contains(s.Mentions, a.v.AccountID) {
		return true
	}
	return s.Visibility == sparrow.Private && a.rowsFor[author] && a.rows.Following[author].Active
}

// hides reports whether feeds hide author's statuses from v: v blocks or
// mutes author, or author blocks v. A decision about an author whose rows
// were not loaded hides.
func (a *access) hides(author sparrow.ID) bool {
	if a.v.Anonymous() || author == a.v.AccountID {
		return false
	}
	if !a.rowsFor[author] || a.blocked[author] {
		return true
	}
	return a.rows.Blocking[author].Active || a.rows.Muting[author].Active
}

// follows reports whether v actively follows author (its own Following
// row, loaded with ensure(…, true)).
func (a *access) follows(author sparrow.ID) bool {
	return a.rowsFor[author] && a.rows.Following[author].Active
}

// profileVisibilities returns the visibilities of author's statuses that v
// may list on the author's profile feed, and false if v may list none (the
// author blocks v: Mastodon answers an empty list). Direct statuses never
// show on a profile except the author's own.
func (a *access) profileVisibilities(ctx context.Context, author sparrow.ID) ([]sparrow.Visibility, bool, error) {
	if !a.v.Anonymous() && a.v.AccountID == author {
		return nil, true, nil // all
	}
	vis := []sparrow.Visibility{sparrow.Public, sparrow.Unlisted}
	if a.v.Anonymous() {
		return vis, true, nil
	}
	if err := a.ensure(ctx, []sparrow.ID{author}, true); err != nil {
		return nil, false, err
	}
	if a.blocked[author] {
		return nil, false, nil
	}
	if a.follows(author) {
		vis = append(vis, sparrow.Private)
	}
	return vis, true, nil
}
