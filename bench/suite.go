package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"sparrow"
)

// SuiteConfig is one measured run against one server (one backend, one feed mode).
type SuiteConfig struct {
	Backend, Mode string // labels of the rows

	Clients  int           // closed-loop workers of the mixed workload (and the activation)
	Duration time.Duration // mixed closed loop, and the home-only loop
	// Rate, if > 0, adds an open-loop run of the mix at Rate requests per
	// second for OpenDuration (at most 4×Clients in flight).
	Rate         float64
	OpenDuration time.Duration

	ProbeClients   int           // workers per followings bucket
	ProbeDuration  time.Duration // per followings bucket
	PostsPerBucket int           // publish measure, per followers bucket

	InboxCap   int        // the server's inbox cap (for the embedded estimate)
	InboxProbe InboxProbe // nil: estimate inbox memory over HTTP

	// AfterActivation, if set, is called once the active users are
	// activated and their inboxes rebuilt, before the measures.
	AfterActivation func()

	Bar  NewBar                           // progress bars (nil: none)
	Logf func(format string, args ...any) // phase log (nil: none)
}

type suite struct {
	c     *Client
	cfg   SuiteConfig
	users []User
	byID  map[sparrow.ID]*User
}

func (s *suite) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// DriveSuite measures the server at base with users (their tokens; active
// users are driven, fresh users only read their home once, in the rebuild
// measure) and targets (accounts whose timelines are read and who are
// followed): it activates every active user with a first home read (so they
// get pushes and have an inbox) and waits for the inbox rebuilds, then runs
// the rebuild measure, the publish and fan-out lag measure by followers, the
// home latency by followings, the mixed workload closed loop (with inserts
// per post from the server's metrics), the open loop if cfg.Rate > 0, the
// home-only closed loop and the inbox memory sample. Fresh users must not
// have read their home on this server before.
func DriveSuite(ctx context.Context, base string, users []User, targets []sparrow.ID, cfg SuiteConfig) ([]Row, []Measure, error) {
	cfg.Clients = max(1, cfg.Clients)
	cfg.ProbeClients = max(1, cfg.ProbeClients)
	s := &suite{c: NewClient(base, 4*cfg.Clients+8), cfg: cfg, users: slices.Clone(users), byID: make(map[sparrow.ID]*User, len(users))}
	for i := range s.users {
		s.byID[s.users[i].ID] = &s.users[i]
	}
	if err := s.fillCounts(ctx); err != nil {
		return nil, nil, err
	}
	var active []User
	for _, u := range s.users {
		if u.Role == RoleActive {
			active = append(active, u)
		}
	}
	if len(active) == 0 || len(targets) == 0 {
		return nil, nil, fmt.Errorf("need active users and target accounts")
	}
	row := func(loop, bucket string, x float64, r Result) Row {
		return Row{Backend: cfg.Backend, Mode: cfg.Mode, Loop: loop, Bucket: bucket, X: x, Result: r}
	}
	measure := func(name, bucket string, v float64, unit, note string) Measure {
		return Measure{Backend: cfg.Backend, Mode: cfg.Mode, Name: name, Bucket: bucket, Value: v, Unit: unit, Note: note}
	}
	var rows []Row
	var ms []Measure

	t0 := time.Now()
	rebuildsBefore, _, _ := s.c.Metric(ctx, metricRebuilds)
	if err := s.activate(ctx, active); err != nil {
		return nil, nil, err
	}
	s.c.settle(ctx, metricRebuilds, rebuildsBefore+float64(len(active)), time.Second, 5*time.Minute)
	ms = append(ms, measure("activation_seconds", "", time.Since(t0).Seconds(), "s",
		fmt.Sprintf("first home read of %d active users and their inbox rebuilds", len(active))))
	if cfg.AfterActivation != nil {
		cfg.AfterActivation()
	}

	s.logf("rebuild: first home read of fresh users")
	if r, mean := s.measureRebuild(ctx); r.Requests > 0 {
		rows = append(rows, row("", bucketLabel(int(mean+0.5)), mean, r))
	}

	s.logf("publish and fan-out lag by followers")
	for _, p := range s.measurePublish(ctx, max(1, cfg.PostsPerBucket)) {
		rows = append(rows, row("", p.Bucket, p.MeanFollowers, p.Publish), row("", p.Bucket, p.MeanFollowers, p.Lag))
		if p.InsertsPerPost >= 0 {
			ms = append(ms, measure("inserts_per_post", p.Bucket, p.InsertsPerPost, "inserts", fmt.Sprintf("publish probe, mean %.0f followers", p.MeanFollowers)))
		}
	}

	s.logf("home latency by followings")
	for _, h := range s.measureHomeByFollowings(ctx, cfg.ProbeClients, cfg.ProbeDuration) {
		rows = append(rows, row("closed", h.Bucket, h.MeanFollowings, h.Result))
	}

	s.logf("mixed workload, closed loop, %d clients, %v", cfg.Clients, cfg.Duration)
	w := &Workload{Client: s.c, Readers: active, Targets: targets, Mix: DefaultMix}
	insBefore, haveMetric := s.c.settle(ctx, metricInserts, 0, 300*time.Millisecond, 30*time.Second)
	for _, r := range w.ClosedLoopMix(ctx, cfg.Clients, cfg.Duration) {
		rows = append(rows, row("closed", "", 0, r))
	}
	if cfg.Rate > 0 {
		s.logf("mixed workload, open loop, %.0f req/s, %v", cfg.Rate, cfg.OpenDuration)
		for _, r := range w.OpenLoopMix(ctx, cfg.Rate, cfg.OpenDuration, 4*cfg.Clients) {
			rows = append(rows, row("open", "", 0, r))
		}
	}
	w.UndoFollows(ctx)
	if haveMetric && w.Posts() > 0 {
		after, _ := s.c.settle(ctx, metricInserts, 0, 500*time.Millisecond, 2*time.Minute)
		ms = append(ms, measure("inserts_per_post", "", (after-insBefore)/float64(w.Posts()), "inserts",
			fmt.Sprintf("mixed workload: %d posts by random active users", w.Posts())))
	}

	s.logf("home only, closed loop, %d clients, %v", cfg.Clients, cfg.Duration)
	var next atomic.Int64
	home := Op{Name: OpHomeOnly, Do: func(ctx context.Context, _ int) error {
		u := active[int(next.Add(1))%len(active)]
		return s.c.Do(ctx, "GET", "/api/v1/timelines/home?limit=20", u.Token, nil, nil)
	}}
	rows = append(rows, row("closed", "", 0, ClosedLoop(ctx, cfg.Clients, cfg.Duration, 0, home)))

	if cfg.Mode == "pull" {
		ms = append(ms, measure("inbox_bytes_per_user", "", 0, "bytes", "pull mode keeps no inboxes"),
			measure("inbox_items_per_user", "", 0, "items", ""))
		return rows, ms, nil
	}
	s.logf("inbox memory")
	mem, err := s.measureInboxMemory(ctx, cfg.InboxProbe, cfg.InboxCap)
	if err != nil {
		return rows, ms, fmt.Errorf("inbox memory: %w", err)
	}
	ms = append(ms, measure("inbox_bytes_per_user", "", mem.BytesPerUser, "bytes", fmt.Sprintf("%d users; %s", mem.Users, mem.Method)),
		measure("inbox_items_per_user", "", mem.ItemsPerUser, "items", ""))
	return rows, ms, nil
}

// activate reads the home of every user once, cfg.Clients at a time: the
// user becomes active (pushes reach it) and its inbox is rebuilt.
func (s *suite) activate(ctx context.Context, users []User) error {
	s.logf("activating %d users (first home read)", len(users))
	bar := s.cfg.Bar.start("activate users (first home read)", int64(len(users)))
	defer bar.Done()
	var wg sync.WaitGroup
	var next, failed atomic.Int64
	var mu sync.Mutex
	var firstErr error
	for k := 0; k < s.cfg.Clients; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(users) || ctx.Err() != nil {
					return
				}
				if err := s.c.Do(ctx, "GET", "/api/v1/timelines/home?limit=20", users[i].Token, nil, nil); err != nil {
					failed.Add(1)
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
				bar.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("activation: %d of %d home reads failed, first: %v", n, len(users), firstErr)
	}
	return ctx.Err()
}

// fillCounts asks the server for the followers and following counts of
// users that came without them (an accounts file of id,token only).
func (s *suite) fillCounts(ctx context.Context) error {
	var missing []*User
	for i := range s.users {
		if s.users[i].Followers < 0 || s.users[i].Following < 0 {
			missing = append(missing, &s.users[i])
		}
	}
	if len(missing) == 0 {
		return nil
	}
	s.logf("reading the counters of %d accounts", len(missing))
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, s.cfg.Clients)
	var wg sync.WaitGroup
	for _, u := range missing {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var a struct {
				Followers int64 `json:"followers_count"`
				Following int64 `json:"following_count"`
			}
			if err := s.c.Do(ctx, "GET", "/api/v1/accounts/"+u.ID.String(), u.Token, nil, &a); err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				return
			}
			u.Followers, u.Following = a.Followers, a.Following
		}()
	}
	wg.Wait()
	return firstErr
}
