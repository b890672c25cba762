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
	d   Deps
	c   Config
	vis visibility
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
	ok, err := s.vis.canSee(ctx, v, st)
	if err != nil {
		return nil, err
	}
	if !ok {
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
	if p.Object != "" && !objectRE.MatchString(p.Object) {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Validation failed: object must look like type:key")
	}
	if len(p.IdempotencyKey) > 128 {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Idempotency-Key is too long (maximum is 128 characters)")
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
	mentioned, err := s.resolveMentions(ctx, p.Text)
	if err != nil {
		return nil, err
	}
	for _, a := range mentioned {
		st.Mentions = append(st.Mentions, a.ID)
	}
	ev := sparrow.NewEvent(s.d.IDs.Next(st.ID.Shard()), sparrow.EvStatusCreated, st.ID, sparrow.StatusPayload{Status: st}, now)
	stored, _, err := s.d.Statuses.CreateStatus(ctx, sparrow.NewStatus{Status: st, IdempotencyKey: p.IdempotencyKey}, ev)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, v, stored)
}

// resolveMentions maps the text's @usernames to existing local accounts.
func (s *Statuses) resolveMentions(ctx context.Context, text string) ([]*sparrow.Account, error) {
	var out []*sparrow.Account
	for _, name := range parseMentions(text, s.c.Domain) {
		a, err := s.d.Accounts.AccountByUsername(ctx, name)
		if sparrow.IsKind(err, sparrow.ENotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Status returns a status v may see.
func (s *Statuses) Status(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.StatusView, error) {
	st, err := s.visible(ctx, v, id)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, v, st)
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
	if err := s.validateText(e.Text, e.SpoilerText); err != nil {
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
	return s.view(ctx, v, edited)
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
	return s.view(ctx, v, old)
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

// AccountStatuses returns an account's profile feed as v may see it.
func (s *Statuses) AccountStatuses(ctx context.Context, v sparrow.Viewer, accountID sparrow.ID, f sparrow.StatusFilter, p sparrow.Page) ([]*sparrow.StatusView, error) {
	if _, err := s.d.Accounts.Account(ctx, accountID); err != nil {
		return nil, err
	}
	vis, err := s.vis.profileVisibilities(ctx, v, accountID)
	if err != nil {
		return nil, err
	}
	f.Visibilities = vis
	sts, err := s.d.Statuses.AccountStatuses(ctx, accountID, f, p.Normalize(sparrow.MaxLimit))
	if err != nil {
		return nil, err
	}
	return s.views(ctx, v, sts)
}

// visibleViews loads the statuses among ids that v may see, hydrated, by id.
func (s *Statuses) visibleViews(ctx context.Context, v sparrow.Viewer, ids []sparrow.ID) (map[sparrow.ID]*sparrow.StatusView, error) {
	out := map[sparrow.ID]*sparrow.StatusView{}
	if len(ids) == 0 {
		return out, nil
	}
	sts, err := s.d.Statuses.Statuses(ctx, ids)
	if err != nil {
		return nil, err
	}
	var keep []*sparrow.Status
	for _, st := range sts {
		if ok, err := s.vis.canSee(ctx, v, st); err != nil {
			return nil, err
		} else if ok {
			keep = append(keep, st)
		}
	}
	views, err := s.views(ctx, v, keep)
	for _, sv := range views {
		out[sv.Status.ID] = sv
	}
	return out, err
}

func (s *Statuses) view(ctx context.Context, v sparrow.Viewer, st *sparrow.Status) (*sparrow.StatusView, error) {
	views, err := s.hydrate(ctx, v, []*sparrow.Status{st}, true)
	if err != nil {
		return nil, err
	}
	if len(views) == 0 {
		return nil, notFound
	}
	return views[0], nil
}

func (s *Statuses) views(ctx context.Context, v sparrow.Viewer, sts []*sparrow.Status) ([]*sparrow.StatusView, error) {
	return s.hydrate(ctx, v, sts, false)
}

// hydrate builds views with one multi-get of referenced statuses and one of
// accounts. Reblogs whose original is gone or hidden from v are dropped
// (seed 001: plain reblogs of a deleted status disappear); a quote that is
// gone or hidden renders as deleted. keepTombstones keeps deleted statuses
// themselves (the answer to a DELETE).
func (s *Statuses) hydrate(ctx context.Context, v sparrow.Viewer, sts []*sparrow.Status, keepTombstones bool) ([]*sparrow.StatusView, error) {
	var refIDs []sparrow.ID
	for _, st := range sts {
		for _, id := range []sparrow.ID{st.ReblogOfID, st.QuoteID} {
			if id != 0 && !slices.Contains(refIDs, id) {
				refIDs = append(refIDs, id)
			}
		}
	}
	refs := map[sparrow.ID]*sparrow.Status{}
	if len(refIDs) > 0 {
		got, err := s.d.Statuses.Statuses(ctx, refIDs)
		if err != nil {
			return nil, err
		}
		for _, r := range got {
			if ok, err := s.vis.canSee(ctx, v, r); err != nil {
				return nil, err
			} else if ok {
				refs[r.ID] = r
			}
		}
	}
	accIDs := map[sparrow.ID]bool{}
	for _, st := range append(slices.Clone(sts), mapValues(refs)...) {
		accIDs[st.AccountID] = true
		for _, m := range st.Mentions {
			accIDs[m] = true
		}
	}
	ids := make([]sparrow.ID, 0, len(accIDs))
	for id := range accIDs {
		ids = append(ids, id)
	}
	accs, err := s.d.Accounts.Accounts(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[sparrow.ID]*sparrow.Account, len(accs))
	for _, a := range accs {
		byID[a.ID] = a
	}
	favourited, reblogged, err := s.interactionsOf(ctx, v, sts, refs)
	if err != nil {
		return nil, err
	}
	mk := func(st *sparrow.Status) *sparrow.StatusView {
		return &sparrow.StatusView{Status: st, Accounts: byID, Favourited: favourited[st.ID], Reblogged: reblogged[st.ID]}
	}
	var out []*sparrow.StatusView
	for _, st := range sts {
		if st.Deleted() && !keepTombstones || byID[st.AccountID] == nil {
			continue
		}
		sv := mk(st)
		if st.ReblogOfID != 0 {
			orig := refs[st.ReblogOfID]
			if orig == nil || byID[orig.AccountID] == nil {
				continue
			}
			sv.Reblog = mk(orig)
		}
		if q := refs[st.QuoteID]; q != nil && byID[q.AccountID] != nil {
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

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
