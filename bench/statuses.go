package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"sync"
	"time"
)

// StatusesOptions are the settings of RunStatuses (`sparrow bench statuses`).
type StatusesOptions struct {
	Backends []string      // embedded, mariadb: one in-process server each, in order
	Clients  int           // concurrent closed-loop clients
	Duration time.Duration // of each measured phase
	Services Services      // of the mariadb backend
	// Target, if set, is the base URL of a running server driven instead
	// of an in-process one (once per entry of Backends, which label it).
	Target string
	Out    string // also write the rows as JSON to this file ("": no file)
}

// RunStatuses measures POST /api/v1/statuses, then GET /api/v1/statuses/:id,
// closed loop, on a fresh in-process server of each backend (or o.Target),
// with fresh accounts signed up for it. It prints a table of the rows to
// stdout and writes them to o.Out; the servers log their warnings to stderr.
// Every store, database, Redis prefix and stream it created is removed.
func RunStatuses(ctx context.Context, o StatusesOptions, stdout, stderr io.Writer) error {
	var results []scenarioRow
	for _, be := range o.Backends {
		base, stop := o.Target, func() {}
		if o.Target == "" {
			a, err := openBackend(ctx, be, o.Services, stderr)
			if err != nil {
				return err
			}
			if err := a.serve(); err != nil {
				a.stop()
				return err
			}
			base, stop = a.base, a.stop
		}
		rows, err := statusesScenario(ctx, be, base, o.Clients, o.Duration)
		stop()
		if err != nil {
			return fmt.Errorf("%s: %w", be, err)
		}
		results = append(results, rows...)
	}
	printScenarioRows(stdout, results)
	return writeScenarioJSON(o.Out, results)
}

// statusesScenario signs up clients accounts on the server at base, has
// them post for dur, then read random posted statuses for dur.
func statusesScenario(ctx context.Context, backend, base string, clients int, dur time.Duration) ([]scenarioRow, error) {
	c := NewClient(base, clients*2)
	accounts, err := c.Signup(ctx, fmt.Sprintf("b%d_", rand.Uint32()%100000), clients)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var posted []string
	seq := 0
	post := Op{Name: "post", Do: func(ctx context.Context, w int) error {
		mu.Lock()
		seq++
		n := seq
		mu.Unlock()
		var st struct {
			ID string `json:"id"`
		}
		err := c.Do(ctx, "POST", "/api/v1/statuses", accounts[w].Token, url.Values{"status": {fmt.Sprintf("压测 %d #bench", n)}}, &st)
		if err == nil {
			mu.Lock()
			posted = append(posted, st.ID)
			mu.Unlock()
		}
		return err
	}}
	rPost := ClosedLoop(ctx, clients, dur, 0, post)
	if len(posted) == 0 {
		return nil, fmt.Errorf("no status was posted")
	}
	get := Op{Name: "get_status", Do: func(ctx context.Context, w int) error {
		id := posted[rand.IntN(len(posted))]
		return c.Do(ctx, "GET", "/api/v1/statuses/"+id, accounts[w].Token, nil, nil)
	}}
	rGet := ClosedLoop(ctx, clients, dur, 0, get)
	return []scenarioRow{{Backend: backend, Mode: "-", Result: rPost}, {Backend: backend, Mode: "-", Result: rGet}}, nil
}
