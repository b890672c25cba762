package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"sparrow"
	"sparrow/app"
	"sparrow/internal/graphgen"
	"sparrow/sqlstore"
	"sparrow/sqlstore/bulk"
)

func importCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "import", Short: "Bulk-load data sets into the stores (offline)"}
	cmd.AddCommand(importFollowsCmd())
	return cmd
}

func importFollowsCmd() *cobra.Command {
	var sf adminStoreFlags
	var accountsFile string
	var o bulk.Options
	cmd := &cobra.Command{
		Use:   "follows FILE",
		Short: "Bulk-load an edge list (follower_id,followee_id per line) with placeholder accounts and exact counters",
		Long: `follows loads an edge list (see ` + "`sparrow gen follows`" + `) into the stores of the
shard map: the following rows on each follower's store, the followers rows on
each followee's store, and followers_count/following_count set exactly, so
that ` + "`sparrow admin check-relations`" + ` finds nothing afterwards.

Every account named by the edges or by --accounts that does not exist is
created as a placeholder: username u<id>, email u<id>@import.invalid (both
claimed, so lookups by name work), an empty display name, and a password
hash ("!") that no password matches.

It is an offline tool: run it while no server writes to the stores. Rows go
in with multi-row INSERT … IGNORE statements in large transactions, both
tables of every store at once (one writer per SQLite file, --writers per
table on MySQL). On empty relation tables rows are sorted into primary-key
order and appended, and counters computed in memory; otherwise the load
merges (existing rows win, followers rows are copied from the stored following
rows, counters of the touched accounts are recounted from the rows), so
running it again after an interruption is safe. Edge ids are numbered in
(follower, followee) order, one millisecond apart, ending now, so that the
list indexes are appended in order too: they are kept during the load, which
costs less than dropping and rebuilding them. With --relaxed (the default)
SQLite files run with synchronous=OFF during the load, then get their setting
back and a WAL checkpoint; MySQL keeps its durability settings. The whole edge
list is held in memory (10M edges take about 1.5 GB). Imported rows bypass
the outbox: no events are published.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := sf.open(cmd)
			if err != nil {
				return err
			}
			defer s.Shards().Close()
			ctx := cmd.Context()
			out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
			fmt.Fprintf(out, "importing %s into %s\n", args[0], app.Redact(sf.spec()))

			start := time.Now()
			pairs, ids, err := readImport(args[0], accountsFile, errw, sf.quiet)
			if err != nil {
				return err
			}
			read := time.Since(start)

			loadStart := time.Now()
			bar := adminBar(errw, sf.quiet, -1, "accounts", "accounts")
			o.Planned, o.Progress = func(n int) { bar.ChangeMax(n) }, func(n int) { bar.Add(n) }
			al, err := bulk.LoadAccounts(ctx, s, ids, o)
			bar.Finish()
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "accounts: %d created, %d existed", al.Created, al.Existing)
			if al.NameConflicts > 0 {
				fmt.Fprintf(out, ", %d placeholder names already claimed by other accounts", al.NameConflicts)
			}
			fmt.Fprintln(out)

			bar = adminBar(errw, sf.quiet, -1, "follows (following + followers rows)", "rows")
			o.Planned, o.Progress = func(n int) { bar.ChangeMax(n) }, func(n int) { bar.Add(n) }
			fl, err := bulk.LoadFollows(ctx, s, pairs, o)
			bar.Finish()
			if err != nil {
				return err
			}
			took := time.Since(loadStart)
			mode := "fresh tables: appended in key order, counters from memory"
			if !fl.Fresh {
				mode = "merged into existing rows: counters recounted from the rows"
			}
			fmt.Fprintf(out, "follows: %d loaded (%d new following rows), %d skipped (self-follows, duplicates); %s; counters set on %d accounts\n",
				fl.Edges, fl.New, fl.Skipped, mode, fl.Accounts)
			ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
			fmt.Fprintf(out, "read %v; load %v (accounts %v, sort %v, rows %v, counters %v): %.0f edges/s; total %v\n",
				ms(read), ms(took), ms(took-fl.Prepare-fl.Write-fl.Counters), ms(fl.Prepare), ms(fl.Write), ms(fl.Counters),
				float64(fl.Edges)/took.Seconds(), ms(time.Since(start)))
			return importStorageReport(ctx, out, s, int64(fl.Edges))
		},
	}
	addAdminStoreFlags(cmd, &sf)
	f := cmd.Flags()
	f.StringVar(&accountsFile, "accounts", "", "file of account ids (one per line) to create as well, followed or not")
	f.IntVar(&o.Batch, "batch", 1000, "rows per INSERT statement")
	f.IntVar(&o.TxRows, "tx-rows", 50000, "rows per transaction")
	f.IntVar(&o.Writers, "writers", 2, "concurrent writers per table and MySQL store (SQLite: one per file)")
	f.BoolVar(&o.Relaxed, "relaxed", true, "SQLite: synchronous=OFF during the load (restored and checkpointed after)")
	f.Int64Var(&o.HotAt, "hot-at", 0, "if > 0, flag accounts with at least this many followers as hot")
	f.IntVar(&o.Node, "node", 0, "id generator node of the edge ids (0-63)")
	return cmd
}

// readImport reads the edge list (with a progress bar) and the optional
// account list, and returns the pairs and every account id they name.
func readImport(edgesPath, accountsPath string, errw io.Writer, quiet bool) ([]bulk.FollowPair, []sparrow.ID, error) {
	f, err := os.Open(edgesPath)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	pairs := make([]bulk.FollowPair, 0, max(0, size/36))
	seen := map[sparrow.ID]struct{}{}
	bar := adminBar(errw, quiet, size, "reading "+edgesPath, "B")
	err = graphgen.ReadEdgeList(io.TeeReader(f, bar), func(from, to sparrow.ID) error {
		pairs = append(pairs, bulk.FollowPair{From: from, To: to})
		seen[from], seen[to] = struct{}{}, struct{}{}
		return nil
	})
	bar.Finish()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", edgesPath, err)
	}
	if accountsPath != "" {
		af, err := os.Open(accountsPath)
		if err != nil {
			return nil, nil, err
		}
		defer af.Close()
		err = graphgen.ReadIDList(af, func(id sparrow.ID) error { seen[id] = struct{}{}; return nil })
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", accountsPath, err)
		}
	}
	return pairs, slices.Collect(maps.Keys(seen)), nil
}

// importStorageReport prints the on-disk bytes per edge: for SQLite the files
// (after the load's checkpoint) and, where the dbstat table exists, the
// relation tables' pages; for MySQL data_length + index_length of following
// and followers (after ANALYZE TABLE refreshed them).
func importStorageReport(ctx context.Context, w io.Writer, s *sqlstore.Store, edges int64) error {
	if edges == 0 {
		return nil
	}
	var files, sqliteRel, mysqlRel int64
	var sqliteDBs, mysqlDBs int
	var errs error
	for _, db := range s.Shards().DBs() {
		switch db.Dialect.Name {
		case "sqlite":
			sqliteDBs++
			path := strings.TrimPrefix(db.Name, "sqlite:")
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if st, err := os.Stat(path + suffix); err == nil {
					files += st.Size()
				}
			}
			var n int64
			if err := db.R.QueryRowContext(ctx, "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN "+
				"('following', 'followers', 'idx_following_list', 'idx_follower_list')").Scan(&n); err == nil {
				sqliteRel += n
			}
		case "mysql":
			mysqlDBs++
			rows, err := db.W.QueryContext(ctx, "ANALYZE TABLE following, followers")
			if err == nil {
				rows.Close()
			}
			var n int64
			err = db.R.QueryRowContext(ctx, "SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables "+
				"WHERE table_schema = DATABASE() AND table_name IN ('following', 'followers')").Scan(&n)
			errs = errors.Join(errs, err)
			mysqlRel += n
		}
	}
	per := func(b int64) string { return fmt.Sprintf("%d bytes (%.1f bytes/edge)", b, float64(b)/float64(edges)) }
	if sqliteDBs > 0 {
		fmt.Fprintf(w, "sqlite: %d files, %s on disk (all tables)", sqliteDBs, per(files))
		if sqliteRel > 0 {
			fmt.Fprintf(w, "; following+followers with their indexes %s", per(sqliteRel))
		}
		fmt.Fprintln(w)
	}
	if mysqlDBs > 0 {
		fmt.Fprintf(w, "mysql: %d databases, following+followers data+index %s\n", mysqlDBs, per(mysqlRel))
	}
	return errs
}
