package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"sparrow"
	"sparrow/app"
	"sparrow/bench"
	"sparrow/nats"
	"sparrow/sqlstore"
	"sparrow/sqlstore/bulk"
)

// soakOptions are the flags of `sparrow bench soak`.
type soakOptions struct {
	// suite holds the settings shared with `bench run`: preset and data
	// set, --out, --data, --keep, --quiet, the services of the mariadb
	// backend, --target and --accounts.
	suite       suiteOptions
	backend     string
	feedMode    string
	serverFlags []string
	load        bench.SoakConfig
	logf        func(format string, args ...any) // phase log, nil when quiet
}

// Defaults of `bench soak`.
const (
	soakDefaultWarmup    = 2 * time.Minute
	soakWarmupShare      = 5 // default warm-up: at most a fifth of --duration
	soakHealthTimeout    = 2 * time.Minute
	soakServerStopGrace  = 20 * time.Second
	soakServerLogName    = "server.log"
	soakDefaultOutputDir = "soak-out"
)

func benchSoakCmd() *cobra.Command {
	var o soakOptions
	cmd := &cobra.Command{
		Use:   "soak",
		Short: "Sustained load on a server in its own process: does its memory stay flat?",
		Long: `soak generates and loads a data set as 'bench run' does, starts a server on it
in a child process (this binary's serve), activates the active users, measures
the capacity of the mixed workload closed loop (--capacity-duration, --clients),
then runs the mixed workload open loop at --rate (default: half the capacity)
for --duration, with coordinated-omission correction.

Every --interval it samples the server's /metrics (RSS, Go heap in use,
goroutines) and the driver's window (requests, errors, req/s, p50, p99 from a
fresh histogram), printed to stderr as it goes. --out gets soak.json (settings,
capacity, rate, every sample), soak.md (RSS at the end of the warm-up, min, max,
at the end, its slope in MB/hour after the warm-up, goroutines, p99, errors),
soak.svg, and server.log (the server's output).

With --target URL --accounts FILE it drives a running server instead (no data
set, no child process).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.suite.applyPreset(cmd.Flags()); err != nil {
				return err
			}
			if !cmd.Flags().Changed("warmup") {
				o.load.Warmup = min(soakDefaultWarmup, o.load.Duration/soakWarmupShare)
			}
			if err := o.validate(); err != nil {
				return err
			}
			o.logf = o.suite.logf(cmd.ErrOrStderr(), "soak")
			ctx, stopSignals := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stopSignals()
			go func() { <-ctx.Done(); stopSignals() }() // a second Ctrl-C ends the bench at once
			if err := os.MkdirAll(o.suite.out, 0o755); err != nil {
				return err
			}
			if o.suite.target != "" {
				return runSoakTarget(ctx, cmd, &o)
			}
			return runSoakChild(ctx, cmd, &o)
		},
	}
	f := cmd.Flags()
	s := &o.suite
	addDatasetFlags(f, s)
	f.StringVar(&o.backend, "backend", "embedded", "backend: embedded, or mariadb (MariaDB + Redis + NATS, a fresh database pair, prefix and stream, removed afterwards)")
	f.StringVar(&o.feedMode, "feed-mode", "hybrid", "the server's feed mode: hybrid, push or pull")
	f.StringArrayVar(&o.serverFlags, "server-flag", nil, "extra flag of the server process, e.g. --server-flag=--inbox-cap=400 (repeatable)")
	f.IntVar(&o.load.Clients, "clients", 16, "closed-loop workers of the activation and the capacity run")
	f.DurationVar(&o.load.CapacityDuration, "capacity-duration", 15*time.Second, "closed-loop capacity run before the soak (0: none; needs --rate)")
	f.Float64Var(&o.load.Rate, "rate", 0, "open-loop rate in requests/s (default: half the measured capacity)")
	f.IntVar(&o.load.Inflight, "inflight", 0, "open-loop requests in flight at most (default: 4 × --clients)")
	f.DurationVar(&o.load.Duration, "duration", 30*time.Minute, "open-loop duration")
	f.DurationVar(&o.load.Interval, "interval", 10*time.Second, "sampling interval")
	f.DurationVar(&o.load.Warmup, "warmup", soakDefaultWarmup, "start of the open loop left out of the steady-state summary (default: 2m, or a fifth of --duration if shorter)")
	f.DurationVar(&o.load.Cooldown, "cooldown", 0, "keep sampling the idle server this long after the open loop")
	f.StringVar(&s.out, "out", soakDefaultOutputDir, "directory for soak.json, soak.md, soak.svg and server.log")
	f.BoolVar(&s.keep, "keep", false, "keep the stores (embedded files, MariaDB databases) and write accounts.csv")
	f.BoolVar(&s.quiet, "quiet", false, "no progress bars, phase log or sample lines")
	addServiceFlags(f, s)
	return cmd
}

// validate checks the settings before anything is created.
func (o *soakOptions) validate() error {
	l := o.load
	switch {
	case l.Duration <= 0 || l.Interval <= 0:
		return fmt.Errorf("--duration and --interval must be positive")
	case l.Warmup < 0 || l.Cooldown < 0 || l.CapacityDuration < 0:
		return fmt.Errorf("--warmup, --cooldown and --capacity-duration cannot be negative")
	case l.CapacityDuration == 0 && l.Rate <= 0:
		return fmt.Errorf("--capacity-duration 0 needs a --rate")
	case l.Clients < 1:
		return fmt.Errorf("--clients must be at least 1")
	case o.suite.target != "" && o.suite.accounts == "":
		return fmt.Errorf("--target needs --accounts FILE")
	case o.backend != "embedded" && o.backend != "mariadb":
		return fmt.Errorf("unknown backend %q (embedded, mariadb)", o.backend)
	case o.feedMode != "hybrid" && o.feedMode != "push" && o.feedMode != "pull":
		return fmt.Errorf("feed mode %q: want hybrid, push or pull", o.feedMode)
	}
	return nil
}

// config describes the run for soak.json.
func (o *soakOptions) config() map[string]any {
	l := o.load
	inflight := l.Inflight
	if inflight <= 0 {
		inflight = 4 * l.Clients // DriveSoak's default
	}
	return map[string]any{"clients": l.Clients, "capacity_duration": l.CapacityDuration.String(), "rate_flag": l.Rate,
		"inflight": inflight, "duration": l.Duration.String(), "interval": l.Interval.String(),
		"warmup": l.Warmup.String(), "cooldown": l.Cooldown.String()}
}

// sampleLine prints each sample to w as it is taken (nothing when quiet).
func (o *soakOptions) sampleLine(w io.Writer) func(bench.SoakSample) {
	if o.suite.quiet {
		return nil
	}
	mb := func(v float64) string {
		if v < 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f MB", v/1e6)
	}
	return func(s bench.SoakSample) {
		fmt.Fprintf(w, "[soak %8s %-8s] rss %9s  heap %9s  goroutines %5.0f | %7d req %7.0f/s  %4d err  p50 %7.2f ms  p99 %8.2f ms\n",
			time.Duration(s.T*float64(time.Second)).Round(time.Second), s.Phase, mb(s.Server.RSS), mb(s.Server.HeapInuse), s.Server.Goroutines,
			s.Requests, s.RPS, s.Errors, s.P50, s.P99)
	}
}

// runSoakChild generates and loads the data set into fresh stores of
// --backend, serves them from a child process and soaks it; the child, the
// stores, the Redis prefix and the NATS stream are removed at the end
// (stores kept with --keep), on an error or an interrupt too.
func runSoakChild(ctx context.Context, cmd *cobra.Command, o *soakOptions) (err error) {
	errw := cmd.ErrOrStderr()
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("soak: this binary: %w", err)
	}
	t0 := time.Now()
	d, err := soakGenerate(o, errw)
	if err != nil {
		return err
	}
	dataset := suiteDatasetSummary(d, time.Since(t0))

	dir := o.suite.dataDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "sparrow-soak-"+o.backend+"-"); err != nil {
			return fmt.Errorf("soak: %w", err)
		}
	} else {
		dir = filepath.Join(dir, o.backend)
	}
	c, cleanup, err := backendConfig(o.backend, dir, o.suite.mysqlURL, o.suite.redisURL, o.suite.natsURL)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, soakCleanup(c, dir, cleanup, o.suite.keep)) }()
	if c.Shards == "" {
		c.Shards = app.DefaultShards(dir) // what serve derives from --data
	}
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	if o.logf != nil {
		o.logf("loading %d accounts, %d follows, %d statuses into %s", len(d.IDs), d.Edges(), d.StatusCount(), app.Redact(c.Shards))
	}
	users, err := soakLoad(ctx, o, c, d, errw)
	if err != nil {
		return err
	}
	if o.suite.keep {
		if err = bench.WriteAccountsCSV(filepath.Join(o.suite.out, "accounts.csv"), users); err != nil {
			return fmt.Errorf("soak: %w", err)
		}
	}

	args := soakServeArgs(o, c, dir, d.Config.HotAt)
	logPath := filepath.Join(o.suite.out, soakServerLogName)
	os.Remove(logPath) // the log of this run only
	p, err := startServerProcess(ctx, bin, args, logPath, soakHealthTimeout)
	if err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	defer p.stop(soakServerStopGrace)
	if o.logf != nil {
		o.logf("server process %d serving at %s (log: %s)", p.cmd.Process.Pid, p.base, logPath)
	}

	var readers []bench.User
	for _, u := range users {
		if u.Role == bench.RoleActive {
			readers = append(readers, u)
		}
	}
	sctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	p.watch(done, cancel)
	r, runErr := bench.DriveSoak(sctx, p.base, readers, d.IDs[:d.Config.Users], o.soakConfig(errw))
	close(done)
	if cause := context.Cause(sctx); errors.Is(cause, errServerExited) {
		runErr = cause
	} else {
		runErr = interrupted(ctx, runErr)
	}
	cancel(nil)
	if note := p.stop(soakServerStopGrace); note != "" {
		r.Notes = append(r.Notes, note)
	}
	r.Notes = append(r.Notes, fmt.Sprintf("The server ran in its own process (`%s serve %s`), its output in %s; the load driver shared the machine.",
		filepath.Base(bin), app.Redact(strings.Join(args, " ")), soakServerLogName))
	cfg := o.config()
	cfg["preset"], cfg["backend"], cfg["feed_mode"], cfg["dataset"] = o.suite.preset, o.backend, o.feedMode, dataset
	cfg["stores"] = map[string]any{"shards": app.Redact(c.Shards), "redis_prefix": c.RedisPrefix, "stream": c.Stream, "kept": o.suite.keep}
	if len(o.serverFlags) > 0 {
		cfg["server_flags"] = o.serverFlags
	}
	return o.finish(cmd, r, cfg, runErr)
}

// soakConfig is the load of bench.DriveSoak with the log and sample lines.
func (o *soakOptions) soakConfig(errw io.Writer) bench.SoakConfig {
	cfg := o.load
	cfg.Logf, cfg.OnSample = o.logf, o.sampleLine(errw)
	return cfg
}

// soakGenerate draws the data set of the preset and flags.
func soakGenerate(o *soakOptions, errw io.Writer) (*bench.Dataset, error) {
	var bar bench.Bar
	if nb := o.suite.bar(errw); nb != nil {
		bar = nb("generate follow graph", int64(float64(o.suite.data.Users)*o.suite.data.MeanFollowing))
		defer bar.Done()
	}
	d, err := bench.GenerateDataset(o.suite.data, time.Now(), func(int64) {
		if bar != nil {
			bar.Add(1 << 16)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	return d, nil
}

// soakLoad loads d into the stores of c through the bulk paths (no server
// running) and returns the driven accounts with their tokens.
func soakLoad(ctx context.Context, o *soakOptions, c app.Config, d *bench.Dataset, errw io.Writer) ([]bench.User, error) {
	shards, err := sqlstore.OpenShards(ctx, c.Shards, app.BulkOpeners)
	if err != nil {
		return nil, fmt.Errorf("soak: open the stores: %w", err)
	}
	defer shards.Close()
	users, _, err := bench.LoadDataset(ctx, sqlstore.New(shards), d, bench.LoadOptions{Bulk: bulk.Options{Relaxed: true, Writers: 4}, Bar: o.suite.bar(errw)})
	if err != nil {
		return nil, fmt.Errorf("soak: load: %w", err)
	}
	return users, nil
}

// soakServeArgs are the serve flags (but --addr) of the server on the
// stores of c: --data, the hot threshold the data set was loaded with, the
// feed mode, and for an external backend its shards, Redis and NATS.
func soakServeArgs(o *soakOptions, c app.Config, dir string, hotAt int64) []string {
	args := []string{"--data", dir, "--hot-threshold", fmt.Sprint(hotAt), "--feed-mode", o.feedMode, "--log-level", "warn"}
	if c.NATSURL != "" {
		args = append(args, "--shards", c.Shards, "--redis-url", c.RedisURL, "--redis-prefix", c.RedisPrefix,
			"--nats-url", c.NATSURL, "--stream", c.Stream)
	}
	return append(args, o.serverFlags...)
}

// soakCleanup removes what the run created on shared services (the NATS
// streams, the Redis prefix) and, unless keep, the stores and dir.
func soakCleanup(c app.Config, dir string, dropStores func(), keep bool) error {
	var errs []error
	if c.NATSURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if b, err := nats.Open(ctx, nats.Config{URL: c.NATSURL, Stream: c.Stream}); err != nil {
			errs = append(errs, fmt.Errorf("soak: delete stream %s: %w", c.Stream, err))
		} else {
			if err := b.DeleteStreams(ctx); err != nil {
				errs = append(errs, fmt.Errorf("soak: %w", err))
			}
			b.Close()
		}
	}
	if c.RedisURL != "" {
		bench.FlushRedisPrefix(c.RedisURL, c.RedisPrefix)
	}
	if !keep {
		dropStores()
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("soak: %w", err))
		}
	}
	return errors.Join(errs...)
}

// runSoakTarget soaks a running server with the accounts of --accounts:
// active accounts read and post, and are the targets.
func runSoakTarget(ctx context.Context, cmd *cobra.Command, o *soakOptions) error {
	f, err := os.Open(o.suite.accounts)
	if err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	users, err := bench.ReadAccountsCSV(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("soak: %s: %w", o.suite.accounts, err)
	}
	var readers []bench.User
	var targets []sparrow.ID
	for _, u := range users {
		if u.Role == bench.RoleActive {
			readers, targets = append(readers, u), append(targets, u.ID)
		}
	}
	r, runErr := bench.DriveSoak(ctx, o.suite.target, readers, targets, o.soakConfig(cmd.ErrOrStderr()))
	runErr = interrupted(ctx, runErr)
	cfg := o.config()
	cfg["target"], cfg["accounts_file"], cfg["accounts"] = o.suite.target, o.suite.accounts, len(users)
	return o.finish(cmd, r, cfg, runErr)
}

// interrupted says so of err if ctx, the command's, was cancelled (Ctrl-C,
// SIGTERM).
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	return err
}

// finish completes the report, writes its files into --out (a failed run
// too, with what it measured) and prints the summary.
func (o *soakOptions) finish(cmd *cobra.Command, r *bench.SoakReport, cfg map[string]any, runErr error) error {
	r.Machine, r.Date, r.Config = machine(), time.Now().UTC().Format(time.RFC3339), cfg
	r.Command = "sparrow bench " + strings.Join(os.Args[min(2, len(os.Args)):], " ")
	if runErr != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("FAILED: %v (the results are partial)", runErr))
	}
	if err := r.WriteFiles(o.suite.out); err != nil {
		return errors.Join(runErr, err)
	}
	r.Markdown(cmd.OutOrStdout())
	fmt.Fprintf(cmd.OutOrStdout(), "\nreport: %s\n", filepath.Join(o.suite.out, bench.SoakMD))
	return runErr
}
