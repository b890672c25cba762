package mysql_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"sparrow"
	"sparrow/internal/storetest"
	"sparrow/internal/testenv"
	"sparrow/mysql"
	"sparrow/sqlstore"
)

// testDBs creates n fresh databases on the test server and drops them at cleanup.
func testDBs(t *testing.T, n int) []string {
	t.Helper()
	base := testenv.MySQLURL(t)
	var dsns []string
	for i := 0; i < n; i++ {
		dsn := fmt.Sprintf("%ssparrow_test_%d_%d", base, rand.Uint32(), i)
		dsns = append(dsns, dsn)
		t.Cleanup(func() { mysql.DropDatabase(context.Background(), dsn) })
	}
	return dsns
}

// TestStore runs the store suite on two MariaDB databases. Each scenario gets
// fresh databases.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) *sqlstore.Store {
		dsns := testDBs(t, 2)
		shards, err := sqlstore.OpenShards(context.Background(), "0-127="+dsns[0]+",128-255="+dsns[1],
			map[string]sqlstore.Opener{"mysql": mysql.Open})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { shards.Close() })
		return sqlstore.New(shards)
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	dsn := testDBs(t, 1)[0]
	for i := 0; i < 2; i++ {
		db, err := mysql.Open(context.Background(), dsn)
		if err != nil {
			t.Fatalf("open #%d: %v", i+1, err)
		}
		db.Close()
	}
}

func TestPoolSizeParameter(t *testing.T) {
	c, err := mysql.Config("mysql://root@127.0.0.1:3306/x?pool_size=4&charset=utf8mb4")
	if err != nil {
		t.Fatal(err)
	}
	if _, leaked := c.Params["pool_size"]; leaked || c.Params["charset"] != "utf8mb4" {
		t.Fatalf("params %v: pool_size must not reach the server, others must", c.Params)
	}
	if _, err := mysql.Open(context.Background(), "mysql://root@127.0.0.1:3306/x?pool_size=zero"); !sparrow.IsKind(err, sparrow.EInvalid) {
		t.Fatalf("bad pool_size: %v", err)
	}
}

func TestBadDSN(t *testing.T) {
	for _, dsn := range []string{"mysql://", "mysql://root@127.0.0.1:3306/", "postgres://x/y"} {
		if _, err := mysql.Config(dsn); err == nil {
			t.Errorf("Config(%q) accepted", dsn)
		}
	}
}
