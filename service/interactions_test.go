package service_test

import (
	"slices"
	"testing"

	"sparrow"
	"sparrow/service"
)

func (w *world) status(id sparrow.ID) *sparrow.Status {
	w.t.Helper()
	st, err := w.st.Status(bg, id)
	if err != nil {
		w.t.Fatal(err)
	}
	return st
}

func (w *world) reply(v sparrow.Viewer, to sparrow.ID, text string) sparrow.ID {
	w.t.Helper()
	sv, err := w.svc.Statuses.Post(bg, v, sparrow.PostStatus{Text: text, InReplyToID: to})
	if err != nil {
		w.t.Fatal(err)
	}
	return sv.Status.ID
}

// TestFixedCommentPages: 45 comments on pages of 20 land on pages 0, 1, 2 in
// order; deleting comments shortens their page and the kept count but never
// the ever count, and later comments keep numbering from the ever count.
func TestFixedCommentPages(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		w := newWorld(t, service.ModeHybrid, 800)
		author, fan := w.user("author"), w.user("fan")
		root := w.post(author, "root", sparrow.Public)
		var comments []sparrow.ID
		for i := 0; i < 45; i++ {
			comments = append(comments, w.reply(fan, root, "comment"))
		}
		w.settle()
		for page, want := range [][]sparrow.ID{comments[:20], comments[20:40], comments[40:]} {
			got, err := w.svc.Interactions.Comments(bg, fan, root, page)
			if err != nil {
				t.Fatal(err)
			}
			var ids []sparrow.ID
			for _, sv := range got.Statuses {
				ids = append(ids, sv.Status.ID)
			}
			if !slices.Equal(ids, want) || got.Pages != 3 {
				t.Fatalf("page %d = %v (pages %d), want %v", page, ids, got.Pages, want)
			}
		}
		for _, id := range []sparrow.ID{comments[3], comments[7]} {
			if _, err := w.svc.Statuses.Delete(bg, fan, id); err != nil {
				t.Fatal(err)
			}
		}
		later := w.reply(fan, root, "late")
		w.settle()
		st := w.status(root)
		if st.RepliesCount != 44 || st.RepliesEver != 46 {
			t.Fatalf("replies kept %d ever %d, want 44 and 46", st.RepliesCount, st.RepliesEver)
		}
		p0, _ := w.svc.Interactions.Comments(bg, fan, root, 0)
		if len(p0.Statuses) != 18 {
			t.Fatalf("page 0 after two deletions has %d comments, want 18 (short, not refilled)", len(p0.Statuses))
		}
		p2, _ := w.svc.Interactions.Comments(bg, fan, root, 2)
		if last := p2.Statuses[len(p2.Statuses)-1].Status.ID; last != later {
			t.Fatalf("a new comment went to %v, want the end of page 2", last)
		}
		if _, err := w.svc.Interactions.Comments(bg, fan, root, -1); !sparrow.IsKind(err, sparrow.EInvalid) {
			t.Fatalf("negative page: %v", err)
		}
		ctxv, err := w.svc.Interactions.Context(bg, fan, comments[0])
		if err != nil || len(ctxv.Ancestors) != 1 || ctxv.Ancestors[0].Status.ID != root {
			t.Fatalf("context of a comment: %+v %v", ctxv, err)
		}
		ctxr, _ := w.svc.Interactions.Context(bg, fan, root)
		if len(ctxr.Descendants) != 44 {
			t.Fatalf("root has %d descendants, want 44", len(ctxr.Descendants))
		}
	})
}

// TestReblogsAndFavourites: idempotent reblog and favourite with exact kept
// counts, private statuses are not rebloggable, and notifications arrive.
func TestReblogsAndFavourites(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		w := newWorld(t, service.ModeHybrid, 800)
		author, fan := w.user("author"), w.user("fan")
		st := w.post(author, "nice", sparrow.Public)
		r1, err := w.svc.Interactions.Reblog(bg, fan, st, "")
		if err != nil || r1.Reblog == nil || r1.Reblog.Status.ID != st {
			t.Fatalf("reblog: %+v %v", r1, err)
		}
		r2, err := w.svc.Interactions.Reblog(bg, fan, st, "")
		if err != nil || r2.Status.ID != r1.Status.ID {
			t.Fatalf("reblog twice made %v and %v", r1.Status.ID, r2.Status.ID)
		}
		for i := 0; i < 2; i++ {
			if _, ferr := w.svc.Interactions.Favourite(bg, fan, st); ferr != nil {
				t.Fatal(ferr)
			}
		}
		w.settle()
		got := w.status(st)
		if got.ReblogsCount != 1 || got.FavouritesCount != 1 || got.ReblogsEver != 1 {
			t.Fatalf("counts reblogs %d (ever %d) favourites %d, want 1, 1, 1", got.ReblogsCount, got.ReblogsEver, got.FavouritesCount)
		}
		view, _ := w.svc.Statuses.Status(bg, fan, st)
		if !view.Favourited || !view.Reblogged {
			t.Fatalf("viewer flags favourited=%v reblogged=%v", view.Favourited, view.Reblogged)
		}
		by, _ := w.svc.Interactions.RebloggedBy(bg, author, st, sparrow.Page{})
		fb, _ := w.svc.Interactions.FavouritedBy(bg, author, st, sparrow.Page{})
		if len(by) != 1 || by[0].Account.ID != fan.AccountID || len(fb) != 1 {
			t.Fatalf("reblogged_by %d favourited_by %d", len(by), len(fb))
		}
		favs, _ := w.svc.Interactions.Favourites(bg, fan, sparrow.Page{})
		if len(favs) != 1 || favs[0].Status.Status.ID != st {
			t.Fatalf("favourites %+v", favs)
		}
		notes, err := w.svc.Notifications.List(bg, author, sparrow.NotificationFilter{}, sparrow.Page{})
		if err != nil {
			t.Fatal(err)
		}
		types := map[sparrow.NotificationType]int{}
		for _, n := range notes {
			types[n.Notification.Type]++
		}
		if types[sparrow.NotifyReblog] != 1 || types[sparrow.NotifyFavourite] != 1 {
			t.Fatalf("notifications %v", types)
		}
		if _, err := w.svc.Interactions.Unreblog(bg, fan, st); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Interactions.Unfavourite(bg, fan, st); err != nil {
			t.Fatal(err)
		}
		w.settle()
		got = w.status(st)
		if got.ReblogsCount != 0 || got.FavouritesCount != 0 || got.ReblogsEver != 1 {
			t.Fatalf("after undo: reblogs %d (ever %d) favourites %d", got.ReblogsCount, got.ReblogsEver, got.FavouritesCount)
		}
		if r3, err := w.svc.Interactions.Reblog(bg, fan, st, ""); err != nil || r3.Status.ID == r1.Status.ID {
			t.Fatalf("reblog after unreblog: %v %v", r3, err)
		}
		private := w.post(author, "followers only", sparrow.Private)
		w.follow(fan, author)
		w.settle()
		if _, err := w.svc.Interactions.Reblog(bg, fan, private, ""); !sparrow.IsKind(err, sparrow.EForbidden) {
			t.Fatalf("reblog of a private status: %v", err)
		}
		stranger := w.user("x")
		if _, err := w.svc.Interactions.Favourite(bg, stranger, private); !sparrow.IsKind(err, sparrow.ENotFound) {
			t.Fatalf("favourite of an invisible status: %v", err)
		}
		if _, err := w.svc.Statuses.Post(bg, stranger, sparrow.PostStatus{Text: "re", InReplyToID: private}); !sparrow.IsKind(err, sparrow.ENotFound) {
			t.Fatalf("reply to an invisible status: %v", err)
		}
	})
}

// TestDeleteSemantics is docs/seeds.md#seed-001's steps 5–7: deleting an original keeps its
// comments and quotes (which still name it) and removes its plain reblogs
// from feeds.
func TestDeleteSemantics(t *testing.T) {
	forEachFeedBackend(t, func(t *testing.T, mode string) {
		{
			w := newWorld(t, mode, 800)
			author, fan, reader := w.user("author"), w.user("fan"), w.user("reader")
			w.follow(reader, fan)
			w.settle()
			w.home(reader, 5)
			orig := w.post(author, "original", sparrow.Public)
			comment := w.reply(fan, orig, "a comment")
			quote, err := w.svc.Statuses.Post(bg, fan, sparrow.PostStatus{Text: "a quote", QuoteID: orig})
			if err != nil {
				t.Fatal(err)
			}
			rb, _ := w.svc.Interactions.Reblog(bg, fan, orig, "")
			w.settle()
			if got := w.home(reader, 10); !slices.Contains(got, rb.Status.ID) {
				t.Fatalf("the reblog is not in a follower's home: %v", got)
			}
			if _, derr := w.svc.Statuses.Delete(bg, author, orig); derr != nil {
				t.Fatal(derr)
			}
			w.settle()
			if got := w.home(reader, 10); slices.Contains(got, rb.Status.ID) {
				t.Fatalf("a reblog of a deleted status is still in home: %v", got)
			}
			c, err := w.svc.Statuses.Status(bg, reader, comment)
			if err != nil || c.Status.InReplyToID != orig {
				t.Fatalf("the comment is gone or lost its parent: %+v %v", c, err)
			}
			q, err := w.svc.Statuses.Status(bg, reader, quote.Status.ID)
			if err != nil || q.Status.QuoteID != orig || q.Quote != nil {
				t.Fatalf("the quote: %+v %v (want it kept, naming the deleted original)", q, err)
			}
		}
	})
}

// TestReblogsInHome: a follow with reblogs=false gets no reblogs; the same
// original shows once in a page.
func TestReblogsInHome(t *testing.T) {
	forEachFeedBackend(t, func(t *testing.T, mode string) {
		{
			w := newWorld(t, mode, 800)
			author, a, b, reader, picky := w.user("author"), w.user("a"), w.user("b"), w.user("reader"), w.user("picky")
			for _, who := range []sparrow.Viewer{author, a, b} {
				w.follow(reader, who)
			}
			off := false
			if _, err := w.svc.Relations.Follow(bg, picky, a.AccountID, sparrow.FollowOptions{Reblogs: &off}); err != nil {
				t.Fatal(err)
			}
			w.settle()
			w.home(reader, 5)
			w.home(picky, 5)
			orig := w.post(author, "original", sparrow.Public)
			w.settle()
			ra, _ := w.svc.Interactions.Reblog(bg, a, orig, "")
			rbb, _ := w.svc.Interactions.Reblog(bg, b, orig, "")
			w.settle()
			newest := max(orig, ra.Status.ID, rbb.Status.ID) // ids, not creation order, within a millisecond
			got := w.home(reader, 20)
			if !slices.Equal(got, []sparrow.ID{newest}) {
				t.Fatalf("reader's home %v, want only the newest entry of the original (%v)", got, newest)
			}
			if got := w.home(picky, 20); len(got) != 0 {
				t.Fatalf("a reblogs=false follow received %v", got)
			}
		}
	})
}
