package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"sparrow/bench"
)

// suiteRunner runs `bench run` once its flags are parsed: bench.RunSuite,
// or a test's stand-in.
type suiteRunner func(ctx context.Context, o bench.SuiteOptions, stdout, stderr io.Writer) error

func benchRunCmd() *cobra.Command { return newBenchRunCmd(bench.RunSuite) }

// newBenchRunCmd is `bench run`: its flags, with the preset applied to those
// not given, make the options of run.
func newBenchRunCmd(run suiteRunner) *cobra.Command {
	var o bench.SuiteOptions
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
			if err := applyPreset(cmd.Flags(), o.Preset, &o.Data, &o); err != nil {
				return err
			}
			o.Bar, o.Command = progressBars(cmd.ErrOrStderr(), o.Quiet), benchCommandLine()
			return run(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	addDatasetFlags(f, &o.Preset, &o.Data)
	f.StringSliceVar(&o.Backends, "backend", nil, "backends: embedded, mariadb (MariaDB + Redis + NATS); default: the preset's")
	f.StringSliceVar(&o.Modes, "modes", []string{"hybrid", "push", "pull"}, "feed modes to compare")
	f.IntVar(&o.Run.Clients, "clients", 16, "closed-loop workers")
	f.DurationVar(&o.Run.Duration, "duration", 0, "mixed workload (closed loop) and home-only durations, per mode")
	f.Float64Var(&o.Run.Rate, "rate", 0, "open-loop rate in requests/s (negative: no open loop)")
	f.DurationVar(&o.Run.OpenDuration, "open-duration", 0, "open-loop duration, per mode")
	f.DurationVar(&o.Run.ProbeDuration, "probe-duration", 0, "home reads per followings bucket, per mode")
	f.IntVar(&o.Run.ProbeClients, "probe-clients", 2, "workers per followings bucket")
	f.IntVar(&o.Run.PostsPerBucket, "posts-per-bucket", 0, "publish probes per followers bucket, per mode")
	f.StringVar(&o.Out, "out", "bench-out", "directory for report.md, report.json, the SVGs and accounts.csv")
	f.BoolVar(&o.Keep, "keep", false, "keep the stores (embedded files, MariaDB databases) after the run")
	f.BoolVar(&o.Quiet, "quiet", false, "no progress bars or phase log")
	f.StringVar(&o.ProfileDir, "profile-dir", "", "write CPU profiles of each (backend, mode) run into this directory: cpu-BACKEND-MODE-activation.pprof (the activation), cpu-BACKEND-MODE.pprof (the measures after it); server and driver share the process")
	addServiceFlags(f, &o.DataDir, &o.Services, &o.Target, &o.Accounts)
	f.StringVar(&o.Label, "label", "target", "with --target: backend label in the report")
	f.StringVar(&o.ModeLabel, "mode-label", "unknown", "with --target: feed mode label in the report")
	return cmd
}

// addDatasetFlags declares the data-set flags shared by `bench run` and
// `bench soak`.
func addDatasetFlags(f *pflag.FlagSet, preset *string, d *bench.DatasetConfig) {
	f.StringVar(preset, "preset", "small", "data set (and, for bench run, durations): small, medium, large")
	f.IntVar(&d.Users, "users", 0, "ordinary accounts (default: the preset's)")
	f.Float64Var(&d.MeanFollowing, "mean-following", 0, "mean followings per user")
	f.Float64Var(&d.Zipf, "zipf", 0, "popularity exponent of the follower distribution")
	f.IntVar(&d.MaxFollowers, "max-followers", 0, "cap on any account's followers")
	f.IntVar(&d.StatusesPerUser, "statuses-per-user", 0, "statuses per user, spread over --days")
	f.Float64Var(&d.Days, "days", 0, "statuses span the last this many days")
	f.Int64Var(&d.HotAt, "hot-threshold", 0, "followers at which an account is hot (loaded flags and servers)")
	f.IntVar(&d.ActiveUsers, "active-users", 0, "ordinary users driven and active (0: the preset's; ≥ users: all)")
	f.Uint64Var(&d.Seed, "seed", 0, "random seed of the data set")
}

// addServiceFlags declares where the stores and services come from, shared
// by `bench run` and `bench soak`: --data, the services of the mariadb
// backend, and --target with --accounts.
func addServiceFlags(f *pflag.FlagSet, dataDir *string, svc *bench.Services, target, accounts *string) {
	f.StringVar(dataDir, "data", "", "where the embedded stores go (default: a temporary directory)")
	addServiceURLFlags(f, svc)
	f.StringVar(target, "target", "", "drive this running Mastodon-API server instead (needs --accounts)")
	f.StringVar(accounts, "accounts", "", "with --target: accounts file, lines id,token[,followers,following[,role]]")
}

// addServiceURLFlags declares the services of the mariadb backend, for every
// bench command that runs one: --mysql-url, --redis-url and --nats-url, with
// the test script's loopback services as defaults.
func addServiceURLFlags(f *pflag.FlagSet, svc *bench.Services) {
	f.StringVar(&svc.MySQLURL, "mysql-url", "mysql://root@127.0.0.1:3306/", "MariaDB server of the mariadb backend")
	f.StringVar(&svc.RedisURL, "redis-url", "redis://127.0.0.1:6379/0", "Redis of the mariadb backend")
	f.StringVar(&svc.NATSURL, "nats-url", "nats://127.0.0.1:4222", "NATS of the mariadb backend")
}

// applyPreset fills every data-set setting not given on the command line
// from the preset (bench.Presets), and with run (`bench run`) every load
// setting too (bench.SuitePresets).
func applyPreset(f *pflag.FlagSet, preset string, d *bench.DatasetConfig, run *bench.SuiteOptions) error {
	base, ok := bench.Presets[preset]
	load, ok2 := bench.SuitePresets[preset]
	if !ok || !ok2 {
		return fmt.Errorf("unknown preset %q (small, medium, large)", preset)
	}
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
	if run != nil {
		set("backend", func() { run.Backends = load.Backends })
		set("duration", func() { run.Run.Duration = load.Duration })
		set("open-duration", func() { run.Run.OpenDuration = load.OpenDuration })
		set("probe-duration", func() { run.Run.ProbeDuration = load.ProbeDuration })
		set("rate", func() { run.Run.Rate = load.Rate })
		set("posts-per-bucket", func() { run.Run.PostsPerBucket = load.PostsPerBucket })
	}
	if d.Users < 2 || d.HotAt <= 0 {
		return fmt.Errorf("need at least 2 users and a positive hot threshold")
	}
	return nil
}
