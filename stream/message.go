package stream

import "sparrow"

// Stream names, as Mastodon's streaming API spells them.
const (
	User             = "user"              // home statuses and notifications
	UserNotification = "user:notification" // notifications only
	Public           = "public"            // the public timeline
	PublicLocal      = "public:local"      // the same: every status is local
)

// Event names of messages, as Mastodon's streaming API spells them.
const (
	EventUpdate       = "update"        // a new status (Message.Status)
	EventStatusUpdate = "status.update" // an edited status (Message.Status)
	EventDelete       = "delete"        // a deleted status (Message.StatusID)
	EventNotification = "notification"  // a new notification (Message.Notification)
)

// Known reports whether name is a stream a connection may subscribe to.
func Known(name string) bool {
	switch name {
	case User, UserNotification, Public, PublicLocal:
		return true
	}
	return false
}

// NeedsUser reports whether stream name needs a signed-in viewer.
func NeedsUser(name string) bool { return name == User || name == UserNotification }

func isPublic(name string) bool { return name == Public || name == PublicLocal }

// Message is one event for one connection, on one of its streams, before
// rendering. Status and Notification are already hydrated and filtered for
// the connection's viewer; several connections may share them, so they must
// not be modified.
type Message struct {
	Stream       string                    // the subscribed stream it arrives on
	Event        string                    // EventUpdate, EventStatusUpdate, EventDelete or EventNotification
	Status       *sparrow.StatusView       // update and status.update
	Notification *sparrow.NotificationView // notification
	StatusID     sparrow.ID                // delete
}
