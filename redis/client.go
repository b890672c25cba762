package redis

import (
	"context"
	"log/slog"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"sparrow"
	"sparrow/breaker"
)

// DefaultPrefix is the key prefix of production deployments.
const DefaultPrefix = "sparrow:"

// Default timeouts of a connection (see Open).
const (
	DialTimeout = time.Second
	IOTimeout   = time.Second
)

// Client is a connection pool to one Redis server. It is safe for concurrent
// use; Close it when done.
type Client struct {
	rdb     *goredis.Client
	breaker *breaker.Breaker
}

// Open connects to the Redis server at url (redis://[user:password@]host:port/db
// or rediss:// for TLS; see goredis.ParseURL for query options) and checks it
// with a PING bounded by ctx. A malformed url yields an EInvalid error; an
// unreachable or failing server an EUnavailable one. Error messages name the
// server address but never the password.
func Open(ctx context.Context, url string) (*Client, error) {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		// The parse error may quote the URL, and so a password: keep it hidden.
		return nil, sparrow.Errorf(sparrow.EInvalid, "redis: malformed URL")
	}
	// Shorter than go-redis's defaults (5 s to dial, 3 s to read): what
	// Redis holds is derived data that the stores can answer for, so a
	// request waits little for it. The URL may set its own
	// (dial_timeout, read_timeout).
	if opt.DialTimeout == 0 {
		opt.DialTimeout = DialTimeout
	}
	if opt.ReadTimeout == 0 {
		opt.ReadTimeout = IOTimeout
	}
	if opt.WriteTimeout == 0 {
		opt.WriteTimeout = IOTimeout
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = 1 // the breaker, not retries, copes with an outage
	}
	rdb := goredis.NewClient(opt)
	b := breaker.New("redis "+opt.Addr, unavailable, slog.Default())
	rdb.AddHook(breakerHook{b})
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, sparrow.WrapError(sparrow.EUnavailable, err, "redis: cannot reach %s", opt.Addr)
	}
	return &Client{rdb: rdb, breaker: b}, nil
}

// Up returns the state of the client's circuit breaker: 1 closed, 0.5 half
// open, 0 open (the sparrow_redis_up gauge).
func (c *Client) Up() float64 { return c.breaker.Up() }

// Close closes the pool. Later calls through the client, its KVs and its
// Limiters fail with EUnavailable.
func (c *Client) Close() error { return c.rdb.Close() }

// Redis returns the underlying go-redis client, for packages that need other
// Redis features. It stays owned by c: do not close it.
func (c *Client) Redis() *goredis.Client { return c.rdb }

// KV returns a sparrow.KV storing its keys under prefix+"kv:".
func (c *Client) KV(prefix string) *KV {
	return &KV{rdb: c.rdb, prefix: prefix + "kv:"}
}

// Limiter returns a sparrow.Limiter storing its counts under prefix+"rl:".
func (c *Client) Limiter(prefix string) *Limiter {
	return &Limiter{rdb: c.rdb, prefix: prefix + "rl:"}
}
