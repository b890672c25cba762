package app_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/mattn/go-mastodon"
)

// Regression tests of privacy decisions that used to wait for the bus or
// trust a cache (issue "Privacy that never waits for the queue"). Each runs
// with the relay paused, so that no event reaches any consumer, and where a
// cache could answer, with the cache made stale on purpose.

// post posts a status of the given visibility and returns its id.
func post(t *testing.T, u *user, text, visibility string) mastodon.ID {
	t.Helper()
	st, err := u.PostStatus(ctx, &mastodon.Toot{Status: text, Visibility: visibility})
	if err != nil {
		t.Fatalf("post %q: %v", text, err)
	}
	return st.ID
}

// code answers the status of a request by u (nil: anonymous).
func (s *server) code(method, path string, u *user) int {
	s.t.Helper()
	tok := ""
	if u != nil {
		tok = u.Token
	}
	c, _ := s.raw(method, path, tok, "", nil)
	return c
}

// follow makes u follow who and waits until the Follower row is applied
// (followers_count counts it), so that fan-out reaches u.
func follow(t *testing.T, u, who *user) {
	t.Helper()
	before, _ := counts(t, who, who.ID)
	if _, err := u.AccountFollow(ctx, who.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() string {
		if n, _ := counts(t, who, who.ID); n <= before {
			return fmt.Sprintf("%s's follow of %s not applied", u.Username, who.Username)
		}
		return ""
	})
}

// pauseBus pauses the relay until the test ends: events stay in the
// outboxes, and no consumer (follower sync, fan-out, cache invalidation,
// notifications) sees anything.
func (s *server) pauseBus(t *testing.T) {
	s.app.Relay.Pause()
	t.Cleanup(s.app.Relay.Resume)
}

// staleCache returns a function that puts back the cache entries of keys as
// they are now, as a failed invalidation or a racing read-through fill
// would leave them.
func (s *server) staleCache(t *testing.T, keys ...string) (restore func()) {
	t.Helper()
	saved := map[string][]byte{}
	for _, k := range keys {
		if v, ok, err := s.app.Cache().Get(ctx, k); err != nil {
			t.Fatal(err)
		} else if ok {
			saved[k] = v
		}
	}
	if len(saved) == 0 {
		t.Fatalf("no cache entry among %v to make stale", keys)
	}
	return func() {
		for k, v := range saved {
			if err := s.app.Cache().Set(ctx, k, v, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestBlockTakesEffectWhenItReturns: once a block returns, the blocked
// account reads nothing of the blocker's, on any surface, though the bus is
// stalled and its follow of the blocker still stands on its own shard (the
// event that ends it has not been relayed). Statuses posted after the block
// are hidden too.
func TestBlockTakesEffectWhenItReturns(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		author, fan := s.signup(""), s.signup("")
		follow(t, fan, author)
		before := post(t, author, "before the block", "private")
		public := post(t, author, "public before the block", "public")
		eventually(t, func() string {
			if !slices.Contains(homeIDs(t, fan), before) {
				return "the private status never reached the follower's home"
			}
			return ""
		})
		if c := s.code("GET", "/api/v1/statuses/"+string(before), fan); c != 200 {
			t.Fatalf("the follower reads the private status: HTTP %d", c)
		}

		s.pauseBus(t)
		if _, err := author.AccountBlock(ctx, fan.ID); err != nil {
			t.Fatal(err)
		}
		after := post(t, author, "after the block", "private")
		for _, id := range []mastodon.ID{before, after, public} {
			for _, path := range []string{"", "/context", "/history", "/reblogged_by", "/favourited_by"} {
				if c := s.code("GET", "/api/v1/statuses/"+string(id)+path, fan); c != 404 {
					t.Errorf("blocked follower: GET status %s%s: HTTP %d, want 404", id, path, c)
				}
			}
		}
		if ids := homeIDs(t, fan); slices.ContainsFunc(ids, func(id mastodon.ID) bool { return id == before || id == public || id == after }) {
			t.Errorf("the blocked follower's home still shows the blocker's statuses: %v", ids)
		}
		var feed []map[string]any
		if c := s.do("GET", "/api/v1/accounts/"+string(author.ID)+"/statuses", fan.Token, nil, &feed); c != 200 || len(feed) != 0 {
			t.Errorf("the blocker's profile feed, read by the blocked: HTTP %d, %d statuses", c, len(feed))
		}
	})
}

// TestUnfollowTakesEffectWhenItReturns: once an unfollow returns, the
// former follower reads no followers-only status, though the bus is stalled
// and the following-set cache still says it follows (a failed invalidation,
// or a read-through fill racing the write).
func TestUnfollowTakesEffectWhenItReturns(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		author, fan := s.signup(""), s.signup("")
		follow(t, fan, author)
		private := post(t, author, "followers only", "private")
		eventually(t, func() string {
			if !slices.Contains(homeIDs(t, fan), private) {
				return "the private status never reached the follower's home"
			}
			return ""
		})
		if c := s.code("GET", "/api/v1/statuses/"+string(private), fan); c != 200 {
			t.Fatalf("the follower reads the private status: HTTP %d", c)
		}
		stale := s.staleCache(t, "fset:"+string(fan.ID))

		s.pauseBus(t)
		if _, err := fan.AccountUnfollow(ctx, author.ID); err != nil {
			t.Fatal(err)
		}
		stale()
		if c := s.code("GET", "/api/v1/statuses/"+string(private), fan); c != 404 {
			t.Errorf("the former follower reads the private status: HTTP %d, want 404", c)
		}
		if ids := homeIDs(t, fan); slices.Contains(ids, private) {
			t.Errorf("the former follower's home still shows the private status: %v", ids)
		}
		var feed []struct {
			ID mastodon.ID `json:"id"`
		}
		s.do("GET", "/api/v1/accounts/"+string(author.ID)+"/statuses", fan.Token, nil, &feed)
		if slices.ContainsFunc(feed, func(x struct {
			ID mastodon.ID `json:"id"`
		}) bool {
			return x.ID == private
		}) {
			t.Errorf("the former follower sees the private status on the profile")
		}
	})
}

// TestMastodonBlockRules: the blocked account gets 404 for the blocker's
// public statuses on every surface and cannot favourite, reblog, quote or
// reply to them, nor reach the blocker by mentioning it.
func TestMastodonBlockRules(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		blocker, blocked, other := s.signup(""), s.signup(""), s.signup("")
		public := post(t, blocker, "a public status", "public")
		unlisted := post(t, blocker, "an unlisted status", "unlisted")
		if _, err := blocker.AccountBlock(ctx, blocked.ID); err != nil {
			t.Fatal(err)
		}
		for _, id := range []mastodon.ID{public, unlisted} {
			base := "/api/v1/statuses/" + string(id)
			for _, path := range []string{"", "/context", "/history", "/reblogged_by", "/favourited_by"} {
				if c := s.code("GET", base+path, blocked); c != 404 {
					t.Errorf("GET %s%s by the blocked account: HTTP %d, want 404", base, path, c)
				}
			}
			if c := s.code("GET", "/api/v1/x/statuses/"+string(id)+"/comments?page=0", blocked); c != 404 {
				t.Errorf("comment page by the blocked account: HTTP %d, want 404", c)
			}
			for _, action := range []string{"favourite", "reblog"} {
				if c := s.code("POST", base+"/"+action, blocked); c != 404 {
					t.Errorf("POST %s/%s by the blocked account: HTTP %d, want 404", base, action, c)
				}
			}
			for _, key := range []string{"in_reply_to_id", "quoted_status_id"} {
				if c := s.do("POST", "/api/v1/statuses", blocked.Token, url.Values{"status": {"hi"}, key: {string(id)}}, nil); c != 404 {
					t.Errorf("post with %s of the blocker's status: HTTP %d, want 404", key, c)
				}
			}
			// Others, and anonymous readers, still see it.
			if c := s.code("GET", base, other); c != 200 {
				t.Errorf("GET %s by a stranger: HTTP %d", base, c)
			}
			if c := s.code("GET", base, nil); c != 200 {
				t.Errorf("GET %s anonymously: HTTP %d", base, c)
			}
		}
		var feed []map[string]any
		if c := s.do("GET", "/api/v1/accounts/"+string(blocker.ID)+"/statuses", blocked.Token, nil, &feed); c != 200 || len(feed) != 0 {
			t.Errorf("profile feed by the blocked account: HTTP %d, %d statuses", c, len(feed))
		}
		// A mention of the blocker reaches nothing: no notification, and a
		// direct status does not open to it.
		dm := post(t, blocked, "@"+blocker.Username+" let me in", "direct")
		if c := s.code("GET", "/api/v1/statuses/"+string(dm), blocker); c != 404 {
			t.Errorf("the blocker reads a direct status of the blocked that mentions it: HTTP %d", c)
		}
		mention := post(t, other, "@"+blocker.Username+" hello", "public")
		eventually(t, func() string {
			ns, err := blocker.GetNotifications(ctx, nil)
			if err != nil {
				return err.Error()
			}
			for _, n := range ns {
				if n.Account.ID == blocked.ID {
					t.Fatalf("the blocker was notified by the blocked account: %+v", n)
				}
			}
			if !slices.ContainsFunc(ns, func(n *mastodon.Notification) bool { return n.Status != nil && n.Status.ID == mention }) {
				return "the other mention never arrived"
			}
			return ""
		})
	})
}

// relationshipOf answers u's relationship with who.
func (s *server) relationshipOf(t *testing.T, u, who *user) map[string]any {
	t.Helper()
	var rels []map[string]any
	if c := s.do("GET", "/api/v1/accounts/relationships?id[]="+string(who.ID), u.Token, nil, &rels); c != 200 || len(rels) != 1 {
		t.Fatalf("relationships: HTTP %d %v", c, rels)
	}
	return rels[0]
}

// followRequests answers the ids of the accounts asking to follow u.
func (s *server) followRequests(t *testing.T, u *user) []mastodon.ID {
	t.Helper()
	var accs []struct {
		ID mastodon.ID `json:"id"`
	}
	if c := s.do("GET", "/api/v1/follow_requests", u.Token, nil, &accs); c != 200 {
		t.Fatalf("follow_requests: HTTP %d", c)
	}
	out := make([]mastodon.ID, len(accs))
	for i, a := range accs {
		out[i] = a.ID
	}
	return out
}

// TestLockedAccountsAndFollowRequests: a follow of a locked account is a
// request (requested: true) that shows nothing private until the account
// authorizes it, listed in its follow requests with a follow_request
// notification; authorize makes the follow (private statuses readable as
// soon as it returns), reject drops it, unfollow withdraws it, and
// unlocking authorizes what is pending.
func TestLockedAccountsAndFollowRequests(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		star, fan, other, late := s.signup(""), s.signup(""), s.signup(""), s.signup("")
		locked := true
		if _, err := star.AccountUpdate(ctx, &mastodon.Profile{Locked: &locked}); err != nil {
			t.Fatal(err)
		}
		private := post(t, star, "for my followers", "private")
		rel, err := fan.AccountFollow(ctx, star.ID)
		if err != nil || rel.Following || !rel.Requested {
			t.Fatalf("follow of a locked account: %+v %v, want requested", rel, err)
		}
		if c := s.code("GET", "/api/v1/statuses/"+string(private), fan); c != 404 {
			t.Fatalf("a pending request reads a private status: HTTP %d", c)
		}
		var feed []map[string]any
		s.do("GET", "/api/v1/accounts/"+string(star.ID)+"/statuses", fan.Token, nil, &feed)
		if len(feed) != 0 {
			t.Fatalf("a pending request reads %d statuses on the profile", len(feed))
		}
		eventually(t, func() string {
			if got := s.followRequests(t, star); !slices.Equal(got, []mastodon.ID{fan.ID}) {
				return fmt.Sprintf("follow requests %v", got)
			}
			if r := s.relationshipOf(t, star, fan); r["requested_by"] != true {
				return fmt.Sprintf("star's relationship with fan %v", r)
			}
			ns, _ := star.GetNotifications(ctx, nil)
			if len(ns) != 1 || ns[0].Type != "follow_request" || ns[0].Account.ID != fan.ID {
				return fmt.Sprintf("notifications %+v", ns)
			}
			return ""
		})
		if c := s.code("POST", "/api/v1/follow_requests/"+string(other.ID)+"/authorize", star); c != 404 {
			t.Fatalf("authorize without a request: HTTP %d, want 404", c)
		}

		var r map[string]any
		if c := s.do("POST", "/api/v1/follow_requests/"+string(fan.ID)+"/authorize", star.Token, nil, &r); c != 200 || r["followed_by"] != true {
			t.Fatalf("authorize: HTTP %d %v", c, r)
		}
		if c := s.code("GET", "/api/v1/statuses/"+string(private), fan); c != 200 {
			t.Fatalf("the authorized follower reads the private status: HTTP %d, want 200", c)
		}
		if r := s.relationshipOf(t, fan, star); r["following"] != true || r["requested"] != false {
			t.Fatalf("fan's relationship after authorize: %v", r)
		}
		eventually(t, func() string {
			if got := s.followRequests(t, star); len(got) != 0 {
				return fmt.Sprintf("follow requests after authorize %v", got)
			}
			if n, _ := counts(t, star, star.ID); n != 1 {
				return fmt.Sprintf("followers_count %d", n)
			}
			ns, _ := star.GetNotifications(ctx, nil)
			if len(ns) != 0 {
				return fmt.Sprintf("notifications after authorize %+v (the request's is gone, an authorization notifies nobody)", ns)
			}
			return ""
		})

		// Reject, and withdraw.
		if rel, err := other.AccountFollow(ctx, star.ID); err != nil || !rel.Requested {
			t.Fatalf("other's follow: %+v %v", rel, err)
		}
		if c := s.code("POST", "/api/v1/follow_requests/"+string(other.ID)+"/reject", star); c != 200 {
			t.Fatalf("reject: HTTP %d", c)
		}
		if r := s.relationshipOf(t, other, star); r["following"] != false || r["requested"] != false {
			t.Fatalf("other's relationship after reject: %v", r)
		}
		if c := s.code("POST", "/api/v1/follow_requests/"+string(other.ID)+"/reject", star); c != 404 {
			t.Fatalf("a second reject: HTTP %d, want 404", c)
		}
		if rel, err := other.AccountFollow(ctx, star.ID); err != nil || !rel.Requested {
			t.Fatalf("other's second follow: %+v %v", rel, err)
		}
		if rel, err := other.AccountUnfollow(ctx, star.ID); err != nil || rel.Requested || rel.Following {
			t.Fatalf("withdrawn: %+v %v", rel, err)
		}
		if c := s.code("POST", "/api/v1/follow_requests/"+string(other.ID)+"/authorize", star); c != 404 {
			t.Fatalf("authorize of a withdrawn request: HTTP %d, want 404", c)
		}

		// Unlocking authorizes what is pending.
		if rel, err := late.AccountFollow(ctx, star.ID); err != nil || !rel.Requested {
			t.Fatalf("late's follow: %+v %v", rel, err)
		}
		unlocked := false
		if _, err := star.AccountUpdate(ctx, &mastodon.Profile{Locked: &unlocked}); err != nil {
			t.Fatal(err)
		}
		eventually(t, func() string {
			if r := s.relationshipOf(t, late, star); r["following"] != true || r["requested"] != false {
				return fmt.Sprintf("late's relationship after the unlock: %v", r)
			}
			return ""
		})
		if rel, err := other.AccountFollow(ctx, star.ID); err != nil || !rel.Following {
			t.Fatalf("a follow of the unlocked account: %+v %v", rel, err)
		}
	})
}

// TestClientIdempotencyKeysCannotCollideWithReblogs: a client's
// Idempotency-Key that spells the internal key of a reblog ("reblog:<id>")
// neither answers a later reblog with the client's post nor blocks it.
func TestClientIdempotencyKeysCannotCollideWithReblogs(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		author, u := s.signup(""), s.signup("")
		orig := post(t, author, "to be reblogged", "public")
		code, body := s.rawWithHeader("POST", "/api/v1/statuses", u.Token, "Idempotency-Key", "reblog:"+string(orig), url.Values{"status": {"my own post"}})
		if code != 200 {
			t.Fatalf("post: HTTP %d %s", code, body)
		}
		var mine struct {
			ID mastodon.ID `json:"id"`
		}
		decode(t, body, &mine)
		rb, err := u.Reblog(ctx, orig)
		if err != nil {
			t.Fatal(err)
		}
		if rb.ID == mine.ID || rb.Reblog == nil || rb.Reblog.ID != orig {
			t.Fatalf("the reblog answered %s (reblog of %v), the client's post is %s", rb.ID, rb.Reblog, mine.ID)
		}
	})
}
