package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"sparrow"
	"sparrow/app"
	"sparrow/bench"
)

// benchRelationsCmd measures the relation service server-side (in process,
// no HTTP) on a graph loaded by `sparrow import follows`.
func benchRelationsCmd() *cobra.Command {
	var c app.Config
	var accountsFile, label, out string
	var clients int
	var dur time.Duration
	cmd := &cobra.Command{
		Use:   "relations",
		Short: "Relationships batches, following/followers pages and follow throughput, server-side, on an imported graph",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnvAndFile(cmd); err != nil {
				return err
			}
			ctx := cmd.Context()
			ids, err := readIDs(accountsFile)
			if err != nil {
				return err
			}
			if len(ids) < 100 {
				return fmt.Errorf("%s: need at least 100 account ids", accountsFile)
			}
			a, err := app.Open(ctx, c, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				return err
			}
			defer a.Close()
			rows, err := runRelationsBench(ctx, a, ids, clients, dur)
			if err != nil {
				return err
			}
			for i := range rows {
				rows[i].Backend = label
			}
			printRows(os.Stdout, rows)
			return writeJSON(out, rows)
		},
	}
	addServerFlags(cmd, &c)
	f := cmd.Flags()
	f.StringVar(&accountsFile, "accounts", "", "file of account ids, one per line (from `sparrow gen follows --accounts-out`)")
	f.StringVar(&label, "label", "", "backend label in the report")
	f.IntVar(&clients, "clients", 16, "concurrent callers")
	f.DurationVar(&dur, "duration", 10*time.Second, "duration of each measured phase")
	f.StringVar(&out, "out", "", "also write the results as JSON to this file")
	cmd.MarkFlagRequired("accounts")
	return cmd
}

func readIDs(path string) ([]sparrow.ID, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []sparrow.ID
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		n, err := strconv.ParseInt(strings.Split(line, ",")[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an id", path, line)
		}
		out = append(out, sparrow.ID(n))
	}
	return out, sc.Err()
}

func runRelationsBench(ctx context.Context, a *app.App, ids []sparrow.ID, clients int, dur time.Duration) ([]benchRow, error) {
	rel := a.Services.Relations
	viewer := func() sparrow.Viewer {
		return sparrow.Viewer{AccountID: ids[rand.IntN(len(ids))], Scopes: sparrow.Scopes{sparrow.ScopeRead, sparrow.ScopeWrite, sparrow.ScopeFollow}}
	}
	// A batch of 40: half from the viewer's own followings (hits), half random.
	batch := func(ctx context.Context, v sparrow.Viewer) []sparrow.ID {
		out := make([]sparrow.ID, 0, 40)
		if edges, err := rel.Following(ctx, v, v.AccountID, sparrow.Page{Limit: 20}); err == nil {
			for _, e := range edges {
				out = append(out, e.Account.ID)
			}
		}
		for len(out) < 40 {
			out = append(out, ids[rand.IntN(len(ids))])
		}
		return out
	}
	relationships := bench.Op{Name: "relationships_40", Prepare: func(ctx context.Context, _ int) (func(context.Context) error, error) {
		v := viewer()
		b := batch(ctx, v) // built outside the timer: only the relationships call is measured
		return func(ctx context.Context) error { _, err := rel.Relationships(ctx, v, b); return err }, nil
	}}
	following := bench.Op{Name: "following_page_40", Do: func(ctx context.Context, _ int) error {
		v := viewer()
		_, err := rel.Following(ctx, v, v.AccountID, sparrow.Page{Limit: 40})
		return err
	}}
	followers := bench.Op{Name: "followers_page_40", Do: func(ctx context.Context, _ int) error {
		v := viewer()
		_, err := rel.Followers(ctx, v, v.AccountID, sparrow.Page{Limit: 40})
		return err
	}}
	follow := bench.Op{Name: "follow", Do: func(ctx context.Context, _ int) error {
		v := viewer()
		target := ids[rand.IntN(len(ids))]
		if target == v.AccountID {
			return nil
		}
		_, err := rel.Follow(ctx, v, target, sparrow.FollowOptions{})
		return err
	}}
	var rows []benchRow
	for _, op := range []bench.Op{relationships, following, followers, follow} {
		r := bench.ClosedLoop(ctx, clients, dur, 0, op)
		rows = append(rows, benchRow{Mode: "-", Result: r})
	}
	return rows, nil
}
