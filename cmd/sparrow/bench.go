package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"sparrow/bench"
)

// The bench subcommands parse their flags into the options of an entry
// point of package bench (bench.RunSuite, bench.RunSoak, bench.RunStatuses,
// bench.RunInteractions, bench.RunRelations), which does the rest.

func benchCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Load scenarios driven over the Mastodon API"}
	cmd.AddCommand(benchStatusesCmd(), benchRelationsCmd(), benchInteractionsCmd(), benchRunCmd(), benchSoakCmd())
	return cmd
}

func benchStatusesCmd() *cobra.Command {
	var o bench.StatusesOptions
	cmd := &cobra.Command{
		Use:   "statuses",
		Short: "POST /api/v1/statuses and GET /api/v1/statuses/:id throughput and latency, per backend",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.RunStatuses(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Backends, "backend", []string{"embedded", "mariadb"}, "backends to run: embedded, mariadb (MariaDB + Redis + NATS)")
	f.IntVar(&o.Clients, "clients", 16, "concurrent closed-loop clients")
	f.DurationVar(&o.Duration, "duration", 10*time.Second, "duration of each measured phase")
	addServiceURLFlags(f, &o.Services)
	f.StringVar(&o.Target, "target", "", "run against this running server instead of an in-process one")
	f.StringVar(&o.Out, "out", "", "also write the results as JSON to this file")
	return cmd
}

// benchCommandLine is this process's command line as the reports record it.
func benchCommandLine() string {
	return "sparrow bench " + strings.Join(os.Args[min(2, len(os.Args)):], " ")
}

// progressBars returns the progress bar factory of the bench commands,
// drawing on w (nil when quiet: no bars).
func progressBars(w io.Writer, quiet bool) bench.NewBar {
	if quiet {
		return nil
	}
	return func(desc string, total int64) bench.Bar {
		return progressBar{progressbar.NewOptions64(total,
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

// progressBar is a bench.Bar drawn by progressbar.
type progressBar struct{ *progressbar.ProgressBar }

func (b progressBar) Add(n int)        { b.ProgressBar.Add(n) }
func (b progressBar) SetTotal(n int64) { b.ProgressBar.ChangeMax64(n) }
func (b progressBar) Done()            { b.ProgressBar.Finish() }
