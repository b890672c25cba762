package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"sparrow/app"
	"sparrow/sqlstore"
	"sparrow/sqlstore/check"
)

// adminStoreFlags are the store settings of the offline commands (import,
// admin), with serve's names, defaults, environment variables and config file.
type adminStoreFlags struct {
	dataDir, shards string
	quiet           bool
}

func addAdminStoreFlags(cmd *cobra.Command, f *adminStoreFlags) {
	fs := cmd.Flags()
	fs.String("config", "", "config file of `name = value` lines")
	fs.StringVar(&f.dataDir, "data", "./data", "data directory (embedded SQLite shards)")
	fs.StringVar(&f.shards, "shards", "", "shard map RANGE=DSN,… (sqlite:FILE or mysql://user:pass@host:port/db); default: four SQLite files under --data")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bars")
}

// spec returns the shard map: --shards, or serve's default under --data.
func (f adminStoreFlags) spec() string {
	if f.shards != "" {
		return f.shards
	}
	return app.DefaultShards(f.dataDir)
}

// open applies the environment and config file, then opens (and migrates)
// every physical store of the shard map.
func (f *adminStoreFlags) open(cmd *cobra.Command) (*sqlstore.Store, error) {
	if err := applyEnvAndFile(cmd); err != nil {
		return nil, err
	}
	if f.shards == "" {
		if err := os.MkdirAll(f.dataDir, 0o755); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
	}
	shards, err := sqlstore.OpenShards(cmd.Context(), f.spec(), app.BulkOpeners)
	if err != nil {
		return nil, err
	}
	return sqlstore.New(shards), nil
}

// adminBar returns a progress bar on w counting unit (hidden if quiet).
func adminBar(w io.Writer, quiet bool, max int64, desc, unit string) *progressbar.ProgressBar {
	return progressbar.NewOptions64(max,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetVisibility(!quiet),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() {
			if !quiet {
				fmt.Fprintln(w)
			}
		}),
	)
}

func adminCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "admin", Short: "Offline maintenance of the stores"}
	cmd.AddCommand(checkRelationsCmd())
	return cmd
}

// errFindings makes the command exit 1 when findings remain.
type errFindings int64

func (e errFindings) Error() string {
	return fmt.Sprintf("%d findings remain unrepaired (run with --repair; newer-follower findings need a look)", int64(e))
}

func checkRelationsCmd() *cobra.Command {
	var sf adminStoreFlags
	var repair bool
	var maxPrint int
	cmd := &cobra.Command{
		Use:   "check-relations",
		Short: "Check (and with --repair fix) that followers mirror following and that follow counters are exact",
		Long: `check-relations verifies every physical store of the shard map:
every following row must have an identical followers row on its target's
store (same state, version, edge id, reblogs, notify), every followers row a
following row, and every account's followers_count and following_count plus
its pending counter deltas must equal its active rows.

--repair copies following rows onto missing, older or different followers
rows (never onto newer ones), deletes orphan followers rows, and resets wrong
counters to the recounted value, deleting the account's pending deltas in
the same transaction. Counters are checked after the edge repairs.

Run it on a quiescent store: follows made while it runs can show up as
transient findings. It exits 0 if the store is consistent (or was repaired),
1 if findings remain.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := sf.open(cmd)
			if err != nil {
				return err
			}
			defer s.Shards().Close()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "checking relations on %s (repair: %v)\n", app.Redact(sf.spec()), repair)
			start := time.Now()
			printed := 0
			sum, err := check.Relations(cmd.Context(), s, repair, func(f check.Finding) {
				if printed < maxPrint {
					fmt.Fprintln(out, f)
				}
				printed++
			})
			if err != nil {
				return err
			}
			if printed > maxPrint {
				fmt.Fprintf(out, "… and %d more findings\n", printed-maxPrint)
			}
			printCheckSummary(out, sum, time.Since(start))
			if n := sum.Unrepaired(); n > 0 {
				return errFindings(n)
			}
			return nil
		},
	}
	addAdminStoreFlags(cmd, &sf)
	cmd.Flags().BoolVar(&repair, "repair", false, "repair what is found")
	cmd.Flags().IntVar(&maxPrint, "max-print", 1000, "print at most this many findings (all are counted)")
	return cmd
}

func printCheckSummary(w io.Writer, sum check.Summary, took time.Duration) {
	fmt.Fprintf(w, "checked %d following rows, %d followers rows, %d accounts in %v\n",
		sum.Following, sum.Followers, sum.Accounts, took.Round(time.Millisecond))
	kinds := make([]string, 0, len(sum.ByKind))
	for k := range sum.ByKind {
		kinds = append(kinds, string(k))
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "  %-20s %d\n", k, sum.ByKind[check.FindingKind(k)])
	}
	switch {
	case sum.Findings == 0:
		fmt.Fprintln(w, "consistent: no findings")
	case sum.Unrepaired() == 0:
		fmt.Fprintf(w, "repaired all %d findings\n", sum.Findings)
	default:
		fmt.Fprintf(w, "%d findings, %d repaired, %d remain\n", sum.Findings, sum.Repaired, sum.Unrepaired())
	}
}
