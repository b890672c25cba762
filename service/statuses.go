package service

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"sparrow"
)

// Statuses implements sparrow.StatusService.
type Statuses struct {
	d      Deps
	c      Config
	policy policy
}

var _ sparrow.StatusService = (*Statuses)(nil)

var notFound = sparrow.Errorf(sparrow.ENotFound, "Record not found")

func (s *Statuses) validateText(text, spoiler string) error {
	if strings.TrimSpace(text) == "" {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: Text can't be blank")
	}
	if n := utf8.RuneCountInString(text) + utf8.RuneCountInString(spoiler); n > s.c.MaxChars {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: Text character limit of %d exceeded", s.c.MaxChars)
	}
	if !utf8.ValidString(text) || !utf8.ValidString(spoiler) {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: Text is not valid UTF-8")
	}
	return nil
}

// visible loads a status and returns it if v may see it, ENotFound otherwise.
func (s *Statuses) visible(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.Status, error) {
	st, err := s.d.Statuses.Status(ctx, id)
	if err != nil {
		return nil, err
	}
	acc := s.policy.access(v)
	if err := acc.ensureFor(ctx, []*sparrow.Status{st}, false); err != nil {
		return nil, err
	}
	if !acc.canSee(st) {
		return nil, notFound
	}
	return st, nil
}

// Post validates a status, resolves its mentions, tags, reply and quote
// targets, and stores it with its status.created event on the author's shard.
func (s *Statuses) Post(ctx context.Context, v sparrow.Viewer, p sparrow.PostStatus) (*sparrow.StatusView, error) {
	if v.Anonymous() {
		return nil, sparrow.Errorf(sparrow.EUnauthorized, "The access token is invalid")
	}
	if err := s.validateText(p.Text, p.SpoilerText); err != nil {
		return nil, err
	}
	if p.Visibility == "" {
		p.Visibility = sparrow.Public
	}
	if !p.Visibility.Valid() {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Validation failed: Visibility is not included in the list")
	}
	if err := checkObject(p.Object); err != nil {
		return nil, err
	}
	if err := checkLanguage(p.Language); err != nil {
		return nil, err
	}
	if err := checkBytes("Idempotency-Key", p.IdempotencyKey, maxIdempotencyKey); err != nil {
		return nil, err
	}
	now := s.d.Clock.Now().UTC()
	st := &sparrow.Status{ID: s.d.IDs.Next(v.AccountID.Shard()), AccountID: v.AccountID, Type: sparrow.Original,
		Text: p.Text, SpoilerText: p.SpoilerText, Sensitive: p.Sensitive || p.SpoilerText != "", Language: p.Language,
		Visibility: p.Visibility, Tags: parseTags(p.Text), Object: p.Object, AppID: v.AppID, CreatedAt: now, Version: 1}
	if p.InReplyToID != 0 {
		parent, err := s.visible(ctx, v, p.InReplyToID)
		if err != nil {
			return nil, err
		}
		st.Type, st.InReplyToID, st.InReplyToAccountID = sparrow.Comment, parent.ID, parent.AccountID
	}
	if p.QuoteID != 0 {
		quoted, err := s.visible(ctx, v, p.QuoteID)
		if err != nil {
			return nil, err
		}
		if quoted.Visibility == sparrow.Private || quoted.Visibility == sparrow.Direct {
			return nil, sparrow.Errorf(sparrow.EInvalid, "Validation failed: Private and direct statuses cannot be quoted")
		}
		if st.Type == sparrow.Original {
			st.Type = sparrow.Repost
		}
		st.QuoteID = quoted.ID
	}
	mentions, err := s.resolveMentions(ctx, v.AccountID, p.Text)
	if err != nil {
		return nil, err
	}
	st.Mentions = mentions
	ev := sparrow.NewEvent(s.d.IDs.Next(st.ID.Shard()), sparrow.EvStatusCreated, st.ID, sparrow.StatusPayload{Status: st}, now)
	stored, _, err := s.d.Statuses.CreateStatus(ctx, sparrow.NewStatus{Status: st, IdempotencyKey: clientKey(p.IdempotencyKey)}, ev)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, v, stored, readOwn)
}

// clientKey namespaces an Idempotency-Key sent by a client ("" stays ""),
// apart from the keys Sparrow uses itself (reblogKey).
func clientKey(key string) string {
	if key == "" {
		return ""
	}
	return "u:" + key
}

// resolveMentions maps the text's @usernames to existing local accounts,
// leaving out those that block the author (read from their own block rows):
// as in Mastodon, an account cannot reach the one that blocks it by
// mentioning it (no mention, no notification, no access to a direct status).
func (s *Statuses) resolveMentions(ctx context.Context, author sparrow.ID, text string) ([]sparrow.ID, error) {
	var out []sparrow.ID
	for _, name := range parseMentions(text, s.c.Domain) {
		a, err := s.d.Accounts.AccountByUsername(ctx, name)
		if sparrow.IsKind(err, sparrow.ENotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, a.ID) {
			out = append(out, a.ID)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	blocks, err := s.d.Relations.EdgesTo(ctx, sparrow.Block, out, author)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(out, func(id sparrow.ID) bool { return blocks[id].Active }), nil
}

// Status returns a status v may see.
func (s *Statuses) Status(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	st, err := s.d.Statuses.Status(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, v, st, readDirect)
}

// own loads v's own live status, or ENotFound (as Mastodon answers for
// someone else's status).
func (s *Statuses) own(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.Status, error) {
	if v.Anonymous() {
		return nil, sparrow.Errorf(sparrow.EUnauthorized, "The access token is invalid")
	}
	st, err := s.d.Statuses.Status(ctx, id)
	if err != nil {
		return nil, err
	}
	if st.AccountID != v.AccountID || st.Deleted() {
		return nil, notFound
	}
	return st, nil
}

// Edit replaces the text of v's own status, keeping its id, with a
// status.edited event.
func (s *Statuses) Edit(ctx context.Context, v sparrow.Viewer, id sparrow.ID, e sparrow.EditStatus) (*sparrow.StatusView, error) {
	st, err := s.own(ctx, v, id)
	if err != nil {
		return nil, err
	}
	if st.ReblogOfID != 0 {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Validation failed: a reblog cannot be edited")
	}
	if err = s.validateText(e.Text, e.SpoilerText); err != nil {
		return nil, err
	}
	if err = checkLanguage(e.Language); err != nil {
		return nil, err
	}
	now := s.d.Clock.Now().UTC()
	edited, err := s.d.Statuses.EditStatus(ctx, id, sparrow.StatusEdit{StatusID: id, Text: e.Text, SpoilerText: e.SpoilerText,
		Sensitive: e.Sensitive || e.SpoilerText != "", CreatedAt: now}, func(cur *sparrow.Status) []sparrow.Event {
		return []sparrow.Event{sparrow.NewEvent(s.d.IDs.Next(id.Shard()), sparrow.EvStatusEdited, id, sparrow.StatusPayload{Status: cur}, now)}
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, v, edited, readOwn)
}

// Delete tombstones v's own status with a status.deleted event.
func (s *Statuses) Delete(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	if _, err := s.own(ctx, v, id); err != nil {
		return nil, err
	}
	now := s.d.Clock.Now().UTC()
	old, err := s.d.Statuses.DeleteStatus(ctx, id, now, func(cur *sparrow.Status) []sparrow.Event {
		return []sparrow.Event{sparrow.NewEvent(s.d.IDs.Next(id.Shard()), sparrow.EvStatusDeleted, id, sparrow.StatusPayload{Status: cur}, now)}
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, v, old, readOwn)
}

// History returns the revisions of a visible status and its author.
func (s *Statuses) History(ctx context.Context, v sparrow.Viewer, id sparrow.ID) ([]sparrow.StatusEdit, *sparrow.Account, error) {
	st, err := s.visible(ctx, v, id)
	if err != nil {
		return nil, nil, err
	}
	edits, err := s.d.Statuses.StatusHistory(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	author, err := s.d.Accounts.Account(ctx, st.AccountID)
	return edits, author, err
}

// AccountStatuses returns an account's profile feed as v may see it: empty
// if the account blocks v, as in Mastodon.
func (s *Statuses) AccountStatuses(ctx context.Context, v sparrow.Viewer, accountID sparrow.ID, f sparrow.StatusFilter, p sparrow.Page) ([]*sparrow.StatusView, error) {
	// The account, and whether it blocks v, in one read on its store.
	accs, blockers, err := s.d.Accounts.AccountsSeenBy(sparrow.Strict(ctx), v.AccountID, []sparrow.ID{accountID})
	if err != nil {
		return nil, err
	}
	if len(accs) == 0 {
		return nil, notFound
	}
	acc := s.policy.access(v)
	acc.noteBlocks([]sparrow.ID{accountID}, blockers)
	vis, ok, err := acc.profileVisibilities(ctx, accountID)
	if err != nil || !ok {
		return nil, err
	}
	f.Visibilities = vis
	sts, err := s.d.Statuses.AccountStatuses(ctx, accountID, f, p.Normalize(sparrow.MaxLimit))
	if err != nil {
		return nil, err
	}
	return s.hydrate(ctx, acc, sts, readDirect)
}

// visibleViews loads the statuses among ids that v may see, hydrated for the
// mode (readDirect or readFeed), by id.
func (s *Statuses) visibleViews(ctx context.Context, v sparrow.Viewer, ids []sparrow.ID, mode readMode) (map[sparrow.ID]*sparrow.StatusView, error) {
	out := map[sparrow.ID]*sparrow.StatusView{}
	if len(ids) == 0 {
		return out, nil
	}
	sts, err := s.d.Statuses.Statuses(ctx, ids)
	if err != nil {
		return nil, err
	}
	views, err := s.hydrate(ctx, s.policy.access(v), sts, mode)
	for _, sv := range views {
		out[sv.Status.ID] = sv
	}
	return out, err
}

// view hydrates one status for v, or ENotFound if v may not see it.
func (s *Statuses) view(ctx context.Context, v sparrow.Viewer, st *sparrow.Status, mode readMode) (*sparrow.StatusView, error) {
	views, err := s.hydrate(ctx, s.policy.access(v), []*sparrow.Status{st}, mode)
	if err != nil {
		return nil, err
	}
	if len(views) == 0 {
		return nil, notFound
	}
	return views[0], nil
}

// readMode says what hydrate checks of the statuses it is given.
type readMode int

const (
	// readDirect: statuses asked for one by one or by id (GET, favourites,
	// notifications, profile feeds): those v may not see are dropped.
	readDirect readMode = iota
	// readFeed: lists (home, public, tag, object, threads, comment pages):
	// also those of accounts v blocks or mutes, or that block v.
	readFeed
	// readOwn: v's own statuses as just written, a tombstone included: kept
	// without a check (their references are still checked).
	readOwn
)

// hydrate builds views with one multi-get of referenced statuses and one of
// accounts, keeping what acc's viewer may see in the given mode (the
// policy's rules, decided from the sources of truth: see visibility.go).
// The accounts are read with whether each blocks the viewer, in the same
// query (AccountsSeenBy): a status whose author is not loaded (gone, or on
// a store left out of a partial read) is dropped. Reblogs whose original is
// gone or hidden from v are dropped (docs/seeds.md#seed-001: plain reblogs of a deleted
// status disappear); a quote that is gone or hidden renders as deleted.
func (s *Statuses) hydrate(ctx context.Context, acc *access, sts []*sparrow.Status, mode readMode) ([]*sparrow.StatusView, error) {
	var refIDs []sparrow.ID
	for _, st := range sts {
		for _, id := range []sparrow.ID{st.ReblogOfID, st.QuoteID} {
			if id != 0 && !slices.Contains(refIDs, id) {
				refIDs = append(refIDs, id)
			}
		}
	}
	var loaded []*sparrow.Status
	if len(refIDs) > 0 {
		got, err := s.d.Statuses.Statuses(ctx, refIDs)
		if err != nil {
			return nil, err
		}
		loaded = got
	}
	all := append(slices.Clone(sts), loaded...)
	var ids []sparrow.ID
	for _, st := range all {
		for _, id := range append([]sparrow.ID{st.AccountID}, st.Mentions...) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	accs, blockers, err := s.d.Accounts.AccountsSeenBy(ctx, acc.v.AccountID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[sparrow.ID]*sparrow.Account, len(accs))
	loadedIDs := make([]sparrow.ID, len(accs))
	for i, a := range accs {
		byID[a.ID], loadedIDs[i] = a, a.ID
	}
	acc.noteBlocks(loadedIDs, blockers)
	feed := mode == readFeed
	if err = acc.ensureRows(ctx, acc.rowsNeeded(all, feed)); err != nil {
		return nil, err
	}
	admitted := func(st *sparrow.Status) bool {
		return byID[st.AccountID] != nil && acc.canSee(st) && !(feed && acc.hides(st.AccountID))
	}
	refs := map[sparrow.ID]*sparrow.Status{}
	for _, r := range loaded {
		if admitted(r) {
			refs[r.ID] = r
		}
	}
	var keep []*sparrow.Status
	for _, st := range sts {
		if mode == readOwn && byID[st.AccountID] != nil || admitted(st) {
			keep = append(keep, st)
		}
	}
	favourited, reblogged, err := s.interactionsOf(ctx, acc.v, keep, refs)
	if err != nil {
		return nil, err
	}
	mk := func(st *sparrow.Status) *sparrow.StatusView {
		return &sparrow.StatusView{Status: st, Accounts: byID, Favourited: favourited[st.ID], Reblogged: reblogged[st.ID]}
	}
	var out []*sparrow.StatusView
	for _, st := range keep {
		sv := mk(st)
		if st.ReblogOfID != 0 {
			orig := refs[st.ReblogOfID]
			if orig == nil {
				continue
			}
			sv.Reblog = mk(orig)
		}
		if q := refs[st.QuoteID]; q != nil {
			sv.Quote = mk(q)
		}
		out = append(out, sv)
	}
	return out, nil
}

// interactionsOf reads which of the statuses (and their reblogged originals)
// v has favourited and reblogged: one read each, on v's shard.
func (s *Statuses) interactionsOf(ctx context.Context, v sparrow.Viewer, sts []*sparrow.Status, refs map[sparrow.ID]*sparrow.Status) (fav, rb map[sparrow.ID]bool, err error) {
	fav, rb = map[sparrow.ID]bool{}, map[sparrow.ID]bool{}
	if v.Anonymous() || s.d.References == nil {
		return fav, rb, nil
	}
	var ids []sparrow.ID
	for _, st := range sts {
		ids = append(ids, st.ID)
	}
	for id := range refs {
		ids = append(ids, id)
	}
	ids = dedupe(ids, 0)
	edges, err := s.d.Relations.Edges(ctx, sparrow.Favourite, v.AccountID, ids)
	if err != nil {
		return nil, nil, err
	}
	for id, e := range edges {
		fav[id] = e.Active
	}
	mine, err := s.d.References.ReblogsOf(ctx, v.AccountID, ids)
	if err != nil {
		return nil, nil, err
	}
	for id := range mine {
		rb[id] = true
	}
	return fav, rb, nil
}
