// Package livetest is the behavioural suite of sparrow.LiveFeed, run by
// every implementation (package nats on the bus, package inmem in process).
package livetest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"sparrow"
)

// Open returns a fresh feed and a function that publishes a status event
// the way the deployment does (the bus's Publish, or the in-process feed's
// PublishStatus).
type Open func(t *testing.T) (feed sparrow.LiveFeed, publish func(sparrow.Event))

var seq atomic.Int64

func statusEvent(typ sparrow.EventType) sparrow.Event {
	n := seq.Add(1)
	s := &sparrow.Status{ID: sparrow.ID(7000 + n), AccountID: 42, Visibility: sparrow.Public}
	return sparrow.NewEvent(sparrow.ID(9000+n), typ, s.ID, sparrow.StatusPayload{Status: s}, time.Now())
}

// Run runs the suite.
func Run(t *testing.T, open Open) {
	t.Run("delivers what is published after Listen, in order", func(t *testing.T) {
		feed, publish := open(t)
		before := statusEvent(sparrow.EvStatusCreated)
		publish(before)
		statuses := make(chan sparrow.Event, 16)
		notes := make(chan [2]sparrow.ID, 16)
		ctx, cancel := context.WithCancel(context.Background())
		done, err := feed.Listen(ctx, "livetest", func(e sparrow.Event) { statuses <- e },
			func(r, id sparrow.ID) { notes <- [2]sparrow.ID{r, id} })
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		var want []sparrow.Event
		for _, typ := range []sparrow.EventType{sparrow.EvStatusCreated, sparrow.EvStatusEdited, sparrow.EvStatusDeleted} {
			e := statusEvent(typ)
			want = append(want, e)
			publish(e)
		}
		for i, w := range want {
			select {
			case got := <-statuses:
				if got.ID != w.ID || got.Type != w.Type {
					t.Fatalf("event %d: %s %d, want %s %d (one from before Listen?)", i, got.Type, got.ID, w.Type, w.ID)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("event %d not delivered within 10 s", i)
			}
		}
		if err := feed.AnnounceNotification(3, 77); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-notes:
			if n != [2]sparrow.ID{3, 77} {
				t.Fatalf("announcement %v, want recipient 3, notification 77", n)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("announcement not delivered within 10 s")
		}
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("listener still running 10 s after its context ended")
		}
	})
	t.Run("every listener gets everything", func(t *testing.T) {
		feed, publish := open(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var got [2]chan sparrow.ID
		for i := range got {
			ch := make(chan sparrow.ID, 4)
			got[i] = ch
			if _, err := feed.Listen(ctx, "livetest", func(e sparrow.Event) { ch <- e.ID }, func(_, id sparrow.ID) { ch <- id }); err != nil {
				t.Fatal(err)
			}
		}
		e := statusEvent(sparrow.EvStatusCreated)
		publish(e)
		if err := feed.AnnounceNotification(3, 78); err != nil {
			t.Fatal(err)
		}
		for i, ch := range got {
			seen := map[sparrow.ID]bool{}
			for len(seen) < 2 {
				select {
				case id := <-ch:
					seen[id] = true
				case <-time.After(10 * time.Second):
					t.Fatalf("listener %d got %v, want event %d and notification 78", i, seen, e.ID)
				}
			}
			if !seen[e.ID] || !seen[78] {
				t.Fatalf("listener %d got %v", i, seen)
			}
		}
	})
}
