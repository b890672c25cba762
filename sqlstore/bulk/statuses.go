package bulk

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"sparrow"
	"sparrow/sqlstore"
)

// Status is one status for LoadStatuses: an original post (type 0) without
// mentions, tags, replies or edits.
type Status struct {
	// ID must carry the author's gene (ID.Shard() == AccountID.Shard()), as
	// an id of sparrow.IDGen.Next(AccountID.Shard()) does, and should be
	// generated at CreatedAt so that id order is time order.
	ID        sparrow.ID
	AccountID sparrow.ID
	Text      string
	CreatedAt time.Time
	// Visibility is public when empty.
	Visibility sparrow.Visibility
}

// StatusesLoad reports a LoadStatuses.
type StatusesLoad struct {
	Statuses int   // distinct statuses given
	Inserted int64 // rows inserted (fewer than Statuses if some existed)
	// Accounts is the number of authors whose statuses_count and
	// last_status_at were set.
	Accounts int
	// Time spent writing the rows and setting the counters.
	Write, Counters time.Duration
}

// statusCols are the columns LoadStatuses writes; the others keep their
// defaults (no reply, reblog, quote, object, edit or counters).
const statusCols = "id, account_id, type, visibility, text, spoiler_text, mentions, tags, created_at, deleted_at, version"

// LoadStatuses writes statuses straight into the statuses tables, for
// imports and benchmarks: live (deleted_at 0), version 1, no mentions or
// tags, on the store of each author's shard. Rows are sorted by id and written
// with multi-row INSERT … IGNORE statements (o.Batch rows each, o.TxRows per
// transaction), all stores in parallel (one writer per SQLite file,
// o.Writers per MySQL store, each on a contiguous id range), so a status
// that exists already is left as it is and an interrupted load can be run
// again. Then statuses_count of every author is set to its number of live
// statuses and last_status_at raised to its newest one, per 500 authors in a
// transaction; authors without an account row are skipped.
//
// Like every bulk load it is offline: the rows bypass the outbox (no event,
// no fan-out, no keyed feeds, no notifications), so run it while no server
// writes to the stores. An id without its author's gene or a non-positive id
// is EInvalid, and nothing is written.
func LoadStatuses(ctx context.Context, s *sqlstore.Store, sts []Status, o Options) (res StatusesLoad, err error) {
	o = o.withDefaults()
	for _, st := range sts {
		if st.ID <= 0 || st.AccountID <= 0 || st.ID.Shard() != st.AccountID.Shard() {
			return res, sparrow.Errorf(sparrow.EInvalid, "status %d of account %d: the id must be positive and carry the author's gene", st.ID, st.AccountID)
		}
		if _, ok := sqlstore.VisibilityCode(visibility(st.Visibility)); !ok {
			return res, sparrow.Errorf(sparrow.EInvalid, "status %d: unknown visibility %q", st.ID, st.Visibility)
		}
	}
	start := time.Now()
	groups := map[*sqlstore.DB][]Status{}
	for _, st := range sts {
		db := s.Shards().ForID(st.AccountID)
		groups[db] = append(groups[db], st)
	}
	authors := map[*sqlstore.DB][]sparrow.ID{}
	for db, g := range groups {
		slices.SortFunc(g, func(a, b Status) int { return cmp.Compare(a.ID, b.ID) })
		g = slices.CompactFunc(g, func(a, b Status) bool { return a.ID == b.ID })
		groups[db] = g
		res.Statuses += len(g)
		seen := map[sparrow.ID]struct{}{}
		for _, st := range g {
			if _, ok := seen[st.AccountID]; !ok {
				seen[st.AccountID] = struct{}{}
				authors[db] = append(authors[db], st.AccountID)
			}
		}
	}
	o.Planned(res.Statuses)
	if o.Relaxed {
		restore, rerr := relax(ctx, s)
		if rerr != nil {
			return res, rerr
		}
		defer func() { err = errors.Join(err, restore()) }()
	}

	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	for db, group := range groups {
		// o.writers(db) writers per store, each on a contiguous id range
		w := min(o.writers(db), max(1, len(group)/o.Batch))
		for i := 0; i < w; i++ {
			rows := group[i*len(group)/w : (i+1)*len(group)/w]
			g.Go(func() error {
				n, werr := insert(gctx, db, db.Dialect.InsertIgnore+" INTO statuses ("+statusCols+") VALUES ", "", 11, len(rows), o,
					func(args []any, i int) []any {
						st := rows[i]
						code, _ := sqlstore.VisibilityCode(visibility(st.Visibility))
						return append(args, int64(st.ID), int64(st.AccountID), 0, code, st.Text, "", "", "", st.CreatedAt.UnixMilli(), 0, 1)
					})
				mu.Lock()
				res.Inserted += n
				mu.Unlock()
				return werr
			})
		}
	}
	err = g.Wait()
	res.Write = time.Since(start)
	if err != nil {
		return res, err
	}
	g, gctx = errgroup.WithContext(ctx)
	for db, ids := range authors {
		g.Go(func() error {
			slices.Sort(ids)
			for len(ids) > 0 {
				chunk := ids[:min(len(ids), 500)]
				ids = ids[len(chunk):]
				var n int
				if werr := db.Tx(gctx, nil, func(t *sql.Tx) (cerr error) {
					n, cerr = statusCounters(gctx, t, chunk)
					return cerr
				}); werr != nil {
					return werr
				}
				mu.Lock()
				res.Accounts += n
				mu.Unlock()
			}
			return nil
		})
	}
	err = g.Wait()
	res.Counters = time.Since(start) - res.Write
	return res, err
}

// visibility is v, public when empty.
func visibility(v sparrow.Visibility) sparrow.Visibility {
	if v == "" {
		return sparrow.Public
	}
	return v
}

// statusCounters sets statuses_count of ids (all on t's store) to their
// number of live statuses and raises last_status_at to their newest live
// status, in one statement, and returns how many accounts exist.
func statusCounters(ctx context.Context, t *sql.Tx, ids []sparrow.ID) (int, error) {
	type acc struct{ count, last int64 }
	vals := make(map[sparrow.ID]*acc, len(ids))
	rows, err := t.QueryContext(ctx, "SELECT id, last_status_at FROM accounts WHERE id IN ("+sqlstore.Placeholders(len(ids))+")", sqlstore.IDArgs(ids)...)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var id, last int64
		if err = rows.Scan(&id, &last); err != nil {
			rows.Close()
			return 0, err
		}
		vals[sparrow.ID(id)] = &acc{last: last}
	}
	rows.Close()
	if err = rows.Err(); err != nil {
		return 0, err
	}
	rows, err = t.QueryContext(ctx, "SELECT account_id, COUNT(*), MAX(created_at) FROM statuses WHERE account_id IN ("+
		sqlstore.Placeholders(len(ids))+") AND deleted_at = 0 GROUP BY account_id", sqlstore.IDArgs(ids)...)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var id, n, newest int64
		if err = rows.Scan(&id, &n, &newest); err != nil {
			rows.Close()
			return 0, err
		}
		if a := vals[sparrow.ID(id)]; a != nil {
			a.count, a.last = n, max(a.last, newest)
		}
	}
	rows.Close()
	if err = rows.Err(); err != nil {
		return 0, err
	}
	if len(vals) == 0 {
		return 0, nil
	}
	present := make([]sparrow.ID, 0, len(vals))
	for _, id := range ids {
		if vals[id] != nil {
			present = append(present, id)
		}
	}
	var q strings.Builder
	args := make([]any, 0, 5*len(present))
	q.WriteString("UPDATE accounts SET statuses_count = CASE id")
	for _, id := range present {
		q.WriteString(" WHEN ? THEN ?")
		args = append(args, int64(id), vals[id].count)
	}
	q.WriteString(" END, last_status_at = CASE id")
	for _, id := range present {
		q.WriteString(" WHEN ? THEN ?")
		args = append(args, int64(id), vals[id].last)
	}
	q.WriteString(" END WHERE id IN (" + sqlstore.Placeholders(len(present)) + ")")
	_, err = t.ExecContext(ctx, q.String(), append(args, sqlstore.IDArgs(present)...)...)
	return len(present), err
}
