package relay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"sparrow"
)

// LeaseName is the name of the lease that a relay holds on each store.
const LeaseName = "relay"

// Defaults of Options.
const (
	DefaultBatch    = 256
	DefaultInterval = 200 * time.Millisecond
	DefaultLeaseTTL = 10 * time.Second
)

// Options tunes a Relay. The zero value of every field selects its default.
type Options struct {
	// Holder identifies this process in the leases; it must be unique among
	// the relays sharing the stores. Default: hostname/pid/random.
	Holder string
	// Batch is the maximum number of events read and published at once
	// (DefaultBatch).
	Batch int
	// Interval is how often an idle relay polls its outbox when nothing
	// pokes it (DefaultInterval).
	Interval time.Duration
	// LeaseTTL is how long a lease lasts without renewal (DefaultLeaseTTL).
	// The holder renews it every LeaseTTL/3, and the relays without it try
	// to take it as often. It bounds how long the stores' events wait when
	// their relay's process dies.
	LeaseTTL time.Duration
	// Clock tells the time of the leases and of the lag metric
	// (sparrow.SystemClock if nil).
	Clock sparrow.Clock
	// Logger receives lease changes and errors (slog.Default() if nil).
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Holder == "" {
		o.Holder = defaultHolder()
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.Clock == nil {
		o.Clock = sparrow.SystemClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// defaultHolder returns an id unique to this process.
func defaultHolder() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Relay moves the events of a set of outboxes to a publisher: one loop per
// outbox, each publishing only while it holds the outbox's lease. It is safe
// for concurrent use; Run it once.
type Relay struct {
	pub     sparrow.Publisher
	opts    Options
	log     *slog.Logger
	loops   []*loop
	metrics *metrics
	running atomic.Bool

	// pause holds batches back: relayBatch runs under its read lock and
	// publishes nothing while paused is set; Pause takes the write lock, so
	// it returns once the batches in flight are done.
	pause  sync.RWMutex
	paused bool
}

// Pause stops publishing: it returns once the batches in flight are
// published, and no batch starts until Resume. Writers go on committing
// their events to the outboxes, where they wait; the leases are still
// renewed. It is for maintenance of the bus, and for tests that show what
// the system does while events do not flow.
func (r *Relay) Pause() {
	r.pause.Lock()
	r.paused = true
	r.pause.Unlock()
}

// Resume undoes Pause and wakes the loops up.
func (r *Relay) Resume() {
	r.pause.Lock()
	r.paused = false
	r.pause.Unlock()
	r.Poke()
}

// New returns a relay from outboxes to pub. Each outbox's Name must be
// unique: it names the store in logs and metrics.
func New(outboxes []sparrow.Outbox, pub sparrow.Publisher, opts Options) *Relay {
	opts = opts.withDefaults()
	r := &Relay{
		pub:  pub,
		opts: opts,
		log:  opts.Logger.With("component", "relay", "holder", opts.Holder),
	}
	r.metrics = newMetrics(r)
	for _, ob := range outboxes {
		r.loops = append(r.loops, &loop{
			r:    r,
			ob:   ob,
			name: ob.Name(),
			poke: make(chan struct{}, 1),
			log:  r.log.With("store", ob.Name()),
		})
	}
	return r
}

// Holder returns the id under which r takes the leases.
func (r *Relay) Holder() string { return r.opts.Holder }

// Run relays events until ctx ends, then returns nil once every loop has
// stopped. Errors (of the stores, of the bus) are logged and retried after a
// short pause, never dropped, so Run fails only if misused: without
// publisher, or while it already runs.
//
// When ctx ends in the middle of a batch, the batch stays pending; whichever
// relay holds the lease next publishes it again (the bus drops the
// duplicates). The lease is not released: the other relays take over once it
// expires, within LeaseTTL.
func (r *Relay) Run(ctx context.Context) error {
	if r.pub == nil {
		return sparrow.Errorf(sparrow.EInternal, "relay: no publisher")
	}
	if !r.running.CompareAndSwap(false, true) {
		return sparrow.Errorf(sparrow.EInternal, "relay: already running")
	}
	defer r.running.Store(false)
	r.log.Info("relay: started", "stores", len(r.loops))
	var wg sync.WaitGroup
	for _, l := range r.loops {
		wg.Go(func() { l.run(ctx) })
	}
	wg.Wait()
	r.log.Info("relay: stopped")
	return nil
}

// Poke wakes every idle loop up to look for new events now rather than at
// its next poll. It never blocks: writers call it after each commit so that
// events reach the bus within milliseconds. Pokes before Run are kept.
func (r *Relay) Poke() {
	for _, l := range r.loops {
		select {
		case l.poke <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}
