// Command leftovers lists what tests and benchmarks left on the shared
// services, and exits 1 if anything: Redis keys under a test prefix
// ("sparrow" + letters or digits + ":", never the default "sparrow:"),
// MariaDB databases named like a test's ("sparrow_<word>_<digits>…") and
// NATS streams named like a test's ("SPARROW…" but the default "SPARROW"
// and "SPARROW_DEAD"). With -delete it removes them instead. The services
// are those of the tests (SPARROW_TEST_MYSQL, SPARROW_TEST_REDIS,
// SPARROW_TEST_NATS, with the tests' defaults); one that does not answer is
// skipped with a note, unless SPARROW_REQUIRE_SERVICES=1.
//
// scripts/test.sh runs it after the suite: the suite leaves nothing behind.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	natsgo "github.com/nats-io/nats.go"
	goredis "github.com/redis/go-redis/v9"

	"sparrow/mysql"
)

var (
	testKey    = regexp.MustCompile(`^sparrow[a-z0-9]+:`)
	testDB     = regexp.MustCompile(`^sparrow_[a-z0-9]+_[0-9]+`)
	testStream = regexp.MustCompile(`^SPARROW[A-Z0-9_]+$`)
)

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func main() {
	del := flag.Bool("delete", false, "delete what is found instead of failing")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	required := os.Getenv("SPARROW_REQUIRE_SERVICES") == "1"
	found, failed := 0, false
	for _, c := range []struct {
		name  string
		check func(context.Context, bool) ([]string, error)
	}{
		{"redis", redisKeys}, {"mariadb", databases}, {"nats", streams},
	} {
		got, err := c.check(ctx, *del)
		if err != nil {
			fmt.Fprintf(os.Stderr, "leftovers: %s: %v\n", c.name, err)
			failed = failed || required
			continue
		}
		for _, g := range got {
			fmt.Printf("%s: %s\n", c.name, g)
		}
		found += len(got)
	}
	switch {
	case failed:
		os.Exit(2)
	case found > 0 && !*del:
		fmt.Fprintf(os.Stderr, "leftovers: %d things left behind on the shared services (run with -delete to remove them)\n", found)
		os.Exit(1)
	}
}

// redisKeys finds (or deletes) keys under test prefixes; it reports the
// prefixes with their key counts.
func redisKeys(ctx context.Context, del bool) ([]string, error) {
	opt, err := goredis.ParseURL(env("SPARROW_TEST_REDIS", "redis://127.0.0.1:6379/0"))
	if err != nil {
		return nil, err
	}
	rdb := goredis.NewClient(opt)
	defer rdb.Close()
	counts := map[string]int{}
	iter := rdb.Scan(ctx, 0, "sparrow*", 1000).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		p := testKey.FindString(k)
		if p == "" {
			continue
		}
		counts[p]++
		if del {
			if err := rdb.Unlink(ctx, k).Err(); err != nil {
				return nil, err
			}
		}
	}
	if err := iter.Err(); err != nil {
		return nil, err
	}
	var out []string
	for p, n := range counts {
		out = append(out, fmt.Sprintf("%d keys under %q", n, p))
	}
	return out, nil
}

// databases finds (or drops) test databases.
func databases(ctx context.Context, del bool) ([]string, error) {
	base := env("SPARROW_TEST_MYSQL", "mysql://root@127.0.0.1:3306/")
	names, err := mysql.Databases(ctx, base)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if !testDB.MatchString(n) {
			continue
		}
		out = append(out, "database "+n)
		if del {
			if err := mysql.DropDatabase(ctx, base+n); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// streams finds (or deletes) test streams.
func streams(ctx context.Context, del bool) ([]string, error) {
	nc, err := natsgo.Connect(env("SPARROW_TEST_NATS", "nats://127.0.0.1:4222"), natsgo.Timeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	var out []string
	names := js.StreamNames(ctx)
	for n := range names.Name() {
		if n == "SPARROW" || n == "SPARROW_DEAD" || !testStream.MatchString(n) {
			continue
		}
		out = append(out, "stream "+n)
		if del {
			if err := js.DeleteStream(ctx, n); err != nil {
				return nil, err
			}
		}
	}
	return out, names.Err()
}
