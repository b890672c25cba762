package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"sparrow"
)

// appendEvents inserts events into the outbox inside t.
func appendEvents(ctx context.Context, t *sql.Tx, events []sparrow.Event) error {
	if len(events) == 0 {
		return nil
	}
	q := "INSERT INTO outbox (id, type, subject, payload, created_at) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?),", len(events)), ",")
	args := make([]any, 0, 5*len(events))
	for _, e := range events {
		args = append(args, int64(e.ID), string(e.Type), int64(e.Subject), []byte(e.Payload), e.CreatedAt.UnixMilli())
	}
	_, err := t.ExecContext(ctx, q, args...)
	return err
}

// outbox is the sparrow.Outbox of one physical store.
type outbox struct{ db *DB }

var _ sparrow.Outbox = outbox{}

// Outboxes returns the outbox of every physical store, for the relay.
func (s *Store) Outboxes() []sparrow.Outbox {
	var out []sparrow.Outbox
	for _, db := range s.shards.DBs() {
		out = append(out, outbox{db})
	}
	return out
}

func (o outbox) Name() string { return o.db.Name }

func (o outbox) PendingEvents(ctx context.Context, limit int) ([]sparrow.Event, error) {
	rows, err := o.db.W.QueryContext(ctx,
		"SELECT id, type, subject, payload, created_at FROM outbox ORDER BY id LIMIT ?", limit)
	if err != nil {
		return nil, o.db.Translate(err, "pending events")
	}
	defer rows.Close()
	var out []sparrow.Event
	for rows.Next() {
		var e sparrow.Event
		var typ string
		var payload []byte
		var created int64
		if err := rows.Scan(&e.ID, &typ, &e.Subject, &payload, &created); err != nil {
			return nil, o.db.Translate(err, "scan event")
		}
		e.Type, e.Payload, e.CreatedAt = sparrow.EventType(typ), payload, time.UnixMilli(created)
		out = append(out, e)
	}
	return out, o.db.Translate(rows.Err(), "pending events")
}

func (o outbox) MarkPublished(ctx context.Context, ids []sparrow.ID) error {
	if len(ids) == 0 {
		return nil
	}
	q := "DELETE FROM outbox WHERE id IN (" + Placeholders(len(ids)) + ")"
	_, err := o.db.W.ExecContext(ctx, q, IDArgs(ids)...)
	return o.db.Translate(err, "mark published")
}

func (o outbox) OldestPending(ctx context.Context) (time.Time, error) {
	var created sql.NullInt64
	err := o.db.R.QueryRowContext(ctx, "SELECT MIN(created_at) FROM outbox").Scan(&created)
	if err != nil || !created.Valid {
		return time.Time{}, o.db.Translate(err, "oldest pending")
	}
	return time.UnixMilli(created.Int64), nil
}

func (o outbox) AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	until := now.Add(ttl).UnixMilli()
	res, err := o.db.W.ExecContext(ctx,
		"UPDATE leases SET holder = ?, expires_at = ? WHERE name = ? AND (holder = ? OR expires_at < ?)",
		holder, until, name, holder, now.UnixMilli())
	if err != nil {
		return false, o.db.Translate(err, "lease")
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return true, nil
	}
	res, err = o.db.W.ExecContext(ctx,
		o.db.Dialect.InsertIgnore+" INTO leases (name, holder, expires_at) VALUES (?, ?, ?)", name, holder, until)
	if err != nil {
		return false, o.db.Translate(err, "lease")
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// Placeholders returns n comma-separated bind placeholders, "?,?,?" (n ≥ 0;
// "" for 0), for an IN list or one row of values; both dialects bind "?".
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// IDArgs returns ids as int64 arguments, in order: the values of
// Placeholders(len(ids)).
func IDArgs(ids []sparrow.ID) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = int64(id)
	}
	return args
}
