package bulk

import (
	"context"
	"database/sql"
	"time"

	"sparrow"
	"sparrow/sqlstore"
)

// Comment is one comment for LoadComments.
type Comment struct {
	ID     sparrow.ID // carries Author's gene
	Author sparrow.ID
	At     time.Time
}

// LoadComments writes comments on root in bulk (benchmark and import set-up;
// run it while no server writes to root): each comment as a status of type
// comment replying to root, each relation row with the fixed page the live
// path would assign ((ever − 1) div pageSize, in the given order), root's
// replies_ever and replies_count, and the authors' statuses_count. Rows are
// written with multi-row INSERTs, statuses grouped by physical store.
func LoadComments(ctx context.Context, s *sqlstore.Store, root *sparrow.Status, comments []Comment, pageSize int) error {
	if pageSize <= 0 {
		return sparrow.Errorf(sparrow.EInternal, "page size must be positive")
	}
	const batch = 500
	byDB := map[*sqlstore.DB][]Comment{}
	for _, c := range comments {
		db := s.Shards().ForID(c.ID)
		byDB[db] = append(byDB[db], c)
	}
	perAuthor := map[sparrow.ID]int{}
	for _, c := range comments {
		perAuthor[c.Author]++
	}
	public, _ := sqlstore.VisibilityCode(sparrow.Public)
	for db, group := range byDB {
		for start := 0; start < len(group); start += batch {
			part := group[start:min(start+batch, len(group))]
			args := make([]any, 0, len(part)*25)
			for _, c := range part {
				args = append(args, int64(c.ID), int64(c.Author), int(sparrow.Comment), public, "comment", "", 0, "",
					int64(root.ID), int64(root.AccountID), int64(0), int64(0), "", "", "", int64(0), c.At.UnixMilli(), int64(0), int64(0),
					int64(1), int64(0), int64(0), int64(0), int64(0), int64(0))
			}
			if err := db.Tx(ctx, nil, func(t *sql.Tx) error {
				_, err := t.ExecContext(ctx, "INSERT INTO statuses ("+sqlstore.StatusColumns+") VALUES "+sqlstore.RepeatRow(25, len(part)), args...)
				return err
			}); err != nil {
				return err
			}
		}
	}
	rootDB := s.Shards().ForID(root.ID)
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
			_, err := t.ExecContext(ctx, "INSERT INTO status_relations ("+sqlstore.StatusRelationColumns+") VALUES "+sqlstore.RepeatRow(6, len(part)), args...)
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
		db := s.Shards().ForID(author)
		if err := db.Tx(ctx, nil, func(t *sql.Tx) error {
			_, err := t.ExecContext(ctx, "UPDATE accounts SET statuses_count = statuses_count + ? WHERE id = ?", k, int64(author))
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}
