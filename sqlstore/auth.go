package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"sparrow"
)

func hashShard(hash []byte) int {
	if len(hash) == 0 {
		return 0
	}
	return int(hash[0])
}

// CreateApp stores an app on the shard of its client id.
func (s *Store) CreateApp(ctx context.Context, a *sparrow.App) error {
	db := s.shards.ForKey(a.ClientID)
	_, err := db.W.ExecContext(ctx, "INSERT INTO apps (client_id, shard, id, name, website, redirect_uris, scopes, secret_hash, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
		a.ClientID, sparrow.KeyShard(a.ClientID), int64(a.ID), a.Name, a.Website, strings.Join(a.RedirectURIs, "\n"),
		a.Scopes.String(), a.SecretHash, a.CreatedAt.UnixMilli())
	return db.Translate(err, "create app")
}

const appCols = "client_id, id, name, website, redirect_uris, scopes, secret_hash, created_at"

// AppByClientID returns the app, or ENotFound.
func (s *Store) AppByClientID(ctx context.Context, clientID string) (*sparrow.App, error) {
	db := s.shards.ForKey(clientID)
	return scanApp(db, db.R.QueryRowContext(ctx, "SELECT "+appCols+" FROM apps WHERE client_id = ?", clientID))
}

// App returns the app by id, on the shard of the id's gene.
func (s *Store) App(ctx context.Context, id sparrow.ID) (*sparrow.App, error) {
	db := s.shards.ForID(id)
	return scanApp(db, db.R.QueryRowContext(ctx, "SELECT "+appCols+" FROM apps WHERE id = ?", int64(id)))
}

func scanApp(db *DB, row scanner) (*sparrow.App, error) {
	var a sparrow.App
	var uris, scopes string
	var created int64
	err := row.Scan(&a.ClientID, &a.ID, &a.Name, &a.Website, &uris, &scopes, &a.SecretHash, &created)
	if err != nil {
		return nil, db.Translate(err, "app")
	}
	a.RedirectURIs = strings.Split(uris, "\n")
	a.Scopes, _ = sparrow.ParseScopes(scopes)
	a.CreatedAt = time.UnixMilli(created).UTC()
	return &a, nil
}

// CreateToken stores a token on the shard of its hash.
func (s *Store) CreateToken(ctx context.Context, t *sparrow.Token) error {
	db := s.shards.For(hashShard(t.Hash))
	_, err := db.W.ExecContext(ctx, "INSERT INTO tokens (hash, shard, app_id, account_id, scopes, created_at) VALUES (?,?,?,?,?,?)",
		t.Hash, hashShard(t.Hash), int64(t.AppID), int64(t.AccountID), t.Scopes.String(), t.CreatedAt.UnixMilli())
	return db.Translate(err, "create token")
}

// Token returns a live token by hash, or ENotFound.
func (s *Store) Token(ctx context.Context, hash []byte) (*sparrow.Token, error) {
	db := s.shards.For(hashShard(hash))
	t := sparrow.Token{Hash: hash}
	var scopes string
	var created int64
	err := db.R.QueryRowContext(ctx, "SELECT app_id, account_id, scopes, created_at FROM tokens WHERE hash = ?", hash).
		Scan(&t.AppID, &t.AccountID, &scopes, &created)
	if err != nil {
		return nil, db.Translate(err, "token")
	}
	t.Scopes, _ = sparrow.ParseScopes(scopes)
	t.CreatedAt = time.UnixMilli(created).UTC()
	return &t, nil
}

// RevokeToken deletes a token.
func (s *Store) RevokeToken(ctx context.Context, hash []byte) error {
	db := s.shards.For(hashShard(hash))
	_, err := db.W.ExecContext(ctx, "DELETE FROM tokens WHERE hash = ?", hash)
	return db.Translate(err, "revoke token")
}

// CreateAuthCode stores a one-time code.
func (s *Store) CreateAuthCode(ctx context.Context, c *sparrow.AuthCode) error {
	db := s.shards.For(hashShard(c.Hash))
	_, err := db.W.ExecContext(ctx, "INSERT INTO auth_codes (hash, shard, app_id, account_id, redirect_uri, scopes, code_challenge, expires_at) VALUES (?,?,?,?,?,?,?,?)",
		c.Hash, hashShard(c.Hash), int64(c.AppID), int64(c.AccountID), c.RedirectURI, c.Scopes.String(), c.CodeChallenge, c.ExpiresAt.UnixMilli())
	return db.Translate(err, "create code")
}

// TakeAuthCode deletes and returns a code in one transaction, so it works once.
func (s *Store) TakeAuthCode(ctx context.Context, hash []byte) (*sparrow.AuthCode, error) {
	db := s.shards.For(hashShard(hash))
	c := sparrow.AuthCode{Hash: hash}
	err := db.Tx(ctx, nil, func(t *sql.Tx) error {
		var scopes string
		var expires int64
		if err := t.QueryRowContext(ctx, "SELECT app_id, account_id, redirect_uri, scopes, code_challenge, expires_at FROM auth_codes WHERE hash = ?", hash).
			Scan(&c.AppID, &c.AccountID, &c.RedirectURI, &scopes, &c.CodeChallenge, &expires); err != nil {
			return err
		}
		c.Scopes, _ = sparrow.ParseScopes(scopes)
		c.ExpiresAt = time.UnixMilli(expires).UTC()
		res, err := t.ExecContext(ctx, "DELETE FROM auth_codes WHERE hash = ?", hash)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return sparrow.Errorf(sparrow.ENotFound, "Record not found")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}
