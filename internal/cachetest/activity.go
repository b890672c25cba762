package cachetest

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"sparrow"
)

// TestActivity checks that the Activities made by newActivity meet the
// sparrow.Activity contract, with times kept in whole seconds (truncated):
// Touch never moves a user's time backwards, and SeenBefore(t) lists the
// users whose last-seen second is before t's second, oldest first. newActivity
// is called once per subtest, possibly from parallel subtests, and must
// return an Activity that has seen nobody, isolated from the others.
func TestActivity(t *testing.T, newActivity func(t *testing.T) sparrow.Activity) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, a sparrow.Activity)
	}{
		{"Unknown", actUnknown},
		{"TouchNeverGoesBackwards", actBackwards},
		{"LastSeenBatch", actBatch},
		{"SeenBeforeOrderAndLimit", actSeenBefore},
		{"Forget", actForget},
		{"ConcurrentTouches", actConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newActivity(t))
		})
	}
}

// sec0 is a whole second; the activity tests touch at sec0 plus whole
// seconds, and sometimes a fraction more to check truncation.
var sec0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func at(s int) time.Time { return sec0.Add(time.Duration(s) * time.Second) }

func touch(t *testing.T, a sparrow.Activity, user sparrow.ID, when time.Time) {
	t.Helper()
	if err := a.Touch(ctx(t), user, when); err != nil {
		t.Fatalf("Touch(%d, %v): %v", user, when, err)
	}
}

func lastSeen(t *testing.T, a sparrow.Activity, users ...sparrow.ID) map[sparrow.ID]time.Time {
	t.Helper()
	got, err := a.LastSeen(ctx(t), users)
	if err != nil {
		t.Fatalf("LastSeen: %v", err)
	}
	return got
}

func wantSeenBefore(t *testing.T, a sparrow.Activity, before time.Time, limit int, want ...sparrow.ID) {
	t.Helper()
	got, err := a.SeenBefore(ctx(t), before, limit)
	if err != nil {
		t.Fatalf("SeenBefore(%v, %d): %v", before, limit, err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("SeenBefore(%v, %d) = %v, want %v", before, limit, got, want)
	}
}

func forget(t *testing.T, a sparrow.Activity, users ...sparrow.ID) {
	t.Helper()
	if err := a.Forget(ctx(t), users...); err != nil {
		t.Fatalf("Forget(%v): %v", users, err)
	}
}

func actUnknown(t *testing.T, a sparrow.Activity) {
	wantTimes(t, "LastSeen", lastSeen(t, a, 1, 2), map[sparrow.ID]time.Time{})
	wantTimes(t, "LastSeen of nobody", lastSeen(t, a), map[sparrow.ID]time.Time{})
	wantSeenBefore(t, a, at(1000), 10)
	forget(t, a, 1)
	forget(t, a)
}

func actBackwards(t *testing.T, a sparrow.Activity) {
	frac := 700 * time.Millisecond
	touch(t, a, 1, at(10).Add(frac))
	wantTimes(t, "LastSeen", lastSeen(t, a, 1), map[sparrow.ID]time.Time{1: at(10)})
	touch(t, a, 1, at(5))
	touch(t, a, 1, at(10)) // the same second
	wantTimes(t, "LastSeen after older touches", lastSeen(t, a, 1), map[sparrow.ID]time.Time{1: at(10)})
	touch(t, a, 1, at(11).Add(frac))
	wantTimes(t, "LastSeen after a newer touch", lastSeen(t, a, 1), map[sparrow.ID]time.Time{1: at(11)})
	// Large ids are users like any other.
	touch(t, a, 1<<62+1, at(3))
	touch(t, a, 1<<62, at(4))
	wantTimes(t, "LastSeen of large ids", lastSeen(t, a, 1<<62, 1<<62+1),
		map[sparrow.ID]time.Time{1 << 62: at(4), 1<<62 + 1: at(3)})
}

func actBatch(t *testing.T, a sparrow.Activity) {
	const n = 2000
	var users []sparrow.ID
	want := map[sparrow.ID]time.Time{}
	for i := range n {
		u := sparrow.ID(i*7 + 1)
		touch(t, a, u, at(i%500))
		want[u] = at(i % 500)
		users = append(users, u, u+1) // u+1 is never seen
	}
	wantTimes(t, "LastSeen", lastSeen(t, a, shuffled(users)...), want)
}

func actSeenBefore(t *testing.T, a sparrow.Activity) {
	// User 100+s is seen at second s, touched in random order.
	for _, s := range shuffled(span(0, 9, 1)) {
		touch(t, a, 100+s, at(int(s)).Add(300*time.Millisecond))
	}
	wantSeenBefore(t, a, at(5), 100, 100, 101, 102, 103, 104)
	wantSeenBefore(t, a, at(5), 3, 100, 101, 102)
	wantSeenBefore(t, a, at(5), 1, 100)
	wantSeenBefore(t, a, at(5), 0)
	wantSeenBefore(t, a, at(0), 10)
	wantSeenBefore(t, a, at(1000), 20, span(100, 109, 1)...)
	// Seconds are compared whole: at 4.5s, the user seen at 4.3s is not
	// before, since both are second 4.
	wantSeenBefore(t, a, at(4).Add(500*time.Millisecond), 10, 100, 101, 102, 103)
	// A later touch moves a user to its new place.
	touch(t, a, 101, at(100))
	touch(t, a, 103, at(1)) // backwards: ignored
	wantSeenBefore(t, a, at(5), 100, 100, 102, 103, 104)
	wantSeenBefore(t, a, at(1000), 20, 100, 102, 103, 104, 105, 106, 107, 108, 109, 101)
}

func actForget(t *testing.T, a sparrow.Activity) {
	for u := sparrow.ID(1); u <= 4; u++ {
		touch(t, a, u, at(int(u)))
	}
	forget(t, a, 2, 3, 99)
	wantTimes(t, "LastSeen", lastSeen(t, a, 1, 2, 3, 4), map[sparrow.ID]time.Time{1: at(1), 4: at(4)})
	wantSeenBefore(t, a, at(100), 10, 1, 4)
	// A forgotten user starts afresh, even with an earlier time.
	touch(t, a, 3, at(0))
	wantTimes(t, "LastSeen after a new touch", lastSeen(t, a, 3), map[sparrow.ID]time.Time{3: at(0)})
	wantSeenBefore(t, a, at(100), 10, 3, 1, 4)
	forget(t, a, 1, 3, 4)
	wantSeenBefore(t, a, at(100), 10)
}

func actConcurrent(t *testing.T, a sparrow.Activity) {
	const workers, rounds, numUsers = 16, 30, 10
	c := ctx(t)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		want = map[sparrow.ID]time.Time{}
	)
	for range workers {
		wg.Go(func() {
			for range rounds {
				u := sparrow.ID(1 + rand.IntN(numUsers))
				when := at(rand.IntN(10_000))
				if err := a.Touch(c, u, when); err != nil {
					t.Errorf("Touch: %v", err)
					return
				}
				mu.Lock()
				if when.After(want[u]) {
					want[u] = when
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	wantTimes(t, "LastSeen", lastSeen(t, a, span(1, numUsers, 1)...), want)
	// SeenBefore lists them all, oldest first.
	got, err := a.SeenBefore(c, at(1_000_000), 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || !slices.IsSortedFunc(got, func(x, y sparrow.ID) int { return want[x].Compare(want[y]) }) {
		t.Fatalf("SeenBefore = %v, want the %d users oldest first (times %v)", got, len(want), want)
	}
}
