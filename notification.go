package sparrow

import (
	"context"
	"time"
)

// NotificationType is a Mastodon notification type.
type NotificationType string

// Notification types. favourite and reblog arrive with the comments issue.
const (
	NotifyMention NotificationType = "mention"
	NotifyFollow  NotificationType = "follow"
	// NotifyFollowRequest tells a locked account that someone asks to follow
	// it; it disappears once the request is authorized or rejected.
	NotifyFollowRequest NotificationType = "follow_request"
	NotifyFavourite     NotificationType = "favourite"
	NotifyReblog        NotificationType = "reblog"
)

// Notification is one notification, stored on its recipient's shard (its id
// carries the recipient's gene). Key makes creation idempotent: a replayed
// event produces the same key and no second notification.
type Notification struct {
	ID        ID
	Recipient ID
	Type      NotificationType
	From      ID // the account that caused it
	StatusID  ID // 0 for follows
	Key       string
	CreatedAt time.Time
}

// NotificationFilter narrows a notification list.
type NotificationFilter struct {
	Types        []NotificationType // only these (none = all)
	ExcludeTypes []NotificationType
	From         ID // only from this account (Mastodon's account_id)
}

// NotificationStore is the durable store of notifications, sharded by recipient.
type NotificationStore interface {
	// AddNotifications stores notifications, skipping any whose (Recipient,
	// Key) exists already. Notifications may have different recipients.
	AddNotifications(ctx context.Context, ns []Notification) error
	// Notifications pages a recipient's notifications, newest first.
	Notifications(ctx context.Context, recipient ID, f NotificationFilter, p Page) ([]Notification, error)
	// Notification returns one of recipient's notifications, or ENotFound.
	Notification(ctx context.Context, recipient, id ID) (*Notification, error)
	// DismissNotification deletes one; absent is not an error.
	DismissNotification(ctx context.Context, recipient, id ID) error
	// ClearNotifications deletes all of recipient's notifications.
	ClearNotifications(ctx context.Context, recipient ID) error
}

// NotificationView is a notification with what rendering needs.
type NotificationView struct {
	Notification *Notification
	Account      *Account    // From
	Status       *StatusView // nil for follows
}

// NotificationService implements the notifications API.
type NotificationService interface {
	List(ctx context.Context, v Viewer, f NotificationFilter, p Page) ([]*NotificationView, error)
	Get(ctx context.Context, v Viewer, id ID) (*NotificationView, error)
	Dismiss(ctx context.Context, v Viewer, id ID) error
	Clear(ctx context.Context, v Viewer) error
}
