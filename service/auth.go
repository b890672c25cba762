package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"sparrow"
)

// Auth implements sparrow.AuthService.
type Auth struct {
	d Deps
	c Config
}

var _ sparrow.AuthService = (*Auth)(nil)

// OOB is the out-of-band redirect URI: the code is shown instead of redirected.
const OOB = "urn:ietf:wg:oauth:2.0:oob"

// codeTTL is how long an authorization code stays valid.
const codeTTL = 10 * time.Minute

// newSecret returns a 256-bit random secret, base64url-encoded.
func newSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// CreateApp registers an OAuth client.
func (a *Auth) CreateApp(ctx context.Context, n sparrow.NewApp) (*sparrow.App, string, error) {
	name := strings.TrimSpace(n.Name)
	if name == "" {
		return nil, "", sparrow.Errorf(sparrow.EInvalid, "Validation failed: Application name can't be blank")
	}
	if err := checkText("Application name", name, maxAppName); err != nil {
		return nil, "", err
	}
	if err := checkWebsite(n.Website); err != nil {
		return nil, "", err
	}
	if err := checkBytes("Redirect URI", strings.Join(n.RedirectURIs, "\n"), maxRedirectURIs); err != nil {
		return nil, "", err
	}
	var uris []string
	for _, u := range n.RedirectURIs {
		for _, f := range strings.Fields(u) {
			if f != OOB {
				if pu, err := url.Parse(f); err != nil || pu.Scheme == "" {
					return nil, "", sparrow.Errorf(sparrow.EInvalid, "Validation failed: Redirect URI must be an absolute URI.")
				}
			}
			uris = append(uris, f)
		}
	}
	if len(uris) == 0 {
		return nil, "", sparrow.Errorf(sparrow.EInvalid, "Validation failed: Redirect URI can't be blank")
	}
	scopes, err := sparrow.ParseScopes(n.Scopes)
	if err != nil {
		return nil, "", err
	}
	clientID, secret := newSecret(), newSecret()
	app := &sparrow.App{ID: a.d.IDs.Next(sparrow.KeyShard(clientID)), Name: name, Website: n.Website, RedirectURIs: uris,
		Scopes: scopes, ClientID: clientID, SecretHash: sparrow.HashSecret(secret), CreatedAt: a.d.Clock.Now()}
	if err := a.d.Auth.CreateApp(ctx, app); err != nil {
		return nil, "", err
	}
	return app, secret, nil
}

// validClientID reports whether id can be a client id (43 base64url
// characters as newSecret makes them; at most 64 bytes, the column's size).
func validClientID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// client authenticates an OAuth client by id and secret.
func (a *Auth) client(ctx context.Context, clientID, secret string) (*sparrow.App, error) {
	bad := sparrow.Errorf(sparrow.EUnauthorized, "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.")
	if !validClientID(clientID) {
		return nil, bad
	}
	app, err := a.d.Auth.AppByClientID(ctx, clientID)
	if sparrow.IsKind(err, sparrow.ENotFound) {
		return nil, bad
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare(app.SecretHash, sparrow.HashSecret(secret)) != 1 {
		return nil, bad
	}
	return app, nil
}

// requestedScopes parses the requested scopes and checks them against the app's.
func requestedScopes(app *sparrow.App, requested string) (sparrow.Scopes, error) {
	want, err := sparrow.ParseScopes(requested)
	if err != nil {
		return nil, err
	}
	if !app.Scopes.Subset(want) {
		return nil, sparrow.Errorf(sparrow.EInvalid, "The requested scope is invalid, unknown, or malformed.")
	}
	return want, nil
}

// IssueToken runs an OAuth grant.
func (a *Auth) IssueToken(ctx context.Context, g sparrow.Grant) (*sparrow.IssuedToken, error) {
	switch g.GrantType {
	case "password", "client_credentials", "authorization_code":
	default:
		return nil, sparrow.Errorf(sparrow.EBadRequest, "The authorization grant type is not supported by the authorization server.")
	}
	app, err := a.client(ctx, g.ClientID, g.ClientSecret)
	if err != nil {
		return nil, err
	}
	switch g.GrantType {
	case "client_credentials":
		scopes, err := requestedScopes(app, g.Scopes)
		if err != nil {
			return nil, err
		}
		return a.issue(ctx, app.ID, 0, scopes)
	case "password":
		scopes, err := requestedScopes(app, g.Scopes)
		if err != nil {
			return nil, err
		}
		acc, err := a.checkPassword(ctx, g.Username, g.Password, g.RemoteAddr)
		if err != nil {
			return nil, err
		}
		return a.issue(ctx, app.ID, acc.ID, scopes)
	default:
		return a.exchangeCode(ctx, app, g)
	}
}

func (a *Auth) exchangeCode(ctx context.Context, app *sparrow.App, g sparrow.Grant) (*sparrow.IssuedToken, error) {
	bad := sparrow.Errorf(sparrow.EInvalid, "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.")
	if g.Code == "" {
		return nil, bad
	}
	code, err := a.d.Auth.TakeAuthCode(ctx, sparrow.HashSecret(g.Code))
	if sparrow.IsKind(err, sparrow.ENotFound) {
		return nil, bad
	}
	if err != nil {
		return nil, err
	}
	if code.AppID != app.ID || a.d.Clock.Now().After(code.ExpiresAt) || (g.RedirectURI != "" && g.RedirectURI != code.RedirectURI) {
		return nil, bad
	}
	if code.CodeChallenge != "" {
		sum := sha256.Sum256([]byte(g.CodeVerifier))
		if g.CodeVerifier == "" || base64.RawURLEncoding.EncodeToString(sum[:]) != code.CodeChallenge {
			return nil, bad
		}
	}
	return a.issue(ctx, app.ID, code.AccountID, code.Scopes)
}

// issue creates a token for the account (0: an app-only token), stored on
// the shard of its owner: the account, or the app.
func (a *Auth) issue(ctx context.Context, appID, accountID sparrow.ID, scopes sparrow.Scopes) (*sparrow.IssuedToken, error) {
	owner := accountID
	if owner == 0 {
		owner = appID
	}
	secret := sparrow.NewToken(owner.Shard())
	now := a.d.Clock.Now()
	t := &sparrow.Token{Hash: sparrow.TokenHash(secret), AppID: appID, AccountID: accountID, Scopes: scopes, CreatedAt: now}
	if err := a.d.Auth.CreateToken(ctx, t); err != nil {
		return nil, err
	}
	return &sparrow.IssuedToken{AccessToken: secret, Scopes: scopes, CreatedAt: now.Unix()}, nil
}

// Failed-login limits, per window of Config.LoginWindow, with A =
// Config.LoginAttempts (5 by default):
//
//   - one login name from one client address: A failures, then that pair
//     is refused until the window ends (a successful login forgets the
//     pair's failures);
//   - one client address, whatever the names: 10·A failures (an address may
//     be shared, behind NAT);
//   - one login name from every address: past 20·A failures the account is
//     under attack, and each address gets one try per window.
//
// No limit is per account alone, so nobody can lock an owner out: an
// address that has not failed on a name (a clean address) may always try it.
const (
	loginIPFactor     = 10
	loginAttackFactor = 20
)

// checkPassword verifies a login (email, or username) under the
// failed-login limits, noting the closest one in ctx (sparrow.NoteRateLimit).
func (a *Auth) checkPassword(ctx context.Context, login, password, remote string) (*sparrow.Account, error) {
	name := strings.ToLower(login)
	keys := [3]string{"login:ip:" + remote, "login:pair:" + remote + "|" + name, "login:name:" + name}
	var counts [3]int64
	var resets [3]time.Duration
	for i, k := range keys {
		n, reset, err := a.d.Limiter.Count(ctx, k)
		if err != nil {
			return nil, err
		}
		counts[i], resets[i] = n, reset
	}
	attempts := int64(a.c.LoginAttempts)
	limits := [2]int64{loginIPFactor * attempts, attempts}
	if counts[2] >= loginAttackFactor*attempts {
		limits[1] = 1 // under attack: one try per address
	}
	now := a.d.Clock.Now()
	note := func() {
		for i, limit := range limits {
			reset := resets[i]
			if reset <= 0 {
				reset = a.c.LoginWindow
			}
			sparrow.NoteRateLimit(ctx, limit, limit-counts[i], now.Add(reset))
		}
	}
	refuse := func(i int) (*sparrow.Account, error) {
		note()
		return nil, &sparrow.Error{Kind: sparrow.ERateLimited, Msg: "Too many failed login attempts, try again later", Retry: resets[i]}
	}
	for i, limit := range limits {
		if counts[i] >= limit {
			return refuse(i)
		}
	}
	// The attempt takes its place in the pair's count before the password
	// is checked, so that concurrent attempts cannot all pass the check
	// above: at most limits[1] are checked per pair and window. (A success
	// forgets the pair; the address and name counts take failures once
	// they are known, so these two may be overshot by attempts in flight.)
	n, err := a.d.Limiter.Hit(ctx, keys[1], a.c.LoginWindow)
	if err != nil {
		return nil, err
	}
	if counts[1] = n; n > limits[1] {
		return refuse(1)
	}
	fail := func() (*sparrow.Account, error) {
		for _, i := range []int{0, 2} {
			n, herr := a.d.Limiter.Hit(ctx, keys[i], a.c.LoginWindow)
			if herr != nil {
				return nil, herr
			}
			counts[i] = n
		}
		note()
		return nil, sparrow.Errorf(sparrow.EInvalid, "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.")
	}
	var acc *sparrow.Account
	switch {
	case !validLookup(login):
		err = notFound // names nothing: a failed login, without asking a store
	case strings.Contains(login, "@"):
		acc, err = a.d.Accounts.AccountByEmail(ctx, login)
	default:
		acc, err = a.d.Accounts.AccountByUsername(ctx, login)
	}
	if sparrow.IsKind(err, sparrow.ENotFound) {
		// Spend the same time as a real check so that timing does not reveal
		// which logins exist.
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return fail()
	}
	if err != nil {
		return nil, err
	}
	if bcrypt.CompareHashAndPassword([]byte(acc.PasswordHash), []byte(password)) != nil {
		return fail()
	}
	if err := a.d.Limiter.Reset(ctx, keys[1]); err != nil {
		return nil, err
	}
	counts[1] = 0
	note()
	return acc, nil
}

var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("sparrow-dummy-password"), bcrypt.DefaultCost)

// Authorize checks the owner's credentials and returns a one-time code.
func (a *Auth) Authorize(ctx context.Context, z sparrow.Authorization) (string, error) {
	if !validClientID(z.ClientID) {
		return "", sparrow.Errorf(sparrow.EUnauthorized, "Client authentication failed due to unknown client.")
	}
	app, err := a.d.Auth.AppByClientID(ctx, z.ClientID)
	if sparrow.IsKind(err, sparrow.ENotFound) {
		return "", sparrow.Errorf(sparrow.EUnauthorized, "Client authentication failed due to unknown client.")
	}
	if err != nil {
		return "", err
	}
	if !slices.Contains(app.RedirectURIs, z.RedirectURI) {
		return "", sparrow.Errorf(sparrow.EInvalid, "The redirect uri included is not valid.")
	}
	if z.CodeChallenge != "" && z.CodeChallengeMethod != "S256" {
		return "", sparrow.Errorf(sparrow.EInvalid, "Only the S256 code challenge method is supported.")
	}
	scopes, err := requestedScopes(app, z.Scopes)
	if err != nil {
		return "", err
	}
	acc, err := a.checkPassword(ctx, z.Email, z.Password, z.RemoteAddr)
	if err != nil {
		return "", err
	}
	code := newSecret()
	err = a.d.Auth.CreateAuthCode(ctx, &sparrow.AuthCode{Hash: sparrow.HashSecret(code), AppID: app.ID, AccountID: acc.ID,
		RedirectURI: z.RedirectURI, Scopes: scopes, CodeChallenge: z.CodeChallenge, ExpiresAt: a.d.Clock.Now().Add(codeTTL)})
	return code, err
}

// Revoke revokes a token issued to the authenticated client.
func (a *Auth) Revoke(ctx context.Context, clientID, clientSecret, token string) error {
	app, err := a.client(ctx, clientID, clientSecret)
	if err != nil {
		return sparrow.Errorf(sparrow.EForbidden, "You are not authorized to revoke this token")
	}
	hash := sparrow.TokenHash(token)
	t, err := a.d.Auth.Token(ctx, hash)
	if sparrow.IsKind(err, sparrow.ENotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if t.AppID != app.ID {
		return sparrow.Errorf(sparrow.EForbidden, "You are not authorized to revoke this token")
	}
	if err := a.d.Auth.RevokeToken(ctx, hash); err != nil {
		return err
	}
	return a.d.Cache.Delete(ctx, tokenCacheKey(hash))
}

func tokenCacheKey(hash []byte) string { return "tok:" + hex.EncodeToString(hash) }

// cachedToken is a token as kept in the cache.
type cachedToken struct {
	App     sparrow.ID `json:"a"`
	Account sparrow.ID `json:"u"`
	Scopes  string     `json:"s"`
}

// Authenticate resolves a bearer token, through the token cache.
func (a *Auth) Authenticate(ctx context.Context, bearer string) (sparrow.Viewer, error) {
	invalid := sparrow.Errorf(sparrow.EUnauthorized, "The access token is invalid")
	if bearer == "" || len(bearer) > 256 {
		return sparrow.Viewer{}, invalid
	}
	hash := sparrow.TokenHash(bearer)
	key := tokenCacheKey(hash)
	if raw, ok, err := a.d.Cache.Get(ctx, key); err == nil && ok {
		var c cachedToken
		if json.Unmarshal(raw, &c) == nil {
			scopes, _ := sparrow.ParseScopes(c.Scopes)
			return sparrow.Viewer{AccountID: c.Account, AppID: c.App, Scopes: scopes}, nil
		}
	}
	t, err := a.d.Auth.Token(ctx, hash)
	if sparrow.IsKind(err, sparrow.ENotFound) {
		return sparrow.Viewer{}, invalid
	}
	if err != nil {
		return sparrow.Viewer{}, err
	}
	raw, _ := json.Marshal(cachedToken{App: t.AppID, Account: t.AccountID, Scopes: t.Scopes.String()})
	_ = a.d.Cache.Set(ctx, key, raw, a.c.TokenCacheTTL) // the cache is an optimisation only
	return sparrow.Viewer{AccountID: t.AccountID, AppID: t.AppID, Scopes: t.Scopes}, nil
}

// AppOf returns the app of the viewer's token.
func (a *Auth) AppOf(ctx context.Context, v sparrow.Viewer) (*sparrow.App, error) {
	if v.AppID == 0 {
		return nil, sparrow.Errorf(sparrow.EUnauthorized, "The access token is invalid")
	}
	return a.d.Auth.App(ctx, v.AppID)
}
