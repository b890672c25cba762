package service

import (
	"context"
	"testing"
	"time"
)

// TestRebuildsAreBoundedAndOwned: at most rebuildWorkers rebuilds run at
// once, one per user; close cancels those under way, waits for them, and
// starts no more.
func TestRebuildsAreBoundedAndOwned(t *testing.T) {
	r := newRebuilds()
	release := make(chan struct{})
	ended := make(chan struct{}, rebuildWorkers)
	for u := 0; u < rebuildWorkers; u++ {
		if !r.start(u, func(ctx context.Context) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			ended <- struct{}{}
		}) {
			t.Fatalf("rebuild %d not started with free workers", u)
		}
	}
	if r.start(rebuildWorkers, func(context.Context) {}) {
		t.Fatal("a rebuild started with every worker busy")
	}
	release <- struct{}{} // user 0..n: one of them ends
	<-ended
	deadline := time.Now().Add(5 * time.Second)
	for !r.start("late", func(context.Context) {}) {
		if time.Now().After(deadline) {
			t.Fatal("no worker freed after a rebuild ended")
		}
		time.Sleep(time.Millisecond)
	}
	r.close() // cancels the rebuilds still blocked, and waits for them
	if len(ended) != rebuildWorkers-1 {
		t.Fatalf("%d rebuilds ended at close, want %d", len(ended), rebuildWorkers-1)
	}
}

func TestRebuildsCloseCancelsAndWaits(t *testing.T) {
	r := newRebuilds()
	done := false
	r.start(1, func(ctx context.Context) {
		<-ctx.Done()
		time.Sleep(10 * time.Millisecond)
		done = true
	})
	if r.start(1, func(context.Context) {}) {
		t.Fatal("two rebuilds of one user at once")
	}
	r.close()
	if !done {
		t.Fatal("close returned before the rebuild under way ended")
	}
	if r.start(2, func(context.Context) {}) {
		t.Fatal("a rebuild started after close")
	}
}
