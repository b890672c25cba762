package app

import (
	"sparrow"
	"sparrow/service"
)

// feedSubscription is one durable bus consumer: the element type of
// subscribe's list (an alias of its struct type, so that the list can be
// appended to directly).
type feedSubscription = struct {
	name  string
	types []sparrow.EventType
	h     sparrow.Handler
}

// feedConsumers returns the durable consumers of notifications and of the
// keyed feeds (tag, object, public), for subscribe to start. Both are shared
// by every process (each event is handled once) and idempotent.
//
//   - "notifications": status.created (mentions and replies) and
//     edges.changed (follows) → n.Handle;
//   - "keyed-feeds": status.created and status.deleted → k.Handle.
func feedConsumers(n *service.Notifications, k *service.KeyedFeeds) []feedSubscription {
	return []feedSubscription{
		{"notifications", []sparrow.EventType{sparrow.EvStatusCreated, sparrow.EvEdges}, n.Handle},
		{"keyed-feeds", []sparrow.EventType{sparrow.EvStatusCreated, sparrow.EvStatusDeleted}, k.Handle},
	}
}
