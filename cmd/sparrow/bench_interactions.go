package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"sparrow"
	"sparrow/app"
	"sparrow/bench"
	"sparrow/sqlstore/bulk"
)

// benchInteractionsCmd measures comment pages, counts and favourites on one
// hot status (issue 5): a status with N comments and N favourites.
func benchInteractionsCmd() *cobra.Command {
	var backends []string
	var comments, newFavs, clients int
	var dur time.Duration
	var mysqlURL, redisURL, natsURL, out string
	cmd := &cobra.Command{
		Use:   "interactions",
		Short: "Comment page reads, counts and favourite throughput on a status with many comments and favourites",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			var rows []benchRow
			for _, be := range backends {
				run, err := openBackend(ctx, be, mysqlURL, redisURL, natsURL)
				if err != nil {
					return err
				}
				got, err := runInteractionsBench(ctx, run.App, comments, newFavs, clients, dur)
				run.stop()
				if err != nil {
					return fmt.Errorf("%s: %w", be, err)
				}
				for i := range got {
					got[i].Backend = be
				}
				rows = append(rows, got...)
			}
			printRows(os.Stdout, rows)
			return writeJSON(out, rows)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&backends, "backend", []string{"embedded", "mariadb"}, "backends: embedded, mariadb")
	f.IntVar(&comments, "comments", 100000, "comments and favourites loaded on the hot status")
	f.IntVar(&newFavs, "new-favourites", 5000, "favourites made through the service during the throughput phase")
	f.IntVar(&clients, "clients", 16, "concurrent callers")
	f.DurationVar(&dur, "duration", 10*time.Second, "duration of each read phase")
	f.StringVar(&mysqlURL, "mysql-url", "mysql://root@127.0.0.1:3306/", "MariaDB server for the mariadb backend")
	f.StringVar(&redisURL, "redis-url", "redis://127.0.0.1:6379/0", "Redis for the mariadb backend")
	f.StringVar(&natsURL, "nats-url", "nats://127.0.0.1:4222", "NATS for the mariadb backend")
	f.StringVar(&out, "out", "", "also write the results as JSON to this file")
	return cmd
}

var debugWait = os.Getenv("SPARROW_DEBUG_WAIT") != ""

func runInteractionsBench(ctx context.Context, a *app.App, n, newFavs, clients int, dur time.Duration) ([]benchRow, error) {
	st := a.Store
	ids := a.IDs
	author := ids.NextBalanced()
	users := make([]sparrow.ID, n+newFavs)
	for i := range users {
		users[i] = ids.NextBalanced()
	}
	fmt.Fprintf(os.Stderr, "loading %d accounts, %d comments, %d favourites…\n", len(users)+1, n, n)
	t0 := time.Now()
	if _, err := bulk.LoadAccounts(ctx, st, append([]sparrow.ID{author}, users...), bulk.Options{}); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	root := &sparrow.Status{ID: ids.Next(author.Shard()), AccountID: author, Text: "a very popular status", Visibility: sparrow.Public, CreatedAt: now, Version: 1}
	if _, _, err := st.CreateStatus(ctx, sparrow.NewStatus{Status: root}); err != nil {
		return nil, err
	}
	cs := make([]bulk.Comment, n)
	for i := range cs {
		u := users[i]
		cs[i] = bulk.Comment{ID: ids.Next(u.Shard()), Author: u, At: now}
	}
	pageSize := a.Config.CommentPageSize
	if pageSize <= 0 {
		pageSize = 20
	}
	if err := bulk.LoadComments(ctx, st, root, cs, pageSize); err != nil {
		return nil, err
	}
	if err := bulk.LoadFavourites(ctx, st, root.ID, users[:n], now); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "loaded in %v\n", time.Since(t0).Round(time.Millisecond))

	v := func() sparrow.Viewer { return sparrow.Viewer{AccountID: users[rand.IntN(n)]} }
	pages := (n + pageSize - 1) / pageSize
	svc := a.Services
	commentPage := bench.Op{Name: "comment_page", Do: func(ctx context.Context, _ int) error {
		_, err := svc.Interactions.Comments(ctx, v(), root.ID, rand.IntN(pages))
		return err
	}}
	counts := bench.Op{Name: "status_with_counts", Do: func(ctx context.Context, _ int) error {
		sv, err := svc.Statuses.Status(ctx, v(), root.ID)
		if err == nil && (sv.Status.RepliesCount != int64(n) || sv.Status.FavouritesCount < int64(n)) {
			return fmt.Errorf("counts %d/%d, want %d", sv.Status.RepliesCount, sv.Status.FavouritesCount, n)
		}
		return err
	}}
	favouritedBy := bench.Op{Name: "favourited_by_page", Do: func(ctx context.Context, _ int) error {
		_, err := svc.Interactions.FavouritedBy(ctx, v(), root.ID, sparrow.Page{Limit: 40})
		return err
	}}
	var next atomic.Int64
	var firstErr atomic.Pointer[error]
	favourite := bench.Op{Name: "favourite_hot_status", Do: func(ctx context.Context, _ int) error {
		i := n + int(next.Add(1)-1)%newFavs
		_, err := svc.Interactions.Favourite(ctx, sparrow.Viewer{AccountID: users[i]}, root.ID)
		if err != nil {
			firstErr.CompareAndSwap(nil, &err)
		}
		return err
	}}
	var rows []benchRow
	for _, op := range []bench.Op{commentPage, counts, favouritedBy} {
		rows = append(rows, benchRow{Mode: "-", Result: bench.ClosedLoop(ctx, clients, dur, 0, op)})
	}
	start := time.Now()
	fav := bench.ClosedLoop(ctx, clients, time.Hour, int64(newFavs), favourite)
	rows = append(rows, benchRow{Mode: "-", Result: fav})
	if fav.Errors > 0 {
		return rows, fmt.Errorf("%d favourites failed, the first with: %v", fav.Errors, *firstErr.Load())
	}
	// Convergence: the reverse rows and the buffered count deltas.
	for {
		got, err := st.Status(ctx, root.ID)
		if err != nil {
			return nil, err
		}
		if got.FavouritesCount >= int64(n+newFavs) {
			break
		}
		if time.Since(start) > 5*time.Minute || debugWait {
			for _, o := range st.Outboxes() {
				old, _ := o.OldestPending(ctx)
				fmt.Fprintf(os.Stderr, "outbox %s oldest pending %v\n", o.Name(), old)
			}
			fmt.Fprintf(os.Stderr, "favourites_count %d\n", got.FavouritesCount)
		}
		if time.Since(start) > 5*time.Minute {
			return nil, fmt.Errorf("favourites_count %d never reached %d", got.FavouritesCount, n+newFavs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "%d favourites: exact favourites_count after %v\n", newFavs, time.Since(start).Round(time.Millisecond))
	return rows, nil
}
