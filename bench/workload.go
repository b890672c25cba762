package bench

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"sparrow"
)

// Op names of the mixed workload (and of report.json's results).
const (
	OpHome          = "home_timeline"    // GET /api/v1/timelines/home?limit=20
	OpAccount       = "account_timeline" // GET /api/v1/accounts/:id/statuses?limit=20
	OpPost          = "post"             // POST /api/v1/statuses
	OpRelationships = "relationships"    // GET /api/v1/accounts/relationships?id[]=… (20 ids)
	OpFollow        = "follow"           // POST /api/v1/accounts/:id/follow
	OpUnfollow      = "unfollow"         // POST /api/v1/accounts/:id/unfollow (the worker's previous follow)
)

// Mix gives the share of each kind of request in the mixed workload.
type Mix struct {
	Home, Account, Post, Relationships, FollowToggle float64
}

// DefaultMix is DeathStarBench's social-network mix (60% home timeline, 30%
// user timeline, 10% post) for 95% of the requests, with relationship
// batches (3%) and follow/unfollow (2%: each worker alternates a follow and
// the unfollow of that same follow, so the graph does not drift) mixed in.
var DefaultMix = Mix{Home: 0.57, Account: 0.285, Post: 0.095, Relationships: 0.03, FollowToggle: 0.02}

// Workload is the mixed workload over HTTP against any Mastodon-API server.
type Workload struct {
	Client  *Client
	Readers []User       // the accounts requests act as (active users)
	Targets []sparrow.ID // accounts whose timelines are read and who are followed
	Mix     Mix

	posts  atomic.Int64 // successful posts
	seq    atomic.Int64
	mu     sync.Mutex
	follow map[int]followState // per worker: the follow to undo next
	// failedUndo are unfollows that did not succeed (a deadline cut them
	// off); UndoFollows retries them.
	failedUndo []followState
}

type followState struct {
	as     User
	target sparrow.ID
}

// Posts is the number of statuses the workload has posted successfully.
func (w *Workload) Posts() int64 { return w.posts.Load() }

// pick draws the op of the next request.
func (w *Workload) pick(rng *rand.Rand) string {
	m := w.Mix
	x := rng.Float64() * (m.Home + m.Account + m.Post + m.Relationships + m.FollowToggle)
	switch {
	case x < m.Home:
		return OpHome
	case x < m.Home+m.Account:
		return OpAccount
	case x < m.Home+m.Account+m.Post:
		return OpPost
	case x < m.Home+m.Account+m.Post+m.Relationships:
		return OpRelationships
	}
	return OpFollow // or OpUnfollow: decided by the worker's state
}

// do runs one request of kind op as worker and returns the op actually run
// (follow becomes unfollow when the worker has a follow to undo).
func (w *Workload) do(ctx context.Context, rng *rand.Rand, worker int, op string) (string, func(context.Context) error) {
	c := w.Client
	u := w.Readers[rng.IntN(len(w.Readers))]
	ti := rng.IntN(len(w.Targets))
	target := w.Targets[ti]
	if target == u.ID && len(w.Targets) > 1 { // never oneself: a self-follow is an error
		target = w.Targets[(ti+1)%len(w.Targets)]
	}
	switch op {
	case OpHome:
		return op, func(ctx context.Context) error {
			return c.Do(ctx, "GET", "/api/v1/timelines/home?limit=20", u.Token, nil, nil)
		}
	case OpAccount:
		return op, func(ctx context.Context) error {
			return c.Do(ctx, "GET", "/api/v1/accounts/"+target.String()+"/statuses?limit=20", u.Token, nil, nil)
		}
	case OpPost:
		n := w.seq.Add(1)
		return op, func(ctx context.Context) error {
			err := c.Do(ctx, "POST", "/api/v1/statuses", u.Token, url.Values{"status": {fmt.Sprintf("bench post %d: %s", n, statusTexts[n%int64(len(statusTexts))])}}, nil)
			if err == nil {
				w.posts.Add(1)
			}
			return err
		}
	case OpRelationships:
		q := url.Values{}
		for i := 0; i < 20; i++ {
			q.Add("id[]", w.Targets[rng.IntN(len(w.Targets))].String())
		}
		return op, func(ctx context.Context) error {
			return c.Do(ctx, "GET", "/api/v1/accounts/relationships?"+q.Encode(), u.Token, nil, nil)
		}
	}
	w.mu.Lock()
	if w.follow == nil {
		w.follow = map[int]followState{}
	}
	st, undo := w.follow[worker]
	if undo {
		delete(w.follow, worker)
	} else {
		w.follow[worker] = followState{u, target}
	}
	w.mu.Unlock()
	if undo {
		return OpUnfollow, func(ctx context.Context) error {
			err := c.Do(ctx, "POST", "/api/v1/accounts/"+st.target.String()+"/unfollow", st.as.Token, nil, nil)
			if err != nil { // cut off by the deadline, or failed: UndoFollows tries again
				w.mu.Lock()
				w.failedUndo = append(w.failedUndo, st)
				w.mu.Unlock()
			}
			return err
		}
	}
	return OpFollow, func(ctx context.Context) error {
		return c.Do(ctx, "POST", "/api/v1/accounts/"+target.String()+"/follow", u.Token, nil, nil)
	}
}

// mixOps is the order of the mixed workload's results.
var mixOps = []string{OpHome, OpAccount, OpPost, OpRelationships, OpFollow, OpUnfollow}

// mixRecorders returns one recorder per op.
func mixRecorders() map[string]*recorder {
	m := make(map[string]*recorder, len(mixOps))
	for _, op := range mixOps {
		m[op] = newRecorder()
	}
	return m
}

func mixResults(recs map[string]*recorder, elapsed time.Duration) []Result {
	out := make([]Result, 0, len(mixOps))
	for _, op := range mixOps {
		out = append(out, recs[op].result(op, elapsed))
	}
	return out
}

// ClosedLoopMix runs the workload with `clients` workers for d, each sending
// its next request as soon as the previous one answers, and returns one
// Result per op (in mixOps order). Latencies are corrected for coordinated
// omission as in ClosedLoop: the expected interval is the mean latency of a
// single-client warm-up of the same mix times the number of clients.
func (w *Workload) ClosedLoopMix(ctx context.Context, clients int, d time.Duration) []Result {
	expected := w.warmup(ctx) * time.Duration(clients)
	recs := mixRecorders()
	// Requests run with the caller's ctx: the deadline stops new requests,
	// and lets those in flight finish, so a follow is never cut off on the
	// client while the server still applies it (after UndoFollows).
	reqCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	for k := 0; k < clients; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(k), uint64(start.UnixNano())))
			for ctx.Err() == nil {
				op, call := w.do(reqCtx, rng, k, w.pick(rng))
				t0 := time.Now()
				err := call(reqCtx)
				lat := time.Since(t0)
				if reqCtx.Err() != nil && err != nil {
					return // the caller gave up: not a server error
				}
				recs[op].record(lat, expected, err)
			}
		}(k)
	}
	wg.Wait()
	return mixResults(recs, time.Since(start))
}

// warmup runs 40 requests of the mix from one client and returns their mean latency.
func (w *Workload) warmup(ctx context.Context) time.Duration {
	const n = 40
	rng := rand.New(rand.NewPCG(7, 7))
	var total time.Duration
	for i := 0; i < n; i++ {
		_, call := w.do(ctx, rng, -1, w.pick(rng))
		t0 := time.Now()
		call(ctx)
		total += time.Since(t0)
	}
	w.mu.Lock()
	if st, ok := w.follow[-1]; ok { // undo the warm-up's last follow
		delete(w.follow, -1)
		w.mu.Unlock()
		w.Client.Do(ctx, "POST", "/api/v1/accounts/"+st.target.String()+"/unfollow", st.as.Token, nil, nil)
	} else {
		w.mu.Unlock()
	}
	return total / n
}

// OpenLoopMix sends the workload at a fixed rate (requests per second) for
// d whatever the latency, at most inflight at once, each request timed from
// when it was due (so queueing counts and nothing is omitted), and returns
// one Result per op.
func (w *Workload) OpenLoopMix(ctx context.Context, rate float64, d time.Duration, inflight int) []Result {
	recs := mixRecorders()
	rng := rand.New(rand.NewPCG(11, uint64(time.Now().UnixNano())))
	elapsed := openSchedule(ctx, rate, d, inflight, func(ctx context.Context, slot int) func(time.Time) {
		op, call := w.do(ctx, rng, 1_000_000+slot, w.pick(rng))
		return func(due time.Time) {
			err := call(ctx)
			if !(ctx.Err() != nil && err != nil) {
				recs[op].record(time.Since(due), 0, err)
			}
		}
	})
	return mixResults(recs, elapsed)
}

// UndoFollows unfollows what workers followed and did not unfollow yet, so
// that the graph is as loaded when the next run starts.
func (w *Workload) UndoFollows(ctx context.Context) {
	w.mu.Lock()
	pending := slices.Collect(maps.Values(w.follow))
	pending = append(pending, w.failedUndo...)
	w.follow, w.failedUndo = nil, nil
	w.mu.Unlock()
	for _, st := range pending {
		w.Client.Do(ctx, "POST", "/api/v1/accounts/"+st.target.String()+"/unfollow", st.as.Token, nil, nil)
	}
}
