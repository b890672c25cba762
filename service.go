package sparrow

import "context"

// Viewer is who makes a request: an account (AccountID ≠ 0) and/or an app,
// with the scopes of its token. The zero Viewer is anonymous.
type Viewer struct {
	AccountID ID
	AppID     ID
	Scopes    Scopes
}

// Anonymous reports whether no account is signed in.
func (v Viewer) Anonymous() bool { return v.AccountID == 0 }

// Registration is a sign-up (POST /api/v1/accounts).
type Registration struct {
	Username  string
	Email     string
	Password  string
	Agreement bool
	Locale    string
	Reason    string
}

// Grant is an OAuth token request (POST /oauth/token).
type Grant struct {
	GrantType    string // password | client_credentials | authorization_code
	ClientID     string
	ClientSecret string
	Scopes       string // requested, space-separated; "" = the app's scopes for codes, "read" otherwise
	Username     string // password grant: the account's email (or username)
	Password     string
	Code         string // authorization_code grant
	RedirectURI  string
	CodeVerifier string // PKCE
	RemoteAddr   string // for rate limiting failed logins
}

// Authorization is a request to authorize an app (GET/POST /oauth/authorize).
type Authorization struct {
	ClientID            string
	RedirectURI         string
	Scopes              string
	Email               string // the resource owner's credentials
	Password            string
	CodeChallenge       string
	CodeChallengeMethod string
	RemoteAddr          string
}

// IssuedToken is an access token as returned once to the client.
type IssuedToken struct {
	AccessToken string
	Scopes      Scopes
	CreatedAt   int64 // unix seconds
}

// NewApp is an app registration (POST /api/v1/apps).
type NewApp struct {
	Name         string
	Website      string
	RedirectURIs []string
	Scopes       string
}

// AuthService implements OAuth: apps, tokens and codes.
type AuthService interface {
	// CreateApp registers an app and returns it with its client secret, which
	// is shown only here. EInvalid for a missing name or redirect URI, or bad scopes.
	CreateApp(ctx context.Context, n NewApp) (app *App, clientSecret string, err error)
	// IssueToken runs a grant. EUnauthorized for bad client credentials
	// (invalid_client), EInvalid for a bad grant (invalid_grant), EBadRequest
	// for an unsupported grant type, ERateLimited after too many failed logins.
	IssueToken(ctx context.Context, g Grant) (*IssuedToken, error)
	// Authorize checks the owner's credentials and returns a one-time code for
	// the app (authorization_code grant).
	Authorize(ctx context.Context, a Authorization) (code string, err error)
	// Revoke revokes a token issued to the client; unknown tokens are not an error.
	// EForbidden if the client credentials are wrong.
	Revoke(ctx context.Context, clientID, clientSecret, token string) error
	// Authenticate resolves a bearer token to its viewer, or EUnauthorized.
	Authenticate(ctx context.Context, bearer string) (Viewer, error)
	// AppOf returns the app a viewer's token belongs to.
	AppOf(ctx context.Context, v Viewer) (*App, error)
}

// AccountService implements accounts and profiles.
type AccountService interface {
	// Register creates an account with an app token's viewer, and signs it in.
	// EInvalid for a bad username, email or password, or a taken username/email.
	Register(ctx context.Context, v Viewer, r Registration) (*IssuedToken, error)
	// Account returns an account visible to v, or ENotFound.
	Account(ctx context.Context, v Viewer, id ID) (*Account, error)
	// Lookup resolves a local acct ("user" or "user@this-domain").
	Lookup(ctx context.Context, v Viewer, acct string) (*Account, error)
	// UpdateCredentials changes v's own profile.
	UpdateCredentials(ctx context.Context, v Viewer, u AccountUpdate) (*Account, error)
}

// PostStatus is a status as posted (POST /api/v1/statuses).
type PostStatus struct {
	Text           string
	SpoilerText    string
	Sensitive      bool
	Language       string
	Visibility     Visibility // "" = public
	InReplyToID    ID
	QuoteID        ID
	Object         string // "type:key" extension, or ""
	IdempotencyKey string
}

// EditStatus is an edit (PUT /api/v1/statuses/:id).
type EditStatus struct {
	Text        string
	SpoilerText string
	Sensitive   bool
	Language    string
}

// StatusView is a status with what a viewer needs to render it: the status
// itself, the statuses it references (reblog, quote, reply parent) and the
// accounts involved, already filtered by visibility.
type StatusView struct {
	Status   *Status
	Accounts map[ID]*Account // author and mentioned accounts, by id
	Reblog   *StatusView     // the reblogged status, if a plain reblog
	Quote    *StatusView     // the quoted status, if visible; nil if deleted or hidden
	// The viewer's own interactions with Status (false for anonymous viewers).
	Favourited bool
	Reblogged  bool
}

// StatusService implements posting, reading and editing statuses.
type StatusService interface {
	// Post validates and stores a status. EInvalid for empty or over-long text,
	// unknown visibility; ENotFound for a reply or quote target v cannot see.
	// The same IdempotencyKey from the same account returns the first status.
	Post(ctx context.Context, v Viewer, p PostStatus) (*StatusView, error)
	// Status returns a status visible to v, or ENotFound.
	Status(ctx context.Context, v Viewer, id ID) (*StatusView, error)
	// Edit changes v's own status, keeping its id; ENotFound if not v's.
	Edit(ctx context.Context, v Viewer, id ID, e EditStatus) (*StatusView, error)
	// Delete deletes v's own status and returns it as it was; ENotFound if not v's.
	Delete(ctx context.Context, v Viewer, id ID) (*StatusView, error)
	// History returns the revisions of a status visible to v, oldest first.
	History(ctx context.Context, v Viewer, id ID) ([]StatusEdit, *Account, error)
	// AccountStatuses returns the profile feed of an account, as visible to v.
	AccountStatuses(ctx context.Context, v Viewer, accountID ID, f StatusFilter, p Page) ([]*StatusView, error)
}

// Instance describes this server for GET /api/v1/instance and /api/v2/instance.
type Instance struct {
	Domain        string
	Title         string
	Description   string
	Version       string
	SourceURL     string
	MaxChars      int
	Registrations bool
	ContactEmail  string
	UserCount     int64
	StatusCount   int64
}
