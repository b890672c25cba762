package storetest

import (
	"slices"
	"testing"
	"time"

	"sparrow"
)

func testCreateStatus(t *testing.T, f *fixture) {
	a := f.account(t)
	st := &sparrow.Status{ID: f.ids.Next(a.ID.Shard()), AccountID: a.ID, Text: "你好，世界 #Go", Visibility: sparrow.Unlisted,
		Tags: []string{"go"}, Mentions: []sparrow.ID{a.ID}, Object: "book:isbn-9787111", CreatedAt: f.now, Version: 1}
	ev := f.event(a.ID.Shard(), sparrow.EvStatusCreated, st.ID)
	if _, _, err := f.s.CreateStatus(ctx(), sparrow.NewStatus{Status: st}, ev); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.Status(ctx(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != st.Text || got.Visibility != sparrow.Unlisted || !slices.Equal(got.Tags, st.Tags) ||
		!slices.Equal(got.Mentions, st.Mentions) || got.Object != st.Object || got.Version != 1 {
		t.Fatalf("got %+v, want %+v", got, st)
	}
	acc, _ := f.s.Account(ctx(), a.ID)
	if acc.StatusesCount != 1 || !acc.LastStatusAt.Equal(f.now) {
		t.Fatalf("statuses_count %d last %v", acc.StatusesCount, acc.LastStatusAt)
	}
	evs := f.pending(t)
	if len(evs) != 1 || evs[0].ID != ev.ID || evs[0].Type != sparrow.EvStatusCreated || evs[0].Subject != st.ID {
		t.Fatalf("outbox = %+v", evs)
	}
	// A status whose id does not carry its author's gene is refused.
	bad := &sparrow.Status{ID: f.ids.Next(a.ID.Shard() + 1), AccountID: a.ID, Text: "x", Visibility: sparrow.Public, CreatedAt: f.now}
	if _, _, err := f.s.CreateStatus(ctx(), sparrow.NewStatus{Status: bad}); err == nil {
		t.Fatal("status with a foreign gene accepted")
	}
}

func testIdempotency(t *testing.T, f *fixture) {
	a := f.account(t)
	first := &sparrow.Status{ID: f.ids.Next(a.ID.Shard()), AccountID: a.ID, Text: "once", Visibility: sparrow.Public, CreatedAt: f.now, Version: 1}
	if _, created, err := f.s.CreateStatus(ctx(), sparrow.NewStatus{Status: first, IdempotencyKey: "k1"}); err != nil || !created {
		t.Fatal(err)
	}
	again := &sparrow.Status{ID: f.ids.Next(a.ID.Shard()), AccountID: a.ID, Text: "once", Visibility: sparrow.Public, CreatedAt: f.now, Version: 1}
	got, created, err := f.s.CreateStatus(ctx(), sparrow.NewStatus{Status: again, IdempotencyKey: "k1"},
		f.event(a.ID.Shard(), sparrow.EvStatusCreated, again.ID))
	if err != nil || created || got.ID != first.ID {
		t.Fatalf("retry: got %v created=%v err=%v, want the first status", got, created, err)
	}
	acc, _ := f.s.Account(ctx(), a.ID)
	if acc.StatusesCount != 1 || len(f.pending(t)) != 0 {
		t.Fatalf("a retried post counted or emitted twice: count=%d events=%d", acc.StatusesCount, len(f.pending(t)))
	}
}

func testCreateStatusUnknownAuthor(t *testing.T, f *fixture) {
	ghost := f.ids.NextBalanced()
	st := &sparrow.Status{ID: f.ids.Next(ghost.Shard()), AccountID: ghost, Text: "x", Visibility: sparrow.Public, CreatedAt: f.now}
	_, _, err := f.s.CreateStatus(ctx(), sparrow.NewStatus{Status: st}, f.event(ghost.Shard(), sparrow.EvStatusCreated, st.ID))
	wantKind(t, err, sparrow.ENotFound)
	if _, err := f.s.Status(ctx(), st.ID); !sparrow.IsKind(err, sparrow.ENotFound) {
		t.Fatalf("status of an unknown author was stored: %v", err)
	}
	if n := len(f.pending(t)); n != 0 {
		t.Fatalf("rolled-back write left %d events in the outbox", n)
	}
}

func testEditStatus(t *testing.T, f *fixture) {
	a := f.account(t)
	st := f.post(t, a, "v1")
	at := f.now.Add(time.Minute)
	var seen *sparrow.Status
	got, err := f.s.EditStatus(ctx(), st.ID, sparrow.StatusEdit{Text: "v2", SpoilerText: "cw", CreatedAt: at}, func(s *sparrow.Status) []sparrow.Event {
		seen = s
		return []sparrow.Event{f.event(a.ID.Shard(), sparrow.EvStatusEdited, s.ID)}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "v2" || got.Version != 2 || !got.EditedAt.Equal(at) || seen == nil || seen.Text != "v2" {
		t.Fatalf("edited = %+v, event saw %+v", got, seen)
	}
	reread, _ := f.s.Status(ctx(), st.ID)
	if reread.ID != st.ID || reread.Text != "v2" || reread.SpoilerText != "cw" || reread.Version != 2 {
		t.Fatalf("reread = %+v", reread)
	}
	hist, err := f.s.StatusHistory(ctx(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[0].Text != "v1" || hist[1].Text != "v2" || hist[0].Version != 1 || hist[1].Version != 2 {
		t.Fatalf("history = %+v", hist)
	}
	_, err = f.s.EditStatus(ctx(), f.ids.Next(2), sparrow.StatusEdit{Text: "x", CreatedAt: at}, func(*sparrow.Status) []sparrow.Event { return nil })
	wantKind(t, err, sparrow.ENotFound)
}

func testDeleteStatus(t *testing.T, f *fixture) {
	a := f.account(t)
	st := f.post(t, a, "bye")
	noEvents := func(*sparrow.Status) []sparrow.Event { return nil }
	old, err := f.s.DeleteStatus(ctx(), st.ID, f.now, func(s *sparrow.Status) []sparrow.Event {
		return []sparrow.Event{f.event(a.ID.Shard(), sparrow.EvStatusDeleted, s.ID)}
	})
	if err != nil || old.Text != "bye" {
		t.Fatalf("delete: %v %v", old, err)
	}
	got, err := f.s.Status(ctx(), st.ID)
	if err != nil || !got.Deleted() {
		t.Fatalf("tombstone: %v %v", got, err)
	}
	acc, _ := f.s.Account(ctx(), a.ID)
	if acc.StatusesCount != 0 {
		t.Fatalf("statuses_count = %d after delete", acc.StatusesCount)
	}
	_, err = f.s.DeleteStatus(ctx(), st.ID, f.now, noEvents)
	wantKind(t, err, sparrow.ENotFound)
	_, err = f.s.EditStatus(ctx(), st.ID, sparrow.StatusEdit{Text: "zombie", CreatedAt: f.now}, noEvents)
	wantKind(t, err, sparrow.ENotFound)
	_, err = f.s.StatusHistory(ctx(), st.ID)
	wantKind(t, err, sparrow.ENotFound)
	feed, _ := f.s.AccountStatuses(ctx(), a.ID, sparrow.StatusFilter{}, sparrow.Page{})
	if len(feed) != 0 {
		t.Fatalf("deleted status in profile feed")
	}
	if n := len(f.pending(t)); n != 1 {
		t.Fatalf("%d events, want 1", n)
	}
}

func ids(sts []*sparrow.Status) []sparrow.ID {
	out := make([]sparrow.ID, len(sts))
	for i, s := range sts {
		out[i] = s.ID
	}
	return out
}

func testProfileFeedPaging(t *testing.T, f *fixture) {
	a, other := f.account(t), f.account(t)
	var all []sparrow.ID
	for i := 0; i < 7; i++ {
		all = append(all, f.post(t, a, "p").ID)
		f.post(t, other, "noise")
	}
	slices.Reverse(all) // newest first
	page := func(p sparrow.Page) []sparrow.ID {
		t.Helper()
		got, err := f.s.AccountStatuses(ctx(), a.ID, sparrow.StatusFilter{}, p)
		if err != nil {
			t.Fatal(err)
		}
		return ids(got)
	}
	if got := page(sparrow.Page{Limit: 3}); !slices.Equal(got, all[:3]) {
		t.Fatalf("first page %v, want %v", got, all[:3])
	}
	if got := page(sparrow.Page{MaxID: all[2], Limit: 3}); !slices.Equal(got, all[3:6]) {
		t.Fatalf("max_id page %v, want %v", got, all[3:6])
	}
	if got := page(sparrow.Page{SinceID: all[3], Limit: 2}); !slices.Equal(got, all[:2]) {
		t.Fatalf("since_id page %v, want newest %v", got, all[:2])
	}
	if got := page(sparrow.Page{MinID: all[3], Limit: 2}); !slices.Equal(got, all[1:3]) {
		t.Fatalf("min_id page %v, want the two just above %v", got, all[1:3])
	}
	if got := page(sparrow.Page{MaxID: all[6]}); len(got) != 0 {
		t.Fatalf("past the end: %v", got)
	}
}

func testProfileFeedFilters(t *testing.T, f *fixture) {
	a, b := f.account(t), f.account(t)
	parent := f.post(t, b, "parent")
	orig := f.post(t, a, "original")
	reply := f.post(t, a, "reply", func(s *sparrow.Status) {
		s.Type, s.InReplyToID, s.InReplyToAccountID = sparrow.Comment, parent.ID, b.ID
	})
	self := f.post(t, a, "thread", func(s *sparrow.Status) {
		s.Type, s.InReplyToID, s.InReplyToAccountID = sparrow.Comment, orig.ID, a.ID
	})
	reblog := f.post(t, a, "", func(s *sparrow.Status) { s.Type, s.ReblogOfID = sparrow.Repost, parent.ID })
	private := f.post(t, a, "secret", func(s *sparrow.Status) { s.Visibility = sparrow.Private })
	list := func(fl sparrow.StatusFilter) []sparrow.ID {
		got, err := f.s.AccountStatuses(ctx(), a.ID, fl, sparrow.Page{Limit: 40})
		if err != nil {
			t.Fatal(err)
		}
		return ids(got)
	}
	if got := list(sparrow.StatusFilter{ExcludeReplies: true}); slices.Contains(got, reply.ID) || !slices.Contains(got, self.ID) {
		t.Fatalf("exclude_replies: %v", got)
	}
	if got := list(sparrow.StatusFilter{ExcludeReblogs: true}); slices.Contains(got, reblog.ID) || !slices.Contains(got, orig.ID) {
		t.Fatalf("exclude_reblogs: %v", got)
	}
	if got := list(sparrow.StatusFilter{Visibilities: []sparrow.Visibility{sparrow.Public, sparrow.Unlisted}}); slices.Contains(got, private.ID) || len(got) != 4 {
		t.Fatalf("visibility filter: %v", got)
	}
	if got := list(sparrow.StatusFilter{OnlyMedia: true}); len(got) != 0 {
		t.Fatalf("only_media matched statuses without media: %v", got)
	}
}

func testStatusesMultiGet(t *testing.T, f *fixture) {
	var want []sparrow.ID
	for i := 0; i < 6; i++ {
		want = append(want, f.post(t, f.account(t), "m").ID)
	}
	got, err := f.s.Statuses(ctx(), append(slices.Clone(want), f.ids.Next(77)))
	if err != nil {
		t.Fatal(err)
	}
	gotIDs := ids(got)
	slices.Sort(gotIDs)
	slices.Sort(want)
	if !slices.Equal(gotIDs, want) {
		t.Fatalf("got %v, want %v", gotIDs, want)
	}
}
