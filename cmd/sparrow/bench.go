package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"sparrow/app"
	"sparrow/bench"
	"sparrow/mysql"
)

func benchCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Load scenarios driven over the Mastodon API"}
	cmd.AddCommand(benchStatusesCmd(), benchRelationsCmd(), benchInteractionsCmd(), benchRunCmd(), benchSoakCmd())
	return cmd
}

// backendConfig returns the server configuration of a named backend for a
// benchmark run, and a cleanup.
func backendConfig(name, dataDir, mysqlURL, redisURL, natsURL string) (app.Config, func(), error) {
	switch name {
	case "embedded":
		return app.Config{DataDir: dataDir}, func() {}, nil
	case "mariadb":
		tag := rand.Uint32()
		a := fmt.Sprintf("%ssparrow_bench_%d_a", mysqlURL, tag)
		b := fmt.Sprintf("%ssparrow_bench_%d_b", mysqlURL, tag)
		stream := fmt.Sprintf("SPARROWBENCH%d", tag)
		c := app.Config{DataDir: dataDir, Shards: "0-127=" + a + ",128-255=" + b, RedisURL: redisURL, NATSURL: natsURL, Stream: stream, RedisPrefix: fmt.Sprintf("sparrowbench%d:", tag)}
		return c, func() {
			mysql.DropDatabase(context.Background(), a)
			mysql.DropDatabase(context.Background(), b)
		}, nil
	}
	return app.Config{}, nil, fmt.Errorf("unknown backend %q (embedded, mariadb)", name)
}

// backendRun is an in-process server of a named backend for one benchmark,
// with what removes everything it created.
type backendRun struct {
	*app.App
	base   string // set by serve
	config app.Config
	dir    string
	clean  func()
}

// openBackend opens (without serving) an in-process Sparrow of backend in a
// fresh temporary directory, with fresh databases, Redis prefix and stream.
func openBackend(ctx context.Context, backend, mysqlURL, redisURL, natsURL string) (*backendRun, error) {
	dir, err := os.MkdirTemp("", "sparrow-bench-")
	if err != nil {
		return nil, err
	}
	c, cleanup, err := backendConfig(backend, dir, mysqlURL, redisURL, natsURL)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c.BcryptCost = 4 // sign-ups are set-up, not the thing measured
	r := &backendRun{config: c, dir: dir, clean: cleanup}
	if r.App, err = app.Open(ctx, c, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))); err != nil {
		cleanup()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w", backend, err)
	}
	return r, nil
}

// serve serves the opened backend on a random loopback port.
func (r *backendRun) serve(ctx context.Context) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go r.Serve(ln)
	r.base = "http://" + ln.Addr().String()
	return nil
}

// stop closes the server and removes its stream, databases and directory.
func (r *backendRun) stop() {
	if r.config.NATSURL != "" {
		r.Bus.DeleteStreams(context.Background())
	}
	r.Close()
	r.clean()
	os.RemoveAll(r.dir)
}

// startInProcess serves a Sparrow on a random loopback port in this process.
func startInProcess(ctx context.Context, c app.Config) (*app.App, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	c.Addr = ln.Addr().String()
	c.BcryptCost = 4 // sign-ups are set-up, not the thing measured
	a, err := app.Open(ctx, c, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		ln.Close()
		return nil, "", err
	}
	go a.Serve(ln)
	return a, "http://" + c.Addr, nil
}

func benchStatusesCmd() *cobra.Command {
	var backends []string
	var clients int
	var dur time.Duration
	var mysqlURL, redisURL, natsURL, target, out string
	cmd := &cobra.Command{
		Use:   "statuses",
		Short: "POST /api/v1/statuses and GET /api/v1/statuses/:id throughput and latency, per backend",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			var results []benchRow
			for _, be := range backends {
				base, stop := target, func() {}
				if target == "" {
					a, err := openBackend(ctx, be, mysqlURL, redisURL, natsURL)
					if err != nil {
						return err
					}
					if err := a.serve(ctx); err != nil {
						a.stop()
						return err
					}
					base, stop = a.base, a.stop
				}
				rows, err := runStatusesBench(ctx, be, base, clients, dur)
				stop()
				if err != nil {
					return fmt.Errorf("%s: %w", be, err)
				}
				results = append(results, rows...)
			}
			printRows(os.Stdout, results)
			return writeJSON(out, results)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&backends, "backend", []string{"embedded", "mariadb"}, "backends to run: embedded, mariadb (MariaDB + Redis + NATS)")
	f.IntVar(&clients, "clients", 16, "concurrent closed-loop clients")
	f.DurationVar(&dur, "duration", 10*time.Second, "duration of each measured phase")
	f.StringVar(&mysqlURL, "mysql-url", "mysql://root@127.0.0.1:3306/", "MariaDB server for the mariadb backend")
	f.StringVar(&redisURL, "redis-url", "redis://127.0.0.1:6379/0", "Redis for the mariadb backend")
	f.StringVar(&natsURL, "nats-url", "nats://127.0.0.1:4222", "NATS for the mariadb backend")
	f.StringVar(&target, "target", "", "run against this running server instead of an in-process one")
	f.StringVar(&out, "out", "", "also write the results as JSON to this file")
	return cmd
}

// benchRow is one measured (backend, op).
type benchRow struct {
	Backend string `json:"backend"`
	Mode    string `json:"mode"`
	bench.Result
}

func runStatusesBench(ctx context.Context, backend, base string, clients int, dur time.Duration) ([]benchRow, error) {
	c := bench.NewClient(base, clients*2)
	accounts, err := c.Signup(ctx, fmt.Sprintf("b%d_", rand.Uint32()%100000), clients)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var posted []string
	seq := 0
	post := bench.Op{Name: "post", Do: func(ctx context.Context, w int) error {
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
	rPost := bench.ClosedLoop(ctx, clients, dur, 0, post)
	if len(posted) == 0 {
		return nil, fmt.Errorf("no status was posted")
	}
	get := bench.Op{Name: "get_status", Do: func(ctx context.Context, w int) error {
		id := posted[rand.IntN(len(posted))]
		return c.Do(ctx, "GET", "/api/v1/statuses/"+id, accounts[w].Token, nil, nil)
	}}
	rGet := bench.ClosedLoop(ctx, clients, dur, 0, get)
	return []benchRow{{Backend: backend, Mode: "-", Result: rPost}, {Backend: backend, Mode: "-", Result: rGet}}, nil
}

func printRows(w io.Writer, rows []benchRow) {
	fmt.Fprintf(w, "%-10s %-14s %9s %7s %9s %8s %8s %8s %8s\n", "backend", "op", "requests", "errors", "req/s", "p50 ms", "p95 ms", "p99 ms", "p999 ms")
	for _, r := range rows {
		fmt.Fprintf(w, "%-10s %-14s %9d %7d %9.0f %8.2f %8.2f %8.2f %8.2f\n", r.Backend, r.Op, r.Requests, r.Errors, r.RPS, r.P50, r.P95, r.P99, r.P999)
	}
}

// writeJSON writes rows with the machine and date to path (nothing if "").
func writeJSON(path string, rows []benchRow) error {
	if path == "" {
		return nil
	}
	b, _ := json.MarshalIndent(map[string]any{"machine": machine(), "date": time.Now().UTC().Format(time.RFC3339), "results": rows}, "", "  ")
	return os.WriteFile(path, b, 0o644)
}

func machine() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s, %d cores, %s/%s, %s", host, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}
