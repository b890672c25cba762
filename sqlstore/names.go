package sqlstore

import (
	"context"
	"strconv"
	"strings"
	"time"

	"sparrow"
)

// Name kinds: the kind column of account_names (see NameKey).
const (
	NameUsername = 0
	NameEmail    = 1
)

// orphanAge is how old a claim whose account never appeared must be before a
// new sign-up may take it over.
const orphanAge = time.Minute

// NameKey returns the key of the claim of a name of a kind (NameUsername or
// NameEmail) and its normal form, the lower-cased name that account_names
// stores: the claim lives on the store of sparrow.KeyShard(key), whose shard
// column is that logical shard. It is the one place that says where a name
// is claimed; offline tools that write claims themselves (sqlstore/bulk) use
// it so that lookups by name find them.
func NameKey(kind int, name string) (key, norm string) {
	norm = strings.ToLower(name)
	return strconv.Itoa(kind) + ":" + norm, norm
}

// claimName inserts the unique claim (kind, name) → id on the shard of the
// name's hash. EConflict if another live account holds it.
func (s *Store) claimName(ctx context.Context, kind int, name string, id sparrow.ID, now time.Time) error {
	key, norm := NameKey(kind, name)
	db := s.shards.ForKey(key)
	_, err := db.W.ExecContext(ctx, "INSERT INTO account_names (kind, name, shard, account_id, created_at) VALUES (?,?,?,?,?)",
		kind, norm, sparrow.KeyShard(key), int64(id), now.UnixMilli())
	if err == nil || !db.Dialect.IsDuplicate(err) {
		return db.Translate(err, "claim name")
	}
	owner, created, err := s.nameOwner(ctx, kind, name)
	if err != nil {
		return err
	}
	if _, aerr := s.Account(ctx, owner); !sparrow.IsKind(aerr, sparrow.ENotFound) || now.Sub(created) < orphanAge {
		if aerr != nil && !sparrow.IsKind(aerr, sparrow.ENotFound) {
			return aerr
		}
		return sparrow.Errorf(sparrow.EConflict, "has already been taken")
	}
	res, err := db.W.ExecContext(ctx, "UPDATE account_names SET account_id = ?, created_at = ? WHERE kind = ? AND name = ? AND account_id = ?",
		int64(id), now.UnixMilli(), kind, norm, int64(owner))
	if err != nil {
		return db.Translate(err, "claim name")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return sparrow.Errorf(sparrow.EConflict, "has already been taken")
	}
	return nil
}

// releaseName removes a claim held by id (best effort, after a failed sign-up).
func (s *Store) releaseName(ctx context.Context, kind int, name string, id sparrow.ID) {
	key, norm := NameKey(kind, name)
	db := s.shards.ForKey(key)
	_, _ = db.W.ExecContext(context.WithoutCancel(ctx), "DELETE FROM account_names WHERE kind = ? AND name = ? AND account_id = ?", kind, norm, int64(id))
}

// nameOwner returns the account id that holds a claim, and when it was made.
func (s *Store) nameOwner(ctx context.Context, kind int, name string) (sparrow.ID, time.Time, error) {
	key, norm := NameKey(kind, name)
	db := s.shards.ForKey(key)
	var id, created int64
	err := db.R.QueryRowContext(ctx, "SELECT account_id, created_at FROM account_names WHERE kind = ? AND name = ?", kind, norm).Scan(&id, &created)
	if err != nil {
		return 0, time.Time{}, db.Translate(err, "name")
	}
	return sparrow.ID(id), time.UnixMilli(created), nil
}
