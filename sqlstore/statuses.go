package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"sparrow"
)

// StatusColumns are the 25 columns of a statuses row, in the order
// CreateStatus writes them and scanStatus reads them.
const StatusColumns = "id, account_id, type, visibility, text, spoiler_text, is_sensitive, language, in_reply_to_id, " +
	"in_reply_to_account_id, reblog_of_id, quote_id, mentions, tags, object, app_id, created_at, edited_at, " +
	"deleted_at, version, replies_count, reblogs_count, favourites_count, replies_ever, reblogs_ever"

var visibilityCodes = map[sparrow.Visibility]int{sparrow.Public: 0, sparrow.Unlisted: 1, sparrow.Private: 2, sparrow.Direct: 3}
var visibilityNames = []sparrow.Visibility{sparrow.Public, sparrow.Unlisted, sparrow.Private, sparrow.Direct}

// VisibilityCode returns the code of v in the visibility column of statuses,
// and whether v is a visibility the store knows ("" is none). Exported for
// offline tools that write statuses rows themselves (sqlstore/bulk).
func VisibilityCode(v sparrow.Visibility) (int, bool) {
	code, ok := visibilityCodes[v]
	return code, ok
}

func scanStatus(r scanner) (*sparrow.Status, error) {
	var s sparrow.Status
	var typ, vis, sensitive int
	var mentions, tags string
	var created, edited, deleted int64
	if err := r.Scan(&s.ID, &s.AccountID, &typ, &vis, &s.Text, &s.SpoilerText, &sensitive, &s.Language,
		&s.InReplyToID, &s.InReplyToAccountID, &s.ReblogOfID, &s.QuoteID, &mentions, &tags, &s.Object, &s.AppID,
		&created, &edited, &deleted, &s.Version, &s.RepliesCount, &s.ReblogsCount, &s.FavouritesCount,
		&s.RepliesEver, &s.ReblogsEver); err != nil {
		return nil, err
	}
	s.Type, s.Sensitive = sparrow.StatusType(typ), sensitive != 0
	if vis >= 0 && vis < len(visibilityNames) {
		s.Visibility = visibilityNames[vis]
	}
	s.Mentions, s.Tags = decodeIDs(mentions), decodeTags(tags)
	s.CreatedAt = time.UnixMilli(created).UTC()
	if edited != 0 {
		s.EditedAt = time.UnixMilli(edited).UTC()
	}
	if deleted != 0 {
		s.DeletedAt = time.UnixMilli(deleted).UTC()
	}
	return &s, nil
}

func encodeIDs(ids []sparrow.ID) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id.String()
	}
	return strings.Join(parts, ",")
}

func decodeIDs(s string) []sparrow.ID {
	if s == "" {
		return nil
	}
	var out []sparrow.ID
	for _, p := range strings.Split(s, ",") {
		if n, err := strconv.ParseInt(p, 10, 64); err == nil {
			out = append(out, sparrow.ID(n))
		}
	}
	return out
}

func decodeTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

var errIdempotent = errors.New("idempotency key already used")

// CreateStatus inserts a status with its counter bump, idempotency key and
// events in one transaction on the author's shard.
func (s *Store) CreateStatus(ctx context.Context, n sparrow.NewStatus, events ...sparrow.Event) (*sparrow.Status, bool, error) {
	st := n.Status
	db := s.shards.ForID(st.AccountID)
	if st.ID.Shard() != st.AccountID.Shard() {
		return nil, false, sparrow.Errorf(sparrow.EInternal, "status id does not carry its author's gene")
	}
	var prior int64
	err := db.Tx(ctx, events, func(t *sql.Tx) error {
		if n.IdempotencyKey != "" {
			_, err := t.ExecContext(ctx, "INSERT INTO idempotency_keys (account_id, ikey, status_id, created_at) VALUES (?,?,?,?)",
				int64(st.AccountID), n.IdempotencyKey, int64(st.ID), st.CreatedAt.UnixMilli())
			if err != nil && db.Dialect.IsDuplicate(err) {
				if err = t.QueryRowContext(ctx, "SELECT status_id FROM idempotency_keys WHERE account_id = ? AND ikey = ?",
					int64(st.AccountID), n.IdempotencyKey).Scan(&prior); err != nil {
					return err
				}
				return errIdempotent
			}
			if err != nil {
				return err
			}
		}
		_, err := t.ExecContext(ctx, "INSERT INTO statuses ("+StatusColumns+") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			int64(st.ID), int64(st.AccountID), int(st.Type), visibilityCodes[st.Visibility], st.Text, st.SpoilerText,
			boolInt(st.Sensitive), st.Language, int64(st.InReplyToID), int64(st.InReplyToAccountID), int64(st.ReblogOfID),
			int64(st.QuoteID), encodeIDs(st.Mentions), strings.Join(st.Tags, " "), st.Object, int64(st.AppID),
			st.CreatedAt.UnixMilli(), int64(0), int64(0), st.Version, st.RepliesCount, st.ReblogsCount,
			st.FavouritesCount, st.RepliesEver, st.ReblogsEver)
		if err != nil {
			return err
		}
		return bumpStatuses(ctx, t, st.AccountID, +1, st.CreatedAt)
	})
	if errors.Is(err, errIdempotent) {
		prev, serr := s.Status(ctx, sparrow.ID(prior))
		return prev, false, serr
	}
	if err != nil {
		return nil, false, err
	}
	return st, true, nil
}

// bumpStatuses adjusts the author's statuses_count (never below zero) and,
// for a new status, last_status_at. ENotFound if the author is absent.
func bumpStatuses(ctx context.Context, t *sql.Tx, account sparrow.ID, delta int, at time.Time) error {
	q := "UPDATE accounts SET statuses_count = statuses_count + ?, last_status_at = ? WHERE id = ?"
	args := []any{delta, at.UnixMilli(), int64(account)}
	if delta < 0 {
		q = "UPDATE accounts SET statuses_count = CASE WHEN statuses_count > 0 THEN statuses_count - 1 ELSE 0 END WHERE id = ?"
		args = []any{int64(account)}
	}
	res, err := t.ExecContext(ctx, q, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	return nil
}

// liveStatusForUpdate reads a status inside t, locking it on MySQL.
func liveStatusForUpdate(ctx context.Context, db *DB, t *sql.Tx, id sparrow.ID) (*sparrow.Status, error) {
	q := "SELECT " + StatusColumns + " FROM statuses WHERE id = ?"
	if db.Dialect.Name == "mysql" {
		q += " FOR UPDATE"
	}
	st, err := scanStatus(t.QueryRowContext(ctx, q, int64(id)))
	if err != nil {
		return nil, err
	}
	if st.Deleted() {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	return st, nil
}

// EditStatus keeps the current revision in status_edits and replaces it.
func (s *Store) EditStatus(ctx context.Context, id sparrow.ID, e sparrow.StatusEdit, events sparrow.EventFunc) (*sparrow.Status, error) {
	db := s.shards.ForID(id)
	var out *sparrow.Status
	err := db.txEvents(ctx, func(t *sql.Tx) ([]sparrow.Event, error) {
		old, err := liveStatusForUpdate(ctx, db, t, id)
		if err != nil {
			return nil, err
		}
		prevAt := old.EditedAt
		if prevAt.IsZero() {
			prevAt = old.CreatedAt
		}
		if _, err := t.ExecContext(ctx, "INSERT INTO status_edits (status_id, version, text, spoiler_text, is_sensitive, created_at) VALUES (?,?,?,?,?,?)",
			int64(id), old.Version, old.Text, old.SpoilerText, boolInt(old.Sensitive), prevAt.UnixMilli()); err != nil {
			return nil, err
		}
		if _, err := t.ExecContext(ctx, "UPDATE statuses SET text = ?, spoiler_text = ?, is_sensitive = ?, edited_at = ?, version = version + 1 WHERE id = ?",
			e.Text, e.SpoilerText, boolInt(e.Sensitive), e.CreatedAt.UnixMilli(), int64(id)); err != nil {
			return nil, err
		}
		out = old
		out.Text, out.SpoilerText, out.Sensitive, out.EditedAt, out.Version = e.Text, e.SpoilerText, e.Sensitive, e.CreatedAt.UTC(), old.Version+1
		return events(out), nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteStatus tombstones a status and decrements its author's count.
func (s *Store) DeleteStatus(ctx context.Context, id sparrow.ID, now time.Time, events sparrow.EventFunc) (*sparrow.Status, error) {
	db := s.shards.ForID(id)
	var out *sparrow.Status
	err := db.txEvents(ctx, func(t *sql.Tx) ([]sparrow.Event, error) {
		old, err := liveStatusForUpdate(ctx, db, t, id)
		if err != nil {
			return nil, err
		}
		if _, err := t.ExecContext(ctx, "UPDATE statuses SET deleted_at = ? WHERE id = ?", now.UnixMilli(), int64(id)); err != nil {
			return nil, err
		}
		if err := bumpStatuses(ctx, t, old.AccountID, -1, now); err != nil {
			return nil, err
		}
		// A deleted status frees its idempotency keys (a reblog can be made again).
		if _, err := t.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE account_id = ? AND status_id = ?", int64(old.AccountID), int64(id)); err != nil {
			return nil, err
		}
		out = old
		return events(old), nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Status returns one status, tombstones included.
func (s *Store) Status(ctx context.Context, id sparrow.ID) (*sparrow.Status, error) {
	db := s.shards.ForID(id)
	st, err := scanStatus(db.queryRowR(ctx, "SELECT "+StatusColumns+" FROM statuses WHERE id = ?", int64(id)))
	return st, db.Translate(err, "status")
}

// Statuses multi-gets statuses, one query per physical store.
func (s *Store) Statuses(ctx context.Context, ids []sparrow.ID) ([]*sparrow.Status, error) {
	var out []*sparrow.Status
	for db, group := range s.shards.GroupByDB(ids) {
		in, args := inIDs(group)
		got, err := queryStatuses(ctx, db, "SELECT "+StatusColumns+" FROM statuses WHERE id IN ("+in+")", args...)
		if sparrow.SkipUnavailable(ctx, err) {
			continue // a partial read: this store's statuses are left out
		}
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

func queryStatuses(ctx context.Context, db *DB, q string, args ...any) ([]*sparrow.Status, error) {
	rows, err := db.queryR(ctx, q, args...)
	if err != nil {
		return nil, db.Translate(err, "statuses")
	}
	defer rows.Close()
	var out []*sparrow.Status
	for rows.Next() {
		st, err := scanStatus(rows)
		if err != nil {
			return nil, db.Translate(err, "statuses")
		}
		out = append(out, st)
	}
	return out, db.Translate(rows.Err(), "statuses")
}

// AccountStatuses reads the profile feed through idx_statuses_account.
func (s *Store) AccountStatuses(ctx context.Context, accountID sparrow.ID, f sparrow.StatusFilter, p sparrow.Page) ([]*sparrow.Status, error) {
	if f.OnlyMedia || f.Pinned {
		return nil, nil // Sparrow stores no media and no pins yet: those filters match nothing.
	}
	where := []string{"account_id = ?", "deleted_at = 0"}
	args := []any{int64(accountID)}
	if p.MaxID != 0 {
		where, args = append(where, "id < ?"), append(args, int64(p.MaxID))
	}
	if lo := p.Lower(); lo != 0 {
		where, args = append(where, "id > ?"), append(args, int64(lo))
	}
	if f.ExcludeReplies {
		where, args = append(where, "(in_reply_to_id = 0 OR in_reply_to_account_id = ?)"), append(args, int64(accountID))
	}
	if f.ExcludeReblogs {
		where = append(where, "reblog_of_id = 0")
	}
	if len(f.Visibilities) > 0 {
		where = append(where, "visibility IN ("+Placeholders(len(f.Visibilities))+")")
		for _, v := range f.Visibilities {
			args = append(args, visibilityCodes[v])
		}
	}
	order := "DESC"
	if p.Ascending() {
		order = "ASC"
	}
	db := s.shards.ForID(accountID)
	out, err := queryStatuses(ctx, db, "SELECT "+StatusColumns+" FROM statuses WHERE "+strings.Join(where, " AND ")+
		" ORDER BY id "+order+" LIMIT ?", append(args, p.Normalize(sparrow.MaxLimit).Limit)...)
	if p.Ascending() {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, err
}

// StatusHistory returns the kept revisions and then the current one.
func (s *Store) StatusHistory(ctx context.Context, id sparrow.ID) ([]sparrow.StatusEdit, error) {
	cur, err := s.Status(ctx, id)
	if err != nil {
		return nil, err
	}
	if cur.Deleted() {
		return nil, sparrow.Errorf(sparrow.ENotFound, "Record not found")
	}
	db := s.shards.ForID(id)
	rows, err := db.R.QueryContext(ctx, "SELECT version, text, spoiler_text, is_sensitive, created_at FROM status_edits WHERE status_id = ? ORDER BY version", int64(id))
	if err != nil {
		return nil, db.Translate(err, "history")
	}
	defer rows.Close()
	var out []sparrow.StatusEdit
	for rows.Next() {
		e := sparrow.StatusEdit{StatusID: id}
		var sensitive int
		var created int64
		if err := rows.Scan(&e.Version, &e.Text, &e.SpoilerText, &sensitive, &created); err != nil {
			return nil, db.Translate(err, "history")
		}
		e.Sensitive, e.CreatedAt = sensitive != 0, time.UnixMilli(created).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, db.Translate(err, "history")
	}
	at := cur.EditedAt
	if at.IsZero() {
		at = cur.CreatedAt
	}
	return append(out, sparrow.StatusEdit{StatusID: id, Version: cur.Version, Text: cur.Text, SpoilerText: cur.SpoilerText, Sensitive: cur.Sensitive, CreatedAt: at}), nil
}
