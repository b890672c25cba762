package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"

	"sparrow"
)

// FindingKind classifies an inconsistency that CheckRelations finds.
type FindingKind string

// Finding kinds. Following is the source of truth; followers must mirror it.
const (
	// FindMissingFollower: a following row has no followers row.
	FindMissingFollower FindingKind = "missing-follower"
	// FindStaleFollower: the followers row has an older version.
	FindStaleFollower FindingKind = "stale-follower"
	// FindDifferentFollower: same version, but a different state, edge id,
	// reblogs or notify.
	FindDifferentFollower FindingKind = "different-follower"
	// FindNewerFollower: the followers row has a newer version than the
	// following row. It should never happen, and the version guard never
	// repairs it.
	FindNewerFollower FindingKind = "newer-follower"
	// FindOrphanFollower: a followers row has no following row (or lives on
	// a store that does not own its to_id). Repair deletes it.
	FindOrphanFollower FindingKind = "orphan-follower"
	// FindCounterMismatch: a counter row plus its pending deltas differs from
	// the number of active rows.
	FindCounterMismatch FindingKind = "counter-mismatch"
	// FindNegativeCounter: a counter row, or the row plus its pending deltas,
	// is below zero.
	FindNegativeCounter FindingKind = "negative-counter"
)

// Finding is one inconsistency.
type Finding struct {
	Kind FindingKind
	// Edge findings: the follow From → To, and what was found.
	From, To sparrow.ID
	// Counter findings: the account, the counter, the stored row value, the
	// sum of its pending deltas, and the number of active rows.
	Account               sparrow.ID
	Counter               sparrow.Counter
	Stored, Pending, Rows int64
	Detail                string
	Repaired              bool
}

func (f Finding) String() string {
	var s string
	if f.Account != 0 {
		col := "followers_count"
		if f.Counter == sparrow.FollowingCount {
			col = "following_count"
		}
		s = fmt.Sprintf("%s account %d %s: row %d + pending %d = %d, active rows %d",
			f.Kind, f.Account, col, f.Stored, f.Pending, f.Stored+f.Pending, f.Rows)
	} else {
		s = fmt.Sprintf("%s %d→%d: %s", f.Kind, f.From, f.To, f.Detail)
	}
	if f.Repaired {
		s += " [repaired]"
	}
	return s
}

// CheckSummary totals a CheckRelations run.
type CheckSummary struct {
	Following int64 // following rows checked
	Followers int64 // followers rows (after repairs)
	Accounts  int64 // accounts whose counters were checked
	Findings  int64
	Repaired  int64
	ByKind    map[FindingKind]int64
}

// Unrepaired is the number of findings that remain.
func (s CheckSummary) Unrepaired() int64 { return s.Findings - s.Repaired }

// CheckRelations verifies the follow tables and counters of every physical
// store, and with repair fixes what it finds. It is meant for a quiescent
// store (concurrent follows show up as transient findings, and a repair
// could undo one), and reads every row once:
//
//  1. Every following row, streamed per store in primary-key order (keyset
//     pages), is compared with its followers row on the target's store (one
//     batched lookup per page and target store). Missing, older or
//     different followers rows are repaired by copying the following row
//     onto them, version-guarded (only if following's version ≥ followers').
//  2. Followers rows without a following row are found without a second
//     full lookup pass: phase 1 counts, per store, the followers rows it
//     matched, and only a store holding more rows than that is scanned.
//     Repair deletes orphans.
//  3. Counters: active rows are counted per account (GROUP BY on each store)
//     and compared with each account's row plus its pending counter_deltas;
//     with repair, after the edge repairs, so that the counters are checked
//     against the repaired rows. Repair recounts the account in a
//     transaction that sets the row and deletes its pending follow deltas.
//
// report, if not nil, receives every finding, one call at a time, in no
// particular order. Memory is O(accounts of the largest store).
func (s *Store) CheckRelations(ctx context.Context, repair bool, report func(Finding)) (CheckSummary, error) {
	c := &relChecker{s: s, repair: repair, report: report, matched: map[*DB]int64{},
		sum: CheckSummary{ByKind: map[FindingKind]int64{}}}
	dbs := s.shards.DBs()
	if err := bulkEach(ctx, dbs, c.forward); err != nil {
		return c.sum, err
	}
	if err := bulkEach(ctx, dbs, c.orphans); err != nil {
		return c.sum, err
	}
	err := bulkEach(ctx, dbs, c.counters)
	return c.sum, err
}

// checkPage is the number of rows per keyset page, checkLookup the number
// of pairs per batched lookup.
const (
	checkPage   = 5000
	checkLookup = 500
)

// checkWorkers is the number of lookups in flight per scanned store: several
// for a server, which works while we wait; one for SQLite, which works in
// this process (every store is scanned at once already) and whose every
// extra read connection holds its own page cache.
func checkWorkers(db *DB) int {
	if db.Dialect.Name == "sqlite" {
		return 1
	}
	return 4
}

type relChecker struct {
	s      *Store
	repair bool
	report func(Finding)

	mu      sync.Mutex
	sum     CheckSummary
	matched map[*DB]int64 // followers rows per store that have their following row
}

func (c *relChecker) emit(fs ...Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range fs {
		c.sum.Findings++
		c.sum.ByKind[f.Kind]++
		if f.Repaired {
			c.sum.Repaired++
		}
		if c.report != nil {
			c.report(f)
		}
	}
}

// scan streams table's rows on db in primary-key order (first, second), a
// page at a time.
func (c *relChecker) scan(ctx context.Context, db *DB, table, first, second string, page func([]RelationRow) error) error {
	where := "(" + first + ", " + second + ") > (?, ?)"
	if db.Dialect.Name == "mysql" {
		where = first + " > ? OR (" + first + " = ? AND " + second + " > ?)" // MariaDB ranges this, not a row comparison
	}
	q := "SELECT " + EdgeColumns + " FROM " + table + " WHERE " + where + " ORDER BY " + first + ", " + second + " LIMIT ?"
	var a, b int64 // ids are positive: (0, 0) precedes every key
	for {
		args := []any{a, b, checkPage}
		if db.Dialect.Name == "mysql" {
			args = []any{a, a, b, checkPage}
		}
		rows, err := db.QueryRelationRows(ctx, q, args...)
		if err != nil || len(rows) == 0 {
			return err
		}
		if err := page(rows); err != nil {
			return err
		}
		last := rows[len(rows)-1]
		a, b = int64(last.From), int64(last.To)
		if table == "followers" {
			a, b = b, a
		}
		if len(rows) < checkPage {
			return nil
		}
	}
}

// checkFetch returns the followers (or following) rows on db of the pairs of
// rows, keyed [from, to].
func checkFetch(ctx context.Context, db *DB, followers bool, rows []RelationRow) (map[[2]sparrow.ID]RelationRow, error) {
	table, key := "following", "(from_id, to_id)"
	if followers {
		table, key = "followers", "(to_id, from_id)"
	}
	args := make([]any, 0, 2*len(rows))
	for _, r := range rows {
		if followers {
			args = append(args, int64(r.To), int64(r.From))
		} else {
			args = append(args, int64(r.From), int64(r.To))
		}
	}
	got, err := db.QueryRelationRows(ctx, "SELECT "+EdgeColumns+" FROM "+table+" WHERE "+key+" IN ("+RepeatRow(2, len(rows))+")", args...)
	if err != nil {
		return nil, err
	}
	out := make(map[[2]sparrow.ID]RelationRow, len(got))
	for _, r := range got {
		out[[2]sparrow.ID{r.From, r.To}] = r
	}
	return out, nil
}

func checkDescribe(r RelationRow) string {
	state := "removed"
	if r.State == 1 {
		state = "active"
	}
	return fmt.Sprintf("v%d %s edge %d reblogs %d notify %d", r.Version, state, r.EdgeID, r.Reblogs, r.Notify)
}

// forward is phase 1 on the following rows of db: one goroutine scans,
// checkWorkers(db) look the pages up.
func (c *relChecker) forward(ctx context.Context, db *DB) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := checkWorkers(db)
	pages := make(chan []RelationRow, workers)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for page := range pages {
				if err := c.lookupPage(ctx, page); err != nil {
					errs <- err
					cancel()
					for range pages { // drain, so that the scanner stops
					}
					return
				}
			}
		}()
	}
	err := c.scan(ctx, db, "following", "from_id", "to_id", func(page []RelationRow) error {
		select {
		case pages <- page:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(pages)
	wg.Wait()
	close(errs)
	if first, ok := <-errs; ok { // a worker's error caused the scanner's
		return first
	}
	return err
}

// lookupPage checks a page of following rows, one batched lookup per target
// store and checkLookup rows.
func (c *relChecker) lookupPage(ctx context.Context, page []RelationRow) error {
	c.mu.Lock()
	c.sum.Following += int64(len(page))
	c.mu.Unlock()
	byTarget := map[*DB][]RelationRow{}
	for _, r := range page {
		t := c.s.shards.ForID(r.To)
		byTarget[t] = append(byTarget[t], r)
	}
	for t, rows := range byTarget {
		for len(rows) > 0 {
			chunk := rows[:min(len(rows), checkLookup)]
			rows = rows[len(chunk):]
			if err := c.compare(ctx, t, chunk); err != nil {
				return err
			}
		}
	}
	return nil
}

// compare checks following rows against their followers rows on t.
func (c *relChecker) compare(ctx context.Context, t *DB, rows []RelationRow) error {
	found, err := checkFetch(ctx, t, true, rows)
	if err != nil {
		return err
	}
	var fs []Finding
	var fix []RelationRow
	for _, r := range rows {
		f, ok := found[[2]sparrow.ID{r.From, r.To}]
		var kind FindingKind
		detail := "following " + checkDescribe(r) + "; "
		switch {
		case !ok:
			kind, detail = FindMissingFollower, detail+"no followers row"
		case f.Version < r.Version:
			kind = FindStaleFollower
		case f.Version > r.Version:
			kind = FindNewerFollower
		case f.State != r.State || f.EdgeID != r.EdgeID || f.Reblogs != r.Reblogs || f.Notify != r.Notify:
			kind = FindDifferentFollower
		default:
			continue
		}
		if ok {
			detail += "followers " + checkDescribe(f)
		}
		fixable := kind != FindNewerFollower
		if fixable && c.repair {
			fix = append(fix, r)
		}
		fs = append(fs, Finding{Kind: kind, From: r.From, To: r.To, Detail: detail, Repaired: fixable && c.repair})
	}
	if len(fix) > 0 {
		head, tail := FollowersMirror(t.Dialect)
		args := make([]any, 0, FollowersMirrorColumns*len(fix))
		for _, r := range fix {
			args = r.AppendFollowersValues(args)
		}
		if err := t.Tx(ctx, nil, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, head+RepeatRow(FollowersMirrorColumns, len(fix))+tail, args...)
			return err
		}); err != nil {
			return err
		}
	}
	inserted := 0
	for _, f := range fs {
		if f.Kind == FindMissingFollower && f.Repaired {
			inserted++
		}
	}
	c.mu.Lock()
	// every followers row found, or created, belongs to one following row
	c.matched[t] += int64(len(found) + inserted)
	c.mu.Unlock()
	c.emit(fs...)
	return nil
}

// orphans is phase 2 on the followers rows of db.
func (c *relChecker) orphans(ctx context.Context, db *DB) error {
	var total int64
	if err := db.R.QueryRowContext(ctx, "SELECT COUNT(*) FROM followers").Scan(&total); err != nil {
		return db.Translate(err, "check followers")
	}
	c.mu.Lock()
	c.sum.Followers += total
	matched := c.matched[db]
	c.mu.Unlock()
	if total <= matched {
		return nil
	}
	// Rows behind the keyset cursor may be deleted while the scan goes on.
	return c.scan(ctx, db, "followers", "to_id", "from_id", func(page []RelationRow) error {
		var orphans []RelationRow
		bySource := map[*DB][]RelationRow{}
		for _, r := range page {
			if c.s.shards.ForID(r.To) != db {
				orphans = append(orphans, r) // misplaced: no lookup will ever find it here
				continue
			}
			src := c.s.shards.ForID(r.From)
			bySource[src] = append(bySource[src], r)
		}
		for src, rows := range bySource {
			for len(rows) > 0 {
				chunk := rows[:min(len(rows), checkLookup)]
				rows = rows[len(chunk):]
				found, err := checkFetch(ctx, src, false, chunk)
				if err != nil {
					return err
				}
				for _, r := range chunk {
					if _, ok := found[[2]sparrow.ID{r.From, r.To}]; !ok {
						orphans = append(orphans, r)
					}
				}
			}
		}
		return c.dropOrphans(ctx, db, orphans)
	})
}

// dropOrphans reports orphan followers rows of db and, with repair, deletes
// them.
func (c *relChecker) dropOrphans(ctx context.Context, db *DB, orphans []RelationRow) error {
	if len(orphans) == 0 {
		return nil
	}
	if c.repair {
		for rows := orphans; len(rows) > 0; {
			chunk := rows[:min(len(rows), checkLookup)]
			rows = rows[len(chunk):]
			args := make([]any, 0, 2*len(chunk))
			for _, r := range chunk {
				args = append(args, int64(r.To), int64(r.From))
			}
			if _, err := db.W.ExecContext(ctx, "DELETE FROM followers WHERE (to_id, from_id) IN ("+RepeatRow(2, len(chunk))+")", args...); err != nil {
				return db.Translate(err, "delete orphans")
			}
		}
		c.mu.Lock()
		c.sum.Followers -= int64(len(orphans))
		c.mu.Unlock()
	}
	fs := make([]Finding, len(orphans))
	for i, r := range orphans {
		fs[i] = Finding{Kind: FindOrphanFollower, From: r.From, To: r.To, Detail: "followers " + checkDescribe(r) + "; no following row", Repaired: c.repair}
	}
	c.emit(fs...)
	return nil
}

// counters is phase 3 on the accounts of db.
func (c *relChecker) counters(ctx context.Context, db *DB) error {
	rows := [2]map[sparrow.ID]int64{} // active followers, following rows
	pending := [2]map[sparrow.ID]int64{}
	for i, q := range []string{
		"SELECT to_id, COUNT(*) FROM followers WHERE state = 1 GROUP BY to_id",
		"SELECT from_id, COUNT(*) FROM following WHERE state = 1 GROUP BY from_id",
	} {
		m, err := checkGroupCounts(ctx, db, q)
		if err != nil {
			return err
		}
		rows[i] = m
	}
	for i, field := range []sparrow.Counter{sparrow.FollowersCount, sparrow.FollowingCount} {
		m, err := checkGroupCounts(ctx, db, "SELECT target_id, SUM(delta) FROM counter_deltas WHERE field = ? GROUP BY target_id", int(field))
		if err != nil {
			return err
		}
		pending[i] = m
	}
	var bad []Finding
	var accounts int64
	var last int64
	for {
		page, err := checkAccountPage(ctx, db, last)
		if err != nil {
			return err
		}
		for _, a := range page {
			for i, field := range []sparrow.Counter{sparrow.FollowersCount, sparrow.FollowingCount} {
				f := Finding{Account: a.id, Counter: field, Stored: a.stored[i], Pending: pending[i][a.id], Rows: rows[i][a.id]}
				switch {
				case f.Stored < 0 || f.Stored+f.Pending < 0:
					f.Kind = FindNegativeCounter
				case f.Stored+f.Pending != f.Rows:
					f.Kind = FindCounterMismatch
				default:
					continue
				}
				bad = append(bad, f)
			}
		}
		accounts += int64(len(page))
		if len(page) < checkPage {
			break
		}
		last = int64(page[len(page)-1].id)
	}
	c.mu.Lock()
	c.sum.Accounts += accounts
	c.mu.Unlock()
	if c.repair && len(bad) > 0 {
		ids := make([]sparrow.ID, 0, len(bad))
		for _, f := range bad {
			ids = append(ids, f.Account)
		}
		slices.Sort(ids)
		if err := c.s.RecountFollows(ctx, slices.Compact(ids), 0); err != nil {
			return err
		}
		for i := range bad {
			bad[i].Repaired = true
		}
	}
	c.emit(bad...)
	return nil
}

type checkAccount struct {
	id     sparrow.ID
	stored [2]int64 // followers_count, following_count
}

// checkAccountPage returns a keyset page of accounts after id last.
func checkAccountPage(ctx context.Context, db *DB, last int64) ([]checkAccount, error) {
	rs, err := db.R.QueryContext(ctx, "SELECT id, followers_count, following_count FROM accounts WHERE id > ? ORDER BY id LIMIT ?", last, checkPage)
	if err != nil {
		return nil, db.Translate(err, "check accounts")
	}
	defer rs.Close()
	var out []checkAccount
	for rs.Next() {
		var a checkAccount
		var id int64
		if err := rs.Scan(&id, &a.stored[0], &a.stored[1]); err != nil {
			return nil, db.Translate(err, "check accounts")
		}
		a.id = sparrow.ID(id)
		out = append(out, a)
	}
	return out, db.Translate(rs.Err(), "check accounts")
}

// checkGroupCounts runs a query of (id, count) rows into a map.
func checkGroupCounts(ctx context.Context, db *DB, q string, args ...any) (map[sparrow.ID]int64, error) {
	rs, err := db.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, db.Translate(err, "check counts")
	}
	defer rs.Close()
	out := map[sparrow.ID]int64{}
	for rs.Next() {
		var id, n int64
		if err := rs.Scan(&id, &n); err != nil {
			return nil, db.Translate(err, "check counts")
		}
		out[sparrow.ID(id)] = n
	}
	return out, db.Translate(rs.Err(), "check counts")
}
