package app_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/mattn/go-mastodon"
)

// TestCommentsRepostsFavourites walks issue 5 as a Mastodon client does:
// comments with fixed pages, reblogs (idempotent, not of private statuses),
// quotes, favourites, exact counts once consumers caught up, and the delete
// semantics of docs/seeds.md#seed-001.
func TestCommentsRepostsFavourites(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		author, fan, other := s.signup(""), s.signup(""), s.signup("")
		root, err := author.PostStatus(ctx, &mastodon.Toot{Status: "原帖 original"})
		if err != nil {
			t.Fatal(err)
		}
		var comments []mastodon.ID
		for i := 0; i < 23; i++ {
			c, perr := fan.PostStatus(ctx, &mastodon.Toot{Status: fmt.Sprintf("评论 %d", i), InReplyToID: root.ID})
			if perr != nil {
				t.Fatal(perr)
			}
			comments = append(comments, c.ID)
		}
		rb1, err := fan.Reblog(ctx, root.ID)
		if err != nil || rb1.Reblog == nil || rb1.Reblog.ID != root.ID {
			t.Fatalf("reblog: %+v %v", rb1, err)
		}
		if rb2, rerr := fan.Reblog(ctx, root.ID); rerr != nil || rb2.ID != rb1.ID {
			t.Fatalf("second reblog: %v %v, want the first one", rb2, rerr)
		}
		for _, u := range []*user{fan, other, other} {
			if _, ferr := u.Favourite(ctx, root.ID); ferr != nil {
				t.Fatal(ferr)
			}
		}
		var quote struct{ ID string }
		if code := s.do("POST", "/api/v1/statuses", other.Token, url.Values{"status": {"转发理由"}, "quoted_status_id": {string(root.ID)}}, &quote); code != 200 {
			t.Fatalf("quote: %d", code)
		}
		eventually(t, func() string {
			st, gerr := author.GetStatus(ctx, root.ID)
			if gerr != nil {
				return gerr.Error()
			}
			if st.RepliesCount != 23 || st.ReblogsCount != 2 || st.FavouritesCount != 2 {
				return fmt.Sprintf("counts replies %d reblogs %d favourites %d", st.RepliesCount, st.ReblogsCount, st.FavouritesCount)
			}
			return ""
		})
		var page struct {
			Page     int `json:"page"`
			Pages    int `json:"pages"`
			Statuses []struct {
				ID string `json:"id"`
			} `json:"statuses"`
		}
		if code := s.do("GET", fmt.Sprintf("/api/v1/x/statuses/%s/comments?page=1", root.ID), "", nil, &page); code != 200 ||
			page.Pages != 2 || len(page.Statuses) != 3 || page.Statuses[0].ID != string(comments[20]) {
			t.Fatalf("comment page 1: %d %+v", code, page)
		}
		cx, err := author.GetStatusContext(ctx, comments[5])
		if err != nil || len(cx.Ancestors) != 1 || cx.Ancestors[0].ID != root.ID {
			t.Fatalf("context: %+v %v", cx, err)
		}
		favBy, err := author.GetFavouritedBy(ctx, root.ID, nil)
		if err != nil || len(favBy) != 2 {
			t.Fatalf("favourited_by: %d %v", len(favBy), err)
		}
		rbBy, err := author.GetRebloggedBy(ctx, root.ID, nil)
		if err != nil || len(rbBy) != 1 || rbBy[0].ID != fan.ID {
			t.Fatalf("reblogged_by: %+v %v", rbBy, err)
		}
		favs, err := other.GetFavourites(ctx, nil)
		if err != nil || len(favs) != 1 || favs[0].ID != root.ID || !favs[0].Favourited.(bool) {
			t.Fatalf("favourites: %+v %v", favs, err)
		}
		// Notifications reach the author: favourites, the reblog, the replies.
		eventually(t, func() string {
			ns, nerr := author.GetNotifications(ctx, &mastodon.Pagination{Limit: 80})
			if nerr != nil {
				return nerr.Error()
			}
			kinds := map[string]int{}
			for _, n := range ns {
				kinds[n.Type]++
			}
			if kinds["favourite"] != 2 || kinds["reblog"] != 1 || kinds["mention"] != 23 {
				return fmt.Sprintf("notifications %v", kinds)
			}
			return ""
		})
		// Private statuses cannot be reblogged; unknown ids are 404.
		private, _ := author.PostStatus(ctx, &mastodon.Toot{Status: "private", Visibility: "private"})
		s.wantError("POST", "/api/v1/statuses/"+string(private.ID)+"/reblog", author.Token, nil, "", 403)
		s.wantError("POST", "/api/v1/statuses/"+string(private.ID)+"/favourite", other.Token, nil, "", 404)
		s.wantError("POST", "/api/v1/statuses/123456789/reblog", fan.Token, nil, "", 404)
		s.wantError("GET", "/api/v1/x/statuses/"+string(root.ID)+"/comments?page=-1", "", nil, "", 422)

		// Delete semantics: comments and the quote stay, naming the deleted original.
		if derr := author.DeleteStatus(ctx, root.ID); derr != nil {
			t.Fatal(derr)
		}
		c, err := fan.GetStatus(ctx, comments[0])
		if err != nil || c.InReplyToID != string(root.ID) {
			t.Fatalf("comment after its original's deletion: %+v %v", c, err)
		}
		var q struct {
			Quote struct {
				State string `json:"state"`
			} `json:"quote"`
		}
		if code := s.do("GET", "/api/v1/statuses/"+quote.ID, other.Token, nil, &q); code != 200 || q.Quote.State != "deleted" {
			t.Fatalf("quote of a deleted status: %d %+v", code, q)
		}
		s.wantError("GET", "/api/v1/statuses/"+string(rb1.ID), fan.Token, nil, "", 404)
		// Deleting a comment: kept count −1 (on a fresh original).
	})
}
