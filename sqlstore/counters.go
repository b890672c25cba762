package sqlstore

import (
	"context"
	"database/sql"

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
	err := db.tx(ctx, nil, func(t *sql.Tx) error {
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
				// hot is assigned first so that MySQL (which evaluates SET left to
				// right) and SQLite (which uses old values) both see the old count.
				set = "hot = CASE WHEN followers_count + ? >= ? THEN 1 WHEN followers_count + ? < ? THEN 0 ELSE hot END, " + set
				args = append([]any{d, hot, d, cold}, args...)
			}
			if _, err := t.ExecContext(ctx, "UPDATE "+col[0]+" SET "+set+" WHERE id = ?", append(args, int64(k.target))...); err != nil {
				return err
			}
		}
		if _, err := t.ExecContext(ctx, "DELETE FROM counter_deltas WHERE id IN ("+placeholders(len(ids))+")", idArgs(ids)...); err != nil {
			return err
		}
		n = len(ids)
		return nil
	})
	return n, err
}
