package nats

import (
	"context"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"sparrow"
)

// Bus is the JetStream event bus. It is safe for concurrent use. Close it to
// stop its consumers and release the connection (and the embedded server).
type Bus struct {
	cfg    Config
	prefix string // subject prefix, e.g. "sparrow.ev"
	log    *slog.Logger
	srv    *server.Server // embedded server, nil in external mode
	nc     *natsgo.Conn
	js     jetstream.JetStream

	ctx    context.Context // ends at Close; parent of every consumer loop
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	loops  sync.WaitGroup // consumer loops

	dead *prometheus.CounterVec // dead letters, by consumer
}

var (
	_ sparrow.Publisher  = (*Bus)(nil)
	_ sparrow.Subscriber = (*Bus)(nil)
)

// closeTimeout bounds the drain of the connection at Close.
const closeTimeout = 10 * time.Second

// The liveness check of the connection (see Open).
const (
	pingInterval = 5 * time.Second
	maxPingsOut  = 2
)

// Open connects to the bus (starting the embedded server if cfg.URL is empty)
// and creates or updates the stream. Errors are EInvalid for a bad Config and
// EUnavailable when the server cannot be reached or refuses the stream.
func Open(ctx context.Context, cfg Config) (*Bus, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	log := cfg.Logger.With("component", "nats", "stream", cfg.Stream)

	b := &Bus{cfg: cfg, prefix: subjectPrefix(cfg.Stream), log: log, dead: newDeadCounter()}
	opts := []natsgo.Option{
		natsgo.Name("sparrow"),
		natsgo.MaxReconnects(-1),
		natsgo.ReconnectWait(time.Second),
		// A server that stops answering (a wedged process, a frozen network)
		// is noticed within PingInterval × (MaxPingsOut + 1), not the
		// client's default of minutes, and the client reconnects.
		natsgo.PingInterval(pingInterval),
		natsgo.MaxPingsOutstanding(maxPingsOut),
		natsgo.DisconnectErrHandler(func(_ *natsgo.Conn, err error) {
			if err != nil {
				log.Warn("nats: disconnected", "err", err)
			}
		}),
		natsgo.ReconnectHandler(func(nc *natsgo.Conn) {
			log.Info("nats: reconnected", "url", nc.ConnectedUrlRedacted())
		}),
		natsgo.ErrorHandler(func(_ *natsgo.Conn, sub *natsgo.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			log.Warn("nats: async error", "subject", subject, "err", err)
		}),
	}
	serverURL := cfg.URL
	if serverURL == "" {
		b.srv, err = startEmbedded(cfg.DataDir, log.With("server", "embedded"))
		if err != nil {
			return nil, err
		}
		serverURL = b.srv.ClientURL() // informational: InProcessServer bypasses it
		opts = append(opts, natsgo.InProcessServer(b.srv))
	}

	// From here on, both modes are the same.
	b.nc, err = natsgo.Connect(serverURL, opts...)
	if err != nil {
		b.shutdownServer()
		return nil, sparrow.WrapError(sparrow.EUnavailable, err, "nats: connect to %s", redact(cfg.URL))
	}
	b.js, err = jetstream.New(b.nc,
		jetstream.WithPublishAsyncMaxPending(maxPendingPublishes),
		jetstream.WithPublishAsyncTimeout(cfg.PublishTimeout),
	)
	if err != nil {
		b.nc.Close()
		b.shutdownServer()
		return nil, sparrow.WrapError(sparrow.EInternal, err, "nats: jetstream context")
	}
	for _, ensure := range []func(context.Context) error{b.ensureStream, b.ensureDeadStream} {
		if err := ensure(ctx); err != nil {
			b.nc.Close()
			b.shutdownServer()
			return nil, err
		}
	}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	log.Debug("nats: bus open", "embedded", b.srv != nil, "server_version", b.nc.ConnectedServerVersion())
	return b, nil
}

// ensureStream creates the stream or updates its configuration to cfg's.
func (b *Bus) ensureStream(ctx context.Context) error {
	_, err := b.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        b.cfg.Stream,
		Description: "Sparrow domain events",
		Subjects:    []string{b.prefix + ".>"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Discard:     jetstream.DiscardOld,
		MaxAge:      b.cfg.MaxAge,
		Duplicates:  b.cfg.DupWindow,
		Replicas:    1,
	})
	if err != nil {
		return sparrow.WrapError(sparrow.EUnavailable, err, "nats: create or update stream %s", b.cfg.Stream)
	}
	return nil
}

// Stream returns the name of the bus's stream.
func (b *Bus) Stream() string { return b.cfg.Stream }

// Subject returns the subject on which events of type t are published.
func (b *Bus) Subject(t sparrow.EventType) string { return b.prefix + "." + string(t) }

// StoredEvents returns how many events the stream holds (duplicates
// excluded), for diagnostics and tests.
func (b *Bus) StoredEvents(ctx context.Context) (uint64, error) {
	s, err := b.js.Stream(ctx, b.cfg.Stream)
	if err != nil {
		return 0, sparrow.WrapError(sparrow.EUnavailable, err, "nats: stream %s", b.cfg.Stream)
	}
	return s.CachedInfo().State.Msgs, nil
}

// Ping checks that the server answers and that the stream exists. It returns
// an EUnavailable error otherwise.
func (b *Bus) Ping(ctx context.Context) error {
	if b.isClosed() {
		return errClosed
	}
	ctx, cancel := withDefaultTimeout(ctx, b.cfg.PublishTimeout)
	defer cancel()
	if err := b.nc.FlushWithContext(ctx); err != nil {
		return sparrow.WrapError(sparrow.EUnavailable, err, "nats: ping")
	}
	if _, err := b.js.Stream(ctx, b.cfg.Stream); err != nil {
		return sparrow.WrapError(sparrow.EUnavailable, err, "nats: stream %s", b.cfg.Stream)
	}
	return nil
}

// Close stops every consumer started by Subscribe (waiting for the handlers
// in progress to return; events fetched but not yet handled are given back to
// the server), drains the connection and shuts the embedded server down. It is
// idempotent; calls other than the first return nil.
func (b *Bus) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.mu.Unlock()

	b.cancel()
	b.loops.Wait()

	// Drain unsubscribes everything, flushes and closes, so that the server
	// forgets this connection's pull requests before Close returns.
	var err error
	done := make(chan struct{})
	b.nc.SetClosedHandler(func(*natsgo.Conn) { close(done) })
	if derr := b.nc.Drain(); derr != nil {
		b.nc.Close()
	} else {
		select {
		case <-done:
		case <-time.After(closeTimeout):
			err = sparrow.Errorf(sparrow.EUnavailable, "nats: drain timed out after %v", closeTimeout)
			b.nc.Close()
		}
	}
	b.shutdownServer()
	return err
}

func (b *Bus) shutdownServer() {
	if b.srv != nil {
		b.srv.Shutdown()
		b.srv.WaitForShutdown()
	}
}

var errClosed = sparrow.Errorf(sparrow.EUnavailable, "nats: bus closed")

func (b *Bus) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// withDefaultTimeout returns ctx bounded by d if it has no deadline.
func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// redact names a server URL for error messages, without its credentials.
func redact(raw string) string {
	if raw == "" {
		return "the embedded server"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "the configured server"
	}
	return u.Redacted()
}
