package inmem

import "sparrow"

// FeedOptions configure the feed cache tier: [Inboxes], [RecentLists] and
// [Activity]. The zero value is ready to use.
type FeedOptions struct {
	// InboxCap is the number of items an inbox keeps; older items are
	// trimmed, raising the inbox's floor. Zero or less means sparrow.DefaultInboxCap.
	InboxCap int
	// RecentCap is the number of items a recent list keeps. Zero or less
	// means sparrow.DefaultRecentCap.
	RecentCap int
	// Clock tells the time. Every feed method takes the times it records as
	// arguments (Create's now, Append's at, Touch's at), so no method reads
	// it today; it is here so that every in-process cache is configured the
	// same way. Nil means sparrow.SystemClock{}.
	Clock sparrow.Clock
}

func (o FeedOptions) withDefaults() FeedOptions {
	if o.InboxCap <= 0 {
		o.InboxCap = sparrow.DefaultInboxCap
	}
	if o.RecentCap <= 0 {
		o.RecentCap = sparrow.DefaultRecentCap
	}
	if o.Clock == nil {
		o.Clock = sparrow.SystemClock{}
	}
	return o
}
