package mysql_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"sparrow"
	"sparrow/breaker"
	"sparrow/internal/faultproxy"
	"sparrow/mysql"
	"sparrow/sqlstore"
)

// behindProxy opens a fresh store through a fault proxy, with a short I/O
// timeout.
func behindProxy(t *testing.T) (*sqlstore.Store, *sqlstore.DB, *faultproxy.Proxy) {
	t.Helper()
	dsn := testDBs(t, 1)[0]
	u, _ := url.Parse(dsn)
	p, err := faultproxy.New(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	u.Host = p.Addr()
	u.RawQuery = "io_timeout=400ms&dial_timeout=400ms"
	db, err := mysql.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return sqlstore.New(sqlstore.NewShards(db)), db, p
}

// read reads an absent account and returns the error and how long it took.
func read(s *sqlstore.Store) (time.Duration, error) {
	start := time.Now()
	_, err := s.Account(context.Background(), sparrow.ID(12345))
	return time.Since(start), err
}

// TestHangingStoreTripsItsBreaker: a store that stops answering fails the
// requests waiting on it within the I/O timeout, as EUnavailable; after a
// few, its circuit opens and requests fail at once, with a retry hint and
// no detail of the store in the message; when the store answers again, the
// circuit closes by itself.
func TestHangingStoreTripsItsBreaker(t *testing.T) {
	for _, fault := range []string{"hang", "down"} {
		t.Run(fault, func(t *testing.T) {
			s, db, p := behindProxy(t)
			if _, err := read(s); !sparrow.IsKind(err, sparrow.ENotFound) {
				t.Fatalf("healthy store: %v", err)
			}
			if fault == "hang" {
				p.Freeze()
			} else {
				p.Down()
			}
			for i := 0; i < breaker.Trip; i++ {
				took, err := read(s)
				if !sparrow.IsKind(err, sparrow.EUnavailable) || took > 3*time.Second {
					t.Fatalf("failure %d: %v after %v, want EUnavailable within the I/O timeout", i, err, took)
				}
			}
			if db.Guard.Up() != 0 {
				t.Fatalf("circuit state %v after %d failures, want open", db.Guard.Up(), breaker.Trip)
			}
			took, err := read(s)
			if !sparrow.IsKind(err, sparrow.EUnavailable) || took > 50*time.Millisecond || sparrow.RetryAfter(err) <= 0 {
				t.Fatalf("open circuit: %v after %v (retry %v), want EUnavailable at once with a retry hint", err, took, sparrow.RetryAfter(err))
			}
			if msg := sparrow.ErrorMessage(err); strings.Contains(msg, "127.0.0.1") || msg != sparrow.MsgUnavailable {
				t.Fatalf("client message %q", msg)
			}
			p.Up()
			deadline := time.Now().Add(breaker.OpenFor + 5*time.Second)
			for {
				_, err := read(s)
				if sparrow.IsKind(err, sparrow.ENotFound) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the store is back but reads still fail: %v", err)
				}
				time.Sleep(100 * time.Millisecond)
			}
			if db.Guard.Up() != 1 {
				t.Fatalf("circuit state %v after recovery", db.Guard.Up())
			}
		})
	}
}

// TestLockWaitIsRetryableNotAnOutage: a row-lock wait longer than the
// connection's lock-wait timeout (three fifths of io_timeout) ends as the
// server's retryable error 1205, before the driver's I/O timeout gives up
// on the connection, so contended writes never open the store's breaker.
func TestLockWaitIsRetryableNotAnOutage(t *testing.T) {
	dsn := testDBs(t, 1)[0]
	u, _ := url.Parse(dsn)
	u.RawQuery = "io_timeout=2s"
	db, err := mysql.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err = db.W.ExecContext(ctx, "CREATE TABLE lockwait (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err = db.W.ExecContext(ctx, "INSERT INTO lockwait VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	holder, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.ExecContext(ctx, "SELECT id FROM lockwait WHERE id = 1 FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < breaker.Trip+1; i++ {
		waiter, err := db.W.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = waiter.ExecContext(ctx, "UPDATE lockwait SET id = 1 WHERE id = 1")
		waiter.Rollback()
		if err == nil || !db.Dialect.IsRetryable(err) {
			t.Fatalf("lock wait %d: %v, want the retryable lock-wait timeout", i, err)
		}
	}
	if db.Guard.Up() != 1 {
		t.Fatalf("circuit state %v after lock waits, want closed", db.Guard.Up())
	}
}
