// Package nats is Sparrow's event bus on NATS JetStream. It implements
// sparrow.Publisher, used by the outbox relay, and sparrow.Subscriber, used by
// the consumers that react to events (timelines, search, notifications...).
//
// All events live in one JetStream stream (Config.Stream, "SPARROW" by
// default) on the subjects "sparrow.ev.<type>", e.g. "sparrow.ev.status.created".
// The stream keeps events for Config.MaxAge and drops a republished event whose
// id it has seen within Config.DupWindow, so that a relay that crashes between
// publishing a batch and marking it published does not deliver it twice.
//
// A Bus either embeds a nats-server in the process (Config.URL empty: no
// listening port, file store under Config.DataDir), which is what a
// single-process deployment runs, or connects to an external NATS server. Both
// modes share the same code after connecting. The JetStream features used are
// those of nats-server 2.9: one filter subject per consumer, pull consumers,
// Nats-Msg-Id deduplication, and nothing newer.
//
// Delivery is at least once: consumers are durable and acknowledge an event
// only after its handler returns nil, so handlers must be idempotent.
package nats
