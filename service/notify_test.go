package service_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"sparrow"
)

// notifSummary renders v's notifications as "type from status" lines,
// newest first, with the given filter.
func (e *keyedEnv) notifSummary(v sparrow.Viewer, f sparrow.NotificationFilter, names map[sparrow.ID]string) []string {
	e.t.Helper()
	got, err := e.notifs.List(bg, v, f, sparrow.Page{})
	if err != nil {
		e.t.Fatalf("List: %v", err)
	}
	var out []string
	for _, nv := range got {
		n := nv.Notification
		if n.Recipient != v.AccountID || nv.Account == nil || nv.Account.ID != n.From {
			e.t.Fatalf("bad view %+v", nv)
		}
		line := string(n.Type) + " " + names[n.From]
		if n.StatusID != 0 {
			if nv.Status == nil || nv.Status.Status.ID != n.StatusID || nv.Status.Accounts[nv.Status.Status.AccountID] == nil {
				e.t.Fatalf("status not hydrated: %+v", nv)
			}
			line += " " + nv.Status.Status.Text
		} else if nv.Status != nil {
			e.t.Fatalf("follow with a status: %+v", nv)
		}
		out = append(out, line)
	}
	return out
}

// TestNotificationPolicies: mentions and replies notify who may see them, not
// the author; follows notify once per activation; blocks and mutes apply;
// replays change nothing; lists filter, and drop what became invisible.
func TestNotificationPolicies(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			e := newKeyedEnv(t, be.open(t), time.Now().UTC())
			alice, bob, carol, dave := e.user("alice"), e.user("bob"), e.user("carol"), e.user("dave")
			names := map[sparrow.ID]string{alice.AccountID: "alice", bob.AccountID: "bob", carol.AccountID: "carol", dave.AccountID: "dave"}
			at := func(v sparrow.Viewer) string { return "@" + e.tag + "_" + names[v.AccountID] }
			list := func(v sparrow.Viewer, f sparrow.NotificationFilter) []string { return e.notifSummary(v, f, names) }
			check := func(v sparrow.Viewer, want ...string) {
				t.Helper()
				if got := list(v, sparrow.NotificationFilter{}); !slices.Equal(got, want) {
					t.Fatalf("%s's notifications:\n%q\nwant\n%q", names[v.AccountID], got, want)
				}
			}

			// Mentions (the author's own is skipped) and a reply to the parent's author.
			a1 := e.post(alice, sparrow.PostStatus{Text: "hi " + at(bob) + " " + at(alice)})
			e.post(carol, sparrow.PostStatus{Text: "re " + at(bob), InReplyToID: a1.ID})
			e.post(alice, sparrow.PostStatus{Text: "self reply", InReplyToID: a1.ID})
			// Direct and private: only those who may see them.
			e.post(alice, sparrow.PostStatus{Text: "psst " + at(carol), Visibility: sparrow.Direct})
			e.post(dave, sparrow.PostStatus{Text: "hidden reply", Visibility: sparrow.Direct, InReplyToID: a1.ID})
			e.post(dave, sparrow.PostStatus{Text: "followers reply", Visibility: sparrow.Private, InReplyToID: a1.ID})
			e.feed()
			check(alice, "mention carol re "+at(bob))
			check(bob, "mention carol re "+at(bob), "mention alice hi "+at(bob)+" "+at(alice))
			check(carol, "mention alice psst "+at(carol))
			check(dave)

			// Follows: once per activation; an option change adds nothing; a
			// re-follow after an unfollow notifies again.
			if _, err := e.svc.Relations.Follow(bg, alice, dave.AccountID, sparrow.FollowOptions{}); err != nil {
				t.Fatal(err)
			}
			e.feed()
			off := false
			if _, err := e.svc.Relations.Follow(bg, alice, dave.AccountID, sparrow.FollowOptions{Reblogs: &off}); err != nil {
				t.Fatal(err)
			}
			e.feed()
			check(dave, "follow alice")
			if _, err := e.svc.Relations.Unfollow(bg, alice, dave.AccountID); err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.Relations.Follow(bg, alice, dave.AccountID, sparrow.FollowOptions{}); err != nil {
				t.Fatal(err)
			}
			e.feed()
			check(dave, "follow alice", "follow alice")
			// alice follows dave now: his followers-only reply reaches her from now on.
			e.post(dave, sparrow.PostStatus{Text: "followers reply 2", Visibility: sparrow.Private, InReplyToID: a1.ID})
			e.feed()
			check(alice, "mention dave followers reply 2", "mention carol re "+at(bob))

			// Blocks drop everything; mutes drop mentions, and other
			// notifications only when they hide notifications.
			if _, err := e.svc.Relations.Block(bg, bob, carol.AccountID); err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.Relations.Mute(bg, carol, alice.AccountID, false); err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.Relations.Mute(bg, dave, bob.AccountID, true); err != nil {
				t.Fatal(err)
			}
			e.feed()
			e.post(carol, sparrow.PostStatus{Text: "blocked " + at(bob)})
			e.post(alice, sparrow.PostStatus{Text: "muted " + at(carol)})
			if _, err := e.svc.Relations.Follow(bg, alice, carol.AccountID, sparrow.FollowOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.Relations.Follow(bg, bob, dave.AccountID, sparrow.FollowOptions{}); err != nil {
				t.Fatal(err)
			}
			e.feed()
			check(bob, "mention alice hi "+at(bob)+" "+at(alice)) // carol's earlier mention is hidden too: bob blocks her now
			check(carol, "follow alice", "mention alice psst "+at(carol))
			check(dave, "follow alice", "follow alice")

			// Filters.
			if got := list(dave, sparrow.NotificationFilter{Types: []sparrow.NotificationType{sparrow.NotifyMention}}); len(got) != 0 {
				t.Fatalf("types=mention: %q", got)
			}
			if got := list(carol, sparrow.NotificationFilter{ExcludeTypes: []sparrow.NotificationType{sparrow.NotifyFollow}}); len(got) != 1 {
				t.Fatalf("exclude_types=follow: %q", got)
			}
			if got := list(alice, sparrow.NotificationFilter{From: dave.AccountID}); !slices.Equal(got, []string{"mention dave followers reply 2"}) {
				t.Fatalf("account_id=dave: %q", got)
			}

			// A deleted status takes its notification with it; Get agrees with List.
			all, _ := e.notifs.List(bg, alice, sparrow.NotificationFilter{}, sparrow.Page{})
			first := all[0]
			if got, err := e.notifs.Get(bg, alice, first.Notification.ID); err != nil || got.Notification.ID != first.Notification.ID {
				t.Fatalf("Get = %+v, %v", got, err)
			}
			if _, err := e.notifs.Get(bg, bob, first.Notification.ID); !sparrow.IsKind(err, sparrow.ENotFound) {
				t.Fatalf("Get of someone else's notification: %v", err)
			}
			if _, err := e.svc.Statuses.Delete(bg, dave, first.Status.Status.ID); err != nil {
				t.Fatal(err)
			}
			check(alice, "mention carol re "+at(bob))
			if _, err := e.notifs.Get(bg, alice, first.Notification.ID); !sparrow.IsKind(err, sparrow.ENotFound) {
				t.Fatalf("Get of a notification whose status is gone: %v", err)
			}

			// Dismiss and clear.
			dn, _ := e.notifs.List(bg, dave, sparrow.NotificationFilter{}, sparrow.Page{})
			if err := e.notifs.Dismiss(bg, dave, dn[0].Notification.ID); err != nil {
				t.Fatal(err)
			}
			check(dave, "follow alice")
			if err := e.notifs.Clear(bg, dave); err != nil {
				t.Fatal(err)
			}
			check(dave)
			if _, err := e.notifs.List(bg, sparrow.Viewer{}, sparrow.NotificationFilter{}, sparrow.Page{}); !sparrow.IsKind(err, sparrow.EUnauthorized) {
				t.Fatalf("anonymous List: %v", err)
			}
		})
	}
}

// TestNotificationPagesStayFull: notifications whose statuses were deleted
// are skipped without leaving a page short while older ones exist.
func TestNotificationPagesStayFull(t *testing.T) {
	e := newKeyedEnv(t, backends[0].open(t), time.Now().UTC())
	alice, bob := e.user("alice"), e.user("bob")
	mention := "@" + e.tag + "_bob"
	var kept []*sparrow.Status
	for i := 0; i < 3; i++ {
		kept = append(kept, e.post(alice, sparrow.PostStatus{Text: fmt.Sprintf("kept %d %s", i, mention)}))
	}
	var gone []*sparrow.Status
	for i := 0; i < 100; i++ {
		gone = append(gone, e.post(alice, sparrow.PostStatus{Text: fmt.Sprintf("gone %d %s", i, mention)}))
	}
	e.feed()
	for _, st := range gone {
		if _, err := e.svc.Statuses.Delete(bg, alice, st.ID); err != nil {
			t.Fatal(err)
		}
	}
	got, err := e.notifs.List(bg, bob, sparrow.NotificationFilter{}, sparrow.Page{Limit: 2})
	if err != nil || len(got) != 2 || got[0].Status.Status.ID != kept[2].ID || got[1].Status.Status.ID != kept[1].ID {
		t.Fatalf("page = %d items, %v", len(got), err)
	}
	got, err = e.notifs.List(bg, bob, sparrow.NotificationFilter{}, sparrow.Page{Limit: 2, MaxID: got[1].Notification.ID})
	if err != nil || len(got) != 1 || got[0].Status.Status.ID != kept[0].ID {
		t.Fatalf("last page = %d items, %v", len(got), err)
	}
	all, _ := e.notifs.List(bg, bob, sparrow.NotificationFilter{}, sparrow.Page{Limit: 1000})
	if len(all) != 3 {
		t.Fatalf("limit above 80 listed %d (want the 3 visible)", len(all))
	}
}
