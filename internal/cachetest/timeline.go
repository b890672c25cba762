package cachetest

import (
	"context"
	"testing"
	"time"
)

// unit is the TTL or window of the expiry tests. With a real clock the suite
// waits unit+margin for a key to expire; with a fake one it moves exactly to
// the deadline, where the key must be gone (live before, expired from then on).
const (
	unit   = time.Second
	margin = 100 * time.Millisecond
)

// instant is when a call that set an expiry ran: fake time elapsed, or the
// wall time just before and just after the call. The real deadline lies
// between before+unit and after+unit.
type instant struct {
	fake          time.Duration
	before, after time.Time
}

// timeline moves time for one backend instance: instantly through an
// Advancer, or by sleeping.
type timeline struct {
	t       *testing.T
	adv     Advancer      // nil: real time
	elapsed time.Duration // fake time advanced so far
}

func newTimeline(t *testing.T, backend any) *timeline {
	a, _ := backend.(Advancer)
	return &timeline{t: t, adv: a}
}

func (tl *timeline) fake() bool { return tl.adv != nil }

// at runs call, which sets an expiry of unit, and returns when it ran.
func (tl *timeline) at(call func()) instant {
	m := instant{fake: tl.elapsed, before: time.Now()}
	call()
	m.after = time.Now()
	return m
}

// wait lets d pass.
func (tl *timeline) wait(d time.Duration) {
	if d <= 0 {
		return
	}
	if tl.fake() {
		tl.adv.Advance(d)
		tl.elapsed += d
		return
	}
	time.Sleep(d)
}

// waitExpiry lets time pass until the deadline unit after m has passed:
// exactly to it with a fake clock, beyond it by margin with a real one.
func (tl *timeline) waitExpiry(m instant) {
	if tl.fake() {
		tl.wait(m.fake + unit - tl.elapsed)
		return
	}
	tl.wait(time.Until(m.after.Add(unit + margin)))
}

// beforeExpiry prepares a check that something set at m for unit is still
// live. With a fake clock it moves to just before the deadline and returns
// true. With a real clock it returns whether now is still well before the
// earliest possible deadline, so that a stalled machine skips the check
// instead of failing.
func (tl *timeline) beforeExpiry(m instant) bool {
	tl.t.Helper()
	if tl.fake() {
		tl.wait(m.fake + unit - time.Millisecond - tl.elapsed)
		return true
	}
	if since := time.Since(m.before); since >= unit-margin {
		tl.t.Logf("machine stalled %v; skipping a before-expiry check", since)
		return false
	}
	return true
}

// ctx returns a context for one subtest, bounded so a hung backend fails fast.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}
