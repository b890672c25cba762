package bench

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

	"sparrow"
	"sparrow/app"
)

// RelationsOptions are the settings of RunRelations (`sparrow bench relations`).
type RelationsOptions struct {
	Server       app.Config    // the stores holding the imported graph (as `sparrow serve` would open them)
	AccountsFile string        // account ids, one per line (the first field of a CSV line)
	Label        string        // backend label of the rows
	Clients      int           // concurrent callers
	Duration     time.Duration // of each measured phase
	Out          string        // also write the rows as JSON to this file ("": no file)
}

// RunRelations measures the relation service server-side (in process, no
// HTTP) on a graph loaded by `sparrow import follows` into the stores of
// o.Server: relationships batches of 40, following and followers pages of
// 40 and follows, closed loop, by viewers drawn from o.AccountsFile (at
// least 100 ids). It prints a table of the rows to stdout and writes them
// to o.Out; the server logs nothing. The follows it makes stay in the
// stores.
func RunRelations(ctx context.Context, o RelationsOptions, stdout io.Writer) error {
	ids, err := readIDs(o.AccountsFile)
	if err != nil {
		return err
	}
	if len(ids) < 100 {
		return fmt.Errorf("%s: need at least 100 account ids", o.AccountsFile)
	}
	a, err := app.Open(ctx, o.Server, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer a.Close()
	rows, err := relationsScenario(ctx, a, ids, o.Clients, o.Duration)
	if err != nil {
		return err
	}
	for i := range rows {
		rows[i].Backend = o.Label
	}
	printScenarioRows(stdout, rows)
	return writeScenarioJSON(o.Out, rows)
}

// readIDs reads the account ids of path: one a line, the first field of a
// CSV line, blank lines skipped.
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

// relationsScenario runs the relation measures of RunRelations on a.
func relationsScenario(ctx context.Context, a *app.App, ids []sparrow.ID, clients int, dur time.Duration) ([]scenarioRow, error) {
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
	relationships := Op{Name: "relationships_40", Prepare: func(ctx context.Context, _ int) (func(context.Context) error, error) {
		v := viewer()
		b := batch(ctx, v) // built outside the timer: only the relationships call is measured
		return func(ctx context.Context) error { _, err := rel.Relationships(ctx, v, b); return err }, nil
	}}
	following := Op{Name: "following_page_40", Do: func(ctx context.Context, _ int) error {
		v := viewer()
		_, err := rel.Following(ctx, v, v.AccountID, sparrow.Page{Limit: 40})
		return err
	}}
	followers := Op{Name: "followers_page_40", Do: func(ctx context.Context, _ int) error {
		v := viewer()
		_, err := rel.Followers(ctx, v, v.AccountID, sparrow.Page{Limit: 40})
		return err
	}}
	follow := Op{Name: "follow", Do: func(ctx context.Context, _ int) error {
		v := viewer()
		target := ids[rand.IntN(len(ids))]
		if target == v.AccountID {
			return nil
		}
		_, err := rel.Follow(ctx, v, target, sparrow.FollowOptions{})
		return err
	}}
	var rows []scenarioRow
	for _, op := range []Op{relationships, following, followers, follow} {
		r := ClosedLoop(ctx, clients, dur, 0, op)
		rows = append(rows, scenarioRow{Mode: "-", Result: r})
	}
	return rows, nil
}
