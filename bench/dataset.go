package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"sparrow"
	"sparrow/internal/graphgen"
	"sparrow/sqlstore/bulk"
)

// DatasetConfig describes a generated data set: a power-law follow graph
// (internal/graphgen), statuses, and the extra accounts the seed measures need.
type DatasetConfig struct {
	Users         int     // ordinary accounts (≥ 2)
	MeanFollowing float64 // mean out-degree of the graph
	Zipf          float64 // popularity exponent of followees
	MaxFollowers  int     // cap on any account's followers (0: none)
	// StatusesPerUser statuses per ordinary account, spread evenly over the
	// last Days days (one per time step and account, at a random instant of
	// the step).
	StatusesPerUser int
	Days            float64
	// HotAt is the follower count from which accounts are loaded hot; it
	// must equal the servers' hot threshold.
	HotAt int64
	// ActiveUsers is how many ordinary accounts (a seeded random sample) get
	// tokens and are driven, and so are active for the fan-out; 0 or ≥ Users
	// means all. Only active users receive pushes (docs/seeds.md#seed-000).
	ActiveUsers int
	// ProbesPerBucket extra readers follow exactly b accounts for every b of
	// FollowingBuckets below Users (b = Users-1 stands in for the first
	// bucket at or above Users), followees drawn in proportion to their
	// followers + 1, for the home latency against followings.
	ProbesPerBucket int
	// FreshUsers extra accounts follow FreshFollowing accounts each (drawn
	// the same way) and are never driven before the rebuild measure: their
	// first home read is a returning user's.
	FreshUsers, FreshFollowing int
	// AuthorsPerBucket ordinary accounts per FollowersBuckets bucket get
	// tokens (and are active) so that they can publish.
	AuthorsPerBucket int
	Seed             uint64
}

// FollowingBuckets are the followings counts of the home latency probes.
var FollowingBuckets = []int{10, 50, 100, 500, 1000, 2000, 5000}

// FollowersBuckets are the lower bounds of the publish latency buckets
// (followers in [b, next b)).
var FollowersBuckets = []int{10, 100, 1000, 10000, 100000}

// Role says how the suite uses an account.
type Role uint8

const (
	RolePassive Role = iota // followed and following, never driven (no token)
	RoleActive              // driven: activated, reads, posts
	RoleFresh               // driven only for its first home read (rebuild measure)
)

// String names the role as in accounts.csv.
func (r Role) String() string {
	switch r {
	case RoleActive:
		return "active"
	case RoleFresh:
		return "fresh"
	}
	return "passive"
}

// Dataset is a generated data set, in memory. Accounts are Users ordinary
// accounts, then the probes, then the fresh users; index i of IDs,
// Followers, Following and Roles is the same account.
type Dataset struct {
	Config    DatasetConfig
	Now       time.Time // statuses end just before Now
	IDs       []sparrow.ID
	Followers []int32
	Following []int32
	Roles     []Role
	Pairs     []bulk.FollowPair
	Graph     graphgen.Stats // of the ordinary accounts' graph

	clock *settableClock
	ids   *sparrow.IDGen // status ids, one step after another
	step  int
}

// Presets are the named data sets of `sparrow bench run --preset`.
var Presets = map[string]DatasetConfig{
	"small": {Users: 1000, MeanFollowing: 30, Zipf: 1.1, MaxFollowers: 500, StatusesPerUser: 10, Days: 3, HotAt: 200,
		ProbesPerBucket: 3, FreshUsers: 20, FreshFollowing: 1000, AuthorsPerBucket: 5, Seed: 1},
	"medium": {Users: 100_000, MeanFollowing: 100, Zipf: 1.1, MaxFollowers: 99_999, StatusesPerUser: 10, Days: 3, HotAt: 10_000,
		ActiveUsers: 20_000, ProbesPerBucket: 3, FreshUsers: 20, FreshFollowing: 1000, AuthorsPerBucket: 5, Seed: 1},
	"large": {Users: 1_000_000, MeanFollowing: 100, Zipf: 1.1, MaxFollowers: 500_000, StatusesPerUser: 10, Days: 3, HotAt: 10_000,
		ActiveUsers: 50_000, ProbesPerBucket: 3, FreshUsers: 20, FreshFollowing: 1000, AuthorsPerBucket: 5, Seed: 1},
}

// settableClock is the clock of status ids: set before each id.
type settableClock struct{ t time.Time }

func (c *settableClock) Now() time.Time { return c.t }

// statusNode is the id generator node of generated statuses: graphgen's
// node (not a server's default 0), at times long after the accounts' ids.
const statusNode = graphgen.IDNode

// GenerateDataset draws the data set of c. progress, if set, is called with
// the number of edges generated so far (about every 64k edges). The result
// depends only on c and now.
func GenerateDataset(c DatasetConfig, now time.Time, progress func(edges int64)) (*Dataset, error) {
	if c.StatusesPerUser < 0 || c.Days <= 0 && c.StatusesPerUser > 0 {
		return nil, fmt.Errorf("dataset: need statuses per user ≥ 0 over a positive number of days")
	}
	probes := probeFollowings(c)
	nExtra := len(probes) + c.FreshUsers
	d := &Dataset{Config: c, Now: now, IDs: graphgen.AccountIDs(c.Users + nExtra)}
	n := len(d.IDs)
	d.Followers, d.Following, d.Roles = make([]int32, n), make([]int32, n), make([]Role, n)
	index := make(map[sparrow.ID]int32, c.Users)
	for i := 0; i < c.Users; i++ {
		index[d.IDs[i]] = int32(i)
	}
	d.Pairs = make([]bulk.FollowPair, 0, int(float64(c.Users)*c.MeanFollowing*1.05)+1)
	st, err := graphgen.Generate(graphgen.Config{Users: c.Users, MeanFollowing: c.MeanFollowing, Zipf: c.Zipf, MaxFollowers: c.MaxFollowers, Seed: c.Seed},
		func(from, to sparrow.ID) error {
			d.Pairs = append(d.Pairs, bulk.FollowPair{From: from, To: to})
			d.Following[index[from]]++
			d.Followers[index[to]]++
			if progress != nil && len(d.Pairs)&0xffff == 0 {
				progress(int64(len(d.Pairs)))
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	d.Graph = st
	rng := rand.New(rand.NewPCG(c.Seed, 0xbe7c4))

	// Extra readers: followees in proportion to followers + 1 (so they follow
	// the popular accounts as real users do), drawn from the graph as generated.
	cum := make([]int64, c.Users)
	var total int64
	for i := 0; i < c.Users; i++ {
		total += int64(d.Followers[i]) + 1
		cum[i] = total
	}
	follow := func(reader int, k int) {
		k = min(k, c.Users)
		picked := make(map[int]bool, k)
		for len(picked) < k {
			r := rng.Int64N(total)
			u := sort.Search(len(cum), func(i int) bool { return cum[i] > r })
			if !picked[u] {
				picked[u] = true
			}
		}
		targets := make([]int, 0, k)
		for u := range picked {
			targets = append(targets, u)
		}
		slices.Sort(targets)
		for _, u := range targets {
			d.Pairs = append(d.Pairs, bulk.FollowPair{From: d.IDs[reader], To: d.IDs[u]})
			d.Followers[u]++
		}
		d.Following[reader] = int32(k)
	}
	next := c.Users
	for _, k := range probes {
		follow(next, k)
		d.Roles[next] = RoleActive
		next++
	}
	for i := 0; i < c.FreshUsers; i++ {
		follow(next, max(1, c.FreshFollowing))
		d.Roles[next] = RoleFresh
		next++
	}

	// Active ordinary users: a seeded sample, plus authors in every followers bucket.
	if c.ActiveUsers <= 0 || c.ActiveUsers >= c.Users {
		for i := 0; i < c.Users; i++ {
			d.Roles[i] = RoleActive
		}
	} else {
		for _, i := range rng.Perm(c.Users)[:c.ActiveUsers] {
			d.Roles[i] = RoleActive
		}
	}
	for bi, lo := range FollowersBuckets {
		hi := int32(1 << 30)
		if bi+1 < len(FollowersBuckets) {
			hi = int32(FollowersBuckets[bi+1])
		}
		var in []int
		for i := 0; i < c.Users; i++ {
			if f := d.Followers[i]; f >= int32(lo) && f < hi {
				in = append(in, i)
			}
		}
		// the most followed of the bucket first: the bucket's far end is the interesting one
		slices.SortFunc(in, func(a, b int) int { return int(d.Followers[b] - d.Followers[a]) })
		for _, i := range in[:min(len(in), c.AuthorsPerBucket)] {
			d.Roles[i] = RoleActive
		}
	}
	d.clock = &settableClock{}
	d.ids = sparrow.NewIDGen(statusNode, d.clock)
	return d, nil
}

// probeFollowings returns the followings count of every probe reader.
func probeFollowings(c DatasetConfig) []int {
	var out []int
	for _, b := range FollowingBuckets {
		k := b
		if k >= c.Users {
			k = c.Users - 1
		}
		if k < 1 || len(out) > 0 && out[len(out)-1] == k {
			continue
		}
		for i := 0; i < c.ProbesPerBucket; i++ {
			out = append(out, k)
		}
		if k < b {
			break
		}
	}
	return out
}

// Edges is the number of follows in the data set.
func (d *Dataset) Edges() int { return len(d.Pairs) }

// StatusCount is the number of statuses the data set loads.
func (d *Dataset) StatusCount() int { return d.Config.Users * d.Config.StatusesPerUser }

// statusTexts are the bodies of generated statuses (about 100 characters,
// the order of a microblog post), chosen at random.
var statusTexts = []string{
	"Morning run by the river, the light on the water was unreal today. Coffee next, then a long day of work.",
	"Reading about sharded storage and fan-out on write. The hybrid feed idea is simple once you see it drawn.",
	"新的一周开始了，今天的天气很好，准备去公园散步，顺便拍几张照片分享给大家。周末见！",
	"Hot take: most timelines would be fine with pull if the index is covering and the limits are pushed down.",
	"Cooked dumplings for the first time. They were not pretty but they were delicious. Recipe in the replies?",
	"Benchmarks are only honest when the numbers come from real runs on the machine named next to them.",
}

// NextStatuses returns the statuses of the next time step (0, 1, …,
// StatusesPerUser-1; nil when all were returned): every ordinary account
// posts one public status at a random instant of the step, ids generated at
// those instants in time order, so each carries its author's gene and its
// time. The span is the Days days that end a minute before Now. Calls
// must not overlap.
func (d *Dataset) NextStatuses() []bulk.Status {
	c := d.Config
	if d.step >= c.StatusesPerUser {
		return nil
	}
	span := time.Duration(c.Days * float64(24*time.Hour))
	start := d.Now.Add(-time.Minute - span)
	width := span / time.Duration(c.StatusesPerUser)
	rng := rand.New(rand.NewPCG(c.Seed^uint64(d.step), 0x57a7))
	out := make([]bulk.Status, c.Users)
	for i := range out {
		at := start.Add(time.Duration(d.step)*width + time.Duration(rng.Int64N(int64(width)))).Truncate(time.Millisecond)
		out[i] = bulk.Status{AccountID: d.IDs[i], CreatedAt: at,
			Text: fmt.Sprintf("%s (#%d)", statusTexts[rng.IntN(len(statusTexts))], d.step)}
	}
	slices.SortFunc(out, func(a, b bulk.Status) int { return a.CreatedAt.Compare(b.CreatedAt) })
	for i := range out {
		d.clock.t = out[i].CreatedAt
		out[i].ID = d.ids.Next(out[i].AccountID.Shard())
	}
	d.step++
	return out
}

// Rewind makes NextStatuses start again from the first step, with the same
// ids: a data set loads identically into several backends.
func (d *Dataset) Rewind() {
	d.step = 0
	d.clock = &settableClock{}
	d.ids = sparrow.NewIDGen(statusNode, d.clock)
}
