package bench

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"sparrow"
)

// Op names of the seeds' own measures.
const (
	OpPublish        = "publish"            // POST latency on a quiet server, by the author's followers
	OpFanoutLag      = "fanout_lag"         // publish acknowledged → visible in an active follower's home, by followers
	OpHomeFollowings = "home_followings"    // home read latency by the reader's followings
	OpRebuild        = "rebuild_first_home" // first home read of a user without an inbox
	OpHomeOnly       = "home_only"          // home reads only, closed loop: the home throughput
)

// bucketLabel formats a bucket's lower bound: 10, 100, 1k, 10k, 100k.
func bucketLabel(b int) string {
	switch {
	case b >= 1000 && b%1000 == 0:
		return strconv.Itoa(b/1000) + "k"
	}
	return strconv.Itoa(b)
}

// followersBucket returns the FollowersBuckets bucket of n followers: the
// largest b with n ≥ 0.95·b (so an author followed by all the users of a
// 100k-user data set counts for the 100k bucket), -1 below the first.
func followersBucket(n int64) int {
	idx := -1
	for i, b := range FollowersBuckets {
		if float64(n) >= 0.95*float64(b) {
			idx = i
		}
	}
	return idx
}

// followingBucket returns the FollowingBuckets bucket of n followings: the
// largest b with n ≥ 0.95·b (so a probe capped at users-1 counts for its
// bucket), -1 below the first.
func followingBucket(n int64) int {
	idx := -1
	for i, b := range FollowingBuckets {
		if float64(n) >= 0.95*float64(b) {
			idx = i
		}
	}
	return idx
}

type idOnly struct {
	ID string `json:"id"`
}

// post publishes a status as u and returns its id.
func (c *Client) post(ctx context.Context, u User, text string) (sparrow.ID, error) {
	var st idOnly
	if err := c.Do(ctx, "POST", "/api/v1/statuses", u.Token, url.Values{"status": {text}}, &st); err != nil {
		return 0, err
	}
	return sparrow.ParseID(st.ID)
}

// homeCursor returns the newest id in reader's home ("" if empty): the
// since_id a client polls with.
func (c *Client) homeCursor(ctx context.Context, reader User) (string, error) {
	var page []idOnly
	if err := c.Do(ctx, "GET", "/api/v1/timelines/home?limit=1", reader.Token, nil, &page); err != nil || len(page) == 0 {
		return "", err
	}
	return page[0].ID, nil
}

// visible polls reader's home with since_id = cursor (as a client refreshes
// its timeline) every 2 ms until status id shows or maxWait passes.
func (c *Client) visible(ctx context.Context, reader User, cursor string, id sparrow.ID, maxWait time.Duration) error {
	deadline := time.Now().Add(maxWait)
	path := "/api/v1/timelines/home?limit=40"
	if cursor != "" {
		path += "&since_id=" + cursor
	}
	want := id.String()
	for {
		var page []idOnly
		if err := c.Do(ctx, "GET", path, reader.Token, nil, &page); err != nil {
			return err
		}
		for _, s := range page {
			if s.ID == want {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("status %d not in %d's home after %v", id, reader.ID, maxWait)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// activeFollower returns a follower of author among users (by id), from the
// first page of its followers list, or false.
func (c *Client) activeFollower(ctx context.Context, author User, byID map[sparrow.ID]*User) (User, bool) {
	var page []idOnly
	if err := c.Do(ctx, "GET", "/api/v1/accounts/"+author.ID.String()+"/followers?limit=80", author.Token, nil, &page); err != nil {
		return User{}, false
	}
	for _, a := range page {
		id, err := sparrow.ParseID(a.ID)
		if u := byID[id]; err == nil && u != nil && u.Role == RoleActive && u.ID != author.ID {
			return *u, true
		}
	}
	return User{}, false
}

// PublishResult is the publish measure of one followers bucket.
type PublishResult struct {
	Bucket         string
	MeanFollowers  float64
	Publish, Lag   Result
	Posts          int
	InsertsPerPost float64 // -1 when the server has no fan-out metric
}

// measurePublish posts posts statuses per followers bucket, spread over the
// bucket's authors (active users in the bucket that have an active follower,
// most followed first, at most 5), one at a time on an otherwise quiet
// server: the POST latency is the publish measure; the time from the POST's
// answer until the status shows in the follower's home, polled with since_id
// = the newest id the follower had before the post, is the fan-out lag;
// the server's inbox-insert counter before and after the bucket (once the
// fan-out settled) gives the inserts per post.
func (s *suite) measurePublish(ctx context.Context, posts int) []PublishResult {
	var out []PublishResult
	for bi, b := range FollowersBuckets {
		var authors []User
		for _, u := range s.users {
			if u.Role == RoleActive && followersBucket(u.Followers) == bi {
				authors = append(authors, u)
			}
		}
		slices.SortFunc(authors, func(a, b User) int { return int(b.Followers - a.Followers) })
		type pair struct{ author, reader User }
		var pairs []pair
		for _, a := range authors {
			if len(pairs) == 5 {
				break
			}
			if r, ok := s.c.activeFollower(ctx, a, s.byID); ok {
				pairs = append(pairs, pair{a, r})
			}
		}
		if len(pairs) == 0 {
			continue
		}
		before, haveMetric := s.c.settle(ctx, metricInserts, 0, 300*time.Millisecond, 30*time.Second)
		pub, lag := newRecorder(), newRecorder()
		var followers float64
		start := time.Now()
		for i := 0; i < posts; i++ {
			p := pairs[i%len(pairs)]
			followers += float64(p.author.Followers)
			cursor, err := s.c.homeCursor(ctx, p.reader)
			if err != nil {
				lag.record(0, 0, err)
				continue
			}
			t0 := time.Now()
			id, err := s.c.post(ctx, p.author, fmt.Sprintf("publish probe %d of bucket %s", i, bucketLabel(b)))
			pub.record(time.Since(t0), 0, err)
			if err != nil {
				continue
			}
			t1 := time.Now()
			err = s.c.visible(ctx, p.reader, cursor, id, 30*time.Second)
			lag.record(time.Since(t1), 0, err)
		}
		elapsed := time.Since(start)
		r := PublishResult{Bucket: bucketLabel(b), MeanFollowers: followers / float64(posts), Posts: posts, InsertsPerPost: -1,
			Publish: pub.result(OpPublish, elapsed), Lag: lag.result(OpFanoutLag, elapsed)}
		if haveMetric {
			after, _ := s.c.settle(ctx, metricInserts, 0, 500*time.Millisecond, 60*time.Second)
			r.InsertsPerPost = (after - before) / float64(posts)
		}
		out = append(out, r)
	}
	return out
}

// HomeBucketResult is the home latency of readers in one followings bucket.
type HomeBucketResult struct {
	Bucket         string
	MeanFollowings float64
	Readers        int
	Result
}

// measureHomeByFollowings reads the home of the readers of every followings
// bucket (up to 20 active users per bucket, those closest to the bucket's
// value first), closed loop with clients workers for d per bucket.
func (s *suite) measureHomeByFollowings(ctx context.Context, clients int, d time.Duration) []HomeBucketResult {
	var out []HomeBucketResult
	for bi, b := range FollowingBuckets {
		var readers []User
		for _, u := range s.users {
			if u.Role == RoleActive && followingBucket(u.Following) == bi {
				readers = append(readers, u)
			}
		}
		if len(readers) == 0 {
			continue
		}
		dist := func(u User) float64 { return math.Abs(float64(u.Following) - float64(b)) }
		slices.SortStableFunc(readers, func(x, y User) int { return int(dist(x) - dist(y)) })
		readers = readers[:min(len(readers), 20)]
		var mean float64
		for _, u := range readers {
			mean += float64(u.Following)
		}
		mean /= float64(len(readers))
		var mu sync.Mutex
		next := 0
		op := Op{Name: OpHomeFollowings, Do: func(ctx context.Context, _ int) error {
			mu.Lock()
			u := readers[next%len(readers)]
			next++
			mu.Unlock()
			return s.c.Do(ctx, "GET", "/api/v1/timelines/home?limit=20", u.Token, nil, nil)
		}}
		r := ClosedLoop(ctx, clients, d, 0, op)
		out = append(out, HomeBucketResult{Bucket: bucketLabel(b), MeanFollowings: mean, Readers: len(readers), Result: r})
	}
	return out
}

// measureRebuild times the first home read of every fresh user (no inbox:
// answered by pull inside the request while the inbox is rebuilt), one at a
// time, and returns the result with the fresh users' mean followings.
func (s *suite) measureRebuild(ctx context.Context) (Result, float64) {
	rec := newRecorder()
	var mean float64
	n := 0
	start := time.Now()
	for _, u := range s.users {
		if u.Role != RoleFresh {
			continue
		}
		t0 := time.Now()
		err := s.c.Do(ctx, "GET", "/api/v1/timelines/home?limit=20", u.Token, nil, nil)
		rec.record(time.Since(t0), 0, err)
		mean += float64(u.Following)
		n++
	}
	if n > 0 {
		mean /= float64(n)
	}
	return rec.result(OpRebuild, time.Since(start)), mean
}

// InboxProbe measures the inboxes of users where the cache tier can be
// asked directly (Redis: MEMORY USAGE and ZCARD): bytes and items per user.
type InboxProbe func(ctx context.Context, users []sparrow.ID) (bytes, items []int64, err error)

// InboxItemBytes is the in-process inbox's cost of one item (inmem.Inboxes:
// id, author and reblog id, 8 bytes each), used for the embedded estimate.
const InboxItemBytes = 24

// InboxMemory is the measured (or estimated) inbox memory per user.
type InboxMemory struct {
	Users        int
	BytesPerUser float64
	ItemsPerUser float64
	Estimated    bool
	BytesPerItem float64
	Method       string
}

// measureInboxMemory samples up to 20 active users: through probe if set,
// otherwise it estimates InboxItemBytes × items, counting items as the home
// entries up to inboxCap (what a filled inbox holds), paged 40 at a time.
func (s *suite) measureInboxMemory(ctx context.Context, probe InboxProbe, inboxCap int) (InboxMemory, error) {
	var sample []User
	for _, u := range s.users {
		if u.Role == RoleActive {
			sample = append(sample, u)
		}
	}
	step := max(1, len(sample)/20)
	var picked []User
	for i := 0; i < len(sample) && len(picked) < 20; i += step {
		picked = append(picked, sample[i])
	}
	m := InboxMemory{Users: len(picked)}
	if len(picked) == 0 {
		return m, nil
	}
	if probe != nil {
		ids := make([]sparrow.ID, len(picked))
		for i, u := range picked {
			ids[i] = u.ID
		}
		bytes, items, err := probe(ctx, ids)
		if err != nil {
			return m, err
		}
		for i := range bytes {
			m.BytesPerUser += float64(bytes[i])
			m.ItemsPerUser += float64(items[i])
		}
		m.BytesPerUser /= float64(len(picked))
		m.ItemsPerUser /= float64(len(picked))
		m.Method = "Redis MEMORY USAGE of the inbox keys (sorted set + meta hash)"
	} else {
		for _, u := range picked {
			n, err := s.c.homeDepth(ctx, u, inboxCap)
			if err != nil {
				return m, err
			}
			m.ItemsPerUser += float64(n)
		}
		m.ItemsPerUser /= float64(len(picked))
		m.BytesPerUser = InboxItemBytes * m.ItemsPerUser
		m.Estimated = true
		m.Method = fmt.Sprintf("estimate: %d bytes × home entries up to the inbox cap", InboxItemBytes)
	}
	if m.ItemsPerUser > 0 {
		m.BytesPerItem = m.BytesPerUser / m.ItemsPerUser
	}
	return m, nil
}

// homeDepth counts u's home entries, up to limit, paging with max_id.
func (c *Client) homeDepth(ctx context.Context, u User, limit int) (int, error) {
	n := 0
	maxID := ""
	for n < limit {
		path := "/api/v1/timelines/home?limit=40"
		if maxID != "" {
			path += "&max_id=" + maxID
		}
		var page []idOnly
		if err := c.Do(ctx, "GET", path, u.Token, nil, &page); err != nil {
			return n, err
		}
		if len(page) == 0 {
			break
		}
		n += len(page)
		maxID = page[len(page)-1].ID
	}
	return min(n, limit), nil
}
