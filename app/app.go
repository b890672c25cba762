package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	stdhttp "net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"sparrow"
	"sparrow/http"
	"sparrow/inmem"
	"sparrow/mysql"
	"sparrow/nats"
	"sparrow/redis"
	"sparrow/relay"
	"sparrow/service"
	"sparrow/sqlite"
	"sparrow/sqlstore"
	"sparrow/stream"
)

// Version is Sparrow's version.
const Version = "0.1.0"

// App is a running Sparrow server.
type App struct {
	Config   Config
	Logger   *slog.Logger
	Store    *sqlstore.Store
	Bus      *nats.Bus
	Relay    *relay.Relay
	Services *service.Services
	Registry *prometheus.Registry
	IDs      *sparrow.IDGen

	redis   *redis.Client
	cache   sparrow.KV  // the cache tier's byte cache (derived data)
	streams *stream.Hub // the streaming API's hub (wire_stream.go)
	http    *stdhttp.Server
	handler stdhttp.Handler
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	stats   atomic.Pointer[[2]int64]
	closeMu sync.Once
}

// Openers are the store schemes Sparrow knows.
var Openers = map[string]sqlstore.Opener{"sqlite": sqlite.Open, "mysql": mysql.Open}

// BulkIOTimeout is the I/O timeout of the stores that bulk tools open
// (BulkOpeners): their statements load or scan millions of rows, far longer
// than a request may wait (mysql.IOTimeout).
const BulkIOTimeout = 10 * time.Minute

// BulkOpeners are Openers for the bulk tools (the admin commands: import
// and check; the loaders of bench run and bench soak): MySQL stores get
// io_timeout=BulkIOTimeout unless their DSN sets one.
var BulkOpeners = map[string]sqlstore.Opener{
	"sqlite": sqlite.Open,
	"mysql": func(ctx context.Context, dsn string) (*sqlstore.DB, error) {
		if !strings.Contains(dsn, "io_timeout=") {
			sep := "?"
			if strings.Contains(dsn, "?") {
				sep = "&"
			}
			dsn += sep + "io_timeout=" + BulkIOTimeout.String()
		}
		return mysql.Open(ctx, dsn)
	},
}

// Open builds every component from c and starts the background workers (the
// outbox relay, the statistics refresher). It does not listen yet: call Serve.
func Open(ctx context.Context, c Config, logger *slog.Logger) (*App, error) {
	c, err := c.withDefaults()
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EInvalid, err, "%v", err)
	}
	sqlite.SetHeapLimit(int64(c.SQLiteMemoryMiB) << 20)
	if logger == nil {
		logger = slog.Default()
	}
	a := &App{Config: c, Logger: logger, Registry: prometheus.NewRegistry(), IDs: sparrow.NewIDGen(c.Node, nil)}
	a.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	if err = os.MkdirAll(c.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	shards, err := sqlstore.OpenShards(ctx, c.Shards, Openers)
	if err != nil {
		return nil, err
	}
	a.Store = sqlstore.New(shards, a.IDs)
	if err = registerStoreMetrics(a.Registry, shards.DBs()); err != nil {
		return nil, err
	}
	a.Bus, err = nats.Open(ctx, nats.Config{URL: c.NATSURL, DataDir: filepath.Join(c.DataDir, "nats"), Stream: c.Stream, Logger: logger})
	if err != nil {
		return nil, err
	}
	if err = a.Bus.Register(a.Registry); err != nil {
		return nil, err
	}
	var limiter sparrow.Limiter
	var cache sparrow.KV
	var inboxes sparrow.InboxStore
	var recent sparrow.RecentLists
	var activity sparrow.Activity
	if c.RedisURL != "" {
		if a.redis, err = redis.Open(ctx, c.RedisURL); err != nil {
			return nil, err
		}
		if err = a.Registry.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sparrow_redis_up",
			Help: "Circuit state of Redis: 1 closed, 0.5 half open, 0 open."}, a.redis.Up)); err != nil {
			return nil, err
		}
		limiter = &inmem.FallbackLimiter{Primary: a.redis.Limiter(c.RedisPrefix), Local: inmem.NewLimiter(inmem.Options{}), Log: logger}
		cache = a.redis.KV(c.RedisPrefix)
		inboxes, recent = a.redis.Inboxes(c.RedisPrefix, c.InboxCap), a.redis.RecentLists(c.RedisPrefix, c.RecentCap)
		activity = a.redis.Activity(c.RedisPrefix)
	} else {
		kv := inmem.NewKV(inmem.Options{})
		if err = registerLocalCacheMetrics(a.Registry, kv); err != nil {
			return nil, err
		}
		limiter, cache = inmem.NewLimiter(inmem.Options{}), kv
		fo := inmem.FeedOptions{InboxCap: c.InboxCap, RecentCap: c.RecentCap}
		inboxes, recent, activity = inmem.NewInboxes(fo), inmem.NewRecentLists(fo), inmem.NewActivity(fo)
	}
	a.cache = cache
	a.Services = service.New(service.Deps{
		Accounts: a.Store, Statuses: a.Store, Auth: a.Store, Relations: a.Store, Limiter: limiter, Cache: cache, IDs: a.IDs,
		Inboxes: inboxes, Recent: recent, Activity: activity, Notifications: a.streamNotifications(a.Store), KeyedFeeds: a.Store, References: a.Store,
		Logger: logger,
	}, service.Config{Domain: c.Domain, MaxChars: c.MaxChars, BcryptCost: c.BcryptCost,
		FeedMode: c.FeedMode, InboxCap: c.InboxCap, RecentCap: c.RecentCap, ActiveDays: c.ActiveDays, CommentPageSize: c.CommentPageSize})
	fm, err := newFeedMetrics(a.Registry)
	if err != nil {
		return nil, err
	}
	a.Services.Feed.Observer = fm
	if a.streams, err = a.openStreams(ctx); err != nil {
		return nil, err
	}

	host, _ := os.Hostname()
	a.Relay = relay.New(a.Store.Outboxes(), a.Bus, relay.Options{
		Holder: fmt.Sprintf("%s/%d/%d", host, os.Getpid(), c.Node), Logger: logger})
	if err := a.Relay.Register(a.Registry); err != nil {
		return nil, err
	}
	shards.SetOnCommit(a.Relay.Poke)

	srv := &http.Server{
		Auth: a.Services.Auth, Accounts: a.Services.Accounts, Statuses: a.Services.Statuses, Relations: a.Services.Relations,
		Timelines: a.Services.Timelines, Notifications: a.Services.Notifications, Streams: a.streams,
		Interactions:    a.Services.Interactions,
		OnAuthenticated: func(ctx context.Context, v sparrow.Viewer) error { return a.Services.Feed.Touch(ctx, v.AccountID) },
		Instance:        a.instance, Domain: c.Domain, BaseURL: c.BaseURL, Logger: logger, Registry: a.Registry,
	}
	a.handler = srv.Handler()

	bg, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	if err := a.subscribe(bg); err != nil {
		return nil, err
	}
	flusher := &service.CounterFlusher{Store: a.Store, Stores: len(shards.DBs()), Hot: int64(c.HotThreshold),
		OnError: func(err error) { logger.Warn("counter flush", "err", err) }}
	a.wg.Add(4)
	go func() { defer a.wg.Done(); a.Relay.Run(bg) }()
	go func() { defer a.wg.Done(); a.refreshStats(bg) }()
	go func() { defer a.wg.Done(); flusher.Run(bg) }()
	go func() {
		defer a.wg.Done()
		a.Services.Feed.RunSweeper(bg, c.SweepInterval, func(err error) { logger.Warn("feed sweeper", "err", err) })
	}()
	ok = true
	return a, nil
}

// Cache returns the cache tier's byte cache (Redis or in-process): derived
// data only, which tests overwrite to show that nothing relies on it.
func (a *App) Cache() sparrow.KV { return a.cache }

// Handler returns the HTTP handler (for tests that use httptest).
func (a *App) Handler() stdhttp.Handler { return a.handler }

// maxHeaderBytes is the server's bound on a request's line and headers,
// above the API's own limits (http.MaxRequestURI, http.MaxHeaderBytes),
// which answer in JSON: past this one net/http answers 431 in plain text.
const maxHeaderBytes = 1 << 20

// Serve serves the API on ln until Close.
func (a *App) Serve(ln net.Listener) error {
	a.http = &stdhttp.Server{Handler: a.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: maxHeaderBytes}
	err := a.http.Serve(ln)
	if errors.Is(err, stdhttp.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops serving (letting requests in flight finish for a few seconds),
// stops the workers and closes every connection. It is safe to call twice.
func (a *App) Close() error {
	var err error
	a.closeMu.Do(func() {
		if a.streams != nil {
			a.streams.Close() // streams never end by themselves: end them before Shutdown
		}
		if a.http != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err = errors.Join(err, a.http.Shutdown(ctx))
			cancel()
		}
		if a.cancel != nil {
			a.cancel()
		}
		a.wg.Wait()
		if a.Services != nil {
			a.Services.Feed.Close() // the inbox rebuilds under way
		}
		if a.Bus != nil {
			err = errors.Join(err, a.Bus.Close())
		}
		if a.redis != nil {
			err = errors.Join(err, a.redis.Close())
		}
		if a.Store != nil {
			err = errors.Join(err, a.Store.Shards().Close())
		}
	})
	return err
}

// refreshStats recomputes the instance statistics every minute.
func (a *App) refreshStats(ctx context.Context) {
	for {
		if u, s, err := a.Store.SiteStats(ctx); err == nil {
			a.stats.Store(&[2]int64{u, s})
		} else if ctx.Err() == nil {
			a.Logger.Warn("site stats", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Minute):
		}
	}
}

func (a *App) instance(ctx context.Context) sparrow.Instance {
	in := sparrow.Instance{Domain: a.Config.Domain, Title: a.Config.Title, Version: Version,
		Description: "A microblog back end that speaks the Mastodon client API.",
		SourceURL:   "https://github.com/sparrow/sparrow", MaxChars: a.Config.MaxChars, Registrations: true}
	if st := a.stats.Load(); st != nil {
		in.UserCount, in.StatusCount = st[0], st[1]
	}
	return in
}
