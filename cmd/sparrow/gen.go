package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"sparrow"
	"sparrow/internal/graphgen"
)

func genCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "gen", Short: "Generate synthetic data sets"}
	cmd.AddCommand(genFollowsCmd())
	return cmd
}

func genFollowsCmd() *cobra.Command {
	var cfg graphgen.Config
	var out, accountsOut string
	cmd := &cobra.Command{
		Use:   "follows",
		Short: "Write a power-law follow graph as an edge list (follower_id,followee_id per line)",
		Long: `follows writes a synthetic follow graph for ` + "`sparrow import follows`" + ` and the benchmarks.

Users are valid Sparrow ids: user i has shard gene i % 256, node 63 and the
id clock stopped at 2025-01-01T00:00:00Z (graphgen.AccountIDs). Each user
follows 1 + Geometric(1/mean) others (mean --mean-following), drawn without
replacement from a Zipf popularity (weight (rank+1)^-zipf over a seeded
random ranking), never itself, never twice; a user with --max-followers
followers is no longer drawn. The same flags and seed give the same file.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			var st graphgen.Stats
			err := genWriteFile(out, func(w *bufio.Writer) error {
				var buf []byte
				var err error
				st, err = graphgen.Generate(cfg, func(from, to sparrow.ID) error {
					buf = graphgen.AppendEdge(buf[:0], from, to)
					_, werr := w.Write(buf)
					return werr
				})
				return err
			})
			if err != nil {
				return err
			}
			if accountsOut != "" {
				err := genWriteFile(accountsOut, func(w *bufio.Writer) error {
					var buf []byte
					for _, id := range graphgen.AccountIDs(cfg.Users) {
						buf = append(strconv.AppendInt(buf[:0], int64(id), 10), '\n')
						if _, err := w.Write(buf); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			took := time.Since(start)
			fmt.Fprintf(cmd.ErrOrStderr(), "%d users, %d follows (mean %.1f, max following %d, max followers %d, %d users capped short) in %v (%.0f edges/s)\n",
				cfg.Users, st.Edges, float64(st.Edges)/float64(cfg.Users), st.MaxFollowing, st.MaxFollowers, st.Truncated,
				took.Round(time.Millisecond), float64(st.Edges)/took.Seconds())
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Users, "users", 0, "number of users (≥ 2)")
	f.Float64Var(&cfg.MeanFollowing, "mean-following", 100, "mean number of accounts a user follows")
	f.Float64Var(&cfg.Zipf, "zipf", 1.1, "popularity exponent (0 uniform; ~1-1.5 social)")
	f.IntVar(&cfg.MaxFollowers, "max-followers", 0, "cap on any user's followers (0: none)")
	f.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	f.StringVar(&out, "out", "", "edge list file to write (- for stdout)")
	f.StringVar(&accountsOut, "accounts-out", "", "also write the account ids, one per line, to this file")
	cmd.MarkFlagRequired("users")
	cmd.MarkFlagRequired("out")
	return cmd
}

// genWriteFile writes path (or stdout for "-") through a buffered writer,
// atomically for files: a failed run leaves no partial file behind.
func genWriteFile(path string, fill func(*bufio.Writer) error) error {
	var w io.Writer = os.Stdout
	var f *os.File
	if path != "-" {
		var err error
		if f, err = os.CreateTemp(filepath.Dir(path), ".sparrow-gen-*"); err != nil {
			return err
		}
		defer os.Remove(f.Name()) // after a successful rename this is a no-op
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	err := errors.Join(fill(bw), bw.Flush())
	if f == nil {
		return err
	}
	if err = errors.Join(err, f.Chmod(0o644), f.Close()); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
