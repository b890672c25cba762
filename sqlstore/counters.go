package sqlstore

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"sparrow"
)

var _ sparrow.CounterStore = (*Store)(nil)

// counterColumns maps a counter to its table and column.
var counterColumns = map[sparrow.Counter][2]string{
	sparrow.FollowersCount:  {"accounts", "followers_count"},
	sparrow.FollowingCount:  {"accounts", "following_count"},
	sparrow.RepliesCount:    {"statuses", "replies_count"},
	sparrow.ReblogsCount:    {"statuses", "reblogs_count"},
	sparrow.FavouritesCount: {"statuses", "favourites_count"},
}

// FlushCounters applies buffered deltas of one physical store in one
// transaction: it reads (and, on MySQL, locks) up to limit deltas, adds their
// sums to the rows (clamped at zero), refreshes hot flags of accounts whose
// followers_count changed, and deletes the applied deltas. Concurrent
// flushers never apply a delta twice: the locking read and the delete are in
// the same transaction.
func (s *Store) FlushCounters(ctx context.Context, store int, limit int, hot, cold int64) (int, error) {
	dbs := s.shards.DBs()
	if store < 0 || store >= len(dbs) {
		return 0, sparrow.Errorf(sparrow.EInternal, "no store %d", store)
	}
	db := dbs[store]
	n := 0
	err := db.Tx(ctx, nil, func(t *sql.Tx) error {
		rows, err := t.QueryContext(ctx, "SELECT id, target_id, field, delta FROM counter_deltas ORDER BY id LIMIT ?"+forUpdate(db.Dialect), limit)
		if err != nil {
			return err
		}
		type key struct {
			target sparrow.ID
			field  sparrow.Counter
		}
		sums := map[key]int64{}
		var ids []sparrow.ID
		for rows.Next() {
			var id, target, delta int64
			var field int
			if err := rows.Scan(&id, &target, &field, &delta); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, sparrow.ID(id))
			sums[key{sparrow.ID(target), sparrow.Counter(field)}] += delta
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(ids) == 0 {
			return err
		}
		for k, d := range sums {
			col, ok := counterColumns[k.field]
			if !ok {
				continue // a counter this version does not know: leave it applied as zero
			}
			if d == 0 {
				continue
			}
			set := col[1] + " = CASE WHEN " + col[1] + " + ? < 0 THEN 0 ELSE " + col[1] + " + ? END"
			args := []any{d, d}
			if k.field == sparrow.FollowersCount {
				// hot first, on the old count plus d (see hotFlag)
				hotSet, hotArgs := hotFlag("followers_count + ?", []any{d}, hot, cold)
				set, args = hotSet+", "+set, append(hotArgs, args...)
			}
			if _, err := t.ExecContext(ctx, "UPDATE "+col[0]+" SET "+set+" WHERE id = ?", append(args, int64(k.target))...); err != nil {
				return err
			}
		}
		if _, err := t.ExecContext(ctx, "DELETE FROM counter_deltas WHERE id IN ("+Placeholders(len(ids))+")", IDArgs(ids)...); err != nil {
			return err
		}
		n = len(ids)
		return nil
	})
	return n, err
}

// hotFlag returns the SET assignment of the hot flag of an account whose
// followers_count becomes followers (an SQL expression, with its arguments
// args), and the assignment's arguments: the account becomes hot when
// followers ≥ hot, cold when followers < cold, and keeps its flag in between
// (hysteresis, with cold ≤ hot; hot = cold makes the flag a plain
// threshold). It is the one hot-flag rule of the stores.
//
// The assignment must come first in its SET list, and followers must not
// depend on a column assigned in the same statement: MySQL evaluates SET left
// to right with the values already assigned, SQLite with the old ones, and
// both then read the same row.
func hotFlag(followers string, args []any, hot, cold int64) (string, []any) {
	out := make([]any, 0, 2*len(args)+2)
	out = append(append(append(out, args...), hot), args...)
	return "hot = CASE WHEN " + followers + " >= ? THEN 1 WHEN " + followers + " < ? THEN 0 ELSE hot END", append(out, cold)
}

// counterChunk is the number of accounts SetFollowCounts and RecountFollows
// write per statement and transaction.
const counterChunk = 500

// SetFollowCounts sets followers_count and following_count of every account
// of counts to its (followers, following) values exactly, and, if hotAt > 0,
// its hot flag to followers ≥ hotAt (the rule of FlushCounters with hot =
// cold = hotAt). Accounts without a row are skipped. It writes per 500
// accounts in a transaction, all physical stores in parallel, and neither
// reads nor deletes pending counter deltas: it is meant for offline tools
// that know there are none (sqlstore/bulk on empty relation tables; see
// RecountFollows otherwise). counts holds pointers so that a caller may
// count in place.
func (s *Store) SetFollowCounts(ctx context.Context, counts map[sparrow.ID]*[2]int64, hotAt int64) error {
	return s.eachDB(ctx, slices.Collect(maps.Keys(counts)), func(ctx context.Context, db *DB, chunk []sparrow.ID) error {
		vals := make(map[sparrow.ID][2]int64, len(chunk))
		for _, id := range chunk {
			vals[id] = *counts[id]
		}
		return db.Tx(ctx, nil, func(t *sql.Tx) error { return setFollowCounts(ctx, t, chunk, vals, hotAt) })
	})
}

// RecountFollows sets followers_count and following_count of ids to the
// number of their active followers and following rows and deletes their
// pending follow deltas, in one transaction per 500 accounts (all physical
// stores in parallel), so that row + pending equals the truth again; if
// hotAt > 0 it sets their hot flags as SetFollowCounts does. Accounts without
// a row are skipped. It is meant for offline tools (a bulk load that merged
// into existing rows, the relation check's repair): a follow committed
// concurrently may be counted twice or not at all.
func (s *Store) RecountFollows(ctx context.Context, ids []sparrow.ID, hotAt int64) error {
	return s.eachDB(ctx, ids, func(ctx context.Context, db *DB, chunk []sparrow.ID) error {
		return db.Tx(ctx, nil, func(t *sql.Tx) error {
			vals := make(map[sparrow.ID][2]int64, len(chunk))
			for field, q := range []string{
				"SELECT to_id, COUNT(*) FROM followers WHERE to_id IN (%s) AND state = 1 GROUP BY to_id",
				"SELECT from_id, COUNT(*) FROM following WHERE from_id IN (%s) AND state = 1 GROUP BY from_id",
			} {
				rows, err := t.QueryContext(ctx, strings.Replace(q, "%s", Placeholders(len(chunk)), 1), IDArgs(chunk)...)
				if err != nil {
					return err
				}
				for rows.Next() {
					var id, n int64
					if err := rows.Scan(&id, &n); err != nil {
						rows.Close()
						return err
					}
					v := vals[sparrow.ID(id)]
					v[field] = n
					vals[sparrow.ID(id)] = v
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					return err
				}
			}
			if err := setFollowCounts(ctx, t, chunk, vals, hotAt); err != nil {
				return err
			}
			_, err := t.ExecContext(ctx, "DELETE FROM counter_deltas WHERE field IN (1, 2) AND target_id IN ("+Placeholders(len(chunk))+")", IDArgs(chunk)...)
			return err
		})
	})
}

// eachDB groups ids by physical store and calls fn with every store's ids in
// ascending chunks of counterChunk, the stores in parallel; the first error
// cancels the others.
func (s *Store) eachDB(ctx context.Context, ids []sparrow.ID, fn func(ctx context.Context, db *DB, chunk []sparrow.ID) error) error {
	g, ctx := errgroup.WithContext(ctx)
	for db, group := range s.shards.GroupByDB(ids) {
		g.Go(func() error {
			slices.Sort(group)
			for len(group) > 0 {
				chunk := group[:min(len(group), counterChunk)]
				group = group[len(chunk):]
				if err := fn(ctx, db, chunk); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// setFollowCounts sets the follow counters (and, if hotAt > 0, the hot flag)
// of ids to vals (followers, following; absent = 0). The hot flags are set by
// a second statement on the counts just written (hotFlag on
// followers_count, which that statement does not assign): the same result
// in both dialects, and on SQLite about half the time of a third CASE list
// in the first statement.
func setFollowCounts(ctx context.Context, t *sql.Tx, ids []sparrow.ID, vals map[sparrow.ID][2]int64, hotAt int64) error {
	var q strings.Builder
	args := make([]any, 0, 5*len(ids))
	q.WriteString("UPDATE accounts SET ")
	for field, col := range []string{"followers_count", "following_count"} {
		if field > 0 {
			q.WriteString(", ")
		}
		q.WriteString(col + " = CASE id")
		for _, id := range ids {
			q.WriteString(" WHEN ? THEN ?")
			args = append(args, int64(id), vals[id][field])
		}
		q.WriteString(" END")
	}
	in := " WHERE id IN (" + Placeholders(len(ids)) + ")"
	if _, err := t.ExecContext(ctx, q.String()+in, append(args, IDArgs(ids)...)...); err != nil || hotAt <= 0 {
		return err
	}
	set, hotArgs := hotFlag("followers_count", nil, hotAt, hotAt)
	_, err := t.ExecContext(ctx, "UPDATE accounts SET "+set+in, append(hotArgs, IDArgs(ids)...)...)
	return err
}
