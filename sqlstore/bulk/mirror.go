package bulk

import (
	"context"
	"maps"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"sparrow"
	"sparrow/sqlstore"
)

// mirror makes the followers rows of the loaded pairs equal to their
// following rows as stored (merge path), and returns every account involved.
func mirror(ctx context.Context, sh *sqlstore.Shards, fwd [][]edge, o Options) ([]sparrow.ID, error) {
	k := &sinks{sh: sh, o: o, buf: map[*sqlstore.DB][]sqlstore.RelationRow{}}
	var mu sync.Mutex
	touched := map[sparrow.ID]struct{}{}
	g, gctx := errgroup.WithContext(ctx)
	for i, db := range sh.DBs() {
		g.Go(func() error {
			local := map[sparrow.ID]struct{}{}
			for part := fwd[i]; len(part) > 0; {
				chunk := part[:min(len(part), 500)]
				part = part[len(chunk):]
				args := make([]any, 0, 2*len(chunk))
				for _, e := range chunk {
					args = append(args, e.a, e.b)
					local[sparrow.ID(e.a)], local[sparrow.ID(e.b)] = struct{}{}, struct{}{}
				}
				rows, err := db.QueryRelationRows(gctx, "SELECT "+sqlstore.EdgeColumns+" FROM following WHERE (from_id, to_id) IN ("+sqlstore.RepeatRow(2, len(chunk))+")", args...)
				if err != nil {
					return err
				}
				if err := k.add(gctx, rows); err != nil {
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
	}
	err := g.Wait()
	if err == nil {
		err = k.flush(ctx)
	}
	return slices.Collect(maps.Keys(touched)), err
}

// upsertFollowers makes the followers rows of rows (all with targets on db)
// equal to them, unless a stored row has a newer version.
func upsertFollowers(ctx context.Context, db *sqlstore.DB, rows []sqlstore.RelationRow, o Options) error {
	head, tail := sqlstore.FollowersMirror(db.Dialect)
	_, err := insert(ctx, db, head, tail, sqlstore.FollowersMirrorColumns, len(rows), o,
		func(args []any, i int) []any { return rows[i].AppendFollowersValues(args) })
	return err
}

// sinks buffers followers rows by target store and upserts them in large
// transactions.
type sinks struct {
	sh  *sqlstore.Shards
	o   Options
	mu  sync.Mutex
	buf map[*sqlstore.DB][]sqlstore.RelationRow
}

// add buffers rows, and writes the buffers that are full.
func (k *sinks) add(ctx context.Context, rows []sqlstore.RelationRow) error {
	var full map[*sqlstore.DB][]sqlstore.RelationRow
	k.mu.Lock()
	for _, r := range rows {
		db := k.sh.ForID(r.To)
		k.buf[db] = append(k.buf[db], r)
		if len(k.buf[db]) >= k.o.TxRows {
			if full == nil {
				full = map[*sqlstore.DB][]sqlstore.RelationRow{}
			}
			full[db], k.buf[db] = k.buf[db], nil
		}
	}
	k.mu.Unlock()
	for db, rs := range full {
		if err := upsertFollowers(ctx, db, rs, k.o); err != nil {
			return err
		}
	}
	return nil
}

// flush writes what is left, the stores in parallel.
func (k *sinks) flush(ctx context.Context) error {
	k.mu.Lock()
	buf := k.buf
	k.buf = map[*sqlstore.DB][]sqlstore.RelationRow{}
	k.mu.Unlock()
	g, gctx := errgroup.WithContext(ctx)
	for db, rows := range buf {
		g.Go(func() error { return upsertFollowers(gctx, db, rows, k.o) })
	}
	return g.Wait()
}
