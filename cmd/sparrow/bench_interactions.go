package main

import (
	"time"

	"github.com/spf13/cobra"

	"sparrow/bench"
)

// benchInteractionsCmd measures comment pages, counts and favourites on one
// hot status (issue 5): a status with N comments and N favourites.
func benchInteractionsCmd() *cobra.Command {
	var o bench.InteractionsOptions
	cmd := &cobra.Command{
		Use:   "interactions",
		Short: "Comment page reads, counts and favourite throughput on a status with many comments and favourites",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.RunInteractions(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Backends, "backend", []string{"embedded", "mariadb"}, "backends: embedded, mariadb")
	f.IntVar(&o.Comments, "comments", 100000, "comments and favourites loaded on the hot status")
	f.IntVar(&o.NewFavourites, "new-favourites", 5000, "favourites made through the service during the throughput phase")
	f.IntVar(&o.Clients, "clients", 16, "concurrent callers")
	f.DurationVar(&o.Duration, "duration", 10*time.Second, "duration of each read phase")
	addServiceURLFlags(f, &o.Services)
	f.StringVar(&o.Out, "out", "", "also write the results as JSON to this file")
	return cmd
}
