package sparrow

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"slices"
	"strings"
	"time"
)

// Scope is an OAuth scope. Sparrow knows Mastodon's top-level scopes read,
// write, follow and push; a granular scope such as "read:statuses" is covered
// by its top-level scope.
type Scope string

// Top-level scopes.
const (
	ScopeRead   Scope = "read"
	ScopeWrite  Scope = "write"
	ScopeFollow Scope = "follow"
	ScopePush   Scope = "push"
)

// Scopes is a set of scopes, stored space-separated.
type Scopes []Scope

// MaxScopesLen bounds a scope string (the size of the columns that keep it).
const MaxScopesLen = 512

// ParseScopes parses a space-separated (or '+'-separated) scope string. Empty
// means "read", as in Mastodon. Unknown or malformed scopes (a granular part
// must be lower-case letters, '_' and ':'), and strings over MaxScopesLen,
// yield EInvalid.
func ParseScopes(s string) (Scopes, error) {
	bad := Errorf(EInvalid, "The requested scope is invalid, unknown, or malformed.")
	if len(s) > MaxScopesLen {
		return nil, bad
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '+' || r == ',' })
	if len(fields) == 0 {
		return Scopes{ScopeRead}, nil
	}
	var out Scopes
	for _, f := range fields {
		top, sub, granular := strings.Cut(f, ":")
		switch Scope(top) {
		case ScopeRead, ScopeWrite, ScopeFollow, ScopePush:
		case "admin", "profile":
		default:
			return nil, bad
		}
		if granular && strings.Trim(sub, "abcdefghijklmnopqrstuvwxyz_:") != "" || granular && sub == "" {
			return nil, bad
		}
		if !slices.Contains(out, Scope(f)) {
			out = append(out, Scope(f))
		}
	}
	return out, nil
}

// String joins the scopes with spaces.
func (s Scopes) String() string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = string(x)
	}
	return strings.Join(parts, " ")
}

// Allows reports whether s grants need: exactly, or through its top-level scope
// ("read" grants "read:statuses"); "follow" is also granted by read+write.
func (s Scopes) Allows(need Scope) bool {
	top, _, _ := strings.Cut(string(need), ":")
	for _, x := range s {
		if x == need || string(x) == top {
			return true
		}
	}
	if need == ScopeFollow {
		return s.Allows(ScopeRead) && s.Allows(ScopeWrite)
	}
	return false
}

// Subset reports whether every scope in want is allowed by s.
func (s Scopes) Subset(want Scopes) bool {
	for _, w := range want {
		if !s.Allows(w) {
			return false
		}
	}
	return true
}

// App is an OAuth client registered with POST /api/v1/apps.
type App struct {
	ID           ID
	Name         string
	Website      string
	RedirectURIs []string
	Scopes       Scopes
	ClientID     string
	SecretHash   []byte // SHA-256 of the client secret; the secret is shown once
	CreatedAt    time.Time
}

// Token is a bearer access token. Only its hash is stored (TokenHash), on
// the shard of its owner's gene.
type Token struct {
	Hash      []byte
	AppID     ID
	AccountID ID // 0 for a client_credentials (app-only) token
	Scopes    Scopes
	CreatedAt time.Time
}

// AuthCode is a one-time OAuth authorization code (authorization_code grant).
type AuthCode struct {
	Hash          []byte
	AppID         ID
	AccountID     ID
	RedirectURI   string
	Scopes        Scopes
	CodeChallenge string // PKCE S256 challenge, or ""
	ExpiresAt     time.Time
}

// HashSecret returns the SHA-256 of a client secret or code. Secrets are
// 256-bit random values, so a plain hash is enough to store them safely.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// tokenLen is the length of an access token: 33 bytes, base64url-encoded
// without padding (the owner's gene, then 256 random bits).
const tokenLen = 44

// NewToken returns a new access token carrying gene: the logical shard of
// its owner (the account, or the app for an app-only token). The token is
// stored on that shard (TokenHash), so that authenticating a request needs
// only the store that holds its owner's own data: a store that is down
// costs only the requests of its own users.
func NewToken(gene int) string {
	b := make([]byte, 33)
	if _, err := rand.Read(b[1:]); err != nil {
		panic("crypto/rand: " + err.Error())
	}
	b[0] = byte(gene)
	return base64.RawURLEncoding.EncodeToString(b)
}

// TokenHash returns the key under which an access token is stored: its
// SHA-256, whose first byte, the logical shard of the row (KeyShard), is
// replaced by the token's gene (NewToken). Tokens of the earlier format (43
// characters, no gene) keep their plain hash and its shard. The other 31
// bytes of the hash keep the token secret at rest.
func TokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	if len(token) == tokenLen {
		if b, err := base64.RawURLEncoding.DecodeString(token[:4]); err == nil {
			h[0] = b[0]
		}
	}
	return h[:]
}

// KeyShard returns the logical shard that owns a hashed key (usernames, emails,
// tokens, client ids): the first byte of its SHA-256.
func KeyShard(key string) int { return int(HashSecret(key)[0]) }

// AuthStore is the durable store of OAuth apps, tokens and codes. Each row
// lives on the logical shard of the first byte of its hash: KeyShard for
// apps and codes, the owner's gene for tokens (TokenHash).
type AuthStore interface {
	// CreateApp stores a new app.
	CreateApp(ctx context.Context, a *App) error
	// AppByClientID returns the app, or ENotFound.
	AppByClientID(ctx context.Context, clientID string) (*App, error)
	// App returns the app by id (its gene is its client id's shard), or ENotFound.
	App(ctx context.Context, id ID) (*App, error)
	// CreateToken stores a token; it is durable when CreateToken returns.
	CreateToken(ctx context.Context, t *Token) error
	// Token returns the token with that hash, or ENotFound (revoked tokens are gone).
	Token(ctx context.Context, hash []byte) (*Token, error)
	// RevokeToken deletes the token; revoking an absent token is not an error.
	RevokeToken(ctx context.Context, hash []byte) error
	// CreateAuthCode stores a code.
	CreateAuthCode(ctx context.Context, c *AuthCode) error
	// TakeAuthCode deletes and returns the code, so that it works once; it
	// returns ENotFound if absent.
	TakeAuthCode(ctx context.Context, hash []byte) (*AuthCode, error)
}
