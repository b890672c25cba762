package storetest

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"sparrow"
)

// notifIDs returns the ids of ns, in order.
func notifIDs(ns []sparrow.Notification) []sparrow.ID {
	out := make([]sparrow.ID, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

func (f *fixture) listNotifs(t *testing.T, recipient sparrow.ID, flt sparrow.NotificationFilter, p sparrow.Page) []sparrow.ID {
	t.Helper()
	got, err := f.s.Notifications(ctx(), recipient, flt, p)
	if err != nil {
		t.Fatalf("Notifications: %v", err)
	}
	for _, n := range got {
		if n.Recipient != recipient {
			t.Fatalf("listed %+v for recipient %d", n, recipient)
		}
	}
	return notifIDs(got)
}

// testNotificationsIdempotentAndFiltered: notifications for recipients on
// different stores are added in one call; adding them again (a replayed event,
// with fresh ids) changes nothing; lists filter by type and sender and page
// like Mastodon.
func testNotificationsIdempotentAndFiltered(t *testing.T, f *fixture) {
	a, b, c := f.account(t), f.account(t), f.account(t)
	for a.ID.Shard()/128 == b.ID.Shard()/128 { // recipients on both stores
		b = f.account(t)
	}
	mk := func(to, from *sparrow.Account, typ sparrow.NotificationType, status sparrow.ID, key string) sparrow.Notification {
		return sparrow.Notification{ID: f.ids.Next(to.ID.Shard()), Recipient: to.ID, Type: typ, From: from.ID,
			StatusID: status, Key: key, CreatedAt: f.now}
	}
	batch := []sparrow.Notification{
		mk(a, b, sparrow.NotifyMention, 11, "mention:11"),
		mk(a, c, sparrow.NotifyFollow, 0, "follow:c:1"),
		mk(b, a, sparrow.NotifyMention, 12, "mention:12"),
		mk(a, c, sparrow.NotifyMention, 13, "mention:13"),
		mk(a, b, sparrow.NotifyFollow, 0, "follow:b:1"),
	}
	if err := f.s.AddNotifications(ctx(), batch); err != nil {
		t.Fatalf("AddNotifications: %v", err)
	}
	replay := slices.Clone(batch)
	for i := range replay {
		replay[i].ID = f.ids.Next(replay[i].Recipient.Shard())
	}
	replay = append(replay, sparrow.Notification{ID: f.ids.Next(a.ID.Shard()), Recipient: a.ID, Type: sparrow.NotifyFollow, From: c.ID, Key: "follow:c:2", CreatedAt: f.now})
	if err := f.s.AddNotifications(ctx(), replay); err != nil {
		t.Fatalf("AddNotifications (replay): %v", err)
	}
	all := f.listNotifs(t, a.ID, sparrow.NotificationFilter{}, sparrow.Page{Limit: 40})
	if len(all) != 5 {
		t.Fatalf("a has %d notifications after a replay, want 5 (4 + the new key)", len(all))
	}
	if !slices.IsSortedFunc(all, func(x, y sparrow.ID) int { return cmp.Compare(y, x) }) || all[4] != batch[0].ID {
		t.Fatalf("not newest first with the first insert's ids: %v", all)
	}
	if got := f.listNotifs(t, b.ID, sparrow.NotificationFilter{}, sparrow.Page{}); !slices.Equal(got, []sparrow.ID{batch[2].ID}) {
		t.Fatalf("b's notifications %v", got)
	}
	n, err := f.s.Notification(ctx(), a.ID, batch[1].ID)
	if err != nil || n.Type != sparrow.NotifyFollow || n.From != c.ID || n.StatusID != 0 || n.Key != "follow:c:1" || !n.CreatedAt.Equal(f.now) {
		t.Fatalf("Notification = %+v, %v", n, err)
	}
	_, err = f.s.Notification(ctx(), b.ID, batch[1].ID)
	wantKind(t, err, sparrow.ENotFound)

	mentions := f.listNotifs(t, a.ID, sparrow.NotificationFilter{Types: []sparrow.NotificationType{sparrow.NotifyMention}}, sparrow.Page{})
	if !slices.Equal(mentions, []sparrow.ID{batch[3].ID, batch[0].ID}) {
		t.Fatalf("types=mention: %v", mentions)
	}
	notMentions := f.listNotifs(t, a.ID, sparrow.NotificationFilter{ExcludeTypes: []sparrow.NotificationType{sparrow.NotifyMention, sparrow.NotifyReblog}}, sparrow.Page{})
	if len(notMentions) != 3 || slices.Contains(notMentions, batch[0].ID) {
		t.Fatalf("exclude_types=mention: %v", notMentions)
	}
	fromB := f.listNotifs(t, a.ID, sparrow.NotificationFilter{From: b.ID}, sparrow.Page{})
	if !slices.Equal(fromB, []sparrow.ID{batch[4].ID, batch[0].ID}) {
		t.Fatalf("account_id=b: %v", fromB)
	}

	// Paging: max_id, since_id, min_id (oldest above, newest first).
	if got := f.listNotifs(t, a.ID, sparrow.NotificationFilter{}, sparrow.Page{MaxID: all[1], Limit: 2}); !slices.Equal(got, all[2:4]) {
		t.Fatalf("max_id page %v, want %v", got, all[2:4])
	}
	if got := f.listNotifs(t, a.ID, sparrow.NotificationFilter{}, sparrow.Page{SinceID: all[3], Limit: 2}); !slices.Equal(got, all[:2]) {
		t.Fatalf("since_id page %v, want %v", got, all[:2])
	}
	if got := f.listNotifs(t, a.ID, sparrow.NotificationFilter{}, sparrow.Page{MinID: all[3], Limit: 2}); !slices.Equal(got, all[1:3]) {
		t.Fatalf("min_id page %v, want %v", got, all[1:3])
	}

	if err := f.s.DismissNotification(ctx(), a.ID, all[0]); err != nil {
		t.Fatal(err)
	}
	if err := f.s.DismissNotification(ctx(), a.ID, all[0]); err != nil {
		t.Fatalf("dismissing twice: %v", err)
	}
	if err := f.s.DismissNotification(ctx(), b.ID, all[1]); err != nil { // not b's: nothing happens
		t.Fatal(err)
	}
	if got := f.listNotifs(t, a.ID, sparrow.NotificationFilter{}, sparrow.Page{}); !slices.Equal(got, all[1:]) {
		t.Fatalf("after dismiss %v, want %v", got, all[1:])
	}
	if err := f.s.ClearNotifications(ctx(), a.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.listNotifs(t, a.ID, sparrow.NotificationFilter{}, sparrow.Page{}); len(got) != 0 {
		t.Fatalf("after clear %v", got)
	}
	if got := f.listNotifs(t, b.ID, sparrow.NotificationFilter{}, sparrow.Page{}); len(got) != 1 {
		t.Fatalf("clearing a's cleared b's: %v", got)
	}
	// A cleared key may be notified again (a re-follow gets a new key anyway).
	if err := f.s.AddNotifications(ctx(), batch[:1]); err != nil {
		t.Fatal(err)
	}
	if got := f.listNotifs(t, a.ID, sparrow.NotificationFilter{}, sparrow.Page{}); len(got) != 1 {
		t.Fatalf("after re-adding %v", got)
	}
}

// testNotificationValidation: bad keys and foreign genes are refused before
// anything is written.
func testNotificationValidation(t *testing.T, f *fixture) {
	a := f.account(t)
	long := make([]byte, 129)
	for i := range long {
		long[i] = 'k'
	}
	for _, n := range []sparrow.Notification{
		{Recipient: a.ID, Type: sparrow.NotifyMention, From: 1, Key: ""},
		{Recipient: a.ID, Type: sparrow.NotifyMention, From: 1, Key: string(long)},
	} {
		wantKind(t, f.s.AddNotifications(ctx(), []sparrow.Notification{n}), sparrow.EInvalid)
	}
	foreign := sparrow.Notification{ID: f.ids.Next(a.ID.Shard() + 1), Recipient: a.ID, Type: sparrow.NotifyFollow, From: 1,
		Key: "k", CreatedAt: time.Now()}
	if err := f.s.AddNotifications(ctx(), []sparrow.Notification{foreign}); err == nil {
		t.Fatal("a notification id without its recipient's gene was accepted")
	}
	if got := f.listNotifs(t, a.ID, sparrow.NotificationFilter{}, sparrow.Page{}); len(got) != 0 {
		t.Fatalf("refused notifications were stored: %v", got)
	}
	// Without an id, the store assigns one with the recipient's gene.
	if err := f.s.AddNotifications(ctx(), []sparrow.Notification{{Recipient: a.ID, Type: sparrow.NotifyFollow, From: 1, Key: "k", CreatedAt: f.now}}); err != nil {
		t.Fatal(err)
	}
	if got := f.listNotifs(t, a.ID, sparrow.NotificationFilter{}, sparrow.Page{}); len(got) != 1 || got[0].Shard() != a.ID.Shard() {
		t.Fatalf("assigned ids %v", got)
	}
}
