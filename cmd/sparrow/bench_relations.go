package main

import (
	"time"

	"github.com/spf13/cobra"

	"sparrow/bench"
)

// benchRelationsCmd measures the relation service server-side (in process,
// no HTTP) on a graph loaded by `sparrow import follows`.
func benchRelationsCmd() *cobra.Command {
	var o bench.RelationsOptions
	cmd := &cobra.Command{
		Use:   "relations",
		Short: "Relationships batches, following/followers pages and follow throughput, server-side, on an imported graph",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnvAndFile(cmd); err != nil {
				return err
			}
			return bench.RunRelations(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	addServerFlags(cmd, &o.Server)
	f := cmd.Flags()
	f.StringVar(&o.AccountsFile, "accounts", "", "file of account ids, one per line (from `sparrow gen follows --accounts-out`)")
	f.StringVar(&o.Label, "label", "", "backend label in the report")
	f.IntVar(&o.Clients, "clients", 16, "concurrent callers")
	f.DurationVar(&o.Duration, "duration", 10*time.Second, "duration of each measured phase")
	f.StringVar(&o.Out, "out", "", "also write the results as JSON to this file")
	cmd.MarkFlagRequired("accounts")
	return cmd
}
