package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"sparrow"
	"sparrow/app"
	"sparrow/bench"
	"sparrow/sqlstore"
	"sparrow/sqlstore/bulk"
)

// suiteOptions are the flags of `sparrow bench run`.
type suiteOptions struct {
	preset   string
	data     bench.DatasetConfig
	backends []string
	modes    []string
	run      bench.SuiteConfig
	out      string
	dataDir  string
	keep     bool
	quiet    bool

	profileDir                  string
	mysqlURL, redisURL, natsURL string
	target, accounts            string
	label, modeLabel            string
}

// suiteRunDefaults are the load settings of a preset (flags override them).
type suiteRunDefaults struct {
	backends                         []string
	duration, openDuration, probeDur time.Duration
	rate                             float64
	postsPerBucket                   int
}

var suitePresetRuns = map[string]suiteRunDefaults{
	// small runs the three modes on the embedded backend in well under a
	// minute on two cores (CI); add --backend embedded,mariadb for both.
	"small": {[]string{"embedded"}, 2 * time.Second, 1500 * time.Millisecond, 250 * time.Millisecond, 300, 8},
	// medium's open loop runs at 400 req/s: below what hybrid and push
	// sustain on two cores (about 700–1000 req/s of the mix), so its
	// latencies are service times, not a queue growing for the whole run.
	"medium": {[]string{"embedded", "mariadb"}, 20 * time.Second, 10 * time.Second, 3 * time.Second, 400, 20},
	"large":  {[]string{"embedded", "mariadb"}, 30 * time.Second, 15 * time.Second, 5 * time.Second, 1000, 20},
}

func benchRunCmd() *cobra.Command {
	var o suiteOptions
	cmd := &cobra.Command{
		Use:   "run",
		Short: "The benchmark suite: feed modes (hybrid, push, pull) and backends compared on one generated data set",
		Long: `run generates a data set (power-law follow graph, statuses spread over the last
days, probe readers with fixed followings, fresh users without an inbox), loads
it through the bulk paths into each backend, then for each feed mode starts a
server in this process and drives it over HTTP:

  - activation: one home read per active user (they get pushes and an inbox);
  - rebuild_first_home: first home read of users without an inbox;
  - publish / fanout_lag: POST latency, and publish → visible in an active
    follower's home (polled with min_id), by the author's followers, with
    the fan-out's inbox inserts per post from /metrics;
  - home_followings: home latency by the reader's followings;
  - the mixed workload (60% home, 30% account timeline, 10% post, with
    relationship batches and follow/unfollow mixed in), closed loop with
    --clients workers, then open loop at --rate;
  - home_only: home reads only (the home throughput);
  - inbox memory (Redis MEMORY USAGE, or 24 bytes × items embedded) and the
    relation tables' bytes per edge.

It writes report.json, report.md, SVG plots and accounts.csv (id,token,
followers,following,role of every driven account) into --out. With --target
URL --accounts FILE it drives any Mastodon-API server instead (no load, one
backend/mode label).

Presets: small (1k users, the three modes on the embedded backend in under a
minute), medium (100k users, 10M follows, 1M statuses; both backends) and
large (1M users, 100M follows, 10M statuses). Dataset flags override them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.applyPreset(cmd.Flags()); err != nil {
				return err
			}
			if o.target != "" {
				return runSuiteTarget(cmd.Context(), cmd, &o)
			}
			return runSuiteInProcess(cmd.Context(), cmd, &o)
		},
	}
	f := cmd.Flags()
	addDatasetFlags(f, &o)
	f.StringSliceVar(&o.backends, "backend", nil, "backends: embedded, mariadb (MariaDB + Redis + NATS); default: the preset's")
	f.StringSliceVar(&o.modes, "modes", []string{"hybrid", "push", "pull"}, "feed modes to compare")
	f.IntVar(&o.run.Clients, "clients", 16, "closed-loop workers")
	f.DurationVar(&o.run.Duration, "duration", 0, "mixed workload (closed loop) and home-only durations, per mode")
	f.Float64Var(&o.run.Rate, "rate", 0, "open-loop rate in requests/s (negative: no open loop)")
	f.DurationVar(&o.run.OpenDuration, "open-duration", 0, "open-loop duration, per mode")
	f.DurationVar(&o.run.ProbeDuration, "probe-duration", 0, "home reads per followings bucket, per mode")
	f.IntVar(&o.run.ProbeClients, "probe-clients", 2, "workers per followings bucket")
	f.IntVar(&o.run.PostsPerBucket, "posts-per-bucket", 0, "publish probes per followers bucket, per mode")
	f.StringVar(&o.out, "out", "bench-out", "directory for report.md, report.json, the SVGs and accounts.csv")
	f.BoolVar(&o.keep, "keep", false, "keep the stores (embedded files, MariaDB databases) after the run")
	f.BoolVar(&o.quiet, "quiet", false, "no progress bars or phase log")
	f.StringVar(&o.profileDir, "profile-dir", "", "write CPU profiles of each (backend, mode) run into this directory: cpu-BACKEND-MODE-activation.pprof (the activation), cpu-BACKEND-MODE.pprof (the measures after it); server and driver share the process")
	addServiceFlags(f, &o)
	f.StringVar(&o.label, "label", "target", "with --target: backend label in the report")
	f.StringVar(&o.modeLabel, "mode-label", "unknown", "with --target: feed mode label in the report")
	return cmd
}

// addDatasetFlags declares the data-set flags shared by `bench run` and
// `bench soak`.
func addDatasetFlags(f *pflag.FlagSet, o *suiteOptions) {
	f.StringVar(&o.preset, "preset", "small", "data set (and, for bench run, durations): small, medium, large")
	f.IntVar(&o.data.Users, "users", 0, "ordinary accounts (default: the preset's)")
	f.Float64Var(&o.data.MeanFollowing, "mean-following", 0, "mean followings per user")
	f.Float64Var(&o.data.Zipf, "zipf", 0, "popularity exponent of the follower distribution")
	f.IntVar(&o.data.MaxFollowers, "max-followers", 0, "cap on any account's followers")
	f.IntVar(&o.data.StatusesPerUser, "statuses-per-user", 0, "statuses per user, spread over --days")
	f.Float64Var(&o.data.Days, "days", 0, "statuses span the last this many days")
	f.Int64Var(&o.data.HotAt, "hot-threshold", 0, "followers at which an account is hot (loaded flags and servers)")
	f.IntVar(&o.data.ActiveUsers, "active-users", 0, "ordinary users driven and active (0: the preset's; ≥ users: all)")
	f.Uint64Var(&o.data.Seed, "seed", 0, "random seed of the data set")
}

// addServiceFlags declares where the stores and services come from, shared
// by `bench run` and `bench soak`: --data, the services of the mariadb
// backend, and --target with --accounts.
func addServiceFlags(f *pflag.FlagSet, o *suiteOptions) {
	f.StringVar(&o.dataDir, "data", "", "where the embedded stores go (default: a temporary directory)")
	f.StringVar(&o.mysqlURL, "mysql-url", "mysql://root@127.0.0.1:3306/", "MariaDB server of the mariadb backend")
	f.StringVar(&o.redisURL, "redis-url", "redis://127.0.0.1:6379/0", "Redis of the mariadb backend")
	f.StringVar(&o.natsURL, "nats-url", "nats://127.0.0.1:4222", "NATS of the mariadb backend")
	f.StringVar(&o.target, "target", "", "drive this running Mastodon-API server instead (needs --accounts)")
	f.StringVar(&o.accounts, "accounts", "", "with --target: accounts file, lines id,token[,followers,following[,role]]")
}

// applyPreset fills every setting not given on the command line from the preset.
func (o *suiteOptions) applyPreset(f *pflag.FlagSet) error {
	base, ok := bench.Presets[o.preset]
	run, ok2 := suitePresetRuns[o.preset]
	if !ok || !ok2 {
		return fmt.Errorf("unknown preset %q (small, medium, large)", o.preset)
	}
	d := &o.data
	set := func(name string, apply func()) {
		if !f.Changed(name) {
			apply()
		}
	}
	set("users", func() { d.Users = base.Users })
	set("mean-following", func() { d.MeanFollowing = base.MeanFollowing })
	set("zipf", func() { d.Zipf = base.Zipf })
	set("max-followers", func() { d.MaxFollowers = base.MaxFollowers })
	set("statuses-per-user", func() { d.StatusesPerUser = base.StatusesPerUser })
	set("days", func() { d.Days = base.Days })
	set("hot-threshold", func() { d.HotAt = base.HotAt })
	set("active-users", func() { d.ActiveUsers = base.ActiveUsers })
	set("seed", func() { d.Seed = base.Seed })
	d.ProbesPerBucket, d.FreshUsers, d.FreshFollowing, d.AuthorsPerBucket = base.ProbesPerBucket, base.FreshUsers, base.FreshFollowing, base.AuthorsPerBucket
	set("backend", func() { o.backends = run.backends })
	set("duration", func() { o.run.Duration = run.duration })
	set("open-duration", func() { o.run.OpenDuration = run.openDuration })
	set("probe-duration", func() { o.run.ProbeDuration = run.probeDur })
	set("rate", func() { o.run.Rate = run.rate })
	set("posts-per-bucket", func() { o.run.PostsPerBucket = run.postsPerBucket })
	if d.Users < 2 || d.HotAt <= 0 {
		return fmt.Errorf("need at least 2 users and a positive hot threshold")
	}
	return nil
}

// bar returns the progress bar factory (nil when quiet).
func (o *suiteOptions) bar(w io.Writer) bench.NewBar {
	if o.quiet {
		return nil
	}
	return func(desc string, total int64) bench.Bar {
		return suiteBar{progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))}
	}
}

type suiteBar struct{ *progressbar.ProgressBar }

func (b suiteBar) Add(n int)        { b.ProgressBar.Add(n) }
func (b suiteBar) SetTotal(n int64) { b.ProgressBar.ChangeMax64(n) }
func (b suiteBar) Done()            { b.ProgressBar.Finish() }

func (o *suiteOptions) logf(w io.Writer, prefix string) func(string, ...any) {
	if o.quiet {
		return nil
	}
	start := time.Now()
	return func(format string, args ...any) {
		fmt.Fprintf(w, "[%s %5.1fs] %s\n", prefix, time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
}

// newReport starts the report of this run.
func (o *suiteOptions) newReport() *bench.Report {
	return &bench.Report{Machine: machine(), Date: time.Now().UTC().Format(time.RFC3339), Preset: o.preset,
		Command: "sparrow bench " + strings.Join(os.Args[min(2, len(os.Args)):], " "), Modes: o.modes}
}

// finish computes the ratios, writes the files into --out and prints the summary.
func (o *suiteOptions) finish(w io.Writer, r *bench.Report) error {
	r.Compute()
	if err := r.WriteFiles(o.out); err != nil {
		return err
	}
	printSuiteSummary(w, r)
	fmt.Fprintf(w, "\nreport: %s\n", filepath.Join(o.out, "report.md"))
	return nil
}

// runSuiteTarget drives a running server with the accounts of --accounts.
func runSuiteTarget(ctx context.Context, cmd *cobra.Command, o *suiteOptions) error {
	if o.accounts == "" {
		return fmt.Errorf("--target needs --accounts FILE")
	}
	f, err := os.Open(o.accounts)
	if err != nil {
		return err
	}
	users, err := bench.ReadAccountsCSV(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", o.accounts, err)
	}
	targets := make([]sparrow.ID, 0, len(users))
	for _, u := range users {
		if u.Role == bench.RoleActive {
			targets = append(targets, u.ID)
		}
	}
	r := o.newReport()
	r.Backends, r.Modes = []string{o.label}, []string{o.modeLabel}
	r.Dataset = map[string]any{"target": o.target, "accounts_file": o.accounts, "accounts": len(users)}
	cfg := o.run
	cfg.Backend, cfg.Mode, cfg.Bar, cfg.Logf = o.label, o.modeLabel, o.bar(cmd.ErrOrStderr()), o.logf(cmd.ErrOrStderr(), o.label)
	cfg.InboxCap = 800
	rows, ms, err := bench.DriveSuite(ctx, o.target, users, targets, cfg)
	r.Results, r.Measures = rows, ms
	if err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("FAILED: %v (the results are partial)", err))
	}
	return errors.Join(o.finish(cmd.OutOrStdout(), r), err)
}

// runSuiteInProcess generates the data set once and, per backend, loads it
// and measures every mode on a server started in this process.
func runSuiteInProcess(ctx context.Context, cmd *cobra.Command, o *suiteOptions) error {
	errw := cmd.ErrOrStderr()
	r := o.newReport()
	r.Backends = o.backends
	t0 := time.Now()
	genBar := o.bar(errw)
	var gb bench.Bar
	if genBar != nil {
		gb = genBar("generate follow graph", int64(float64(o.data.Users)*o.data.MeanFollowing))
	}
	d, err := bench.GenerateDataset(o.data, time.Now(), func(n int64) {
		if gb != nil {
			gb.Add(1 << 16)
		}
	})
	if gb != nil {
		gb.Done()
	}
	if err != nil {
		return err
	}
	r.Dataset = suiteDatasetSummary(d, time.Since(t0))
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	var failed error // a failed backend still leaves the others' results in the report
	for i, be := range o.backends {
		if err := runSuiteBackend(ctx, cmd, o, r, d, be, i == 0); err != nil {
			failed = errors.Join(failed, fmt.Errorf("%s: %w", be, err))
			r.Notes = append(r.Notes, fmt.Sprintf("FAILED: %s: %v (its results are partial)", be, err))
		}
	}
	// The ceiling of one Redis read on this box, measured in the same run,
	// after the backends (so that it does not compete with them).
	if ceil, err := bench.MeasureRedisCeiling(ctx, o.redisURL, fmt.Sprintf("sparrowbench:ceiling:%d", os.Getpid()), o.run.Clients, 200_000); err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("redis-benchmark ceiling not measured: %v", err))
	} else {
		r.AddRedisCeiling(ceil)
	}
	r.Notes = append(r.Notes,
		"One server per (backend, mode), started in the bench process and driven over HTTP on loopback: the load driver and the server share the machine's cores.",
		"The same loaded data set serves every mode of a backend; inboxes, recent lists and activity are derived data and start empty with each server (a fresh Redis prefix and NATS stream per mode).",
		"Activation is one home read per active user; only active users receive pushes (inserts per post count the inboxes of active followers).",
		"accounts.csv holds the tokens of the first backend's accounts (accounts_<backend>.csv for each); the stores are deleted after the run unless --keep.")
	return errors.Join(o.finish(cmd.OutOrStdout(), r), failed)
}

// suiteDatasetSummary describes the generated data set for the report.
func suiteDatasetSummary(d *bench.Dataset, took time.Duration) map[string]any {
	c := d.Config
	hot, active, fresh := 0, 0, 0
	for i, role := range d.Roles {
		if i < c.Users && int64(d.Followers[i]) >= c.HotAt {
			hot++
		}
		switch role {
		case bench.RoleActive:
			active++
		case bench.RoleFresh:
			fresh++
		}
	}
	return map[string]any{
		"users": c.Users, "accounts": len(d.IDs), "mean_following": c.MeanFollowing, "zipf": c.Zipf,
		"max_followers_cap": c.MaxFollowers, "max_followers": d.Graph.MaxFollowers, "max_following": d.Graph.MaxFollowing,
		"edges": d.Edges(), "statuses": d.StatusCount(), "statuses_per_user": c.StatusesPerUser, "days": c.Days,
		"hot_threshold": c.HotAt, "hot_accounts": hot, "active_users": active, "fresh_users": fresh,
		"generate_seconds": took.Seconds(), "seed": c.Seed,
	}
}

// runSuiteBackend loads d into a new store set of backend be and measures
// every mode on it.
func runSuiteBackend(ctx context.Context, cmd *cobra.Command, o *suiteOptions, r *bench.Report, d *bench.Dataset, be string, first bool) error {
	errw := cmd.ErrOrStderr()
	dir := o.dataDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "sparrow-bench-"+be+"-"); err != nil {
			return err
		}
	} else {
		dir = filepath.Join(dir, be)
	}
	c, cleanup, err := backendConfig(be, dir, o.mysqlURL, o.redisURL, o.natsURL)
	if err != nil {
		return err
	}
	defer func() {
		if c.RedisURL != "" {
			bench.FlushRedisPrefix(c.RedisURL, c.RedisPrefix)
		}
		if !o.keep {
			cleanup()
			os.RemoveAll(dir)
		}
	}()
	if c.Shards == "" {
		c.Shards = app.DefaultShards(dir)
	}
	c.HotThreshold = int(d.Config.HotAt)
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	logf := o.logf(errw, be)
	if logf != nil {
		logf("loading %d accounts, %d follows, %d statuses into %s", len(d.IDs), d.Edges(), d.StatusCount(), app.Redact(c.Shards))
	}
	users, err := suiteLoad(ctx, o, r, d, be, c, errw)
	if err != nil {
		return err
	}
	if err := bench.WriteAccountsCSV(filepath.Join(o.out, "accounts_"+be+".csv"), users); err != nil {
		return err
	}
	if first {
		if err := bench.WriteAccountsCSV(filepath.Join(o.out, "accounts.csv"), users); err != nil {
			return err
		}
	}
	targets := d.IDs[:d.Config.Users]
	for _, mode := range o.modes {
		if err := runSuiteMode(ctx, o, r, c, be, mode, dir, users, targets, errw); err != nil {
			return fmt.Errorf("%s: %w", mode, err)
		}
	}
	return nil
}

// suiteLoad opens the stores of c, loads d and records the load's measures
// (times, rates, bytes per edge).
func suiteLoad(ctx context.Context, o *suiteOptions, r *bench.Report, d *bench.Dataset, be string, c app.Config, errw io.Writer) ([]bench.User, error) {
	shards, err := sqlstore.OpenShards(ctx, c.Shards, app.BulkOpeners)
	if err != nil {
		return nil, err
	}
	defer shards.Close()
	s := sqlstore.New(shards)
	users, lr, err := bench.LoadDataset(ctx, s, d, bench.LoadOptions{Bulk: bulk.Options{Relaxed: true, Writers: 4}, Bar: o.bar(errw)})
	if err != nil {
		return nil, err
	}
	m := func(name string, v float64, unit, note string) {
		r.Measures = append(r.Measures, bench.Measure{Backend: be, Mode: "-", Name: name, Value: v, Unit: unit, Note: note})
	}
	m("load_accounts_seconds", lr.AccountsTime.Seconds(), "s", fmt.Sprintf("%d accounts created", lr.Accounts.Created))
	m("load_follows_seconds", lr.FollowsTime.Seconds(), "s", fmt.Sprintf("%d edges, %.0f edges/s", lr.Edges, float64(lr.Edges)/lr.FollowsTime.Seconds()))
	m("load_statuses_seconds", lr.StatusesTime.Seconds(), "s", fmt.Sprintf("%d statuses, %.0f statuses/s (rows %.1f s, counters %.1f s)",
		lr.Statuses.Inserted, float64(lr.Statuses.Inserted)/lr.StatusesTime.Seconds(), lr.Statuses.Write.Seconds(), lr.Statuses.Counters.Seconds()))
	m("load_tokens_seconds", lr.TokensTime.Seconds(), "s", fmt.Sprintf("%d tokens (CreateToken, 16 at a time)", lr.Tokens))
	rel, files, err := bench.RelationBytes(ctx, s)
	if err != nil {
		return nil, err
	}
	if rel > 0 {
		m("bytes_per_edge", float64(rel)/float64(lr.Edges), "bytes", fmt.Sprintf("following + followers with their indexes: %d bytes for %d edges (each edge is stored twice)", rel, lr.Edges))
	}
	if files > 0 {
		m("store_bytes", float64(files), "bytes", "SQLite files, all tables")
	}
	return users, nil
}

// runSuiteMode starts a server of mode on the loaded stores and runs the suite.
func runSuiteMode(ctx context.Context, o *suiteOptions, r *bench.Report, c app.Config, be, mode, dir string, users []bench.User, targets []sparrow.ID, errw io.Writer) error {
	mc := c
	mc.FeedMode = mode
	if mc.NATSURL == "" {
		mc.DataDir = filepath.Join(dir, "nats-"+mode) // a fresh embedded stream per mode
	} else {
		mc.Stream = c.Stream + strings.ToUpper(mode)
		mc.RedisPrefix = c.RedisPrefix + mode + ":"
	}
	a, base, err := startInProcess(ctx, mc)
	if err != nil {
		return err
	}
	defer func() {
		if mc.NATSURL != "" {
			a.Bus.DeleteStreams(context.Background())
		}
		a.Close()
	}()
	cfg := o.run
	cfg.Backend, cfg.Mode, cfg.Bar, cfg.Logf = be, mode, o.bar(errw), o.logf(errw, be+"/"+mode)
	cfg.InboxCap = 800
	if mc.RedisURL != "" {
		probe, closeProbe, perr := bench.RedisInboxProbe(mc.RedisURL, mc.RedisPrefix)
		if perr != nil {
			return perr
		}
		defer closeProbe()
		cfg.InboxProbe = probe
	}
	// Two profiles: the activation (inbox rebuilds of every active user),
	// then everything measured after it, which is what the workload costs.
	stopProfile, err := o.startProfile(be, mode+"-activation")
	if err != nil {
		return err
	}
	cfg.AfterActivation = func() {
		stopProfile()
		var perr error
		if stopProfile, perr = o.startProfile(be, mode); perr != nil {
			stopProfile = func() {}
			fmt.Fprintf(errw, "profile: %v\n", perr)
		}
	}
	loadBefore := suiteLoadAvg()
	rows, ms, err := bench.DriveSuite(ctx, base, users, targets, cfg)
	stopProfile()
	if loadBefore >= 0 {
		ms = append(ms, bench.Measure{Backend: be, Mode: mode, Name: "machine_load_1m", Value: (loadBefore + suiteLoadAvg()) / 2, Unit: "runnable",
			Note: "mean of /proc/loadavg before and after the mode's run, this process included: other load on the machine makes modes less comparable"})
	}
	r.Results = append(r.Results, rows...)
	r.Measures = append(r.Measures, ms...)
	// Write what is measured so far: a long run that dies later keeps it.
	r.Compute()
	return errors.Join(err, r.WriteFiles(o.out))
}

// startProfile starts the CPU profile of one (backend, mode) run if
// --profile-dir is set, and returns the function that stops it.
func (o *suiteOptions) startProfile(be, mode string) (stop func(), err error) {
	if o.profileDir == "" {
		return func() {}, nil
	}
	if err = os.MkdirAll(o.profileDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(o.profileDir, "cpu-"+be+"-"+mode+".pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// suiteLoadAvg returns the machine's 1-minute load average, -1 if unknown.
func suiteLoadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	var v float64
	if _, err := fmt.Sscan(string(b), &v); err != nil {
		return -1
	}
	return v
}

// printSuiteSummary prints the ratios, the targets and the mixed workload.
func printSuiteSummary(w io.Writer, r *bench.Report) {
	fmt.Fprintf(w, "%-9s %-7s %-16s %-6s %-6s %9s %6s %8s %8s %8s %8s\n", "backend", "mode", "op", "loop", "bucket", "requests", "errors", "req/s", "p50 ms", "p99 ms", "p999 ms")
	for _, x := range r.Results {
		fmt.Fprintf(w, "%-9s %-7s %-16s %-6s %-6s %9d %6d %8.0f %8.2f %8.2f %8.2f\n", x.Backend, x.Mode, x.Op, x.Loop, x.Bucket, x.Requests, x.Errors, x.RPS, x.P50, x.P99, x.P999)
	}
	fmt.Fprintln(w)
	for _, m := range r.Measures {
		fmt.Fprintf(w, "%-9s %-7s %-22s %-6s %12.2f %s\n", m.Backend, m.Mode, m.Name, m.Bucket, m.Value, m.Unit)
	}
	fmt.Fprintln(w)
	for _, x := range r.Ratios {
		fmt.Fprintf(w, "%-9s %-58s %8s  %s\n", x.Backend, x.Name, x, x.Note)
	}
	for _, t := range r.Targets {
		met := "MISSED"
		if t.Met {
			met = "met"
		}
		fmt.Fprintf(w, "%-9s target %-60s %s: %.2f %s (%s)\n", t.Backend, t.Name, t.Goal, t.Value, t.Unit, met)
	}
}
