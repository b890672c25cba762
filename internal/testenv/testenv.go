// Package testenv tells tests where the real services (MariaDB, Redis, NATS)
// are, and decides what happens when one is unreachable: the test is skipped,
// unless SPARROW_REQUIRE_SERVICES=1 is set (as .ci/run does), in which case it fails.
package testenv

import (
	"context"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Required reports whether unreachable services fail tests instead of skipping them.
func Required() bool { return os.Getenv("SPARROW_REQUIRE_SERVICES") == "1" }

// need checks that hostport accepts TCP connections, and skips or fails t otherwise.
func need(t testing.TB, what, hostport string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", hostport, 2*time.Second)
	if err == nil {
		c.Close()
		return
	}
	if Required() {
		t.Fatalf("%s at %s is unreachable and SPARROW_REQUIRE_SERVICES=1: %v", what, hostport, err)
	}
	t.Skipf("%s at %s is unreachable (set SPARROW_REQUIRE_SERVICES=1 to fail instead): %v", what, hostport, err)
}

// MySQLURL returns the base URL of the test MariaDB/MySQL server,
// "mysql://root@127.0.0.1:3306/" by default (SPARROW_TEST_MYSQL), after
// checking that it is reachable. Append a database name to use it.
func MySQLURL(t testing.TB) string {
	t.Helper()
	u := env("SPARROW_TEST_MYSQL", "mysql://root@127.0.0.1:3306/")
	need(t, "MariaDB", hostOf(u, "3306"))
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

// RedisURL returns the test Redis URL, "redis://127.0.0.1:6379/0" by default
// (SPARROW_TEST_REDIS), after checking that it is reachable.
func RedisURL(t testing.TB) string {
	t.Helper()
	u := env("SPARROW_TEST_REDIS", "redis://127.0.0.1:6379/0")
	need(t, "Redis", hostOf(u, "6379"))
	return u
}

// NATSURL returns the test NATS URL, "nats://127.0.0.1:4222" by default
// (SPARROW_TEST_NATS), after checking that it is reachable.
func NATSURL(t testing.TB) string {
	t.Helper()
	u := env("SPARROW_TEST_NATS", "nats://127.0.0.1:4222")
	need(t, "NATS", hostOf(u, "4222"))
	return u
}

func hostOf(raw, port string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "127.0.0.1:" + port
	}
	if u.Port() == "" {
		return u.Hostname() + ":" + port
	}
	return u.Host
}

// CleanRedis deletes, when t ends, every key under prefix on the Redis
// server at url (the suite leaves nothing behind on shared services).
func CleanRedis(t testing.TB, url, prefix string) {
	t.Helper()
	if prefix == "" {
		t.Fatal("CleanRedis: an empty prefix would delete everything")
	}
	t.Cleanup(func() {
		opt, err := goredis.ParseURL(url)
		if err != nil {
			t.Errorf("CleanRedis: %v", err)
			return
		}
		rdb := goredis.NewClient(opt)
		defer rdb.Close()
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		var batch []string
		flush := func() {
			if len(batch) > 0 {
				if err := rdb.Unlink(ctx, batch...).Err(); err != nil {
					t.Errorf("CleanRedis: %v", err)
				}
				batch = batch[:0]
			}
		}
		for iter.Next(ctx) {
			if batch = append(batch, iter.Val()); len(batch) == 1000 {
				flush()
			}
		}
		flush()
		if err := iter.Err(); err != nil {
			t.Errorf("CleanRedis: %v", err)
		}
	})
}
