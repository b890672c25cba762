package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"
	"unicode/utf8"

	"sparrow"
)

var _ sparrow.NotificationStore = (*Store)(nil)

const notificationCols = "id, recipient_id, type, from_id, status_id, dkey, created_at"

// notifBatch bounds the rows of one multi-row insert (7 placeholders each).
const notifBatch = 500

func scanNotification(r scanner) (*sparrow.Notification, error) {
	n := &sparrow.Notification{}
	var typ string
	var at int64
	if err := r.Scan(&n.ID, &n.Recipient, &typ, &n.From, &n.StatusID, &n.Key, &at); err != nil {
		return nil, err
	}
	n.Type, n.CreatedAt = sparrow.NotificationType(typ), time.UnixMilli(at).UTC()
	return n, nil
}

// AddNotifications inserts notifications with one multi-row INSERT IGNORE per
// physical store (in batches), so that a (recipient, key) that exists already
// is skipped. A notification without an id gets one with its recipient's
// gene; an id must otherwise carry that gene. Keys are 1 to 128 characters.
func (s *Store) AddNotifications(ctx context.Context, ns []sparrow.Notification) error {
	byDB := map[*DB][]sparrow.Notification{}
	for _, n := range ns {
		if n.Recipient == 0 || n.Key == "" || utf8.RuneCountInString(n.Key) > 128 || len(n.Type) > 16 {
			return sparrow.Errorf(sparrow.EInvalid, "notification: bad recipient, key or type")
		}
		if n.ID == 0 {
			n.ID = s.ids.Next(n.Recipient.Shard())
		} else if n.ID.Shard() != n.Recipient.Shard() {
			return sparrow.Errorf(sparrow.EInternal, "notification %d does not carry its recipient's gene", n.ID)
		}
		db := s.shards.ForID(n.Recipient)
		byDB[db] = append(byDB[db], n)
	}
	for db, group := range byDB {
		for len(group) > 0 {
			batch := group[:min(len(group), notifBatch)]
			group = group[len(batch):]
			args := make([]any, 0, 7*len(batch))
			for _, n := range batch {
				args = append(args, int64(n.ID), int64(n.Recipient), string(n.Type), int64(n.From), int64(n.StatusID),
					n.Key, n.CreatedAt.UnixMilli())
			}
			q := db.Dialect.InsertIgnore + " INTO notifications (" + notificationCols + ") VALUES " + RepeatRow(7, len(batch))
			if _, err := db.W.ExecContext(ctx, q, args...); err != nil {
				return db.Translate(err, "add notifications")
			}
		}
	}
	return nil
}

// Notifications pages recipient's notifications through
// idx_notifications_list, newest first (MinID pages upward and is reversed).
func (s *Store) Notifications(ctx context.Context, recipient sparrow.ID, f sparrow.NotificationFilter, p sparrow.Page) ([]sparrow.Notification, error) {
	p = p.Normalize(1000)
	where := []string{"recipient_id = ?"}
	args := []any{int64(recipient)}
	if len(f.Types) > 0 {
		where = append(where, "type IN ("+Placeholders(len(f.Types))+")")
		for _, t := range f.Types {
			args = append(args, string(t))
		}
	}
	if len(f.ExcludeTypes) > 0 {
		where = append(where, "type NOT IN ("+Placeholders(len(f.ExcludeTypes))+")")
		for _, t := range f.ExcludeTypes {
			args = append(args, string(t))
		}
	}
	if f.From != 0 {
		where, args = append(where, "from_id = ?"), append(args, int64(f.From))
	}
	if p.MaxID != 0 {
		where, args = append(where, "id < ?"), append(args, int64(p.MaxID))
	}
	if lo := p.Lower(); lo != 0 {
		where, args = append(where, "id > ?"), append(args, int64(lo))
	}
	order := "DESC"
	if p.Ascending() {
		order = "ASC"
	}
	db := s.shards.ForID(recipient)
	rows, err := db.R.QueryContext(ctx, "SELECT "+notificationCols+" FROM notifications WHERE "+strings.Join(where, " AND ")+
		" ORDER BY id "+order+" LIMIT ?", append(args, p.Limit)...)
	if err != nil {
		return nil, db.Translate(err, "notifications")
	}
	defer rows.Close()
	var out []sparrow.Notification
	for rows.Next() {
		n, err := scanNotification(rows)
		if err != nil {
			return nil, db.Translate(err, "notifications")
		}
		out = append(out, *n)
	}
	if err := rows.Err(); err != nil {
		return nil, db.Translate(err, "notifications")
	}
	if p.Ascending() {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, nil
}

// Notification returns one of recipient's notifications, or ENotFound.
func (s *Store) Notification(ctx context.Context, recipient, id sparrow.ID) (*sparrow.Notification, error) {
	db := s.shards.ForID(recipient)
	n, err := scanNotification(db.R.QueryRowContext(ctx, "SELECT "+notificationCols+
		" FROM notifications WHERE id = ? AND recipient_id = ?", int64(id), int64(recipient)))
	if err != nil {
		return nil, db.Translate(err, "notification")
	}
	return n, nil
}

// DismissNotification deletes one of recipient's notifications; absent is
// not an error.
func (s *Store) DismissNotification(ctx context.Context, recipient, id sparrow.ID) error {
	return s.deleteNotifications(ctx, recipient, "DELETE FROM notifications WHERE id = ? AND recipient_id = ?", int64(id), int64(recipient))
}

// ClearNotifications deletes every notification of recipient.
func (s *Store) ClearNotifications(ctx context.Context, recipient sparrow.ID) error {
	return s.deleteNotifications(ctx, recipient, "DELETE FROM notifications WHERE recipient_id = ?", int64(recipient))
}

func (s *Store) deleteNotifications(ctx context.Context, recipient sparrow.ID, q string, args ...any) error {
	db := s.shards.ForID(recipient)
	return db.Tx(ctx, nil, func(t *sql.Tx) error {
		_, err := t.ExecContext(ctx, q, args...)
		return err
	})
}
