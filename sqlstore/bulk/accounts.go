package bulk

import (
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"sparrow"
	"sparrow/sqlstore"
)

// AccountsLoad reports a LoadAccounts.
type AccountsLoad struct {
	Created  int // accounts inserted
	Existing int // accounts that were there already (left untouched)
	// NameConflicts counts usernames or emails of new accounts already
	// claimed by another account: such an account cannot be found by that name.
	NameConflicts int
}

// Placeholder account fields: an imported account has username "u<id>",
// email "u<id>@"+PlaceholderEmailDomain, an empty display name and note, and
// a password hash that no password matches.
const (
	PlaceholderEmailDomain  = "import.invalid"
	PlaceholderPasswordHash = "!"
)

// LoadAccounts creates a placeholder account for every id that has none,
// with its username and email claims (account_names, on the shards of their
// hashes), so that lookups by name work. Existing accounts are left as they
// are. Counters start at zero; LoadFollows sets them. Claims are written
// before accounts, as sqlstore.Store.CreateAccount does, so that a rerun
// after an interruption completes both.
func LoadAccounts(ctx context.Context, s *sqlstore.Store, ids []sparrow.ID, o Options) (AccountsLoad, error) {
	o = o.withDefaults()
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for len(ids) > 0 && ids[0] <= 0 {
		ids = ids[1:]
	}
	var res AccountsLoad
	sh := s.Shards()
	var missing []sparrow.ID
	for db, group := range sh.GroupByDB(ids) {
		have, err := existing(ctx, db, group)
		if err != nil {
			return res, err
		}
		for _, id := range group {
			if !have[id] {
				missing = append(missing, id)
			}
		}
		res.Existing += len(have)
	}
	slices.Sort(missing)
	now := o.Now.UnixMilli()

	o.Planned(len(missing))

	// claims, grouped by the store of each name's hash
	claims := map[*sqlstore.DB][]claim{}
	for _, id := range missing {
		user := "u" + id.String()
		for _, c := range []claim{{sqlstore.NameUsername, user, id}, {sqlstore.NameEmail, user + "@" + PlaceholderEmailDomain, id}} {
			key, norm := sqlstore.NameKey(c.kind, c.name)
			db := sh.ForKey(key)
			c.name = norm
			claims[db] = append(claims[db], c)
		}
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	for db, cs := range claims {
		g.Go(func() error {
			n, err := writeClaims(gctx, db, cs, now)
			if err != nil {
				return err
			}
			mu.Lock()
			res.NameConflicts += n
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}

	const cols = "id, username, email, password_hash, display_name, note, created_at, updated_at"
	g, gctx = errgroup.WithContext(ctx)
	for db, group := range sh.GroupByDB(missing) {
		g.Go(func() error {
			n, err := insert(gctx, db, db.Dialect.InsertIgnore+" INTO accounts ("+cols+") VALUES ", "", 8, len(group), o,
				func(args []any, i int) []any {
					user := "u" + group[i].String()
					return append(args, int64(group[i]), user, user+"@"+PlaceholderEmailDomain, PlaceholderPasswordHash, "", "", now, now)
				})
			mu.Lock()
			res.Created += int(n)
			mu.Unlock()
			return err
		})
	}
	return res, g.Wait()
}

// existing returns which of ids (all on db) have an account row.
func existing(ctx context.Context, db *sqlstore.DB, ids []sparrow.ID) (map[sparrow.ID]bool, error) {
	have := map[sparrow.ID]bool{}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 1000)]
		ids = ids[len(chunk):]
		rows, err := db.R.QueryContext(ctx, "SELECT id FROM accounts WHERE id IN ("+sqlstore.Placeholders(len(chunk))+")", sqlstore.IDArgs(chunk)...)
		if err != nil {
			return nil, db.Translate(err, "bulk accounts")
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, db.Translate(err, "bulk accounts")
			}
			have[sparrow.ID(id)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, db.Translate(err, "bulk accounts")
		}
	}
	return have, nil
}

// claim is a name claim to write: (kind, lower-cased name) → id.
type claim struct {
	kind int
	name string
	id   sparrow.ID
}

// claimKey is the key of a claim: (kind, lower-cased name).
type claimKey struct {
	kind int
	name string
}

// writeClaims inserts the claims cs (all on db) that nobody holds, 500 per
// statement, and returns how many are held by another account.
func writeClaims(ctx context.Context, db *sqlstore.DB, cs []claim, now int64) (int, error) {
	var args []any
	conflicts := 0
	for len(cs) > 0 {
		chunk := cs[:min(len(cs), 500)]
		cs = cs[len(chunk):]
		taken, err := claimed(ctx, db, chunk)
		if err != nil {
			return conflicts, err
		}
		args = args[:0]
		for _, c := range chunk {
			if owner, ok := taken[claimKey{c.kind, c.name}]; ok {
				if owner != c.id {
					conflicts++
				}
				continue
			}
			key, _ := sqlstore.NameKey(c.kind, c.name)
			args = append(args, c.kind, c.name, sparrow.KeyShard(key), int64(c.id), now)
		}
		if len(args) == 0 {
			continue
		}
		if _, err := db.W.ExecContext(ctx, db.Dialect.InsertIgnore+" INTO account_names (kind, name, shard, account_id, created_at) VALUES "+
			sqlstore.RepeatRow(5, len(args)/5), args...); err != nil {
			return conflicts, db.Translate(err, "bulk claims")
		}
	}
	return conflicts, nil
}

// claimed returns the owners of the names in chunk that are claimed.
func claimed(ctx context.Context, db *sqlstore.DB, chunk []claim) (map[claimKey]sparrow.ID, error) {
	args := make([]any, 0, 2*len(chunk))
	for _, c := range chunk {
		args = append(args, c.kind, c.name)
	}
	rows, err := db.R.QueryContext(ctx, "SELECT kind, name, account_id FROM account_names WHERE (kind, name) IN ("+sqlstore.RepeatRow(2, len(chunk))+")", args...)
	if err != nil {
		return nil, db.Translate(err, "bulk claims")
	}
	defer rows.Close()
	out := map[claimKey]sparrow.ID{}
	for rows.Next() {
		var kind int
		var name string
		var id int64
		if err := rows.Scan(&kind, &name, &id); err != nil {
			return nil, db.Translate(err, "bulk claims")
		}
		out[claimKey{kind, name}] = sparrow.ID(id)
	}
	return out, db.Translate(rows.Err(), "bulk claims")
}
