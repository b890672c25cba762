package bulk

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"sparrow"
	"sparrow/sqlstore"
)

// edgeColumns is the number of columns of an edge row (sqlstore.EdgeColumns).
var edgeColumns = strings.Count(sqlstore.EdgeColumns, ",") + 1

// LoadFavourites writes favourites of status by accounts in bulk: the
// forward rows on each account's shard, the reverse rows on the status's
// shard, and favourites_count (set-up only, like LoadComments). Edge ids
// come from the store's generator (sqlstore.Store.IDs), as a live favourite's
// would.
func LoadFavourites(ctx context.Context, s *sqlstore.Store, status sparrow.ID, accounts []sparrow.ID, at time.Time) error {
	const batch = 500
	edges := make([]sparrow.Edge, len(accounts))
	for i, a := range accounts {
		edges[i] = sparrow.Edge{Kind: sparrow.Favourite, From: a, To: status, Active: true, Version: 1, EdgeID: s.IDs().Next(a.Shard()), At: at}
	}
	write := func(db *sqlstore.DB, table string, part []sparrow.Edge) error {
		args := make([]any, 0, len(part)*edgeColumns)
		for _, e := range part {
			args = append(args, sqlstore.EdgeArgs(e)...)
		}
		return db.Tx(ctx, nil, func(t *sql.Tx) error {
			_, err := t.ExecContext(ctx, db.Dialect.InsertIgnore+" INTO "+table+" ("+sqlstore.EdgeColumns+") VALUES "+sqlstore.RepeatRow(edgeColumns, len(part)), args...)
			return err
		})
	}
	byDB := map[*sqlstore.DB][]sparrow.Edge{}
	for _, e := range edges {
		db := s.Shards().ForID(e.From)
		byDB[db] = append(byDB[db], e)
	}
	for db, group := range byDB {
		for start := 0; start < len(group); start += batch {
			if err := write(db, "favourites", group[start:min(start+batch, len(group))]); err != nil {
				return err
			}
		}
	}
	statusDB := s.Shards().ForID(status)
	for start := 0; start < len(edges); start += batch {
		if err := write(statusDB, "favourited_by", edges[start:min(start+batch, len(edges))]); err != nil {
			return err
		}
	}
	return statusDB.Tx(ctx, nil, func(t *sql.Tx) error {
		_, err := t.ExecContext(ctx, "UPDATE statuses SET favourites_count = favourites_count + ? WHERE id = ?", len(edges), int64(status))
		return err
	})
}
