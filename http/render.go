package http

import (
	"net/http"
	"strings"
	"time"

	"sparrow"
)

// renderer turns domain values into Mastodon entities for one request: URLs
// are built on base, and viewer decides the viewer-relative fields.
type renderer struct {
	base   string
	domain string
	viewer sparrow.Viewer
}

// renderer returns the renderer for r's viewer.
func (s *Server) renderer(r *http.Request) renderer {
	return renderer{base: s.baseURL(), domain: s.Domain, viewer: viewerFrom(r.Context())}
}

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// optString returns nil for "", so that it encodes as null.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// optID returns nil for 0, and the id as a string otherwise.
func optID(id sparrow.ID) *string {
	if id == 0 {
		return nil
	}
	s := id.String()
	return &s
}

func ptr[T any](v T) *T { return &v }

// profileURL is the web address of a local account.
func (rd renderer) profileURL(username string) string { return rd.base + "/@" + username }

// account renders a as Mastodon's Account. created_at is the midnight (UTC)
// of the creation day and last_status_at a date, as Mastodon shows them.
func (rd renderer) account(a *sparrow.Account) Account {
	c := a.CreatedAt.UTC()
	var last *string
	if !a.LastStatusAt.IsZero() {
		last = ptr(a.LastStatusAt.UTC().Format(dateFormat))
	}
	note := contentFormatter{base: rd.base, domain: rd.domain}.format(a.Note)
	return Account{
		ID:             a.ID.String(),
		Username:       a.Username,
		Acct:           a.Username,
		DisplayName:    a.DisplayName,
		Locked:         a.Locked,
		Bot:            a.Bot,
		CreatedAt:      formatTime(time.Date(c.Year(), c.Month(), c.Day(), 0, 0, 0, 0, time.UTC)),
		Note:           note,
		URL:            rd.profileURL(a.Username),
		URI:            rd.base + "/users/" + a.Username,
		Avatar:         rd.base + "/avatars/original/missing.png",
		AvatarStatic:   rd.base + "/avatars/original/missing.png",
		Header:         rd.base + "/headers/original/missing.png",
		HeaderStatic:   rd.base + "/headers/original/missing.png",
		FollowersCount: a.FollowersCount,
		FollowingCount: a.FollowingCount,
		StatusesCount:  a.StatusesCount,
		LastStatusAt:   last,
		Emojis:         []Emoji{},
		Fields:         []Field{},
	}
}

// credentialAccount renders the viewer's own account with its source.
func (rd renderer) credentialAccount(a *sparrow.Account) CredentialAccount {
	return CredentialAccount{
		Account: rd.account(a),
		Source: AccountSource{
			Note:    a.Note,
			Fields:  []Field{},
			Privacy: string(sparrow.Public),
		},
	}
}

// accountLookup finds accounts in a status view and, failing that, in the
// views that contain it (a reblog's or quote's accounts may sit in the outer view).
type accountLookup []map[sparrow.ID]*sparrow.Account

func (l accountLookup) get(id sparrow.ID) *sparrow.Account {
	for i := len(l) - 1; i >= 0; i-- {
		if a := l[i][id]; a != nil {
			return a
		}
	}
	return nil
}

// status renders a status view. It fails with EInternal if the view lacks the
// author's account, which the service contract promises.
func (rd renderer) status(sv *sparrow.StatusView) (*Status, error) {
	return rd.statusAt(sv, nil, 0)
}

// statuses renders a list of views, in order.
func (rd renderer) statuses(svs []*sparrow.StatusView) ([]*Status, error) {
	out := make([]*Status, 0, len(svs))
	for _, sv := range svs {
		st, err := rd.status(sv)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// statusAt renders sv inside outer views (accounts) at quote depth: a quote
// inside a quoted status is shallow.
func (rd renderer) statusAt(sv *sparrow.StatusView, outer accountLookup, depth int) (*Status, error) {
	st := sv.Status
	accounts := append(outer[:len(outer):len(outer)], sv.Accounts)
	author := accounts.get(st.AccountID)
	if author == nil {
		return nil, sparrow.Errorf(sparrow.EInternal, "status %d: author %d missing from view", st.ID, st.AccountID)
	}

	mentions := []Mention{}
	byName := map[string]string{}
	for _, id := range st.Mentions {
		a := accounts.get(id)
		if a == nil {
			continue
		}
		u := rd.profileURL(a.Username)
		mentions = append(mentions, Mention{ID: a.ID.String(), Username: a.Username, Acct: a.Username, URL: u})
		byName[strings.ToLower(a.Username)] = u
	}
	tags := []Tag{}
	for _, t := range st.Tags {
		tags = append(tags, Tag{Name: t, URL: tagURL(rd.base, t)})
	}
	visibility := st.Visibility
	if visibility == "" {
		visibility = sparrow.Public
	}
	var edited *string
	if !st.EditedAt.IsZero() {
		edited = ptr(formatTime(st.EditedAt))
	}

	out := &Status{
		ID:                 st.ID.String(),
		URI:                rd.base + "/users/" + author.Username + "/statuses/" + st.ID.String(),
		URL:                rd.profileURL(author.Username) + "/" + st.ID.String(),
		CreatedAt:          formatTime(st.ID.Time()),
		EditedAt:           edited,
		Account:            rd.account(author),
		Content:            contentFormatter{base: rd.base, domain: rd.domain, mentions: byName}.format(st.Text),
		Visibility:         string(visibility),
		Sensitive:          st.Sensitive,
		SpoilerText:        st.SpoilerText,
		Language:           optString(st.Language),
		InReplyToID:        optID(st.InReplyToID),
		InReplyToAccountID: optID(st.InReplyToAccountID),
		RepliesCount:       st.RepliesCount,
		ReblogsCount:       st.ReblogsCount,
		FavouritesCount:    st.FavouritesCount,
		MediaAttachments:   []Attachment{},
		Mentions:           mentions,
		Tags:               tags,
		Emojis:             []Emoji{},
	}
	if !rd.viewer.Anonymous() {
		// Each view carries the viewer's own flags: a reblog's nested
		// original is rendered from sv.Reblog, with the original's flags.
		out.Favourited, out.Reblogged, out.Muted, out.Bookmarked = ptr(sv.Favourited), ptr(sv.Reblogged), ptr(false), ptr(false)
		if rd.viewer.AccountID == st.AccountID {
			out.Pinned = ptr(false)
		}
	}
	if sv.Reblog != nil {
		r, err := rd.statusAt(sv.Reblog, accounts, depth)
		if err != nil {
			return nil, err
		}
		out.Reblog = r
	}
	if st.QuoteID != 0 {
		q, err := rd.quote(sv, accounts, depth)
		if err != nil {
			return nil, err
		}
		out.Quote = q
	}
	return out, nil
}

// quote renders the quote of sv: accepted with the quoted status if the view
// has it, deleted otherwise; shallow below the top level.
func (rd renderer) quote(sv *sparrow.StatusView, accounts accountLookup, depth int) (*Quote, error) {
	state := "accepted"
	if sv.Quote == nil {
		state = "deleted"
	}
	if depth > 0 {
		q := &Quote{State: state, Shallow: true}
		if sv.Quote != nil {
			q.QuotedStatusID = optID(sv.Status.QuoteID)
		}
		return q, nil
	}
	q := &Quote{State: state}
	if sv.Quote != nil {
		qs, err := rd.statusAt(sv.Quote, accounts, depth+1)
		if err != nil {
			return nil, err
		}
		q.QuotedStatus = qs
	}
	return q, nil
}

// statusEdit renders one revision of a status by author a. Mentions are not
// linked: a revision does not carry its mentioned accounts.
func (rd renderer) statusEdit(e sparrow.StatusEdit, a *sparrow.Account) StatusEdit {
	return StatusEdit{
		Content:          contentFormatter{base: rd.base, domain: rd.domain}.format(e.Text),
		SpoilerText:      e.SpoilerText,
		Sensitive:        e.Sensitive,
		CreatedAt:        formatTime(e.CreatedAt),
		Account:          rd.account(a),
		MediaAttachments: []Attachment{},
		Emojis:           []Emoji{},
	}
}

// application renders an app; clientSecret, if not "", is included with the
// client id, as only the creation response shows them.
func (rd renderer) application(app *sparrow.App, clientSecret string) Application {
	scopes := make([]string, len(app.Scopes))
	for i, sc := range app.Scopes {
		scopes[i] = string(sc)
	}
	uris := app.RedirectURIs
	if uris == nil {
		uris = []string{}
	}
	out := Application{
		ID:           app.ID.String(),
		Name:         app.Name,
		Website:      optString(app.Website),
		Scopes:       scopes,
		RedirectURI:  strings.Join(uris, "\n"),
		RedirectURIs: uris,
	}
	if clientSecret != "" {
		out.ClientID = app.ClientID
		out.ClientSecret = clientSecret
		out.ClientSecretExpiresAt = ptr(int64(0))
	}
	return out
}

// token renders an issued token.
func token(t *sparrow.IssuedToken) Token {
	return Token{AccessToken: t.AccessToken, TokenType: "Bearer", Scope: t.Scopes.String(), CreatedAt: t.CreatedAt}
}

// relationship renders a Relationship (see the entity for the constant fields).
func relationship(rel *sparrow.Relationship) Relationship {
	return Relationship{
		ID:                  rel.ID.String(),
		Following:           rel.Following,
		ShowingReblogs:      rel.ShowingReblogs,
		Notifying:           rel.Notifying,
		FollowedBy:          rel.FollowedBy,
		Blocking:            rel.Blocking,
		BlockedBy:           rel.BlockedBy,
		Muting:              rel.Muting,
		MutingNotifications: rel.MutingNotifs,
		Requested:           rel.Requested,
		RequestedBy:         rel.RequestedBy,
	}
}

// relationships renders a list of relationships in order, skipping nils.
func relationships(rels []*sparrow.Relationship) []Relationship {
	out := make([]Relationship, 0, len(rels))
	for _, rel := range rels {
		if rel != nil {
			out = append(out, relationship(rel))
		}
	}
	return out
}

// accounts renders a list of accounts in order, skipping nils.
func (rd renderer) accounts(as []*sparrow.Account) []Account {
	out := make([]Account, 0, len(as))
	for _, a := range as {
		if a != nil {
			out = append(out, rd.account(a))
		}
	}
	return out
}
