package redis

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"sparrow/internal/testenv"
)

// runPipelined loads a script the server does not know (first use, or after
// a restart or SCRIPT FLUSH) and retries the batch. A script with a unique
// source plays the unknown one, so the server's script cache is left alone.
func TestRunPipelinedLoadsUnknownScripts(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, err := Open(ctx, testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	script := goredis.NewScript("-- " + rand.Text() + "\nreturn #KEYS + tonumber(ARGV[1])")
	if known := script.Exists(ctx, c.rdb).Val(); len(known) != 1 || known[0] {
		t.Fatalf("SCRIPT EXISTS = %v before use, want [false]", known)
	}
	calls := []scriptCall{{keys: []string{"a"}, args: []any{1}}, {keys: []string{"a", "b"}, args: []any{10}}}
	for round := range 2 { // loads, then finds it loaded
		cmds, err := runPipelined(ctx, c.rdb, script, calls)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if a, b := cmds[0].Val(), cmds[1].Val(); a != int64(2) || b != int64(12) {
			t.Fatalf("round %d: results %v, %v; want 2, 12", round, a, b)
		}
	}
	if known := script.Exists(ctx, c.rdb).Val(); len(known) != 1 || !known[0] {
		t.Fatalf("SCRIPT EXISTS = %v after use, want [true]", known)
	}
}
