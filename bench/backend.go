package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"

	"sparrow/app"
	"sparrow/mysql"
)

// Services are the shared services of the mariadb backend. Each run on it
// creates its own databases on MySQLURL, key prefix on RedisURL and stream
// on NATSURL, and removes them afterwards.
type Services struct {
	MySQLURL string // MariaDB server: mysql://user[:password]@host:port/ (the database names are appended)
	RedisURL string // redis://host:port/db
	NATSURL  string // nats://host:port, with JetStream
}

// backendConfig returns the server configuration of a named backend for a
// benchmark run, and a cleanup: "embedded" (the stores under dataDir, nothing
// to clean up) or "mariadb" (two fresh databases on svc's MariaDB, dropped by
// the cleanup, and a fresh Redis prefix and NATS stream, which the caller
// removes).
func backendConfig(name, dataDir string, svc Services) (app.Config, func(), error) {
	switch name {
	case "embedded":
		return app.Config{DataDir: dataDir}, func() {}, nil
	case "mariadb":
		tag := rand.Uint32()
		a := fmt.Sprintf("%ssparrow_bench_%d_a", svc.MySQLURL, tag)
		b := fmt.Sprintf("%ssparrow_bench_%d_b", svc.MySQLURL, tag)
		stream := fmt.Sprintf("SPARROWBENCH%d", tag)
		c := app.Config{DataDir: dataDir, Shards: "0-127=" + a + ",128-255=" + b, RedisURL: svc.RedisURL, NATSURL: svc.NATSURL, Stream: stream, RedisPrefix: fmt.Sprintf("sparrowbench%d:", tag)}
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
// fresh temporary directory, with fresh databases, Redis prefix and stream;
// the server logs warnings and errors to logw. The caller must stop it.
func openBackend(ctx context.Context, backend string, svc Services, logw io.Writer) (*backendRun, error) {
	dir, err := os.MkdirTemp("", "sparrow-bench-")
	if err != nil {
		return nil, err
	}
	c, cleanup, err := backendConfig(backend, dir, svc)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c.BcryptCost = 4 // sign-ups are set-up, not the thing measured
	r := &backendRun{config: c, dir: dir, clean: cleanup}
	if r.App, err = app.Open(ctx, c, slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn}))); err != nil {
		cleanup()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w", backend, err)
	}
	return r, nil
}

// serve serves the opened backend on a random loopback port.
func (r *backendRun) serve() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go r.Serve(ln)
	r.base = "http://" + ln.Addr().String()
	return nil
}

// stop closes the server and removes its stream, Redis prefix, databases
// and directory.
func (r *backendRun) stop() {
	if r.config.NATSURL != "" {
		r.Bus.DeleteStreams(context.Background())
	}
	r.Close()
	if r.config.RedisURL != "" {
		FlushRedisPrefix(r.config.RedisURL, r.config.RedisPrefix)
	}
	r.clean()
	os.RemoveAll(r.dir)
}

// startInProcess serves a Sparrow of configuration c on a random loopback
// port in this process, with a bcrypt cost of 4 and no log, and returns it
// with its base URL. The caller must close it.
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
