package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sparrow"
	"sparrow/app"
	"sparrow/nats"
	"sparrow/sqlstore"
	"sparrow/sqlstore/bulk"
)

// SoakOptions are the settings of RunSoak (`sparrow bench soak`).
type SoakOptions struct {
	Preset      string        // name of the preset, recorded in soak.json
	Data        DatasetConfig // the data set, complete: Presets[Preset] with any overrides
	Backend     string        // embedded, or mariadb (fresh databases, Redis prefix and stream)
	FeedMode    string        // the server's: hybrid, push or pull
	ServerFlags []string      // extra flags of the server process, e.g. --inbox-cap=400
	// Load is the load of DriveSoak; RunSoak sets its Logf and OnSample.
	Load SoakConfig

	Out      string // directory of soak.json, soak.md, soak.svg and server.log
	DataDir  string // the stores go under DataDir/BACKEND ("": a temporary directory)
	Keep     bool   // keep the stores (embedded files, MariaDB databases) and write accounts.csv
	Services Services

	// Target, if set, is the base URL of a running server that RunSoak
	// drives instead (no data set, no child process), as the accounts of
	// the file Accounts (lines id,token[,followers,following[,role]]).
	Target, Accounts string
	// ServerBinary is a sparrow binary: the server is `ServerBinary serve
	// …`, in a child process. Needed unless Target is set.
	ServerBinary string

	Command string // the command line, recorded in soak.json
	Bar     NewBar // progress bars (nil: none)
	Quiet   bool   // no phase log or sample lines

	logf func(format string, args ...any) // phase log, nil when quiet
}

// SoakServerLog is the server process's output file in SoakOptions.Out.
const SoakServerLog = "server.log"

// Limits of the soak's server process.
const (
	soakHealthTimeout   = 2 * time.Minute
	soakServerStopGrace = 20 * time.Second
)

// RunSoak soaks a server in its own process: it checks o, generates and
// loads the data set o.Data as RunSuite does into fresh stores of
// o.Backend, serves them from a child process (o.ServerBinary serve, its
// output in o.Out/server.log) and drives it with DriveSoak. With o.Target it
// drives that server instead, with the accounts of o.Accounts.
//
// Into o.Out (created if missing) it writes soak.json, soak.md and soak.svg,
// a failed or interrupted run too, with what it measured; the summary goes
// to stdout, progress bars, the phase log and a line per sample (unless
// o.Quiet) to stderr. The returned error is the run's (prefixed
// "interrupted" if ctx was cancelled, or the server's exit if it died). The
// child, the Redis prefix and the NATS stream are removed at the end, and
// the stores unless o.Keep; on an error or a cancelled ctx too.
func RunSoak(ctx context.Context, o SoakOptions, stdout, stderr io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	if !o.Quiet {
		o.logf = phaseLog(stderr, "soak")
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	if o.Target != "" {
		return runSoakTarget(ctx, &o, stdout, stderr)
	}
	return runSoakChild(ctx, &o, stdout, stderr)
}

// validate checks the settings before anything is created; the errors
// name the flags of `sparrow bench soak`.
func (o *SoakOptions) validate() error {
	l := o.Load
	switch {
	case l.Duration <= 0 || l.Interval <= 0:
		return fmt.Errorf("--duration and --interval must be positive")
	case l.Warmup < 0 || l.Cooldown < 0 || l.CapacityDuration < 0:
		return fmt.Errorf("--warmup, --cooldown and --capacity-duration cannot be negative")
	case l.CapacityDuration == 0 && l.Rate <= 0:
		return fmt.Errorf("--capacity-duration 0 needs a --rate")
	case l.Clients < 1:
		return fmt.Errorf("--clients must be at least 1")
	case o.Target != "" && o.Accounts == "":
		return fmt.Errorf("--target needs --accounts FILE")
	case o.Backend != "embedded" && o.Backend != "mariadb":
		return fmt.Errorf("unknown backend %q (embedded, mariadb)", o.Backend)
	case o.FeedMode != "hybrid" && o.FeedMode != "push" && o.FeedMode != "pull":
		return fmt.Errorf("feed mode %q: want hybrid, push or pull", o.FeedMode)
	case o.Target == "" && o.ServerBinary == "":
		return fmt.Errorf("soak: no server binary")
	}
	return nil
}

// config describes the run for soak.json.
func (o *SoakOptions) config() map[string]any {
	l := o.Load
	inflight := l.Inflight
	if inflight <= 0 {
		inflight = 4 * l.Clients // DriveSoak's default
	}
	return map[string]any{"clients": l.Clients, "capacity_duration": l.CapacityDuration.String(), "rate_flag": l.Rate,
		"inflight": inflight, "duration": l.Duration.String(), "interval": l.Interval.String(),
		"warmup": l.Warmup.String(), "cooldown": l.Cooldown.String()}
}

// sampleLine prints each sample to w as it is taken (nothing when quiet).
func (o *SoakOptions) sampleLine(w io.Writer) func(SoakSample) {
	if o.Quiet {
		return nil
	}
	mb := func(v float64) string {
		if v < 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f MB", v/1e6)
	}
	return func(s SoakSample) {
		fmt.Fprintf(w, "[soak %8s %-8s] rss %9s  heap %9s  goroutines %5.0f | %7d req %7.0f/s  %4d err  p50 %7.2f ms  p99 %8.2f ms\n",
			time.Duration(s.T*float64(time.Second)).Round(time.Second), s.Phase, mb(s.Server.RSS), mb(s.Server.HeapInuse), s.Server.Goroutines,
			s.Requests, s.RPS, s.Errors, s.P50, s.P99)
	}
}

// runSoakChild generates and loads the data set into fresh stores of
// o.Backend, serves them from a child process and soaks it; the child, the
// stores, the Redis prefix and the NATS stream are removed at the end
// (stores kept with o.Keep), on an error or an interrupt too.
func runSoakChild(ctx context.Context, o *SoakOptions, stdout, errw io.Writer) (err error) {
	bin := o.ServerBinary
	t0 := time.Now()
	d, err := soakGenerate(o)
	if err != nil {
		return err
	}
	dataset := suiteDatasetSummary(d, time.Since(t0))

	dir := o.DataDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "sparrow-soak-"+o.Backend+"-"); err != nil {
			return fmt.Errorf("soak: %w", err)
		}
	} else {
		dir = filepath.Join(dir, o.Backend)
	}
	c, cleanup, err := backendConfig(o.Backend, dir, o.Services)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, soakCleanup(c, dir, cleanup, o.Keep)) }()
	if c.Shards == "" {
		c.Shards = app.DefaultShards(dir) // what serve derives from --data
	}
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	if o.logf != nil {
		o.logf("loading %d accounts, %d follows, %d statuses into %s", len(d.IDs), d.Edges(), d.StatusCount(), app.Redact(c.Shards))
	}
	users, err := soakLoad(ctx, o, c, d)
	if err != nil {
		return err
	}
	if o.Keep {
		if err = WriteAccountsCSV(filepath.Join(o.Out, "accounts.csv"), users); err != nil {
			return fmt.Errorf("soak: %w", err)
		}
	}

	args := soakServeArgs(o, c, dir, d.Config.HotAt)
	logPath := filepath.Join(o.Out, SoakServerLog)
	os.Remove(logPath) // the log of this run only
	p, err := startServerProcess(ctx, bin, args, logPath, soakHealthTimeout)
	if err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	defer p.stop(soakServerStopGrace)
	if o.logf != nil {
		o.logf("server process %d serving at %s (log: %s)", p.cmd.Process.Pid, p.base, logPath)
	}

	var readers []User
	for _, u := range users {
		if u.Role == RoleActive {
			readers = append(readers, u)
		}
	}
	sctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	p.watch(done, cancel)
	r, runErr := DriveSoak(sctx, p.base, readers, d.IDs[:d.Config.Users], o.soakConfig(errw))
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
		filepath.Base(bin), app.Redact(strings.Join(args, " ")), SoakServerLog))
	cfg := o.config()
	cfg["preset"], cfg["backend"], cfg["feed_mode"], cfg["dataset"] = o.Preset, o.Backend, o.FeedMode, dataset
	cfg["stores"] = map[string]any{"shards": app.Redact(c.Shards), "redis_prefix": c.RedisPrefix, "stream": c.Stream, "kept": o.Keep}
	if len(o.ServerFlags) > 0 {
		cfg["server_flags"] = o.ServerFlags
	}
	return o.finish(stdout, r, cfg, runErr)
}

// soakConfig is the load of DriveSoak with the log and sample lines.
func (o *SoakOptions) soakConfig(errw io.Writer) SoakConfig {
	cfg := o.Load
	cfg.Logf, cfg.OnSample = o.logf, o.sampleLine(errw)
	return cfg
}

// soakGenerate draws the data set of the preset and flags.
func soakGenerate(o *SoakOptions) (*Dataset, error) {
	var bar Bar
	if o.Bar != nil {
		bar = o.Bar("generate follow graph", int64(float64(o.Data.Users)*o.Data.MeanFollowing))
		defer bar.Done()
	}
	d, err := GenerateDataset(o.Data, time.Now(), func(int64) {
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
func soakLoad(ctx context.Context, o *SoakOptions, c app.Config, d *Dataset) ([]User, error) {
	shards, err := sqlstore.OpenShards(ctx, c.Shards, app.BulkOpeners)
	if err != nil {
		return nil, fmt.Errorf("soak: open the stores: %w", err)
	}
	defer shards.Close()
	users, _, err := LoadDataset(ctx, sqlstore.New(shards), d, LoadOptions{Bulk: bulk.Options{Relaxed: true, Writers: 4}, Bar: o.Bar})
	if err != nil {
		return nil, fmt.Errorf("soak: load: %w", err)
	}
	return users, nil
}

// soakServeArgs are the serve flags (but --addr) of the server on the
// stores of c: --data, the hot threshold the data set was loaded with, the
// feed mode, and for an external backend its shards, Redis and NATS.
func soakServeArgs(o *SoakOptions, c app.Config, dir string, hotAt int64) []string {
	args := []string{"--data", dir, "--hot-threshold", fmt.Sprint(hotAt), "--feed-mode", o.FeedMode, "--log-level", "warn"}
	if c.NATSURL != "" {
		args = append(args, "--shards", c.Shards, "--redis-url", c.RedisURL, "--redis-prefix", c.RedisPrefix,
			"--nats-url", c.NATSURL, "--stream", c.Stream)
	}
	return append(args, o.ServerFlags...)
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
		FlushRedisPrefix(c.RedisURL, c.RedisPrefix)
	}
	if !keep {
		dropStores()
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("soak: %w", err))
		}
	}
	return errors.Join(errs...)
}

// runSoakTarget soaks the server at o.Target with the accounts of
// o.Accounts: active accounts read and post, and are the targets.
func runSoakTarget(ctx context.Context, o *SoakOptions, stdout, stderr io.Writer) error {
	f, err := os.Open(o.Accounts)
	if err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	users, err := ReadAccountsCSV(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("soak: %s: %w", o.Accounts, err)
	}
	var readers []User
	var targets []sparrow.ID
	for _, u := range users {
		if u.Role == RoleActive {
			readers, targets = append(readers, u), append(targets, u.ID)
		}
	}
	r, runErr := DriveSoak(ctx, o.Target, readers, targets, o.soakConfig(stderr))
	runErr = interrupted(ctx, runErr)
	cfg := o.config()
	cfg["target"], cfg["accounts_file"], cfg["accounts"] = o.Target, o.Accounts, len(users)
	return o.finish(stdout, r, cfg, runErr)
}

// interrupted says so of err if ctx, the command's, was cancelled (Ctrl-C,
// SIGTERM).
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	return err
}

// finish completes the report, writes its files into o.Out (a failed run
// too, with what it measured) and prints the summary to w.
func (o *SoakOptions) finish(w io.Writer, r *SoakReport, cfg map[string]any, runErr error) error {
	r.Machine, r.Date, r.Config = machine(), time.Now().UTC().Format(time.RFC3339), cfg
	r.Command = o.Command
	if runErr != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("FAILED: %v (the results are partial)", runErr))
	}
	if err := r.WriteFiles(o.Out); err != nil {
		return errors.Join(runErr, err)
	}
	r.Markdown(w)
	fmt.Fprintf(w, "\nreport: %s\n", filepath.Join(o.Out, SoakMD))
	return runErr
}
