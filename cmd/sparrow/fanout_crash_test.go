package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"sparrow"
	"sparrow/app"
	"sparrow/internal/testenv"
	"sparrow/mysql"
	"sparrow/nats"
	"sparrow/redis"
	"sparrow/sqlstore"
	"sparrow/sqlstore/bulk"
)

// TestKillDuringFanout: the server is killed (SIGKILL) while it pushes a
// status into 10,000 inboxes; after a restart every eligible follower's inbox
// holds the status, exactly once (the unacknowledged fan-out event is
// redelivered by JetStream and the pushes are idempotent).
func TestKillDuringFanout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	ctx := context.Background()
	base, redisURL, natsURL := testenv.MySQLURL(t), testenv.RedisURL(t), testenv.NATSURL(t)
	tag := rand.Uint32()
	dbA, dbB := fmt.Sprintf("%ssparrow_kill_%d_a", base, tag), fmt.Sprintf("%ssparrow_kill_%d_b", base, tag)
	t.Cleanup(func() { mysql.DropDatabase(ctx, dbA); mysql.DropDatabase(ctx, dbB) })
	spec := "0-127=" + dbA + ",128-255=" + dbB
	prefix, stream := fmt.Sprintf("sparrowkill%d:", tag), fmt.Sprintf("SPARROWKILL%d", tag)

	// Offline set-up: an author with 10,000 active followers that have inboxes.
	const n = 10000
	ids := sparrow.NewIDGen(60, nil)
	author := ids.NextBalanced()
	followers := make([]sparrow.ID, n)
	pairs := make([]bulk.FollowPair, n)
	for i := range followers {
		followers[i] = ids.NextBalanced()
		pairs[i] = bulk.FollowPair{From: followers[i], To: author}
	}
	shards, err := sqlstore.OpenShards(ctx, spec, app.Openers)
	if err != nil {
		t.Fatal(err)
	}
	st := sqlstore.New(shards)
	if _, lerr := bulk.LoadAccounts(ctx, st, append([]sparrow.ID{author}, followers...), bulk.Options{}); lerr != nil {
		t.Fatal(lerr)
	}
	if _, lerr := bulk.LoadFollows(ctx, st, pairs, bulk.Options{}); lerr != nil {
		t.Fatal(lerr)
	}
	token := "kill-test-token-" + fmt.Sprint(tag)
	if terr := st.CreateToken(ctx, &sparrow.Token{Hash: sparrow.HashSecret(token), AccountID: author,
		Scopes: sparrow.Scopes{sparrow.ScopeRead, sparrow.ScopeWrite}, CreatedAt: time.Now()}); terr != nil {
		t.Fatal(terr)
	}
	shards.Close()
	testenv.CleanRedis(t, redisURL, prefix)
	rc, err := redis.Open(ctx, redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	inboxes, activity := rc.Inboxes(prefix, 800), rc.Activity(prefix)
	now := time.Now()
	for i, f := range followers {
		// Activity spread over the last day, so the fan-out tiers them.
		if terr := activity.Touch(ctx, f, now.Add(-time.Duration(i)*time.Second)); terr != nil {
			t.Fatal(terr)
		}
		if _, cerr := inboxes.Create(ctx, f, 0, now); cerr != nil {
			t.Fatal(cerr)
		}
		if ferr := inboxes.Fill(ctx, f, nil, 0); ferr != nil {
			t.Fatal(ferr)
		}
	}

	bin := buildBinary(t)
	addr := freeAddr(t)
	args := []string{"--shards", spec, "--redis-url", redisURL, "--redis-prefix", prefix, "--nats-url", natsURL, "--stream", stream}
	p := startServeWith(t, bin, addr, t.TempDir(), args...)
	t.Cleanup(func() { deleteStream(natsURL, stream) })

	var status struct{ ID string }
	if code := p.call(t, "POST", "/api/v1/statuses", token, url.Values{"status": {"fan me out"}}, &status); code != 200 {
		t.Fatalf("post: HTTP %d", code)
	}
	sid, _ := sparrow.ParseID(status.ID)
	holds := func(u sparrow.ID) bool {
		items, _, rerr := inboxes.Read(ctx, u, sparrow.Page{MinID: sid - 1, MaxID: sid + 1, Limit: 1})
		return rerr == nil && len(items) == 1 && items[0].ID == sid
	}
	// Kill as soon as the most recently active follower (the first tier) has it.
	deadline := time.Now().Add(30 * time.Second)
	for !holds(followers[0]) {
		if time.Now().After(deadline) {
			t.Fatal("the fan-out never started")
		}
		time.Sleep(time.Millisecond)
	}
	if kerr := p.cmd.Process.Signal(syscall.SIGKILL); kerr != nil {
		t.Fatal(kerr)
	}
	p.cmd.Wait()
	before := 0
	for _, f := range followers {
		if holds(f) {
			before++
		}
	}
	t.Logf("inboxes holding the status at the kill: %d of %d", before, n)
	if before == n {
		t.Fatalf("the fan-out finished before the kill: nothing was tested")
	}

	startServeWith(t, bin, addr, t.TempDir(), args...)
	deadline = time.Now().Add(90 * time.Second)
	for {
		missing := 0
		for _, f := range followers {
			if !holds(f) {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d inboxes still lack the status after the restart", missing)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Exactly once: the status appears once in a follower's page.
	items, _, err := inboxes.Read(ctx, followers[n/2], sparrow.Page{Limit: 50})
	if err != nil || len(items) != 1 {
		t.Fatalf("inbox after replay = %+v, %v (want the status once)", items, err)
	}
}

// startServeWith runs `sparrow serve` with extra flags.
func startServeWith(t *testing.T, bin, addr, data string, extra ...string) *proc {
	t.Helper()
	args := append([]string{"serve", "--addr", addr, "--data", data, "--log-level", "warn"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, base: "http://" + addr}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitHealthy(t, p)
	return p
}

// deleteStream drops a test stream from the shared NATS server.
func deleteStream(natsURL, stream string) {
	ctx := context.Background()
	b, err := nats.Open(ctx, nats.Config{URL: natsURL, Stream: stream})
	if err != nil {
		return
	}
	defer b.Close()
	b.DeleteStreams(ctx)
}
