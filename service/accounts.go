package service

import (
	"context"
	"regexp"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"sparrow"
)

// Accounts implements sparrow.AccountService.
type Accounts struct {
	d    Deps
	c    Config
	auth *Auth
}

var _ sparrow.AccountService = (*Accounts)(nil)

var usernameRE = regexp.MustCompile(`^[A-Za-z0-9_]{1,30}$`)
var emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

// Register validates a sign-up, creates the account on a balanced shard with
// its account.created event, and signs it in with a token of the app's scopes.
func (s *Accounts) Register(ctx context.Context, v sparrow.Viewer, r sparrow.Registration) (*sparrow.IssuedToken, error) {
	if v.AppID == 0 {
		return nil, sparrow.Errorf(sparrow.EUnauthorized, "The access token is invalid")
	}
	var problems []string
	if !usernameRE.MatchString(r.Username) {
		problems = append(problems, "Username must contain only letters, numbers and underscores (at most 30)")
	}
	if checkBytes("Email", r.Email, maxEmail) != nil || !emailRE.MatchString(r.Email) {
		problems = append(problems, "Email is invalid")
	}
	if len(r.Password) < minPassword || len(r.Password) > maxPassword {
		problems = append(problems, "Password must be 8 to 72 bytes long")
	}
	if !r.Agreement {
		problems = append(problems, "Agreement must be accepted")
	}
	if len(problems) > 0 {
		return nil, sparrow.Errorf(sparrow.EInvalid, "Validation failed: %s", strings.Join(problems, ", "))
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(r.Password), s.c.BcryptCost)
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EInternal, err, "password hashing failed")
	}
	now := s.d.Clock.Now().UTC()
	a := &sparrow.Account{ID: s.d.IDs.NextBalanced(), Username: r.Username, Email: r.Email, PasswordHash: string(hash),
		CreatedAt: now, UpdatedAt: now}
	ev := sparrow.NewEvent(s.d.IDs.Next(a.ID.Shard()), sparrow.EvAccountCreated, a.ID, sparrow.AccountPayload{Account: public(a)}, now)
	if err = s.d.Accounts.CreateAccount(ctx, a, ev); err != nil {
		if sparrow.IsKind(err, sparrow.EConflict) {
			return nil, sparrow.Errorf(sparrow.EInvalid, "Validation failed: Username or email has already been taken")
		}
		return nil, err
	}
	app, err := s.d.Auth.App(ctx, v.AppID)
	if err != nil {
		return nil, err
	}
	return s.auth.issue(ctx, app.ID, a.ID, app.Scopes)
}

// public returns a copy of a without its secrets, for event payloads.
func public(a *sparrow.Account) *sparrow.Account {
	c := *a
	c.PasswordHash, c.Email = "", ""
	return &c
}

// Account returns an account.
func (s *Accounts) Account(ctx context.Context, v sparrow.Viewer, id sparrow.ID) (*sparrow.Account, error) {
	return s.d.Accounts.Account(ctx, id)
}

// Lookup resolves "user", "@user" or "user@domain" for this domain.
func (s *Accounts) Lookup(ctx context.Context, v sparrow.Viewer, acct string) (*sparrow.Account, error) {
	acct = strings.TrimPrefix(strings.TrimSpace(acct), "@")
	if !validLookup(acct) {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	user, domain, _ := strings.Cut(acct, "@")
	if domain != "" && !strings.EqualFold(domain, s.c.Domain) {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	if !usernameRE.MatchString(user) {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	return s.d.Accounts.AccountByUsername(ctx, user)
}

// UpdateCredentials validates and applies a profile change with its event.
func (s *Accounts) UpdateCredentials(ctx context.Context, v sparrow.Viewer, u sparrow.AccountUpdate) (*sparrow.Account, error) {
	if v.Anonymous() {
		return nil, sparrow.Errorf(sparrow.EUnauthorized, "The access token is invalid")
	}
	if u.DisplayName != nil {
		if err := checkText("Display name", *u.DisplayName, maxDisplayName); err != nil {
			return nil, err
		}
	}
	if u.Note != nil {
		if err := checkText("Note", *u.Note, maxNote); err != nil {
			return nil, err
		}
	}
	now := s.d.Clock.Now().UTC()
	var a *sparrow.Account
	a, err := s.d.Accounts.UpdateAccount(ctx, v.AccountID, u, now,
		sparrow.NewEvent(s.d.IDs.Next(v.AccountID.Shard()), sparrow.EvAccountUpdated, v.AccountID, u, now))
	return a, err
}
