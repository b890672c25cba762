package sparrow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// EventType names what happened. Subjects on the bus are "sparrow.ev." + type.
type EventType string

// Event types.
const (
	EvAccountCreated EventType = "account.created"
	EvAccountUpdated EventType = "account.updated"
	EvStatusCreated  EventType = "status.created"
	EvStatusEdited   EventType = "status.edited"
	EvStatusDeleted  EventType = "status.deleted"
	EvEdges          EventType = "edges.changed" // EdgePayload: forward rows of one source, as committed
)

// Event is a fact appended to a shard's transactional outbox in the same
// transaction as the rows it describes (docs/seeds.md#seed-002's events), then relayed to the
// bus. Its ID is generated with the shard's gene and is the dedupe key on the
// bus; consumers must be idempotent because delivery is at-least-once.
type Event struct {
	ID        ID
	Type      EventType
	Subject   ID // the entity the event is about (status id, account id...)
	Payload   json.RawMessage
	CreatedAt time.Time
}

// Shard returns the logical shard whose outbox holds e.
func (e Event) Shard() int { return e.ID.Shard() }

// ErrMalformedEvent marks the error of a handler given an event it can never
// handle (its payload does not decode, or lacks what its type requires).
// The bus does not redeliver such an event: it sets it aside on a
// dead-letter subject, with a log line and a metric.
var ErrMalformedEvent = errors.New("malformed event")

// Malformed returns an error wrapping ErrMalformedEvent that names e.
func (e Event) Malformed(why string) error {
	return fmt.Errorf("%w: %s %d: %s", ErrMalformedEvent, e.Type, e.ID, why)
}

// Decode unmarshals the payload into v; a payload that does not decode is
// an ErrMalformedEvent.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Payload, v); err != nil {
		return e.Malformed(err.Error())
	}
	return nil
}

// DecodeStatus decodes a StatusPayload that must carry a status.
func (e Event) DecodeStatus() (*Status, error) {
	var p StatusPayload
	if err := e.Decode(&p); err != nil {
		return nil, err
	}
	if p.Status == nil {
		return nil, e.Malformed("no status in the payload")
	}
	return p.Status, nil
}

// NewEvent builds an event with a JSON payload. The id must carry the gene of
// the shard whose transaction appends it.
func NewEvent(id ID, typ EventType, subject ID, payload any, now time.Time) Event {
	b, err := json.Marshal(payload)
	if err != nil {
		panic("sparrow: event payload: " + err.Error())
	}
	return Event{ID: id, Type: typ, Subject: subject, Payload: b, CreatedAt: now}
}

// StatusPayload is the payload of status events: the status as committed.
type StatusPayload struct {
	Status *Status `json:"status"`
}

// AccountPayload is the payload of account events.
type AccountPayload struct {
	Account *Account `json:"account"`
}

// Outbox is one physical store's transactional outbox, read by the relay.
type Outbox interface {
	// Name identifies the physical store (for leases, logs and metrics).
	Name() string
	// PendingEvents returns up to limit unpublished events, oldest first.
	PendingEvents(ctx context.Context, limit int) ([]Event, error)
	// MarkPublished removes the events from the outbox once the bus has
	// acknowledged them. Marking an absent event is not an error.
	MarkPublished(ctx context.Context, ids []ID) error
	// AcquireLease takes or renews the lease `name` for holder until now+ttl and
	// reports whether holder has it. One relay per store holds the lease.
	AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error)
	// OldestPending returns the creation time of the oldest unpublished event,
	// or the zero time if none (outbox lag metric).
	OldestPending(ctx context.Context) (time.Time, error)
}

// Publisher publishes events to the bus. Publish returns only when the bus
// has durably stored every event; a republished event (same ID) is dropped by
// the bus's dedupe window or by idempotent consumers.
type Publisher interface {
	Publish(ctx context.Context, events []Event) error
}

// Handler processes one event. Returning an error asks for redelivery later.
// Handlers must be idempotent: an event may arrive more than once and out of order.
type Handler func(ctx context.Context, e Event) error

// Subscriber delivers bus events to durable, named consumers.
type Subscriber interface {
	// Subscribe starts the durable consumer `name` for the given event types
	// (all if none) and calls h for each event until ctx ends. Events are
	// acknowledged after h returns nil.
	Subscribe(ctx context.Context, name string, types []EventType, h Handler) error
}
