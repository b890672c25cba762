package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"sparrow"
	"sparrow/app"
	"sparrow/sqlite"
)

// addServerFlags declares the settings shared by serve and the admin commands.
func addServerFlags(cmd *cobra.Command, c *app.Config) {
	f := cmd.Flags()
	f.String("config", "", "config file of `name = value` lines")
	f.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "listen address")
	f.StringVar(&c.DataDir, "data", "./data", "data directory (embedded SQLite shards, NATS store)")
	f.StringVar(&c.Shards, "shards", "", "shard map RANGE=DSN,… (sqlite:FILE or mysql://user:pass@host:port/db); default: four SQLite files under --data")
	f.StringVar(&c.RedisURL, "redis-url", "", "Redis URL for caches and rate limits (default: in-process)")
	f.StringVar(&c.RedisPrefix, "redis-prefix", "sparrow:", "prefix of every Redis key")
	f.StringVar(&c.NATSURL, "nats-url", "", "external NATS JetStream URL (default: embedded server)")
	f.StringVar(&c.Stream, "stream", "SPARROW", "JetStream stream name")
	f.IntVar(&c.Node, "node", 0, "node number of this process, unique among processes (0-63)")
	f.StringVar(&c.Domain, "domain", "", "domain of this instance (default: --addr)")
	f.StringVar(&c.BaseURL, "base-url", "", "external base URL (default: http://ADDR)")
	f.StringVar(&c.Title, "title", "Sparrow", "instance title")
	f.IntVar(&c.MaxChars, "max-chars", sparrow.DefaultMaxChars, "maximum status length in Unicode code points")
	f.IntVar(&c.BcryptCost, "bcrypt-cost", 10, "bcrypt cost of password hashes")
	f.IntVar(&c.HotThreshold, "hot-threshold", sparrow.DefaultHotThreshold, "followers at which an account turns hot (ordinary again below 90%)")
	f.StringVar(&c.FeedMode, "feed-mode", "hybrid", "home feed: hybrid (push ordinary authors, pull hot ones), push or pull")
	f.IntVar(&c.InboxCap, "inbox-cap", sparrow.DefaultInboxCap, "status ids kept per home inbox (older pages come from the profile feeds)")
	f.IntVar(&c.RecentCap, "recent-cap", sparrow.DefaultRecentCap, "status ids kept per hot author's recent list")
	f.IntVar(&c.ActiveDays, "active-days", sparrow.DefaultActiveDays, "users seen within this many days get pushes; others are rebuilt by pull on return")
	f.DurationVar(&c.SweepInterval, "sweep-interval", sparrow.DefaultSweepInterval, "how often the sweeper drops inactive inboxes and cools former hot authors")
	f.IntVar(&c.CommentPageSize, "comment-page-size", sparrow.DefaultCommentPageSize, "statuses per fixed comment page (the page index of docs/seeds.md#seed-001)")
	f.IntVar(&c.SQLiteMemoryMiB, "sqlite-memory-mib", sqlite.HeapLimit>>20, "soft limit on SQLite's memory (page caches, statements) for all embedded stores, MiB")
	f.StringVar(&c.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
}

func newLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: %w", level, err)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})), nil
}

func serveCmd() *cobra.Command {
	var c app.Config
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the Mastodon API (embedded SQLite + NATS by default)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnvAndFile(cmd); err != nil {
				return err
			}
			logger, err := newLogger(c.LogLevel)
			if err != nil {
				return err
			}
			slog.SetDefault(logger) // what the store openers log (circuit breakers) goes here too
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			a, err := app.Open(ctx, c, logger)
			if err != nil {
				return err
			}
			defer a.Close()
			ln, err := net.Listen("tcp", a.Config.Addr)
			if err != nil {
				return err
			}
			logger.Info("sparrow serving", "addr", ln.Addr().String(), "shards", app.Redact(a.Config.Shards), "nats", app.Redact(orDefault(a.Config.NATSURL, "embedded")),
				"redis", app.Redact(orDefault(a.Config.RedisURL, "in-process")))
			errc := make(chan error, 1)
			go func() { errc <- a.Serve(ln) }()
			select {
			case err := <-errc:
				return err
			case <-ctx.Done():
				logger.Info("shutting down")
				return a.Close()
			}
		},
	}
	addServerFlags(cmd, &c)
	return cmd
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func versionCmd() *cobra.Command {
	return &cobra.Command{Use: "version", Short: "Print the version", Args: cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) { fmt.Println("sparrow", app.Version) }}
}
