package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"sparrow"
)

var _ sparrow.ReferenceStore = (*Store)(nil)

// refCounters are the ever column and the kept counter of a reference kind.
func refCounters(k sparrow.RefKind) (ever string, kept sparrow.Counter, err error) {
	switch k {
	case sparrow.RefComment:
		return "replies_ever", sparrow.RepliesCount, nil
	case sparrow.RefRepost:
		return "reblogs_ever", sparrow.ReblogsCount, nil
	}
	return "", 0, sparrow.Errorf(sparrow.EInternal, "unknown reference kind %d", k)
}

// StatusRelationColumns are the columns of a status_relations row (a comment
// or repost of a status, with its fixed page), in the order the store writes
// and scans them.
const StatusRelationColumns = "ref_id, kind, page, status_id, author_id, created_at"

func scanRef(r scanner) (sparrow.Reference, error) {
	var x sparrow.Reference
	var kind int
	var at int64
	err := r.Scan(&x.Ref, &kind, &x.Page, &x.Status, &x.Author, &at)
	x.Kind, x.CreatedAt = sparrow.RefKind(kind), time.UnixMilli(at).UTC()
	return x, err
}

// AddReference records a comment or repost with its fixed page, in one
// transaction on the referenced status's shard.
func (s *Store) AddReference(ctx context.Context, r sparrow.Reference, pageSize int, newID func(shard int) sparrow.ID) (*sparrow.Reference, error) {
	ever, kept, err := refCounters(r.Kind)
	if err != nil {
		return nil, err
	}
	if pageSize <= 0 {
		return nil, sparrow.Errorf(sparrow.EInternal, "page size must be positive")
	}
	db := s.shards.ForID(r.Ref)
	out := r
	if err := db.Tx(ctx, nil, func(t *sql.Tx) error {
		existing, err := scanRef(t.QueryRowContext(ctx, "SELECT "+StatusRelationColumns+" FROM status_relations WHERE ref_id = ? AND kind = ? AND status_id = ?",
			int64(r.Ref), int(r.Kind), int64(r.Status)))
		if err == nil {
			out = existing // replayed: already recorded
			return nil
		}
		if err != sql.ErrNoRows {
			return err
		}
		// The ever count is bumped and read under the row lock (the writer
		// lock on SQLite): pages are assigned without gaps or repeats.
		res, err := t.ExecContext(ctx, "UPDATE statuses SET "+ever+" = "+ever+" + 1 WHERE id = ?", int64(r.Ref))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return sparrow.Errorf(sparrow.ENotFound, "Record not found")
		}
		var count int64
		if err = t.QueryRowContext(ctx, "SELECT "+ever+" FROM statuses WHERE id = ?", int64(r.Ref)).Scan(&count); err != nil {
			return err
		}
		out.Page = int((count - 1) / int64(pageSize))
		if _, err = t.ExecContext(ctx, "INSERT INTO status_relations ("+StatusRelationColumns+") VALUES (?,?,?,?,?,?)",
			int64(r.Ref), int(r.Kind), out.Page, int64(r.Status), int64(r.Author), r.CreatedAt.UnixMilli()); err != nil {
			return err
		}
		_, err = t.ExecContext(ctx, "INSERT INTO counter_deltas (id, target_id, field, delta) VALUES (?,?,?,?)",
			int64(newID(r.Ref.Shard())), int64(r.Ref), int(kept), 1)
		return err
	}); err != nil {
		return nil, err
	}
	return &out, nil
}

// RemoveReference deletes a reference row and buffers the kept count's −1.
func (s *Store) RemoveReference(ctx context.Context, ref sparrow.ID, kind sparrow.RefKind, status sparrow.ID, newID func(shard int) sparrow.ID) error {
	_, kept, err := refCounters(kind)
	if err != nil {
		return err
	}
	db := s.shards.ForID(ref)
	return db.Tx(ctx, nil, func(t *sql.Tx) error {
		res, err := t.ExecContext(ctx, "DELETE FROM status_relations WHERE ref_id = ? AND kind = ? AND status_id = ?", int64(ref), int(kind), int64(status))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // already removed (a replay)
		}
		_, err = t.ExecContext(ctx, "INSERT INTO counter_deltas (id, target_id, field, delta) VALUES (?,?,?,?)",
			int64(newID(ref.Shard())), int64(ref), int(kept), -1)
		return err
	})
}

// ReferencePage reads one fixed page: one range of the primary key.
func (s *Store) ReferencePage(ctx context.Context, ref sparrow.ID, kind sparrow.RefKind, page int) ([]sparrow.Reference, error) {
	db := s.shards.ForID(ref)
	return queryRefs(ctx, db, "SELECT "+StatusRelationColumns+" FROM status_relations WHERE ref_id = ? AND kind = ? AND page = ? ORDER BY status_id",
		int64(ref), int(kind), page)
}

// References pages the rows of a reference kind by status id, newest first.
func (s *Store) References(ctx context.Context, ref sparrow.ID, kind sparrow.RefKind, p sparrow.Page) ([]sparrow.Reference, error) {
	q := "SELECT " + StatusRelationColumns + " FROM status_relations WHERE ref_id = ? AND kind = ?"
	args := []any{int64(ref), int(kind)}
	if p.MaxID != 0 {
		q, args = q+" AND status_id < ?", append(args, int64(p.MaxID))
	}
	if lo := p.Lower(); lo != 0 {
		q, args = q+" AND status_id > ?", append(args, int64(lo))
	}
	order := " ORDER BY status_id DESC LIMIT ?"
	if p.Ascending() {
		order = " ORDER BY status_id ASC LIMIT ?"
	}
	db := s.shards.ForID(ref)
	out, err := queryRefs(ctx, db, q+order, append(args, p.Normalize(1000).Limit)...)
	if p.Ascending() {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, err
}

func queryRefs(ctx context.Context, db *DB, q string, args ...any) ([]sparrow.Reference, error) {
	rows, err := db.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, db.Translate(err, "references")
	}
	defer rows.Close()
	var out []sparrow.Reference
	for rows.Next() {
		r, err := scanRef(rows)
		if err != nil {
			return nil, db.Translate(err, "references")
		}
		out = append(out, r)
	}
	return out, db.Translate(rows.Err(), "references")
}

// ReblogsOf returns, for each original among ids, the id of account's live
// reblog of it (recorded under the idempotency key "reblog:<original>").
func (s *Store) ReblogsOf(ctx context.Context, account sparrow.ID, originals []sparrow.ID) (map[sparrow.ID]sparrow.ID, error) {
	out := map[sparrow.ID]sparrow.ID{}
	if len(originals) == 0 {
		return out, nil
	}
	keys := make([]any, 0, len(originals)+1)
	keys = append(keys, int64(account))
	byKey := map[string]sparrow.ID{}
	for _, o := range originals {
		k := ReblogKey(o)
		byKey[k] = o
		keys = append(keys, k)
	}
	db := s.shards.ForID(account)
	rows, err := db.R.QueryContext(ctx, "SELECT ikey, status_id FROM idempotency_keys WHERE account_id = ? AND ikey IN ("+Placeholders(len(originals))+")", keys...)
	if err != nil {
		return nil, db.Translate(err, "reblogs of")
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var id int64
		if err := rows.Scan(&k, &id); err != nil {
			return nil, db.Translate(err, "reblogs of")
		}
		out[byKey[k]] = sparrow.ID(id)
	}
	return out, db.Translate(rows.Err(), "reblogs of")
}

// ReblogKey is the idempotency key under which an account's reblog of a
// status is recorded: one live reblog per account and original.
func ReblogKey(original sparrow.ID) string { return "reblog:" + original.String() }
