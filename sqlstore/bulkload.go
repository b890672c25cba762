package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"sparrow"
)

// Bulk loading: accounts and follow graphs written straight into the tables,
// for imports and benchmarks.
//
// A bulk load is an offline operation: run it while no server writes to the
// relation tables (it bypasses the outbox, so no event is published and no
// cache or timeline learns of the rows). Rows are written with large
// multi-row INSERTs in large transactions, in parallel across physical stores
// (one writer per SQLite file, whose single write connection is the limit;
// BulkOptions.Writers per table and MySQL store). Every statement skips rows
// that exist already (INSERT IGNORE / INSERT OR IGNORE), so a load that was
// interrupted can simply be run again.

// FollowPair is one follow to load: From follows To.
type FollowPair struct{ From, To sparrow.ID }

// BulkOptions tune a bulk load. The zero value is usable.
type BulkOptions struct {
	// Now stamps created_at and updated_at (default: time.Now()).
	Now time.Time
	// Node is the id generator node of the edge ids (see BulkLoadFollows).
	Node int
	// Batch is the number of rows per INSERT statement (default 1000).
	Batch int
	// TxRows is the number of rows per transaction (default 50000).
	TxRows int
	// Writers is the number of concurrent writers per table and MySQL store
	// (default 2). SQLite stores always have one writer connection.
	Writers int
	// Relaxed sets synchronous=OFF on SQLite stores for the duration of the
	// load (a crash may then lose or corrupt the rows being loaded, never
	// older ones); the previous setting is restored and the WAL checkpointed
	// (truncated) at the end. It changes nothing on MySQL.
	Relaxed bool
	// HotAt, if positive, sets the hot flag of every account whose counters
	// the load sets to followers_count ≥ HotAt (as FlushCounters would).
	HotAt int64
	// Planned, if set, is told once how many rows the load is about to write.
	Planned func(rows int)
	// Progress, if set, is called after every INSERT with its number of rows
	// (attempted, not only inserted), possibly from several goroutines at once.
	Progress func(rows int)
}

func (o BulkOptions) withDefaults() BulkOptions {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Batch <= 0 {
		o.Batch = 1000
	}
	if o.TxRows <= 0 {
		o.TxRows = 50000
	}
	o.TxRows = max(o.TxRows, o.Batch)
	if o.Writers <= 0 {
		o.Writers = 2
	}
	if o.Planned == nil {
		o.Planned = func(int) {}
	}
	if o.Progress == nil {
		o.Progress = func(int) {}
	}
	return o
}

// writers is the number of concurrent writers on db.
func (o BulkOptions) writers(db *DB) int {
	if db.Dialect.Name == "sqlite" {
		return 1
	}
	return o.Writers
}

// AccountsLoad reports a BulkLoadAccounts.
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

// BulkLoadAccounts creates a placeholder account for every id that has none,
// with its username and email claims (account_names, on the shards of their
// hashes), so that lookups by name work. Existing accounts are left as they
// are. Counters start at zero; BulkLoadFollows sets them. Claims are written
// before accounts, as CreateAccount does, so that a rerun after an
// interruption completes both.
func (s *Store) BulkLoadAccounts(ctx context.Context, ids []sparrow.ID, o BulkOptions) (AccountsLoad, error) {
	o = o.withDefaults()
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for len(ids) > 0 && ids[0] <= 0 {
		ids = ids[1:]
	}
	var res AccountsLoad
	byDB := s.shards.GroupByDB(ids)
	var missing []sparrow.ID
	for db, group := range byDB {
		have, err := bulkExisting(ctx, db, group)
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
	claims := map[*DB][]bulkClaim{}
	for _, id := range missing {
		user := "u" + id.String()
		for kind, name := range []string{user, user + "@" + PlaceholderEmailDomain} {
			key, norm := NameKey(kind, name)
			db := s.shards.ForKey(key)
			claims[db] = append(claims[db], bulkClaim{kind, norm, id})
		}
	}
	var mu sync.Mutex
	err := bulkEach(ctx, bulkKeys(claims), func(ctx context.Context, db *DB) error {
		cs := claims[db]
		var args []any
		conflicts := 0
		for len(cs) > 0 {
			chunk := cs[:min(len(cs), 500)]
			cs = cs[len(chunk):]
			taken, err := bulkClaimed(ctx, db, chunk)
			if err != nil {
				return err
			}
			args = args[:0]
			for _, c := range chunk {
				if owner, ok := taken[bulkNameKey{c.kind, c.name}]; ok {
					if owner != c.id {
						conflicts++
					}
					continue
				}
				key, _ := NameKey(c.kind, c.name)
				args = append(args, c.kind, c.name, sparrow.KeyShard(key), int64(c.id), now)
			}
			if len(args) == 0 {
				continue
			}
			if _, err := db.W.ExecContext(ctx, db.Dialect.InsertIgnore+" INTO account_names (kind, name, shard, account_id, created_at) VALUES "+
				RepeatRow(5, len(args)/5), args...); err != nil {
				return db.Translate(err, "bulk claims")
			}
		}
		mu.Lock()
		res.NameConflicts += conflicts
		mu.Unlock()
		return nil
	})
	if err != nil {
		return res, err
	}

	const cols = "id, username, email, password_hash, display_name, note, created_at, updated_at"
	newByDB := s.shards.GroupByDB(missing)
	err = bulkEach(ctx, bulkKeys(newByDB), func(ctx context.Context, db *DB) error {
		group := newByDB[db]
		n, err := bulkInsert(ctx, db, db.Dialect.InsertIgnore+" INTO accounts ("+cols+") VALUES ", "", 8, len(group), o,
			func(args []any, i int) []any {
				user := "u" + group[i].String()
				return append(args, int64(group[i]), user, user+"@"+PlaceholderEmailDomain, PlaceholderPasswordHash, "", "", now, now)
			})
		mu.Lock()
		res.Created += int(n)
		mu.Unlock()
		return err
	})
	return res, err
}

// bulkExisting returns which of ids (all on db) have an account row.
func bulkExisting(ctx context.Context, db *DB, ids []sparrow.ID) (map[sparrow.ID]bool, error) {
	have := map[sparrow.ID]bool{}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 1000)]
		ids = ids[len(chunk):]
		rows, err := db.R.QueryContext(ctx, "SELECT id FROM accounts WHERE id IN ("+Placeholders(len(chunk))+")", IDArgs(chunk)...)
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

// bulkClaim is a name claim to write: (kind, lower-cased name) → id.
type bulkClaim struct {
	kind int
	name string
	id   sparrow.ID
}

// bulkNameKey is the key of a claim: (kind, lower-cased name).
type bulkNameKey struct {
	kind int
	name string
}

// bulkClaimed returns the owners of the names in chunk that are claimed.
func bulkClaimed(ctx context.Context, db *DB, chunk []bulkClaim) (map[bulkNameKey]sparrow.ID, error) {
	args := make([]any, 0, 2*len(chunk))
	for _, c := range chunk {
		args = append(args, c.kind, c.name)
	}
	rows, err := db.R.QueryContext(ctx, "SELECT kind, name, account_id FROM account_names WHERE (kind, name) IN ("+RepeatRow(2, len(chunk))+")", args...)
	if err != nil {
		return nil, db.Translate(err, "bulk claims")
	}
	defer rows.Close()
	out := map[bulkNameKey]sparrow.ID{}
	for rows.Next() {
		var kind int
		var name string
		var id int64
		if err := rows.Scan(&kind, &name, &id); err != nil {
			return nil, db.Translate(err, "bulk claims")
		}
		out[bulkNameKey{kind, name}] = sparrow.ID(id)
	}
	return out, db.Translate(rows.Err(), "bulk claims")
}

// FollowsLoad reports a BulkLoadFollows.
type FollowsLoad struct {
	Edges   int   // distinct follows loaded (input less self-follows and duplicates)
	Skipped int   // self-follows, duplicates and non-positive ids in the input
	New     int64 // following rows inserted (fewer than Edges if some existed)
	// Fresh says the relation tables were empty: rows were written as given
	// and counters computed in memory. Otherwise (a merge) existing rows won,
	// followers rows were copied from the following rows as stored, and
	// counters were recounted from the rows.
	Fresh bool
	// Accounts is the number of accounts whose counters were set.
	Accounts int
	// Time spent sorting and numbering the pairs, writing the rows, and
	// setting the counters.
	Prepare, Write, Counters time.Duration
}

// bulkEdge is a relation row in memory: (a, b) is its primary key (from, to
// for following; to, from for followers), edge its edge id.
type bulkEdge struct{ a, b, edge int64 }

func cmpBulkEdge(x, y bulkEdge) int {
	if x.a != y.a {
		return cmp.Compare(x.a, y.a)
	}
	return cmp.Compare(x.b, y.b)
}

// BulkLoadFollows loads active follows: for every pair, the following row on
// the follower's store and the followers row on the followee's store (state
// 1, version 1, reblogs on, notify off, a new edge id), then sets
// followers_count and following_count of every account the pairs touch to
// their exact values, so that CheckRelations finds nothing to repair. The
// accounts should exist (BulkLoadAccounts); counters of missing accounts are
// not written anywhere.
//
// Edge ids come from a sparrow.IDGen of node o.Node whose clock starts one
// millisecond per edge before o.Now and advances a millisecond per id, handed
// out in (from, to) order: they carry the follower's gene, are distinct and
// time-ordered, and increase along both primary keys, so that both list
// indexes (source, state, edge_id, target) are appended in order too.
//
// On empty relation tables (no following, followers or pending follow
// counter deltas on any store) this is the fast path: both tables of every
// store are written at once, rows sorted into primary-key order, and
// counters come from memory. Otherwise the load merges: following rows that
// exist are kept as they are (an unfollowed pair stays unfollowed), the
// followers rows of the pairs are then made equal to the stored following
// rows (version-guarded), and the counters of the touched accounts are
// recounted from the rows, their pending deltas deleted in the same
// transaction. Either way the result is consistent.
//
// Memory is about 50 bytes per pair on top of pairs, which is not modified.
func (s *Store) BulkLoadFollows(ctx context.Context, pairs []FollowPair, o BulkOptions) (res FollowsLoad, err error) {
	o = o.withDefaults()
	if o.Node < 0 || o.Node >= sparrow.MaxNodes {
		return res, sparrow.Errorf(sparrow.EInvalid, "node must be in 0-%d", sparrow.MaxNodes-1)
	}
	start := time.Now()
	dbs := s.shards.DBs()
	fwd, err := s.bulkPartition(ctx, pairs, o)
	if err != nil {
		return res, err
	}
	for _, part := range fwd {
		res.Edges += len(part)
	}
	res.Skipped = len(pairs) - res.Edges
	o.Planned(2 * res.Edges)
	if res.Fresh, err = s.bulkFresh(ctx); err != nil {
		return res, err
	}
	if o.Relaxed {
		restore, err := s.bulkRelax(ctx)
		if err != nil {
			return res, err
		}
		defer func() { err = errors.Join(err, restore()) }()
	}

	now := o.Now.UnixMilli()
	var mu sync.Mutex
	var tasks []func(context.Context) error
	following := func(i int) func(context.Context) error {
		return func(ctx context.Context) error {
			db := dbs[i]
			n, err := bulkInsertParallel(ctx, db, db.Dialect.InsertIgnore+" INTO following (from_id, to_id, state, version, edge_id, reblogs, notify, updated_at) VALUES ", fwd[i], now, o)
			mu.Lock()
			res.New += n
			mu.Unlock()
			return err
		}
	}
	for i := range dbs {
		tasks = append(tasks, following(i))
	}
	if !res.Fresh {
		res.Prepare = time.Since(start)
		if err = bulkEach(ctx, tasks, bulkRun); err != nil {
			return res, err
		}
		touched, err := s.bulkMirror(ctx, dbs, fwd, o)
		if err != nil {
			return res, err
		}
		res.Write = time.Since(start) - res.Prepare
		res.Accounts = len(touched)
		err = s.RecountFollows(ctx, touched, o.HotAt)
		res.Counters = time.Since(start) - res.Prepare - res.Write
		return res, err
	}

	// Fresh: the followers rows are the following rows keyed the other way,
	// written at the same time.
	rev, counts, err := s.bulkReverse(ctx, fwd)
	if err != nil {
		return res, err
	}
	for i := range dbs {
		tasks = append(tasks, func(ctx context.Context) error {
			db := dbs[i]
			_, err := bulkInsertParallel(ctx, db, db.Dialect.InsertIgnore+" INTO followers (to_id, from_id, state, version, edge_id, reblogs, notify, updated_at) VALUES ", rev[i], now, o)
			return err
		})
	}
	res.Prepare = time.Since(start)
	if err = bulkEach(ctx, tasks, bulkRun); err != nil {
		return res, err
	}
	res.Write = time.Since(start) - res.Prepare
	res.Accounts = len(counts)
	err = s.SetFollowCounts(ctx, counts, o.HotAt)
	res.Counters = time.Since(start) - res.Prepare - res.Write
	return res, err
}

func bulkRun(ctx context.Context, f func(context.Context) error) error { return f(ctx) }

// bulkPartition groups the valid pairs by the follower's store, sorted by
// (from, to) without duplicates, and gives them their edge ids.
func (s *Store) bulkPartition(ctx context.Context, pairs []FollowPair, o BulkOptions) ([][]bulkEdge, error) {
	dbs := s.shards.DBs()
	index := make(map[*DB]int, len(dbs))
	for i, db := range dbs {
		index[db] = i
	}
	var byShard [sparrow.NumShards]int
	for sh := range byShard {
		byShard[sh] = index[s.shards.For(sh)]
	}
	fwd := make([][]bulkEdge, len(dbs))
	for _, p := range pairs {
		if p.From != p.To && p.From > 0 && p.To > 0 {
			i := byShard[p.From.Shard()]
			fwd[i] = append(fwd[i], bulkEdge{a: int64(p.From), b: int64(p.To)})
		}
	}
	err := bulkEach(ctx, bulkSeq(len(dbs)), func(_ context.Context, i int) error {
		slices.SortFunc(fwd[i], cmpBulkEdge)
		fwd[i] = slices.CompactFunc(fwd[i], func(x, y bulkEdge) bool { return x.a == y.a && x.b == y.b })
		return nil
	})
	if err != nil {
		return nil, err
	}
	// edge ids in global (from, to) order: a k-way merge of the partitions
	n := 0
	for _, part := range fwd {
		n += len(part)
	}
	base := o.Now.Add(-time.Duration(n) * time.Millisecond)
	if floor := sparrow.Epoch.Add(time.Millisecond); base.Before(floor) {
		base = floor
	}
	clock := &bulkClock{t: base}
	gen := sparrow.NewIDGen(o.Node, clock)
	next := make([]int, len(fwd))
	for {
		best := -1
		for i, part := range fwd {
			if next[i] < len(part) && (best < 0 || cmpBulkEdge(part[next[i]], fwd[best][next[best]]) < 0) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		e := &fwd[best][next[best]]
		e.edge = int64(gen.Next(sparrow.ID(e.a).Shard()))
		next[best]++
	}
	return fwd, nil
}

// bulkClock is the edge id clock of a load: every reading is a millisecond
// after the previous one.
type bulkClock struct {
	t time.Time
	n atomic.Int64
}

func (c *bulkClock) Now() time.Time { return c.t.Add(time.Duration(c.n.Add(1)) * time.Millisecond) }

// bulkReverse returns the followers rows of fwd grouped by the followee's
// store in (to, from) order, and every account's (followers, following).
func (s *Store) bulkReverse(ctx context.Context, fwd [][]bulkEdge) ([][]bulkEdge, map[sparrow.ID]*[2]int64, error) {
	dbs := s.shards.DBs()
	index := make(map[*DB]int, len(dbs))
	for i, db := range dbs {
		index[db] = i
	}
	counts := map[sparrow.ID]*[2]int64{}
	count := func(id int64, field int) {
		c := counts[sparrow.ID(id)]
		if c == nil {
			c = new([2]int64)
			counts[sparrow.ID(id)] = c
		}
		c[field]++
	}
	rev := make([][]bulkEdge, len(dbs))
	for i := range fwd {
		for _, e := range fwd[i] {
			count(e.a, 1)
			count(e.b, 0)
			j := index[s.shards.ForID(sparrow.ID(e.b))]
			rev[j] = append(rev[j], bulkEdge{a: e.b, b: e.a, edge: e.edge})
		}
	}
	err := bulkEach(ctx, bulkSeq(len(dbs)), func(_ context.Context, i int) error {
		slices.SortFunc(rev[i], cmpBulkEdge)
		return nil
	})
	return rev, counts, err
}

// bulkFresh reports whether no store has following or followers rows or
// pending follow counter deltas.
func (s *Store) bulkFresh(ctx context.Context) (bool, error) {
	for _, db := range s.shards.DBs() {
		for _, q := range []string{
			"SELECT 1 FROM following LIMIT 1",
			"SELECT 1 FROM followers LIMIT 1",
			"SELECT 1 FROM counter_deltas WHERE field IN (1, 2) LIMIT 1",
		} {
			var one int
			err := db.R.QueryRowContext(ctx, q).Scan(&one)
			if err == nil {
				return false, nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return false, db.Translate(err, "bulk")
			}
		}
	}
	return true, nil
}

// bulkRelax sets synchronous=OFF on every SQLite store and returns the
// function that restores the previous setting and truncates the WAL.
func (s *Store) bulkRelax(ctx context.Context) (func() error, error) {
	type saved struct {
		db   *DB
		sync int
	}
	var done []saved
	restore := func() error {
		ctx := context.WithoutCancel(ctx)
		var err error
		for _, sv := range done {
			// the writer pool has one connection, so these run where the load ran
			_, e1 := sv.db.W.ExecContext(ctx, "PRAGMA synchronous = "+strconv.Itoa(sv.sync))
			_, e2 := sv.db.W.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
			err = errors.Join(err, sv.db.Translate(e1, "restore synchronous"), sv.db.Translate(e2, "checkpoint"))
		}
		return err
	}
	for _, db := range s.shards.DBs() {
		if db.Dialect.Name != "sqlite" {
			continue
		}
		var cur int
		if err := db.W.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&cur); err != nil {
			return nil, errors.Join(db.Translate(err, "synchronous"), restore())
		}
		if _, err := db.W.ExecContext(ctx, "PRAGMA synchronous = OFF"); err != nil {
			return nil, errors.Join(db.Translate(err, "synchronous"), restore())
		}
		done = append(done, saved{db, cur})
	}
	return restore, nil
}

// bulkMirror makes the followers rows of the loaded pairs equal to their
// following rows as stored (merge path), and returns every account involved.
func (s *Store) bulkMirror(ctx context.Context, dbs []*DB, fwd [][]bulkEdge, o BulkOptions) ([]sparrow.ID, error) {
	sinks := newBulkSinks(s, o)
	var mu sync.Mutex
	touched := map[sparrow.ID]struct{}{}
	err := bulkEach(ctx, bulkSeq(len(dbs)), func(ctx context.Context, i int) error {
		db := dbs[i]
		local := map[sparrow.ID]struct{}{}
		for part := fwd[i]; len(part) > 0; {
			chunk := part[:min(len(part), 500)]
			part = part[len(chunk):]
			args := make([]any, 0, 2*len(chunk))
			for _, e := range chunk {
				args = append(args, e.a, e.b)
				local[sparrow.ID(e.a)], local[sparrow.ID(e.b)] = struct{}{}, struct{}{}
			}
			rows, err := db.QueryRelationRows(ctx, "SELECT "+EdgeColumns+" FROM following WHERE (from_id, to_id) IN ("+RepeatRow(2, len(chunk))+")", args...)
			if err != nil {
				return err
			}
			if err := sinks.add(ctx, rows); err != nil {
				return err
			}
		}
		mu.Lock()
		for id := range local {
			touched[id] = struct{}{}
		}
		mu.Unlock()
		return nil
	})
	if err == nil {
		err = sinks.flush(ctx)
	}
	return bulkKeys(touched), err
}

// bulkUpsertFollowers makes the followers rows of rows (all with targets on db)
// equal to them, unless a stored row has a newer version.
func bulkUpsertFollowers(ctx context.Context, db *DB, rows []RelationRow, o BulkOptions) error {
	head, tail := FollowersMirror(db.Dialect)
	_, err := bulkInsert(ctx, db, head, tail, FollowersMirrorColumns, len(rows), o,
		func(args []any, i int) []any { return rows[i].AppendFollowersValues(args) })
	return err
}

// bulkSinks buffers followers rows by target store and upserts them in
// large transactions.
type bulkSinks struct {
	s   *Store
	o   BulkOptions
	mu  sync.Mutex
	buf map[*DB][]RelationRow
}

func newBulkSinks(s *Store, o BulkOptions) *bulkSinks {
	return &bulkSinks{s: s, o: o, buf: map[*DB][]RelationRow{}}
}

// add buffers rows, and writes the buffers that are full.
func (k *bulkSinks) add(ctx context.Context, rows []RelationRow) error {
	var full map[*DB][]RelationRow
	k.mu.Lock()
	for _, r := range rows {
		db := k.s.shards.ForID(r.To)
		k.buf[db] = append(k.buf[db], r)
		if len(k.buf[db]) >= k.o.TxRows {
			if full == nil {
				full = map[*DB][]RelationRow{}
			}
			full[db], k.buf[db] = k.buf[db], nil
		}
	}
	k.mu.Unlock()
	for db, rs := range full {
		if err := bulkUpsertFollowers(ctx, db, rs, k.o); err != nil {
			return err
		}
	}
	return nil
}

// flush writes what is left.
func (k *bulkSinks) flush(ctx context.Context) error {
	k.mu.Lock()
	buf := k.buf
	k.buf = map[*DB][]RelationRow{}
	k.mu.Unlock()
	return bulkEach(ctx, bulkKeys(buf), func(ctx context.Context, db *DB) error {
		return bulkUpsertFollowers(ctx, db, buf[db], k.o)
	})
}

// sqliteMaxVars is SQLite's default limit of bound parameters per statement.
const sqliteMaxVars = 32766

// bulkInsert writes n rows of ncols values (appendRow appends row i's) with
// statements head + "(?,…),(?,…)…" + tail of up to o.Batch rows, in
// transactions of up to o.TxRows rows. On SQLite the full-batch statement is
// prepared once per transaction. It returns the rows affected.
func bulkInsert(ctx context.Context, db *DB, head, tail string, ncols, n int, o BulkOptions, appendRow func(args []any, i int) []any) (int64, error) {
	var affected int64
	batch := o.Batch
	if db.Dialect.Name == "sqlite" {
		batch = min(batch, sqliteMaxVars/ncols)
	}
	full := head + RepeatRow(ncols, batch) + tail
	args := make([]any, 0, ncols*batch)
	for start := 0; start < n; {
		end := min(n, start+o.TxRows)
		err := db.Tx(ctx, nil, func(t *sql.Tx) error {
			var stmt *sql.Stmt
			defer func() {
				if stmt != nil {
					stmt.Close()
				}
			}()
			for i := start; i < end; {
				m := min(batch, end-i)
				args = args[:0]
				for j := i; j < i+m; j++ {
					args = appendRow(args, j)
				}
				var res sql.Result
				var err error
				switch {
				case m == batch && db.Dialect.Name == "sqlite":
					if stmt == nil {
						if stmt, err = t.PrepareContext(ctx, full); err != nil {
							return err
						}
					}
					res, err = stmt.ExecContext(ctx, args...)
				case m == batch:
					res, err = t.ExecContext(ctx, full, args...)
				default:
					res, err = t.ExecContext(ctx, head+RepeatRow(ncols, m)+tail, args...)
				}
				if err != nil {
					return err
				}
				k, _ := res.RowsAffected()
				affected += k
				o.Progress(m)
				i += m
			}
			return nil
		})
		if err != nil {
			return affected, err
		}
		start = end
	}
	return affected, nil
}

// bulkInsertParallel writes sorted new active rows (a, b, edge) with
// o.writers(db) concurrent writers, each on a contiguous range (so each
// appends to its own part of the primary key).
func bulkInsertParallel(ctx context.Context, db *DB, head string, rows []bulkEdge, now int64, o BulkOptions) (int64, error) {
	w := min(o.writers(db), max(1, len(rows)/o.Batch))
	var parts [][]bulkEdge
	for i := 0; i < w; i++ {
		parts = append(parts, rows[i*len(rows)/w:(i+1)*len(rows)/w])
	}
	var mu sync.Mutex
	var total int64
	err := bulkEach(ctx, parts, func(ctx context.Context, part []bulkEdge) error {
		var n int64
		var err error
		if db.Dialect.Name == "mysql" {
			n, err = bulkInsertLiteral(ctx, db, head, part, now, o)
		} else {
			n, err = bulkInsert(ctx, db, head, "", 8, len(part), o, func(args []any, i int) []any {
				e := part[i]
				return append(args, e.a, e.b, 1, 1, e.edge, 1, 0, now)
			})
		}
		mu.Lock()
		total += n
		mu.Unlock()
		return err
	})
	return total, err
}

// bulkInsertLiteral is bulkInsert for new active rows (a, b, edge) with the
// integers written into the statement text, for MySQL: the driver would
// interpolate them client-side anyway, and this skips boxing every value
// into an interface. (SQLite binds faster than it parses.)
func bulkInsertLiteral(ctx context.Context, db *DB, head string, rows []bulkEdge, now int64, o BulkOptions) (int64, error) {
	var affected int64
	for len(rows) > 0 {
		txRows := rows[:min(len(rows), o.TxRows)]
		rows = rows[len(txRows):]
		err := db.Tx(ctx, nil, func(t *sql.Tx) error {
			n, err := bulkLiteralStatements(ctx, t, head, txRows, now, o)
			affected += n
			return err
		})
		if err != nil {
			return affected, err
		}
	}
	return affected, nil
}

// bulkLiteralStatements runs the INSERTs of rows in t, o.Batch rows each.
func bulkLiteralStatements(ctx context.Context, t *sql.Tx, head string, rows []bulkEdge, now int64, o BulkOptions) (int64, error) {
	var affected int64
	mid := []byte(",1,1,")
	end := []byte(",1,0," + strconv.FormatInt(now, 10) + ")")
	buf := make([]byte, 0, len(head)+o.Batch*80)
	for len(rows) > 0 {
		batch := rows[:min(len(rows), o.Batch)]
		rows = rows[len(batch):]
		buf = append(buf[:0], head...)
		for i, e := range batch {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '(')
			buf = strconv.AppendInt(buf, e.a, 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, e.b, 10)
			buf = append(buf, mid...)
			buf = strconv.AppendInt(buf, e.edge, 10)
			buf = append(buf, end...)
		}
		res, err := t.ExecContext(ctx, string(buf))
		if err != nil {
			return affected, err
		}
		k, _ := res.RowsAffected()
		affected += k
		o.Progress(len(batch))
	}
	return affected, nil
}

// bulkEach runs fn for every item concurrently and returns the first error;
// the others' context is cancelled when one fails.
func bulkEach[T any](ctx context.Context, items []T, fn func(context.Context, T) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for _, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx, it); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return first
}

// bulkSeq returns 0, 1, …, n-1.
func bulkSeq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// bulkKeys returns the keys of m in no particular order.
func bulkKeys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
