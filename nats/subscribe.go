package nats

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"sparrow"
)

// Defaults of SubOptions.
const (
	DefaultBatch         = 64
	DefaultMaxAckPending = 1024
	DefaultAckWait       = 30 * time.Second
	DefaultNakDelay      = time.Second
)

// ackTimeout bounds the acknowledgement of a handled event, and the wait for
// the server to confirm that a stopping consumer no longer pulls events.
const ackTimeout = 5 * time.Second

// SubOptions tunes a consumer. The zero value of every field selects its default.
type SubOptions struct {
	// Workers is how many events are handled concurrently (Config.Workers,
	// itself 1 by default). With one worker a consumer handles events one at a
	// time in stream order, except that an event whose handler failed comes
	// back later; with more, events are handled out of order.
	Workers int
	// Batch is how many events the consumer fetches ahead of its workers
	// (DefaultBatch, at least Workers); it pulls more when half are handled.
	// Events fetched wait for a worker: keep Batch × handler time well below
	// AckWait or they are redelivered while waiting.
	Batch int
	// AckWait is how long the server waits for an acknowledgement before
	// redelivering (DefaultAckWait). A handler that runs longer keeps its
	// event with progress reports every AckWait/2.
	AckWait time.Duration
	// MaxAckPending caps the events delivered and not yet acknowledged
	// (DefaultMaxAckPending).
	MaxAckPending int
	// NakDelay is how long after a handler error the event is redelivered
	// (DefaultNakDelay).
	NakDelay time.Duration
}

func (o SubOptions) withDefaults(workers int) SubOptions {
	if o.Workers <= 0 {
		o.Workers = workers
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	o.Batch = max(o.Batch, o.Workers)
	if o.AckWait <= 0 {
		o.AckWait = DefaultAckWait
	}
	if o.MaxAckPending <= 0 {
		o.MaxAckPending = DefaultMaxAckPending
	}
	o.MaxAckPending = max(o.MaxAckPending, o.Batch)
	if o.NakDelay <= 0 {
		o.NakDelay = DefaultNakDelay
	}
	return o
}

// Subscribe is SubscribeWith with the default SubOptions.
func (b *Bus) Subscribe(ctx context.Context, name string, types []sparrow.EventType, h sparrow.Handler) error {
	return b.SubscribeWith(ctx, name, types, h, SubOptions{})
}

// SubscribeWith creates or updates the durable pull consumer name, which
// receives the events of the given types (all if none), and starts handling
// them in the background; it returns once the consumer exists. The handling
// stops when ctx ends or the Bus is closed. A new consumer starts at the
// oldest event of the stream; an existing one resumes after the last event it
// acknowledged, wherever that was (another process, a previous run).
//
// Each event is acknowledged after h returns nil; if h returns an error (or
// panics) it is redelivered after opts.NakDelay, indefinitely; if its body is
// not an event, or h's error wraps sparrow.ErrMalformedEvent, it is set
// aside as a dead letter (deadletter.go). Events are therefore delivered at
// least once and h must be idempotent. h receives ctx (ended when the
// consumer stops). Processes that subscribe with the same name share the
// events among them.
//
// With one type the server filters the events; with several the consumer
// receives them all and acknowledges the others without calling h (a consumer
// has a single filter subject on nats-server 2.9). The types of an existing
// consumer cannot change on nats-server 2.9: delete it first (DeleteConsumer)
// or use a new name.
func (b *Bus) SubscribeWith(ctx context.Context, name string, types []sparrow.EventType, h sparrow.Handler, opts SubOptions) error {
	if b.isClosed() {
		return errClosed
	}
	if !validName(name) {
		return sparrow.Errorf(sparrow.EInvalid, "nats: invalid consumer name %q", name)
	}
	for _, t := range types {
		if !validType(t) {
			return sparrow.Errorf(sparrow.EInvalid, "nats: invalid event type %q", t)
		}
	}
	if h == nil {
		return sparrow.Errorf(sparrow.EInvalid, "nats: nil handler")
	}
	opts = opts.withDefaults(b.cfg.Workers)
	c := &consumer{
		bus:  b,
		name: name,
		h:    h,
		opts: opts,
		log:  b.log.With("consumer", name),
	}
	filter := b.prefix + ".>"
	if len(types) == 1 {
		filter = b.Subject(types[0])
	} else if len(types) > 1 {
		c.want = make(map[string]bool, len(types))
		for _, t := range types {
			c.want[b.Subject(t)] = true
		}
	}
	c.cfg = jetstream.ConsumerConfig{
		Durable:       name,
		Description:   "Sparrow consumer " + name,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       opts.AckWait,
		MaxDeliver:    -1,
		MaxAckPending: opts.MaxAckPending,
		FilterSubject: filter,
		ReplayPolicy:  jetstream.ReplayInstantPolicy,
	}
	if err := c.ensure(ctx); err != nil {
		return err
	}
	c.log.Debug("nats: consumer started", "filter", filter, "types", typesOf(types), "workers", opts.Workers)

	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return errClosed
	}
	b.loops.Add(1)
	b.mu.Unlock()

	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(b.ctx, cancel)
	go func() {
		defer b.loops.Done()
		defer cancel()
		defer stop()
		c.run(ctx)
	}()
	return nil
}

// DeleteConsumer deletes the durable consumer name. Deleting an absent
// consumer is not an error.
func (b *Bus) DeleteConsumer(ctx context.Context, name string) error {
	err := b.js.DeleteConsumer(ctx, b.cfg.Stream, name)
	if err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return sparrow.WrapError(sparrow.EUnavailable, err, "nats: delete consumer %s", name)
	}
	return nil
}

// consumer is one Subscribe: a pull loop feeding opts.Workers handlers.
type consumer struct {
	bus  *Bus
	name string
	h    sparrow.Handler
	opts SubOptions
	cfg  jetstream.ConsumerConfig
	want map[string]bool // subjects to handle; nil means all
	log  *slog.Logger

	mu   sync.Mutex
	cons jetstream.Consumer
}

// ensure creates or updates the consumer on the server.
func (c *consumer) ensure(ctx context.Context) error {
	cons, err := c.bus.js.CreateOrUpdateConsumer(ctx, c.bus.cfg.Stream, c.cfg)
	if err != nil {
		return sparrow.WrapError(sparrow.EUnavailable, err, "nats: create or update consumer %s", c.name)
	}
	c.mu.Lock()
	c.cons = cons
	c.mu.Unlock()
	return nil
}

func (c *consumer) current() jetstream.Consumer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cons
}

// Bounds of the pause after a failed fetch.
const (
	minRetry = 100 * time.Millisecond
	maxRetry = 5 * time.Second
)

// run pulls events until ctx ends, handing each to a worker. It returns
// after the workers have finished.
func (c *consumer) run(ctx context.Context) {
	work := make(chan jetstream.Msg)
	var workers sync.WaitGroup
	for range c.opts.Workers {
		workers.Go(func() {
			for m := range work {
				c.handle(ctx, m)
			}
		})
	}
	defer workers.Wait()
	defer close(work)

	retry := minRetry
	for {
		err := c.consume(ctx, work)
		if ctx.Err() != nil {
			return
		}
		c.log.Warn("nats: consumer interrupted", "err", err, "retry_in", retry)
		if !sparrow.Sleep(ctx, retry) {
			return
		}
		retry = min(2*retry, maxRetry)
		// The consumer may have been deleted (or the stream recreated):
		// setting it up again is idempotent.
		if err := c.ensure(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("nats: consumer setup failed", "err", err)
		}
	}
}

// consume iterates over the consumer's events, keeping up to opts.Batch of
// them fetched ahead, and dispatches them to the workers until ctx ends (it
// then returns nil) or the iteration fails.
func (c *consumer) consume(ctx context.Context, work chan<- jetstream.Msg) error {
	it, err := c.current().Messages(
		jetstream.PullMaxMessages(c.opts.Batch),
		jetstream.WithMessagesErrOnMissingHeartbeat(false), // the iterator re-pulls by itself
	)
	if err != nil {
		return err
	}
	defer c.giveBack(it)
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if c.want != nil && !c.want[m.Subject()] {
			_ = m.Ack() // not for us; a lost ack only means a redelivery
			continue
		}
		select {
		case work <- m:
		case <-ctx.Done():
			_ = m.Nak()
			return nil
		}
	}
}

// giveBack stops the iteration and gives the events fetched but not
// dispatched back to the server (Nak) for immediate redelivery. It returns
// once the iterator is drained. An event the server sends to the last pull
// request after that (nats-server 2.9 does not check that the request still
// has a listener) is redelivered when its AckWait expires: a stopped
// subscriber delays at most a batch of events by AckWait, and loses none.
func (c *consumer) giveBack(it jetstream.MessagesContext) {
	it.Drain()
	for {
		m, err := it.Next(jetstream.NextMaxWait(ackTimeout))
		if err != nil {
			if !errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				it.Stop()
			}
			return
		}
		_ = m.Nak()
	}
}

// handle runs the handler on m and acknowledges it accordingly.
func (c *consumer) handle(ctx context.Context, m jetstream.Msg) {
	var e sparrow.Event
	if err := json.Unmarshal(m.Data(), &e); err != nil {
		c.deadLetter(ctx, m, fmt.Errorf("%w: not an event: %v", sparrow.ErrMalformedEvent, err))
		return
	}
	if ctx.Err() != nil {
		_ = m.Nak()
		return
	}
	stop := keepAlive(m, c.opts.AckWait/2)
	err := c.call(ctx, e)
	stop()
	if malformed(err) {
		c.deadLetter(ctx, m, err)
		return
	}
	if err != nil {
		if ctx.Err() == nil {
			c.log.Warn("nats: handler failed; event will be redelivered", "event", e.ID, "type", e.Type, "err", err, "retry_in", c.opts.NakDelay)
			_ = m.NakWithDelay(c.opts.NakDelay)
		} else {
			_ = m.Nak() // stopping: let another subscriber take it now
		}
		return
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ackTimeout)
	defer cancel()
	if err := m.DoubleAck(actx); err != nil {
		c.log.Warn("nats: ack failed; event will be redelivered", "event", e.ID, "err", err)
	}
}

// call runs the handler, turning a panic into an error.
func (c *consumer) call(ctx context.Context, e sparrow.Event) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panic: %v", r)
		}
	}()
	return c.h(ctx, e)
}

// keepAlive reports progress on m every interval until stop is called, so
// that a slow handler keeps its event.
func keepAlive(m jetstream.Msg, every time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	}()
	return func() { close(done) }
}

// typesOf is the list of types of a consumer, for logs.
func typesOf(types []sparrow.EventType) string {
	s := make([]string, len(types))
	for i, t := range types {
		s[i] = string(t)
	}
	slices.Sort(s)
	return strings.Join(s, ",")
}
