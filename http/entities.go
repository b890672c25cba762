package http

import "encoding/json"

// Mastodon's JSON entities (https://docs.joinmastodon.org/entities/), as
// explicit structs. Ids are strings. Timestamps are RFC 3339 with
// milliseconds in UTC (timeFormat). A field that Mastodon sends as null is a
// pointer without omitempty; omitempty is used only where Mastodon leaves the
// attribute out. Slices are always non-nil so that they encode as [].

// timeFormat is how Mastodon formats datetimes.
const timeFormat = "2006-01-02T15:04:05.000Z"

// dateFormat is how Mastodon formats dates (last_status_at).
const dateFormat = "2006-01-02"

// Account is https://docs.joinmastodon.org/entities/Account/.
type Account struct {
	ID             string  `json:"id"`
	Username       string  `json:"username"`
	Acct           string  `json:"acct"`
	DisplayName    string  `json:"display_name"`
	Locked         bool    `json:"locked"`
	Bot            bool    `json:"bot"`
	Discoverable   bool    `json:"discoverable"`
	Indexable      bool    `json:"indexable"`
	Group          bool    `json:"group"`
	Noindex        bool    `json:"noindex"`
	CreatedAt      string  `json:"created_at"`
	Note           string  `json:"note"`
	URL            string  `json:"url"`
	URI            string  `json:"uri"`
	Avatar         string  `json:"avatar"`
	AvatarStatic   string  `json:"avatar_static"`
	Header         string  `json:"header"`
	HeaderStatic   string  `json:"header_static"`
	FollowersCount int64   `json:"followers_count"`
	FollowingCount int64   `json:"following_count"`
	StatusesCount  int64   `json:"statuses_count"`
	LastStatusAt   *string `json:"last_status_at"`
	Emojis         []Emoji `json:"emojis"`
	Fields         []Field `json:"fields"`
}

// CredentialAccount is the viewer's own Account with its source
// (verify_credentials, update_credentials).
type CredentialAccount struct {
	Account
	Source AccountSource `json:"source"`
}

// AccountSource is https://docs.joinmastodon.org/entities/Account/#source.
type AccountSource struct {
	Note                string  `json:"note"`
	Fields              []Field `json:"fields"`
	Privacy             string  `json:"privacy"`
	Sensitive           bool    `json:"sensitive"`
	Language            *string `json:"language"`
	FollowRequestsCount int64   `json:"follow_requests_count"`
}

// Field is a profile field (Sparrow has none yet).
type Field struct {
	Name       string  `json:"name"`
	Value      string  `json:"value"`
	VerifiedAt *string `json:"verified_at"`
}

// Emoji is a custom emoji (Sparrow has none yet).
type Emoji struct {
	Shortcode       string `json:"shortcode"`
	URL             string `json:"url"`
	StaticURL       string `json:"static_url"`
	VisibleInPicker bool   `json:"visible_in_picker"`
}

// Status is https://docs.joinmastodon.org/entities/Status/. The viewer
// relations (favourited, reblogged, muted, bookmarked) are left out for
// anonymous viewers, and pinned is present only for the author, as Mastodon does.
type Status struct {
	ID                 string       `json:"id"`
	URI                string       `json:"uri"`
	URL                string       `json:"url"`
	CreatedAt          string       `json:"created_at"`
	EditedAt           *string      `json:"edited_at"`
	Account            Account      `json:"account"`
	Content            string       `json:"content"`
	Text               *string      `json:"text"`
	Visibility         string       `json:"visibility"`
	Sensitive          bool         `json:"sensitive"`
	SpoilerText        string       `json:"spoiler_text"`
	Language           *string      `json:"language"`
	InReplyToID        *string      `json:"in_reply_to_id"`
	InReplyToAccountID *string      `json:"in_reply_to_account_id"`
	Reblog             *Status      `json:"reblog"`
	Quote              *Quote       `json:"quote"`
	RepliesCount       int64        `json:"replies_count"`
	ReblogsCount       int64        `json:"reblogs_count"`
	FavouritesCount    int64        `json:"favourites_count"`
	Favourited         *bool        `json:"favourited,omitempty"`
	Reblogged          *bool        `json:"reblogged,omitempty"`
	Muted              *bool        `json:"muted,omitempty"`
	Bookmarked         *bool        `json:"bookmarked,omitempty"`
	Pinned             *bool        `json:"pinned,omitempty"`
	MediaAttachments   []Attachment `json:"media_attachments"`
	Mentions           []Mention    `json:"mentions"`
	Tags               []Tag        `json:"tags"`
	Emojis             []Emoji      `json:"emojis"`
	Card               *struct{}    `json:"card"`
	Poll               *struct{}    `json:"poll"`
	Application        *StatusApp   `json:"application"`
}

// Quote is Mastodon 4.5's quote of a status: the state of the quote
// ("accepted", or "deleted" with a null quoted_status) and the quoted status.
// Inside a quoted status, a further quote is Shallow (Mastodon's
// ShallowQuote): it carries quoted_status_id instead of quoted_status, as
// Mastodon nests only one level.
type Quote struct {
	State          string
	QuotedStatus   *Status // full quote
	QuotedStatusID *string // shallow quote
	Shallow        bool
}

// MarshalJSON writes {"state", "quoted_status"} for a full quote and
// {"state", "quoted_status_id"} for a shallow one; the status or id may be null.
func (q Quote) MarshalJSON() ([]byte, error) {
	if q.Shallow {
		return json.Marshal(struct {
			State          string  `json:"state"`
			QuotedStatusID *string `json:"quoted_status_id"`
		}{q.State, q.QuotedStatusID})
	}
	return json.Marshal(struct {
		State        string  `json:"state"`
		QuotedStatus *Status `json:"quoted_status"`
	}{q.State, q.QuotedStatus})
}

// Attachment is a media attachment (Sparrow has none yet).
type Attachment struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	URL  string `json:"url"`
}

// Mention is https://docs.joinmastodon.org/entities/Status/#Mention.
type Mention struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Acct     string `json:"acct"`
	URL      string `json:"url"`
}

// Tag is https://docs.joinmastodon.org/entities/Status/#Tag.
type Tag struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// StatusApp is the application a status was posted with.
type StatusApp struct {
	Name    string  `json:"name"`
	Website *string `json:"website"`
}

// StatusEdit is https://docs.joinmastodon.org/entities/StatusEdit/.
type StatusEdit struct {
	Content          string       `json:"content"`
	SpoilerText      string       `json:"spoiler_text"`
	Sensitive        bool         `json:"sensitive"`
	CreatedAt        string       `json:"created_at"`
	Account          Account      `json:"account"`
	MediaAttachments []Attachment `json:"media_attachments"`
	Emojis           []Emoji      `json:"emojis"`
}

// StatusSource is https://docs.joinmastodon.org/entities/StatusSource/.
type StatusSource struct {
	ID          string `json:"id"`
	Text        string `json:"text"`
	SpoilerText string `json:"spoiler_text"`
}

// Application is https://docs.joinmastodon.org/entities/Application/. The
// client credentials appear only when the app is created
// (client_secret_expires_at 0: secrets do not expire). vapid_key is "": Sparrow
// has no Web Push.
type Application struct {
	ID                    string   `json:"id"`
	Name                  string   `json:"name"`
	Website               *string  `json:"website"`
	Scopes                []string `json:"scopes"`
	RedirectURI           string   `json:"redirect_uri"`
	RedirectURIs          []string `json:"redirect_uris"`
	ClientID              string   `json:"client_id,omitempty"`
	ClientSecret          string   `json:"client_secret,omitempty"`
	ClientSecretExpiresAt *int64   `json:"client_secret_expires_at,omitempty"`
	VapidKey              string   `json:"vapid_key"`
}

// Token is https://docs.joinmastodon.org/entities/Token/.
type Token struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	Scope       string `json:"scope"`
	CreatedAt   int64  `json:"created_at"`
}

// Relationship is https://docs.joinmastodon.org/entities/Relationship/: what
// the viewer knows of one account. Sparrow has no domain blocks,
// endorsements, per-follow language filters or private notes:
// domain_blocking and endorsed are false, languages null and note "".
type Relationship struct {
	ID                  string    `json:"id"`
	Following           bool      `json:"following"`
	ShowingReblogs      bool      `json:"showing_reblogs"`
	Notifying           bool      `json:"notifying"`
	Languages           *[]string `json:"languages"`
	FollowedBy          bool      `json:"followed_by"`
	Blocking            bool      `json:"blocking"`
	BlockedBy           bool      `json:"blocked_by"`
	Muting              bool      `json:"muting"`
	MutingNotifications bool      `json:"muting_notifications"`
	Requested           bool      `json:"requested"`
	RequestedBy         bool      `json:"requested_by"`
	DomainBlocking      bool      `json:"domain_blocking"`
	Endorsed            bool      `json:"endorsed"`
	Note                string    `json:"note"`
}

// SearchResults is https://docs.joinmastodon.org/entities/Search/ (v2).
type SearchResults struct {
	Accounts []Account `json:"accounts"`
	Statuses []*Status `json:"statuses"`
	Hashtags []Tag     `json:"hashtags"`
}
