package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"sparrow"
)

// BulkComment is one comment for BulkLoadComments.
type BulkComment struct {
	ID     sparrow.ID // carries Author's gene
	Author sparrow.ID
	At     time.Time
}

// BulkLoadComments writes comments on root in bulk (benchmark and import
// set-up; run it while no server writes to root): each comment as a status of
// type comment replying to root, each relation row with the fixed page the
// live path would assign ((ever − 1) div pageSize, in the given order), root's
// replies_ever and replies_count, and the authors' statuses_count. Rows are
// written with multi-row INSERTs, statuses grouped by physical store.
func (s *Store) BulkLoadComments(ctx context.Context, root *sparrow.Status, comments []BulkComment, pageSize int) error {
	if pageSize <= 0 {
		return sparrow.Errorf(sparrow.EInternal, "page size must be positive")
	}
	const batch = 500
	byDB := map[*DB][]BulkComment{}
	for _, c := range comments {
		db := s.shards.ForID(c.ID)
		byDB[db] = append(byDB[db], c)
	}
	perAuthor := map[sparrow.ID]int{}
	for _, c := range comments {
		perAuthor[c.Author]++
	}
	for db, group := range byDB {
		for start := 0; start < len(group); start += batch {
			part := group[start:min(start+batch, len(group))]
			args := make([]any, 0, len(part)*25)
			for _, c := range part {
				args = append(args, int64(c.ID), int64(c.Author), int(sparrow.Comment), visibilityCodes[sparrow.Public], "comment", "", 0, "",
					int64(root.ID), int64(root.AccountID), int64(0), int64(0), "", "", "", int64(0), c.At.UnixMilli(), int64(0), int64(0),
					int64(1), int64(0), int64(0), int64(0), int64(0), int64(0))
			}
			if err := db.Tx(ctx, nil, func(t *sql.Tx) error {
				_, err := t.ExecContext(ctx, "INSERT INTO statuses ("+StatusColumns+") VALUES "+RepeatRow(25, len(part)), args...)
				return err
			}); err != nil {
				return err
			}
		}
	}
	rootDB := s.shards.ForID(root.ID)
	var ever int64
	if err := rootDB.R.QueryRowContext(ctx, "SELECT replies_ever FROM statuses WHERE id = ?", int64(root.ID)).Scan(&ever); err != nil {
		return rootDB.Translate(err, "bulk comments")
	}
	for start := 0; start < len(comments); start += batch {
		part := comments[start:min(start+batch, len(comments))]
		args := make([]any, 0, len(part)*6)
		for i, c := range part {
			n := ever + int64(start+i) + 1
			args = append(args, int64(root.ID), int(sparrow.RefComment), int((n-1)/int64(pageSize)), int64(c.ID), int64(c.Author), c.At.UnixMilli())
		}
		if err := rootDB.Tx(ctx, nil, func(t *sql.Tx) error {
			_, err := t.ExecContext(ctx, "INSERT INTO status_relations ("+StatusRelationColumns+") VALUES "+RepeatRow(6, len(part)), args...)
			return err
		}); err != nil {
			return err
		}
	}
	n := int64(len(comments))
	if err := rootDB.Tx(ctx, nil, func(t *sql.Tx) error {
		_, err := t.ExecContext(ctx, "UPDATE statuses SET replies_ever = replies_ever + ?, replies_count = replies_count + ? WHERE id = ?", n, n, int64(root.ID))
		return err
	}); err != nil {
		return err
	}
	for author, k := range perAuthor {
		db := s.shards.ForID(author)
		if err := db.Tx(ctx, nil, func(t *sql.Tx) error {
			_, err := t.ExecContext(ctx, "UPDATE accounts SET statuses_count = statuses_count + ? WHERE id = ?", k, int64(author))
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// BulkLoadFavourites writes favourites of status by accounts in bulk: the
// forward rows on each account's shard, the reverse rows on the status's
// shard, and favourites_count (set-up only, like BulkLoadComments).
func (s *Store) BulkLoadFavourites(ctx context.Context, status sparrow.ID, accounts []sparrow.ID, at time.Time) error {
	const batch = 500
	edges := make([]sparrow.Edge, len(accounts))
	for i, a := range accounts {
		edges[i] = sparrow.Edge{Kind: sparrow.Favourite, From: a, To: status, Active: true, Version: 1, EdgeID: s.ids.Next(a.Shard()), At: at}
	}
	write := func(db *DB, table string, part []sparrow.Edge) error {
		args := make([]any, 0, len(part)*len(edgeCols))
		for _, e := range part {
			args = append(args, EdgeArgs(e)...)
		}
		return db.Tx(ctx, nil, func(t *sql.Tx) error {
			_, err := t.ExecContext(ctx, db.Dialect.InsertIgnore+" INTO "+table+" ("+EdgeColumns+") VALUES "+RepeatRow(len(edgeCols), len(part)), args...)
			return err
		})
	}
	byDB := map[*DB][]sparrow.Edge{}
	for _, e := range edges {
		byDB[s.shards.ForID(e.From)] = append(byDB[s.shards.ForID(e.From)], e)
	}
	for db, group := range byDB {
		for start := 0; start < len(group); start += batch {
			if err := write(db, "favourites", group[start:min(start+batch, len(group))]); err != nil {
				return err
			}
		}
	}
	statusDB := s.shards.ForID(status)
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
