package bulk

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"sparrow"
	"sparrow/sqlstore"
)

// FollowPair is one follow to load: From follows To.
type FollowPair struct{ From, To sparrow.ID }

// FollowsLoad reports a LoadFollows.
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

// LoadFollows loads active follows: for every pair, the following row on
// the follower's store and the followers row on the followee's store (state
// 1, version 1, reblogs on, notify off, a new edge id), then sets
// followers_count and following_count of every account the pairs touch to
// their exact values, so that the relation check (sqlstore/check) finds
// nothing to repair. The accounts should exist (LoadAccounts); counters of
// missing accounts are not written anywhere.
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
// counters come from memory (sqlstore.Store.SetFollowCounts). Otherwise the
// load merges: following rows that exist are kept as they are (an unfollowed
// pair stays unfollowed), the followers rows of the pairs are then made equal
// to the stored following rows (version-guarded: sqlstore.FollowersMirror),
// and the counters of the touched accounts are recounted from the rows,
// their pending deltas deleted in the same transaction
// (sqlstore.Store.RecountFollows). Either way the result is consistent.
//
// Memory is about 50 bytes per pair on top of pairs, which is not modified.
func LoadFollows(ctx context.Context, s *sqlstore.Store, pairs []FollowPair, o Options) (res FollowsLoad, err error) {
	o = o.withDefaults()
	if o.Node < 0 || o.Node >= sparrow.MaxNodes {
		return res, sparrow.Errorf(sparrow.EInvalid, "node must be in 0-%d", sparrow.MaxNodes-1)
	}
	start := time.Now()
	dbs := s.Shards().DBs()
	fwd := partition(s.Shards(), pairs, o)
	for _, part := range fwd {
		res.Edges += len(part)
	}
	res.Skipped = len(pairs) - res.Edges
	o.Planned(2 * res.Edges)
	if res.Fresh, err = fresh(ctx, dbs); err != nil {
		return res, err
	}
	if o.Relaxed {
		restore, rerr := relax(ctx, s)
		if rerr != nil {
			return res, rerr
		}
		defer func() { err = errors.Join(err, restore()) }()
	}

	now := o.Now.UnixMilli()
	var inserted atomic.Int64
	// writeFollowing starts the writers of the following rows in g.
	writeFollowing := func(ctx context.Context, g *errgroup.Group) {
		for i, db := range dbs {
			g.Go(func() error {
				n, werr := insertEdges(ctx, db, db.Dialect.InsertIgnore+" INTO following (from_id, to_id, state, version, edge_id, reblogs, notify, updated_at) VALUES ", fwd[i], now, o)
				inserted.Add(n)
				return werr
			})
		}
	}
	if !res.Fresh {
		res.Prepare = time.Since(start)
		g, gctx := errgroup.WithContext(ctx)
		writeFollowing(gctx, g)
		err = g.Wait()
		res.New = inserted.Load()
		if err != nil {
			return res, err
		}
		touched, merr := mirror(ctx, s.Shards(), fwd, o)
		if merr != nil {
			return res, merr
		}
		res.Write = time.Since(start) - res.Prepare
		res.Accounts = len(touched)
		err = s.RecountFollows(ctx, touched, o.HotAt)
		res.Counters = time.Since(start) - res.Prepare - res.Write
		return res, err
	}

	// Fresh: the followers rows are the following rows keyed the other way,
	// written at the same time.
	rev, counts := reverse(s.Shards(), fwd)
	res.Prepare = time.Since(start)
	g, gctx := errgroup.WithContext(ctx)
	writeFollowing(gctx, g)
	for i, db := range dbs {
		g.Go(func() error {
			_, werr := insertEdges(gctx, db, db.Dialect.InsertIgnore+" INTO followers (to_id, from_id, state, version, edge_id, reblogs, notify, updated_at) VALUES ", rev[i], now, o)
			return werr
		})
	}
	err = g.Wait()
	res.New = inserted.Load()
	if err != nil {
		return res, err
	}
	res.Write = time.Since(start) - res.Prepare
	res.Accounts = len(counts)
	err = s.SetFollowCounts(ctx, counts, o.HotAt)
	res.Counters = time.Since(start) - res.Prepare - res.Write
	return res, err
}

// partition groups the valid pairs by the follower's store (in the order of
// sh.DBs()), sorted by (from, to) without duplicates, and gives them their
// edge ids.
func partition(sh *sqlstore.Shards, pairs []FollowPair, o Options) [][]edge {
	dbs := sh.DBs()
	index := make(map[*sqlstore.DB]int, len(dbs))
	for i, db := range dbs {
		index[db] = i
	}
	var byShard [sparrow.NumShards]int
	for s := range byShard {
		byShard[s] = index[sh.For(s)]
	}
	fwd := make([][]edge, len(dbs))
	for _, p := range pairs {
		if p.From != p.To && p.From > 0 && p.To > 0 {
			i := byShard[p.From.Shard()]
			fwd[i] = append(fwd[i], edge{a: int64(p.From), b: int64(p.To)})
		}
	}
	var wg sync.WaitGroup
	for i := range fwd {
		wg.Go(func() {
			slices.SortFunc(fwd[i], cmpEdge)
			fwd[i] = slices.CompactFunc(fwd[i], func(x, y edge) bool { return x.a == y.a && x.b == y.b })
		})
	}
	wg.Wait()
	// edge ids in global (from, to) order: a k-way merge of the partitions
	n := 0
	for _, part := range fwd {
		n += len(part)
	}
	base := o.Now.Add(-time.Duration(n) * time.Millisecond)
	if floor := sparrow.Epoch.Add(time.Millisecond); base.Before(floor) {
		base = floor
	}
	gen := sparrow.NewIDGen(o.Node, &clock{t: base})
	next := make([]int, len(fwd))
	for {
		best := -1
		for i, part := range fwd {
			if next[i] < len(part) && (best < 0 || cmpEdge(part[next[i]], fwd[best][next[best]]) < 0) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		e := &fwd[best][next[best]]
		e.id = int64(gen.Next(sparrow.ID(e.a).Shard()))
		next[best]++
	}
	return fwd
}

// clock is the edge id clock of a load: every reading is a millisecond
// after the previous one.
type clock struct {
	t time.Time
	n atomic.Int64
}

func (c *clock) Now() time.Time { return c.t.Add(time.Duration(c.n.Add(1)) * time.Millisecond) }

// reverse returns the followers rows of fwd grouped by the followee's store
// (in the order of sh.DBs()) in (to, from) order, and every account's
// (followers, following).
func reverse(sh *sqlstore.Shards, fwd [][]edge) ([][]edge, map[sparrow.ID]*[2]int64) {
	dbs := sh.DBs()
	index := make(map[*sqlstore.DB]int, len(dbs))
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
	rev := make([][]edge, len(dbs))
	for i := range fwd {
		for _, e := range fwd[i] {
			count(e.a, 1)
			count(e.b, 0)
			j := index[sh.ForID(sparrow.ID(e.b))]
			rev[j] = append(rev[j], edge{a: e.b, b: e.a, id: e.id})
		}
	}
	var wg sync.WaitGroup
	for i := range rev {
		wg.Go(func() { slices.SortFunc(rev[i], cmpEdge) })
	}
	wg.Wait()
	return rev, counts
}

// fresh reports whether no store has following or followers rows or
// pending follow counter deltas.
func fresh(ctx context.Context, dbs []*sqlstore.DB) (bool, error) {
	for _, db := range dbs {
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
