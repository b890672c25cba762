// Package graphgen generates synthetic follow graphs with a power-law
// (Zipf) popularity, for bulk imports, benchmarks and tests.
//
// Users are valid Sparrow ids (see AccountIDs). Every user follows a random
// number of others (geometric, mean Config.MeanFollowing, at least 1); each
// target is drawn without replacement from a Zipf distribution over a
// seeded random ranking of the users, P(rank k) ∝ (k+1)^-Zipf, so that a few
// users are very popular and most are not. A user whose follower count reaches
// Config.MaxFollowers leaves the distribution. No user follows itself and no
// edge appears twice. The output depends only on the configuration (and seed).
//
// Memory is O(users): edges are streamed to a callback, never kept.
package graphgen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"sparrow"
)

// Config describes a graph.
type Config struct {
	// Users is the number of accounts (≥ 2).
	Users int
	// MeanFollowing is the mean out-degree (> 0). Out-degrees are
	// 1 + Geometric(1/MeanFollowing), capped at Users-1.
	MeanFollowing float64
	// Zipf is the popularity exponent s ≥ 0: the user of popularity rank k
	// (0-based) is chosen with weight (k+1)^-s. 0 is uniform; social graphs
	// are around 1 to 1.5.
	Zipf float64
	// MaxFollowers caps the followers of any user (0: no cap). When every
	// remaining candidate of a follower is capped or already followed, its
	// out-degree is truncated, so a tight cap lowers the mean.
	MaxFollowers int
	// Seed makes the graph reproducible.
	Seed uint64
}

func (c Config) validate() error {
	switch {
	case c.Users < 2:
		return errors.New("graphgen: need at least 2 users")
	case c.Users > maxUsers:
		return fmt.Errorf("graphgen: at most %d users", maxUsers)
	case !(c.MeanFollowing > 0):
		return errors.New("graphgen: mean following must be > 0")
	case !(c.Zipf >= 0) || math.IsInf(c.Zipf, 0):
		return errors.New("graphgen: zipf exponent must be ≥ 0")
	case c.MaxFollowers < 0:
		return errors.New("graphgen: max followers must be ≥ 0")
	}
	return nil
}

// maxUsers keeps AccountIDs within one generator's per-gene sequence space
// over a few minutes of its fixed clock, and the sampler's weights in int64.
const maxUsers = 1 << 28

// IDTime is the fixed clock of AccountIDs: generated accounts look as if they
// signed up at this instant (then a few milliseconds later, as sequences run out).
var IDTime = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// IDNode is the id generator node of AccountIDs; the highest node number, so
// that generated ids do not collide with those of a server using the default
// node 0.
const IDNode = sparrow.MaxNodes - 1

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// AccountIDs returns the ids of users 0..n-1: user i has gene i % 256 (so
// accounts spread evenly over the logical shards) and its id is the i/256-th
// id that a sparrow.IDGen of node IDNode generates for that gene with its
// clock stopped at IDTime. Ids increase with i within a gene.
func AccountIDs(n int) []sparrow.ID {
	gen := sparrow.NewIDGen(IDNode, fixedClock{IDTime})
	ids := make([]sparrow.ID, n)
	for i := range ids {
		ids[i] = gen.Next(i % sparrow.NumShards)
	}
	return ids
}

// Stats describes a generated graph.
type Stats struct {
	Edges        int64
	MaxFollowers int // the largest in-degree
	MaxFollowing int // the largest out-degree
	Truncated    int // users whose out-degree was cut short by the caps
}

// Generate draws the graph of cfg and calls emit once per edge (follower,
// followee), grouped by follower in user order. It stops at emit's first error
// and returns it.
func Generate(cfg Config, emit func(from, to sparrow.ID) error) (Stats, error) {
	if err := cfg.validate(); err != nil {
		return Stats{}, err
	}
	n := cfg.Users
	ids := AccountIDs(n)
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))

	// rank → user: popularity is independent of id order and shard.
	byRank := rng.Perm(n)
	userRank := make([]int32, n)
	for r, u := range byRank {
		userRank[u] = int32(r)
	}
	f := newFenwick(zipfWeights(n, cfg.Zipf))
	followers := make([]int32, n)
	maxDeg := n - 1
	capAt := int32(cfg.MaxFollowers)
	p := 1 / math.Max(cfg.MeanFollowing, 1)

	var st Stats
	picked := make([]int32, 0, 1024) // ranks taken out for the current follower
	for u := 0; u < n; u++ {
		want := degree(rng, p, maxDeg)
		self := userRank[u]
		selfW := f.remove(self)
		picked = picked[:0]
		for len(picked) < want && f.total > 0 {
			r := f.find(rng.Uint64N(uint64(f.total)))
			f.remove(r)
			picked = append(picked, r)
			v := byRank[r]
			followers[v]++
			if int(followers[v]) > st.MaxFollowers {
				st.MaxFollowers = int(followers[v])
			}
			if err := emit(ids[u], ids[v]); err != nil {
				return st, err
			}
		}
		st.Edges += int64(len(picked))
		if len(picked) < want {
			st.Truncated++
		}
		st.MaxFollowing = max(st.MaxFollowing, len(picked))
		// put back every candidate that is still below the cap
		for _, r := range picked {
			if capAt == 0 || followers[byRank[r]] < capAt {
				f.restore(r)
			}
		}
		if selfW > 0 { // u was a candidate before its turn (its in-degree did not change)
			f.restore(self)
		}
	}
	return st, nil
}

// degree draws an out-degree: 1 + Geometric(p), at most max.
func degree(rng *rand.Rand, p float64, max int) int {
	d := 1
	if p < 1 {
		u := 1 - rng.Float64() // (0, 1]
		d += int(math.Floor(math.Log(u) / math.Log1p(-p)))
	}
	if d > max || d < 1 { // d < 1: overflow of a huge draw
		d = max
	}
	return d
}

// zipfWeights returns integer weights w[k] ∝ (k+1)^-s, the largest 2^40 (less
// for huge n, so that the total fits in an int64) and the smallest 1.
func zipfWeights(n int, s float64) []int64 {
	top := math.Min(1<<40, float64(math.MaxInt64/2)/float64(n))
	w := make([]int64, n)
	for k := range w {
		w[k] = max(1, int64(top*math.Pow(float64(k+1), -s)))
	}
	return w
}
