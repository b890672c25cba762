package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"sparrow"
)

const accountCols = "id, username, email, password_hash, display_name, note, locked, bot, created_at, updated_at, " +
	"statuses_count, followers_count, following_count, last_status_at, hot"

type scanner interface{ Scan(...any) error }

// scanAccount scans a row of accountCols and, if extra is set, one more
// integer column into *n.
func scanAccount(r scanner, n *int, extra bool) (*sparrow.Account, error) {
	var a sparrow.Account
	var locked, bot, hot int
	var created, updated, last int64
	dest := []any{&a.ID, &a.Username, &a.Email, &a.PasswordHash, &a.DisplayName, &a.Note, &locked, &bot,
		&created, &updated, &a.StatusesCount, &a.FollowersCount, &a.FollowingCount, &last, &hot}
	if extra {
		dest = append(dest, n)
	}
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	a.Locked, a.Bot, a.Hot = locked != 0, bot != 0, hot != 0
	a.CreatedAt, a.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	if last != 0 {
		a.LastStatusAt = time.UnixMilli(last).UTC()
	}
	return &a, nil
}

// CreateAccount claims the username and the email on the shards of their
// hashes, then inserts the account with its events on its own shard. A claim
// left behind by a sign-up that failed half-way (its account never appeared)
// is taken over after a minute.
func (s *Store) CreateAccount(ctx context.Context, a *sparrow.Account, events ...sparrow.Event) error {
	if err := s.claimName(ctx, NameUsername, a.Username, a.ID, a.CreatedAt); err != nil {
		return err
	}
	if err := s.claimName(ctx, NameEmail, a.Email, a.ID, a.CreatedAt); err != nil {
		s.releaseName(ctx, NameUsername, a.Username, a.ID)
		return err
	}
	db := s.shards.ForID(a.ID)
	err := db.Tx(ctx, events, func(t *sql.Tx) error {
		_, err := t.ExecContext(ctx, "INSERT INTO accounts ("+accountCols+") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			int64(a.ID), a.Username, a.Email, a.PasswordHash, a.DisplayName, a.Note, boolInt(a.Locked), boolInt(a.Bot),
			a.CreatedAt.UnixMilli(), a.UpdatedAt.UnixMilli(), a.StatusesCount, a.FollowersCount, a.FollowingCount, int64(0), boolInt(a.Hot))
		return err
	})
	if err != nil {
		s.releaseName(ctx, NameUsername, a.Username, a.ID)
		s.releaseName(ctx, NameEmail, a.Email, a.ID)
	}
	return err
}

// UpdateAccount applies u in one transaction with its events.
func (s *Store) UpdateAccount(ctx context.Context, id sparrow.ID, u sparrow.AccountUpdate, now time.Time, events ...sparrow.Event) (*sparrow.Account, error) {
	sets := []string{"updated_at = ?"}
	args := []any{now.UnixMilli()}
	if u.DisplayName != nil {
		sets, args = append(sets, "display_name = ?"), append(args, *u.DisplayName)
	}
	if u.Note != nil {
		sets, args = append(sets, "note = ?"), append(args, *u.Note)
	}
	if u.Locked != nil {
		sets, args = append(sets, "locked = ?"), append(args, boolInt(*u.Locked))
	}
	if u.Bot != nil {
		sets, args = append(sets, "bot = ?"), append(args, boolInt(*u.Bot))
	}
	var out *sparrow.Account
	db := s.shards.ForID(id)
	err := db.Tx(ctx, events, func(t *sql.Tx) error {
		res, err := t.ExecContext(ctx, "UPDATE accounts SET "+strings.Join(sets, ", ")+" WHERE id = ?", append(args, int64(id))...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return sparrow.Errorf(sparrow.ENotFound, "Record not found")
		}
		out, err = scanAccount(t.QueryRowContext(ctx, "SELECT "+accountCols+" FROM accounts WHERE id = ?", int64(id)), nil, false)
		return err
	})
	return out, err
}

// Account returns one account, or ENotFound.
func (s *Store) Account(ctx context.Context, id sparrow.ID) (*sparrow.Account, error) {
	db := s.shards.ForID(id)
	a, err := scanAccount(db.queryRowR(ctx, "SELECT "+accountCols+" FROM accounts WHERE id = ?", int64(id)), nil, false)
	return a, db.Translate(err, "account")
}

// Accounts multi-gets accounts, one query per physical store; in a context
// that allows partial reads, an unavailable store's accounts are left out.
func (s *Store) Accounts(ctx context.Context, ids []sparrow.ID) ([]*sparrow.Account, error) {
	out, _, err := s.AccountsSeenBy(ctx, 0, ids)
	return out, err
}

// AccountsSeenBy multi-gets accounts, with whether each blocks viewer: an
// EXISTS on the blocks primary key (from_id, to_id) in the same query, one
// per physical store (an account and its block rows share its gene).
func (s *Store) AccountsSeenBy(ctx context.Context, viewer sparrow.ID, ids []sparrow.ID) ([]*sparrow.Account, map[sparrow.ID]bool, error) {
	var out []*sparrow.Account
	blockers := map[sparrow.ID]bool{}
	for db, group := range s.shards.GroupByDB(ids) {
		in, args := inIDs(group)
		q := "SELECT " + accountCols + " FROM accounts WHERE id IN (" + in + ")"
		if viewer != 0 {
			q = "SELECT " + accountCols + ", EXISTS (SELECT 1 FROM blocks WHERE blocks.from_id = accounts.id AND blocks.to_id = ? AND blocks.state = 1)" +
				" FROM accounts WHERE id IN (" + in + ")"
			args = append([]any{int64(viewer)}, args...)
		}
		got, err := queryAccounts(ctx, db, q, viewer != 0, blockers, args...)
		if sparrow.SkipUnavailable(ctx, err) {
			continue // a partial read
		}
		if err != nil {
			return nil, nil, err
		}
		out = append(out, got...)
	}
	return out, blockers, nil
}

// queryAccounts runs a read of accounts; with blocks, each row ends with
// whether the account blocks the viewer, noted in blockers.
func queryAccounts(ctx context.Context, db *DB, q string, blocks bool, blockers map[sparrow.ID]bool, args ...any) ([]*sparrow.Account, error) {
	rows, err := db.queryR(ctx, q, args...)
	if err != nil {
		return nil, db.Translate(err, "accounts")
	}
	defer rows.Close()
	var out []*sparrow.Account
	for rows.Next() {
		var blocking int
		a, err := scanAccount(rows, &blocking, blocks)
		if err != nil {
			return nil, db.Translate(err, "accounts")
		}
		if blocking != 0 {
			blockers[a.ID] = true
		}
		out = append(out, a)
	}
	return out, db.Translate(rows.Err(), "accounts")
}

// AccountsExist reads only the primary key of each store's accounts.
func (s *Store) AccountsExist(ctx context.Context, ids []sparrow.ID) (map[sparrow.ID]bool, error) {
	out := make(map[sparrow.ID]bool, len(ids))
	for db, group := range s.shards.GroupByDB(ids) {
		in, args := inIDs(group)
		rows, err := db.queryR(ctx, "SELECT id FROM accounts WHERE id IN ("+in+")", args...)
		if err != nil {
			if err = db.Translate(err, "accounts exist"); sparrow.SkipUnavailable(ctx, err) {
				continue // a partial read
			}
			return nil, err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, db.Translate(err, "accounts exist")
			}
			out[sparrow.ID(id)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, db.Translate(err, "accounts exist")
		}
	}
	return out, nil
}

// AccountByUsername resolves a username through its claim.
func (s *Store) AccountByUsername(ctx context.Context, username string) (*sparrow.Account, error) {
	return s.accountByName(ctx, NameUsername, username)
}

// AccountByEmail resolves an email through its claim.
func (s *Store) AccountByEmail(ctx context.Context, email string) (*sparrow.Account, error) {
	return s.accountByName(ctx, NameEmail, email)
}

func (s *Store) accountByName(ctx context.Context, kind int, name string) (*sparrow.Account, error) {
	id, _, err := s.nameOwner(ctx, kind, name)
	if err != nil {
		return nil, err
	}
	return s.Account(ctx, id)
}
