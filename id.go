package sparrow

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"
)

// ID is a Sparrow id: a positive 63-bit, time-ordered integer (docs/seeds.md#seed-004's gene
// method). Its layout, from the most significant bit:
//
//	1 bit zero | 41 bits milliseconds since Epoch | 6 bits node | 8 bits sequence | 8 bits shard gene
//
// The low 8 bits are the owner's shard gene, so id → logical shard is a mask and
// needs no mapping table. Ids compare in time order across genes and nodes to
// the millisecond, which makes them usable as Mastodon max_id/since_id cursors.
type ID int64

// Id layout constants.
const (
	ShardBits = 8
	NumShards = 1 << ShardBits // logical shards
	seqBits   = 8
	nodeBits  = 6
	MaxNodes  = 1 << nodeBits
	timeShift = ShardBits + seqBits + nodeBits
)

// Epoch is the start of Sparrow's id clock (2024-01-01 UTC). 41 bits of
// milliseconds last until 2093.
var Epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Shard returns the logical shard (gene) that id belongs to.
func (id ID) Shard() int { return int(id & (NumShards - 1)) }

// Time returns the millisecond at which id was generated.
func (id ID) Time() time.Time {
	return Epoch.Add(time.Duration(int64(id)>>timeShift) * time.Millisecond)
}

// String formats id as a decimal string, as Mastodon's entities carry ids.
func (id ID) String() string { return strconv.FormatInt(int64(id), 10) }

// ParseID parses a decimal id. It returns an ENotFound error for anything that
// is not a positive 63-bit integer: a malformed id names nothing.
func ParseID(s string) (ID, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, Errorf(ENotFound, "Record not found")
	}
	return ID(n), nil
}

// MinIDAt returns the smallest id that could be generated at t; use it to turn
// a time into a cursor.
func MinIDAt(t time.Time) ID {
	ms := t.Sub(Epoch).Milliseconds()
	if ms < 0 {
		ms = 0
	}
	return ID(ms << timeShift)
}

// Clock tells the time. It is injected so that tests control it.
type Clock interface{ Now() time.Time }

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// IDGen generates ids for one process (node). It is safe for concurrent use.
// Ids are unique across up to MaxNodes processes with distinct node numbers, and
// strictly increasing per gene even when the clock steps back: each gene keeps
// its last (millisecond, sequence) and never goes below it, borrowing the next
// millisecond when a sequence runs out.
type IDGen struct {
	node  int64
	clock Clock
	next  atomic.Uint64 // round-robin gene for NextBalanced
	state [NumShards]atomic.Uint64
}

// NewIDGen returns a generator for node (0 ≤ node < MaxNodes).
func NewIDGen(node int, clock Clock) *IDGen {
	if node < 0 || node >= MaxNodes {
		panic("sparrow: node out of range")
	}
	if clock == nil {
		clock = SystemClock{}
	}
	g := &IDGen{node: int64(node), clock: clock}
	g.next.Store(rand.Uint64N(NumShards))
	return g
}

// Next returns a new id carrying gene (its low 8 bits are gene & 0xff).
func (g *IDGen) Next(gene int) ID {
	gene &= NumShards - 1
	now := uint64(g.clock.Now().Sub(Epoch).Milliseconds())
	st := &g.state[gene]
	for {
		old := st.Load()
		ms, seq := old>>seqBits, old&(1<<seqBits-1)
		var nms, nseq uint64
		switch {
		case now > ms:
			nms, nseq = now, 0
		case seq < 1<<seqBits-1:
			nms, nseq = ms, seq+1 // same or past millisecond: keep counting
		default:
			nms, nseq = ms+1, 0 // sequence exhausted: borrow the next millisecond
		}
		if st.CompareAndSwap(old, nms<<seqBits|nseq) {
			return ID(int64(nms)<<timeShift | g.node<<(seqBits+ShardBits) | int64(nseq)<<ShardBits | int64(gene))
		}
	}
}

// NextBalanced returns a new id whose gene is chosen round-robin, so that new
// owners (accounts) spread evenly across the logical shards.
func (g *IDGen) NextBalanced() ID { return g.Next(int(g.next.Add(1))) }

// Sleep waits for d, or until ctx ends, and reports whether ctx is still
// live: the pause of every retry loop, which must end with its context.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
