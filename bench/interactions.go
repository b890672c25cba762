package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"time"

	"sparrow"
	"sparrow/app"
	"sparrow/sqlstore/bulk"
)

// InteractionsOptions are the settings of RunInteractions (`sparrow bench
// interactions`).
type InteractionsOptions struct {
	Backends      []string      // embedded, mariadb: one in-process server each, in order
	Comments      int           // comments and favourites loaded on the hot status
	NewFavourites int           // favourites made through the service in the throughput phase
	Clients       int           // concurrent callers
	Duration      time.Duration // of each read phase
	Services      Services      // of the mariadb backend
	Out           string        // also write the rows as JSON to this file ("": no file)
}

// RunInteractions measures comment pages, counts and favourites on one hot
// status (issue 5) on a fresh in-process server of each backend, called
// through the services (no HTTP): it bulk-loads a status with o.Comments
// comments and favourites, reads comment pages, the status with its counts
// and favourited-by pages closed loop for o.Duration each, makes
// o.NewFavourites favourites, and waits until favourites_count is exact. It
// prints a table of the rows to stdout and writes them to o.Out; the load's
// progress and the servers' warnings go to stderr. Every store, database,
// Redis prefix and stream it created is removed.
func RunInteractions(ctx context.Context, o InteractionsOptions, stdout, stderr io.Writer) error {
	var rows []scenarioRow
	for _, be := range o.Backends {
		run, err := openBackend(ctx, be, o.Services, stderr)
		if err != nil {
			return err
		}
		got, err := interactionsScenario(ctx, run.App, o.Comments, o.NewFavourites, o.Clients, o.Duration, stderr)
		run.stop()
		if err != nil {
			return fmt.Errorf("%s: %w", be, err)
		}
		for i := range got {
			got[i].Backend = be
		}
		rows = append(rows, got...)
	}
	printScenarioRows(stdout, rows)
	return writeScenarioJSON(o.Out, rows)
}

// debugWait (SPARROW_DEBUG_WAIT set) prints the outboxes' oldest pending
// events while RunInteractions waits for the favourites count.
var debugWait = os.Getenv("SPARROW_DEBUG_WAIT") != ""

// interactionsScenario is RunInteractions on one opened server; progress
// goes to logw.
func interactionsScenario(ctx context.Context, a *app.App, n, newFavs, clients int, dur time.Duration, logw io.Writer) ([]scenarioRow, error) {
	st := a.Store
	ids := a.IDs
	author := ids.NextBalanced()
	users := make([]sparrow.ID, n+newFavs)
	for i := range users {
		users[i] = ids.NextBalanced()
	}
	fmt.Fprintf(logw, "loading %d accounts, %d comments, %d favourites…\n", len(users)+1, n, n)
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
	fmt.Fprintf(logw, "loaded in %v\n", time.Since(t0).Round(time.Millisecond))

	v := func() sparrow.Viewer { return sparrow.Viewer{AccountID: users[rand.IntN(n)]} }
	pages := (n + pageSize - 1) / pageSize
	svc := a.Services
	commentPage := Op{Name: "comment_page", Do: func(ctx context.Context, _ int) error {
		_, err := svc.Interactions.Comments(ctx, v(), root.ID, rand.IntN(pages))
		return err
	}}
	counts := Op{Name: "status_with_counts", Do: func(ctx context.Context, _ int) error {
		sv, err := svc.Statuses.Status(ctx, v(), root.ID)
		if err == nil && (sv.Status.RepliesCount != int64(n) || sv.Status.FavouritesCount < int64(n)) {
			return fmt.Errorf("counts %d/%d, want %d", sv.Status.RepliesCount, sv.Status.FavouritesCount, n)
		}
		return err
	}}
	favouritedBy := Op{Name: "favourited_by_page", Do: func(ctx context.Context, _ int) error {
		_, err := svc.Interactions.FavouritedBy(ctx, v(), root.ID, sparrow.Page{Limit: 40})
		return err
	}}
	var next atomic.Int64
	var firstErr atomic.Pointer[error]
	favourite := Op{Name: "favourite_hot_status", Do: func(ctx context.Context, _ int) error {
		i := n + int(next.Add(1)-1)%newFavs
		_, err := svc.Interactions.Favourite(ctx, sparrow.Viewer{AccountID: users[i]}, root.ID)
		if err != nil {
			firstErr.CompareAndSwap(nil, &err)
		}
		return err
	}}
	var rows []scenarioRow
	for _, op := range []Op{commentPage, counts, favouritedBy} {
		rows = append(rows, scenarioRow{Mode: "-", Result: ClosedLoop(ctx, clients, dur, 0, op)})
	}
	start := time.Now()
	fav := ClosedLoop(ctx, clients, time.Hour, int64(newFavs), favourite)
	rows = append(rows, scenarioRow{Mode: "-", Result: fav})
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
				fmt.Fprintf(logw, "outbox %s oldest pending %v\n", o.Name(), old)
			}
			fmt.Fprintf(logw, "favourites_count %d\n", got.FavouritesCount)
		}
		if time.Since(start) > 5*time.Minute {
			return nil, fmt.Errorf("favourites_count %d never reached %d", got.FavouritesCount, n+newFavs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintf(logw, "%d favourites: exact favourites_count after %v\n", newFavs, time.Since(start).Round(time.Millisecond))
	return rows, nil
}
