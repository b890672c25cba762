package bench

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

	"sparrow"
	"sparrow/app"
	"sparrow/sqlstore"
	"sparrow/sqlstore/bulk"
)

// SuiteOptions are the settings of RunSuite (`sparrow bench run`).
type SuiteOptions struct {
	Preset   string        // name of the preset, recorded in the report
	Data     DatasetConfig // the data set, complete: Presets[Preset] with any overrides
	Backends []string      // embedded, mariadb: each gets the data set loaded into fresh stores
	Modes    []string      // feed modes measured on each backend: hybrid, push, pull
	// Run holds the load settings of each (backend, mode) run: Clients,
	// durations, Rate, ProbeClients, PostsPerBucket. RunSuite sets the rest.
	Run SuiteConfig

	Out        string // directory of report.md, report.json, the SVGs and the accounts files
	DataDir    string // the embedded stores go under DataDir/BACKEND ("": a temporary directory)
	Keep       bool   // keep the stores (embedded files, MariaDB databases) after the run
	ProfileDir string // if set, where the CPU profile of each (backend, mode) run is written
	Services   Services

	// Target, if set, is the base URL of a running Mastodon-API server that
	// RunSuite drives instead (no data set, no load), as the accounts of
	// the file Accounts (lines id,token[,followers,following[,role]]),
	// labelled Label and ModeLabel in the report.
	Target, Accounts string
	Label, ModeLabel string

	Command string // the command line, recorded in the report
	Bar     NewBar // progress bars (nil: none)
	Quiet   bool   // no phase log
}

// SuitePreset are the load settings that a preset of `sparrow bench run`
// gives the flags not set explicitly; its data set is Presets[name].
type SuitePreset struct {
	Backends                              []string
	Duration, OpenDuration, ProbeDuration time.Duration
	Rate                                  float64
	PostsPerBucket                        int
}

// SuitePresets are the load settings of each preset.
var SuitePresets = map[string]SuitePreset{
	// small runs the three modes on the embedded backend in well under a
	// minute on two cores (CI); add --backend embedded,mariadb for both.
	"small": {[]string{"embedded"}, 2 * time.Second, 1500 * time.Millisecond, 250 * time.Millisecond, 300, 8},
	// medium's open loop runs at 400 req/s: below what hybrid and push
	// sustain on two cores (about 700–1000 req/s of the mix), so its
	// latencies are service times, not a queue growing for the whole run.
	"medium": {[]string{"embedded", "mariadb"}, 20 * time.Second, 10 * time.Second, 3 * time.Second, 400, 20},
	"large":  {[]string{"embedded", "mariadb"}, 30 * time.Second, 15 * time.Second, 5 * time.Second, 1000, 20},
}

// RunSuite runs the benchmark suite and writes its report. By default it
// generates the data set o.Data once and, for each backend, loads it through
// the bulk paths into fresh stores, then for each feed mode serves them from
// a server in this process and drives it over HTTP with DriveSuite; after
// the backends it measures the ceiling of one Redis read (redis-benchmark).
// With o.Target it drives that server instead with the accounts of
// o.Accounts. A failed backend or mode leaves the others' results and a
// note in the report, and its error in the one returned.
//
// Into o.Out it writes report.json, report.md, the SVG plots, accounts.csv
// (the first backend's accounts) and accounts_BACKEND.csv; the report is
// rewritten after every mode, so that a run that dies keeps what it
// measured. The summary goes to stdout; progress bars, the phase log
// (unless o.Quiet) and the servers' warnings go to stderr. The stores and
// temporary directories are removed at the end unless o.Keep, and the
// Redis prefixes and NATS streams always.
func RunSuite(ctx context.Context, o SuiteOptions, stdout, stderr io.Writer) error {
	if o.Target != "" {
		return runSuiteTarget(ctx, &o, stdout, stderr)
	}
	return runSuiteInProcess(ctx, &o, stdout, stderr)
}

// logf returns the phase log of one part of the run (nil when quiet).
func (o *SuiteOptions) logf(w io.Writer, prefix string) func(string, ...any) {
	if o.Quiet {
		return nil
	}
	return phaseLog(w, prefix)
}

// phaseLog returns a log that prints lines to w, each prefixed with prefix
// and the seconds since phaseLog was called.
func phaseLog(w io.Writer, prefix string) func(string, ...any) {
	start := time.Now()
	return func(format string, args ...any) {
		fmt.Fprintf(w, "[%s %5.1fs] %s\n", prefix, time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
}

// newReport starts the report of this run.
func (o *SuiteOptions) newReport() *Report {
	return &Report{Machine: machine(), Date: time.Now().UTC().Format(time.RFC3339), Preset: o.Preset,
		Command: o.Command, Modes: o.Modes}
}

// finish computes the ratios, writes the files into o.Out and prints the
// summary to w.
func (o *SuiteOptions) finish(w io.Writer, r *Report) error {
	r.Compute()
	if err := r.WriteFiles(o.Out); err != nil {
		return err
	}
	printSuiteSummary(w, r)
	fmt.Fprintf(w, "\nreport: %s\n", filepath.Join(o.Out, "report.md"))
	return nil
}

// runSuiteTarget drives the server at o.Target with the accounts of
// o.Accounts.
func runSuiteTarget(ctx context.Context, o *SuiteOptions, stdout, stderr io.Writer) error {
	if o.Accounts == "" {
		return fmt.Errorf("--target needs --accounts FILE")
	}
	f, err := os.Open(o.Accounts)
	if err != nil {
		return err
	}
	users, err := ReadAccountsCSV(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", o.Accounts, err)
	}
	targets := make([]sparrow.ID, 0, len(users))
	for _, u := range users {
		if u.Role == RoleActive {
			targets = append(targets, u.ID)
		}
	}
	r := o.newReport()
	r.Backends, r.Modes = []string{o.Label}, []string{o.ModeLabel}
	r.Dataset = map[string]any{"target": o.Target, "accounts_file": o.Accounts, "accounts": len(users)}
	cfg := o.Run
	cfg.Backend, cfg.Mode, cfg.Bar, cfg.Logf = o.Label, o.ModeLabel, o.Bar, o.logf(stderr, o.Label)
	cfg.InboxCap = 800
	rows, ms, err := DriveSuite(ctx, o.Target, users, targets, cfg)
	r.Results, r.Measures = rows, ms
	if err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("FAILED: %v (the results are partial)", err))
	}
	return errors.Join(o.finish(stdout, r), err)
}

// runSuiteInProcess generates the data set once and, per backend, loads it
// and measures every mode on a server started in this process.
func runSuiteInProcess(ctx context.Context, o *SuiteOptions, stdout, stderr io.Writer) error {
	r := o.newReport()
	r.Backends = o.Backends
	t0 := time.Now()
	var gb Bar
	if o.Bar != nil {
		gb = o.Bar("generate follow graph", int64(float64(o.Data.Users)*o.Data.MeanFollowing))
	}
	d, err := GenerateDataset(o.Data, time.Now(), func(n int64) {
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
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	var failed error // a failed backend still leaves the others' results in the report
	for i, be := range o.Backends {
		if err := runSuiteBackend(ctx, o, r, d, be, i == 0, stderr); err != nil {
			failed = errors.Join(failed, fmt.Errorf("%s: %w", be, err))
			r.Notes = append(r.Notes, fmt.Sprintf("FAILED: %s: %v (its results are partial)", be, err))
		}
	}
	// The ceiling of one Redis read on this box, measured in the same run,
	// after the backends (so that it does not compete with them).
	if ceil, err := MeasureRedisCeiling(ctx, o.Services.RedisURL, fmt.Sprintf("sparrowbench:ceiling:%d", os.Getpid()), o.Run.Clients, 200_000); err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("redis-benchmark ceiling not measured: %v", err))
	} else {
		r.AddRedisCeiling(ceil)
	}
	r.Notes = append(r.Notes,
		"One server per (backend, mode), started in the bench process and driven over HTTP on loopback: the load driver and the server share the machine's cores.",
		"The same loaded data set serves every mode of a backend; inboxes, recent lists and activity are derived data and start empty with each server (a fresh Redis prefix and NATS stream per mode).",
		"Activation is one home read per active user; only active users receive pushes (inserts per post count the inboxes of active followers).",
		"accounts.csv holds the tokens of the first backend's accounts (accounts_<backend>.csv for each); the stores are deleted after the run unless --keep.")
	return errors.Join(o.finish(stdout, r), failed)
}

// suiteDatasetSummary describes the generated data set for the report.
func suiteDatasetSummary(d *Dataset, took time.Duration) map[string]any {
	c := d.Config
	hot, active, fresh := 0, 0, 0
	for i, role := range d.Roles {
		if i < c.Users && int64(d.Followers[i]) >= c.HotAt {
			hot++
		}
		switch role {
		case RoleActive:
			active++
		case RoleFresh:
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
// every mode on it; first says to write accounts.csv too.
func runSuiteBackend(ctx context.Context, o *SuiteOptions, r *Report, d *Dataset, be string, first bool, errw io.Writer) error {
	dir := o.DataDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "sparrow-bench-"+be+"-"); err != nil {
			return err
		}
	} else {
		dir = filepath.Join(dir, be)
	}
	c, cleanup, err := backendConfig(be, dir, o.Services)
	if err != nil {
		return err
	}
	defer func() {
		if c.RedisURL != "" {
			FlushRedisPrefix(c.RedisURL, c.RedisPrefix)
		}
		if !o.Keep {
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
	users, err := suiteLoad(ctx, o, r, d, be, c)
	if err != nil {
		return err
	}
	if err := WriteAccountsCSV(filepath.Join(o.Out, "accounts_"+be+".csv"), users); err != nil {
		return err
	}
	if first {
		if err := WriteAccountsCSV(filepath.Join(o.Out, "accounts.csv"), users); err != nil {
			return err
		}
	}
	targets := d.IDs[:d.Config.Users]
	for _, mode := range o.Modes {
		if err := runSuiteMode(ctx, o, r, c, be, mode, dir, users, targets, errw); err != nil {
			return fmt.Errorf("%s: %w", mode, err)
		}
	}
	return nil
}

// suiteLoad opens the stores of c, loads d and records the load's measures
// (times, rates, bytes per edge).
func suiteLoad(ctx context.Context, o *SuiteOptions, r *Report, d *Dataset, be string, c app.Config) ([]User, error) {
	shards, err := sqlstore.OpenShards(ctx, c.Shards, app.BulkOpeners)
	if err != nil {
		return nil, err
	}
	defer shards.Close()
	s := sqlstore.New(shards)
	users, lr, err := LoadDataset(ctx, s, d, LoadOptions{Bulk: bulk.Options{Relaxed: true, Writers: 4}, Bar: o.Bar})
	if err != nil {
		return nil, err
	}
	m := func(name string, v float64, unit, note string) {
		r.Measures = append(r.Measures, Measure{Backend: be, Mode: "-", Name: name, Value: v, Unit: unit, Note: note})
	}
	m("load_accounts_seconds", lr.AccountsTime.Seconds(), "s", fmt.Sprintf("%d accounts created", lr.Accounts.Created))
	m("load_follows_seconds", lr.FollowsTime.Seconds(), "s", fmt.Sprintf("%d edges, %.0f edges/s", lr.Edges, float64(lr.Edges)/lr.FollowsTime.Seconds()))
	m("load_statuses_seconds", lr.StatusesTime.Seconds(), "s", fmt.Sprintf("%d statuses, %.0f statuses/s (rows %.1f s, counters %.1f s)",
		lr.Statuses.Inserted, float64(lr.Statuses.Inserted)/lr.StatusesTime.Seconds(), lr.Statuses.Write.Seconds(), lr.Statuses.Counters.Seconds()))
	m("load_tokens_seconds", lr.TokensTime.Seconds(), "s", fmt.Sprintf("%d tokens (CreateToken, 16 at a time)", lr.Tokens))
	rel, files, err := RelationBytes(ctx, s)
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

// runSuiteMode starts a server of mode on the loaded stores in this process,
// drives it and adds its results to r, written at once into o.Out.
func runSuiteMode(ctx context.Context, o *SuiteOptions, r *Report, c app.Config, be, mode, dir string, users []User, targets []sparrow.ID, errw io.Writer) error {
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
	cfg := o.Run
	cfg.Backend, cfg.Mode, cfg.Bar, cfg.Logf = be, mode, o.Bar, o.logf(errw, be+"/"+mode)
	cfg.InboxCap = 800
	if mc.RedisURL != "" {
		probe, closeProbe, perr := RedisInboxProbe(mc.RedisURL, mc.RedisPrefix)
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
	loadBefore := loadAvg()
	rows, ms, err := DriveSuite(ctx, base, users, targets, cfg)
	stopProfile()
	if loadBefore >= 0 {
		ms = append(ms, Measure{Backend: be, Mode: mode, Name: "machine_load_1m", Value: (loadBefore + loadAvg()) / 2, Unit: "runnable",
			Note: "mean of /proc/loadavg before and after the mode's run, this process included: other load on the machine makes modes less comparable"})
	}
	r.Results = append(r.Results, rows...)
	r.Measures = append(r.Measures, ms...)
	// Write what is measured so far: a long run that dies later keeps it.
	r.Compute()
	return errors.Join(err, r.WriteFiles(o.Out))
}

// startProfile starts the CPU profile of one (backend, mode) run into
// o.ProfileDir/cpu-BACKEND-MODE.pprof if o.ProfileDir is set, and returns the
// function that stops it.
func (o *SuiteOptions) startProfile(be, mode string) (stop func(), err error) {
	if o.ProfileDir == "" {
		return func() {}, nil
	}
	if err = os.MkdirAll(o.ProfileDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(o.ProfileDir, "cpu-"+be+"-"+mode+".pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// printSuiteSummary prints the ratios, the targets and the mixed workload.
func printSuiteSummary(w io.Writer, r *Report) {
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
