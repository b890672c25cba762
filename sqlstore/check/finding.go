package check

import (
	"fmt"

	"sparrow"
)

// FindingKind classifies an inconsistency that Relations finds.
type FindingKind string

// Finding kinds. Following is the source of truth; followers must mirror it.
const (
	// MissingFollower: a following row has no followers row.
	MissingFollower FindingKind = "missing-follower"
	// StaleFollower: the followers row has an older version.
	StaleFollower FindingKind = "stale-follower"
	// DifferentFollower: same version, but a different state, edge id,
	// reblogs or notify.
	DifferentFollower FindingKind = "different-follower"
	// NewerFollower: the followers row has a newer version than the
	// following row. It should never happen, and the version guard never
	// repairs it.
	NewerFollower FindingKind = "newer-follower"
	// OrphanFollower: a followers row has no following row (or lives on
	// a store that does not own its to_id). Repair deletes it.
	OrphanFollower FindingKind = "orphan-follower"
	// CounterMismatch: a counter row plus its pending deltas differs from
	// the number of active rows.
	CounterMismatch FindingKind = "counter-mismatch"
	// NegativeCounter: a counter row, or the row plus its pending deltas,
	// is below zero.
	NegativeCounter FindingKind = "negative-counter"
)

// Finding is one inconsistency.
type Finding struct {
	Kind FindingKind
	// Edge findings: the follow From → To, and what was found.
	From, To sparrow.ID
	// Counter findings: the account, the counter, the stored row value, the
	// sum of its pending deltas, and the number of active rows.
	Account               sparrow.ID
	Counter               sparrow.Counter
	Stored, Pending, Rows int64
	Detail                string
	Repaired              bool
}

func (f Finding) String() string {
	var s string
	if f.Account != 0 {
		col := "followers_count"
		if f.Counter == sparrow.FollowingCount {
			col = "following_count"
		}
		s = fmt.Sprintf("%s account %d %s: row %d + pending %d = %d, active rows %d",
			f.Kind, f.Account, col, f.Stored, f.Pending, f.Stored+f.Pending, f.Rows)
	} else {
		s = fmt.Sprintf("%s %d→%d: %s", f.Kind, f.From, f.To, f.Detail)
	}
	if f.Repaired {
		s += " [repaired]"
	}
	return s
}

// Summary totals a Relations run.
type Summary struct {
	Following int64 // following rows checked
	Followers int64 // followers rows (after repairs)
	Accounts  int64 // accounts whose counters were checked
	Findings  int64
	Repaired  int64
	ByKind    map[FindingKind]int64
}

// Unrepaired is the number of findings that remain.
func (s Summary) Unrepaired() int64 { return s.Findings - s.Repaired }
