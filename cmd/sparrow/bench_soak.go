package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"sparrow/bench"
)

// Defaults of `bench soak`.
const (
	soakDefaultWarmup    = 2 * time.Minute
	soakWarmupShare      = 5 // default warm-up: at most a fifth of --duration
	soakDefaultOutputDir = "soak-out"
)

// soakRunner runs `bench soak` once its flags are parsed: bench.RunSoak, or
// a test's stand-in.
type soakRunner func(ctx context.Context, o bench.SoakOptions, stdout, stderr io.Writer) error

func benchSoakCmd() *cobra.Command { return newBenchSoakCmd(bench.RunSoak) }

// newBenchSoakCmd is `bench soak`: its flags, with the preset applied to
// those not given, make the options of run, and the server is this binary's
// serve. The first SIGINT or SIGTERM cancels run's context (which then
// cleans up), a second one ends the process.
func newBenchSoakCmd(run soakRunner) *cobra.Command {
	var o bench.SoakOptions
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
			if err := applyPreset(cmd.Flags(), o.Preset, &o.Data, nil); err != nil {
				return err
			}
			if !cmd.Flags().Changed("warmup") {
				o.Load.Warmup = min(soakDefaultWarmup, o.Load.Duration/soakWarmupShare)
			}
			if o.Target == "" {
				bin, err := os.Executable()
				if err != nil {
					return fmt.Errorf("soak: this binary: %w", err)
				}
				o.ServerBinary = bin
			}
			o.Bar, o.Command = progressBars(cmd.ErrOrStderr(), o.Quiet), benchCommandLine()
			ctx, stopSignals := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stopSignals()
			go func() { <-ctx.Done(); stopSignals() }() // a second Ctrl-C ends the bench at once
			return run(ctx, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	addDatasetFlags(f, &o.Preset, &o.Data)
	f.StringVar(&o.Backend, "backend", "embedded", "backend: embedded, or mariadb (MariaDB + Redis + NATS, a fresh database pair, prefix and stream, removed afterwards)")
	f.StringVar(&o.FeedMode, "feed-mode", "hybrid", "the server's feed mode: hybrid, push or pull")
	f.StringArrayVar(&o.ServerFlags, "server-flag", nil, "extra flag of the server process, e.g. --server-flag=--inbox-cap=400 (repeatable)")
	f.IntVar(&o.Load.Clients, "clients", 16, "closed-loop workers of the activation and the capacity run")
	f.DurationVar(&o.Load.CapacityDuration, "capacity-duration", 15*time.Second, "closed-loop capacity run before the soak (0: none; needs --rate)")
	f.Float64Var(&o.Load.Rate, "rate", 0, "open-loop rate in requests/s (default: half the measured capacity)")
	f.IntVar(&o.Load.Inflight, "inflight", 0, "open-loop requests in flight at most (default: 4 × --clients)")
	f.DurationVar(&o.Load.Duration, "duration", 30*time.Minute, "open-loop duration")
	f.DurationVar(&o.Load.Interval, "interval", 10*time.Second, "sampling interval")
	f.DurationVar(&o.Load.Warmup, "warmup", soakDefaultWarmup, "start of the open loop left out of the steady-state summary (default: 2m, or a fifth of --duration if shorter)")
	f.DurationVar(&o.Load.Cooldown, "cooldown", 0, "keep sampling the idle server this long after the open loop")
	f.StringVar(&o.Out, "out", soakDefaultOutputDir, "directory for soak.json, soak.md, soak.svg and server.log")
	f.BoolVar(&o.Keep, "keep", false, "keep the stores (embedded files, MariaDB databases) and write accounts.csv")
	f.BoolVar(&o.Quiet, "quiet", false, "no progress bars, phase log or sample lines")
	addServiceFlags(f, &o.DataDir, &o.Services, &o.Target, &o.Accounts)
	return cmd
}
