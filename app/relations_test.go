package app_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"
)

// eventually retries check until it returns "" or the deadline passes; it is
// for asynchronous consumers (the Follower table, counters), never timings.
func eventually(t *testing.T, check func() string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		msg := check()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("did not converge: %s", msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func counts(t *testing.T, u *user, id mastodon.ID) (followers, following int64) {
	t.Helper()
	a, err := u.GetAccount(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return a.FollowersCount, a.FollowingCount
}

func TestFollowLifecycle(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		alice, bob := s.signup(""), s.signup("")
		rel, err := alice.AccountFollow(ctx, bob.ID)
		if err != nil || !rel.Following {
			t.Fatalf("follow: %+v %v", rel, err)
		}
		// A duplicate follow is idempotent and answers 200.
		if rel, ferr := alice.AccountFollow(ctx, bob.ID); ferr != nil || !rel.Following {
			t.Fatalf("duplicate follow: %+v %v", rel, ferr)
		}
		eventually(t, func() string {
			rels, rerr := bob.GetAccountRelationships(ctx, []string{string(alice.ID)})
			if rerr != nil || len(rels) != 1 || !rels[0].FollowedBy {
				return fmt.Sprintf("bob does not see alice as a follower: %+v %v", rels, rerr)
			}
			if f, _ := counts(t, bob, bob.ID); f != 1 {
				return fmt.Sprintf("bob followers_count %d", f)
			}
			return ""
		})
		if _, following := counts(t, alice, alice.ID); following != 1 {
			t.Fatalf("alice following_count = %d", following)
		}
		followers, err := bob.GetAccountFollowers(ctx, bob.ID, nil)
		if err != nil || len(followers) != 1 || followers[0].ID != alice.ID {
			t.Fatalf("followers list: %+v %v", followers, err)
		}
		following, err := alice.GetAccountFollowing(ctx, alice.ID, nil)
		if err != nil || len(following) != 1 || following[0].ID != bob.ID {
			t.Fatalf("following list: %+v %v", following, err)
		}
		// A follower sees private statuses; a stranger does not.
		private, _ := bob.PostStatus(ctx, &mastodon.Toot{Status: "for followers", Visibility: "private"})
		if _, err := alice.GetStatus(ctx, private.ID); err != nil {
			t.Fatalf("follower cannot read a private status: %v", err)
		}
		if rel, err := alice.AccountUnfollow(ctx, bob.ID); err != nil || rel.Following {
			t.Fatalf("unfollow: %+v %v", rel, err)
		}
		if _, err := alice.GetStatus(ctx, private.ID); err == nil {
			t.Fatal("a former follower still reads a private status")
		}
		eventually(t, func() string {
			if f, _ := counts(t, bob, bob.ID); f != 0 {
				return fmt.Sprintf("bob followers_count %d after unfollow", f)
			}
			return ""
		})
	})
}

func TestBlockAndMute(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		alice, bob := s.signup(""), s.signup("")
		if _, err := alice.AccountFollow(ctx, bob.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.AccountFollow(ctx, alice.ID); err != nil {
			t.Fatal(err)
		}
		rel, err := alice.AccountBlock(ctx, bob.ID)
		if err != nil || !rel.Blocking || rel.Following {
			t.Fatalf("block: %+v %v", rel, err)
		}
		// The block removes bob's follow of alice too, on bob's shard.
		eventually(t, func() string {
			var rels []struct {
				Following bool `json:"following"`
				BlockedBy bool `json:"blocked_by"`
			}
			s.do("GET", "/api/v1/accounts/relationships?id[]="+string(alice.ID), bob.Token, nil, &rels)
			if len(rels) != 1 || rels[0].Following || !rels[0].BlockedBy {
				return fmt.Sprintf("bob's view: %+v", rels)
			}
			af, ag := counts(t, alice, alice.ID)
			bf, bg := counts(t, bob, bob.ID)
			if af+ag+bf+bg != 0 {
				return fmt.Sprintf("counts alice %d/%d bob %d/%d", af, ag, bf, bg)
			}
			return ""
		})
		// Following someone who blocks you is refused.
		s.wantError("POST", "/api/v1/accounts/"+string(alice.ID)+"/follow", bob.Token, nil, "", 403)
		blocks, err := alice.GetBlocks(ctx, nil)
		if err != nil || len(blocks) != 1 || blocks[0].ID != bob.ID {
			t.Fatalf("blocks: %+v %v", blocks, err)
		}
		if rel, uerr := alice.AccountUnblock(ctx, bob.ID); uerr != nil || rel.Blocking {
			t.Fatalf("unblock: %+v %v", rel, uerr)
		}
		if rel, merr := alice.AccountMute(ctx, bob.ID); merr != nil || !rel.Muting {
			t.Fatalf("mute: %+v %v", rel, merr)
		}
		mutes, err := alice.GetMutes(ctx, nil)
		if err != nil || len(mutes) != 1 {
			t.Fatalf("mutes: %+v %v", mutes, err)
		}
		if rel, err := alice.AccountUnmute(ctx, bob.ID); err != nil || rel.Muting {
			t.Fatalf("unmute: %+v %v", rel, err)
		}
	})
}

func TestRelationBadInput(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		u := s.signup("")
		s.wantError("POST", "/api/v1/accounts/"+string(u.ID)+"/follow", u.Token, nil, "", 422)
		s.wantError("POST", "/api/v1/accounts/123456789/follow", u.Token, nil, "", 404)
		s.wantError("POST", "/api/v1/accounts/abc/block", u.Token, nil, "", 404)
		s.wantError("POST", "/api/v1/accounts/123/follow", "", nil, "", 401)
		many := strings.Repeat("id[]=1&", 1001)
		s.wantError("GET", "/api/v1/accounts/relationships?"+many, u.Token, nil, "", 422)
		s.wantError("POST", "/api/v1/x/follows", u.Token, []byte(many), "application/x-www-form-urlencoded", 422)
		s.wantError("GET", "/api/v1/accounts/search", u.Token, nil, "", 400)
	})
}

// TestBulkFollowAndPaging: one call follows 500 accounts; the following list
// pages through all of them with Link cursors; counts converge.
func TestBulkFollowAndPaging(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		fan := s.signup("")
		ids := s.bulkAccounts(500)
		form := url.Values{}
		for _, id := range ids {
			form.Add("id[]", id)
		}
		form.Add("id[]", string(fan.ID)) // oneself is skipped
		var rels []struct {
			ID        string `json:"id"`
			Following bool   `json:"following"`
		}
		if code := s.do("POST", "/api/v1/x/follows", fan.Token, form, &rels); code != 200 || len(rels) != 500 {
			t.Fatalf("bulk follow: HTTP %d, %d relationships", code, len(rels))
		}
		for _, r := range rels {
			if !r.Following {
				t.Fatalf("not following %s", r.ID)
			}
		}
		seen := map[mastodon.ID]bool{}
		pg := &mastodon.Pagination{Limit: 80}
		for i := 0; i < 20; i++ {
			page, err := fan.GetAccountFollowing(ctx, fan.ID, pg)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range page {
				seen[a.ID] = true
			}
			if pg.MaxID == "" || len(page) == 0 {
				break
			}
			pg = &mastodon.Pagination{MaxID: pg.MaxID, Limit: 80}
		}
		if len(seen) != 500 {
			t.Fatalf("paged %d followings, want 500", len(seen))
		}
		eventually(t, func() string {
			if _, g := counts(t, fan, fan.ID); g != 500 {
				return fmt.Sprintf("following_count %d", g)
			}
			if f, _ := counts(t, fan, mastodon.ID(ids[499])); f != 1 {
				return fmt.Sprintf("followers_count of a target %d", f)
			}
			return ""
		})
	})
}

// bulkAccounts signs up n accounts quickly (one app token) and returns their ids.
func (s *server) bulkAccounts(n int) []string {
	s.t.Helper()
	c := s.newApp("read write follow")
	var appTok struct {
		AccessToken string `json:"access_token"`
	}
	s.do("POST", "/oauth/token", "", url.Values{"grant_type": {"client_credentials"}, "client_id": {c.Config.ClientID},
		"client_secret": {c.Config.ClientSecret}, "scope": {"read write follow"}}, &appTok)
	ids := make([]string, 0, n)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("bulk%d_%d", userSeq.Add(1), i)
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		if code := s.do("POST", "/api/v1/accounts", appTok.AccessToken, url.Values{"username": {name}, "email": {name + "@example.com"},
			"password": {"password123"}, "agreement": {"true"}}, &tok); code != 200 {
			s.t.Fatalf("sign-up %s: %d", name, code)
		}
		var me struct{ ID string }
		s.do("GET", "/api/v1/accounts/verify_credentials", tok.AccessToken, nil, &me)
		ids = append(ids, me.ID)
	}
	return ids
}

func TestAccountSearch(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		u := s.signup("zhangwei")
		other := s.signup("zhangsan")
		name := "麻雀 Sparrow"
		if _, err := other.AccountUpdate(ctx, &mastodon.Profile{DisplayName: &name}); err != nil {
			t.Fatal(err)
		}
		eventually(t, func() string {
			res, err := u.AccountsSearch(ctx, "zhang", 10)
			if err != nil || len(res) != 2 {
				return fmt.Sprintf("search zhang: %d results, %v", len(res), err)
			}
			res, _ = u.AccountsSearch(ctx, "麻雀", 10)
			if len(res) != 1 || res[0].ID != other.ID {
				return fmt.Sprintf("search 麻雀: %+v", res)
			}
			res, _ = u.AccountsSearch(ctx, "sparrow", 10)
			if len(res) != 1 {
				return fmt.Sprintf("search by a display-name word: %d", len(res))
			}
			return ""
		})
		res, err := u.AccountsSearch(ctx, "@zhangwei", 10)
		if err != nil || len(res) == 0 || res[0].ID != u.ID {
			t.Fatalf("exact acct first: %+v %v", res, err)
		}
		var v2 struct {
			Accounts []json.RawMessage `json:"accounts"`
			Statuses []json.RawMessage `json:"statuses"`
		}
		if code := s.do("GET", "/api/v2/search?q=zhangs&type=accounts", u.Token, nil, &v2); code != 200 || len(v2.Accounts) != 1 {
			t.Fatalf("v2 search: %d %d", code, len(v2.Accounts))
		}
	})
}
