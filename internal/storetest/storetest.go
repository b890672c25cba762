// Package storetest is the one behavioural test suite of Sparrow's durable
// stores. Every backend runs it: the sqlite and mysql packages call Run with a
// constructor for a fresh, empty store.
package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"sparrow"
	"sparrow/sqlstore"
)

// Factory returns a fresh, empty store for one test.
type Factory func(t *testing.T) *sqlstore.Store

// Run runs every scenario against stores made by newStore.
func Run(t *testing.T, newStore Factory) {
	scenarios := []struct {
		name string
		fn   func(*testing.T, *fixture)
	}{
		{"AccountRoundTrip", testAccountRoundTrip},
		{"AccountNamesUnique", testAccountNamesUnique},
		{"AccountsMultiGetAcrossShards", testAccountsMultiGet},
		{"AccountsSeenBy", testAccountsSeenBy},
		{"UpdateAccount", testUpdateAccount},
		{"CreateStatusBumpsCounterAndOutbox", testCreateStatus},
		{"CreateStatusIdempotencyKey", testIdempotency},
		{"CreateStatusUnknownAuthorWritesNothing", testCreateStatusUnknownAuthor},
		{"EditStatusKeepsHistory", testEditStatus},
		{"DeleteStatusTombstones", testDeleteStatus},
		{"ProfileFeedPaging", testProfileFeedPaging},
		{"ProfileFeedFilters", testProfileFeedFilters},
		{"StatusesMultiGet", testStatusesMultiGet},
		{"AppsAndTokens", testAppsAndTokens},
		{"AuthCodeWorksOnce", testAuthCodeOnce},
		{"OutboxDrainAndLease", testOutbox},
		{"EdgesVersionsAndIdempotency", testEdgesVersionsAndIdempotency},
		{"ReverseReplayAndReorder", testReverseReplayAndReorder},
		{"CountersAndHotHysteresis", testCountersAndHotHysteresis},
		{"EdgeListsNewestFirst", testEdgeListsNewestFirst},
		{"SetEdgesSeveralKinds", testSetEdgesSeveralKinds},
		{"AccountTerms", testAccountTerms},
		{"NotificationsIdempotentAndFiltered", testNotificationsIdempotentAndFiltered},
		{"NotificationValidation", testNotificationValidation},
		{"KeyedFeeds", testKeyedFeeds},
		{"AuthorsFeed", testAuthorsFeed},
		{"EdgesTo", testEdgesTo},
		{"References", testReferences},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			sc.fn(t, &fixture{s: newStore(t), ids: sparrow.NewIDGen(5, nil), now: time.Now().UTC().Truncate(time.Millisecond)})
		})
	}
}

type fixture struct {
	s   *sqlstore.Store
	ids *sparrow.IDGen
	now time.Time
}

var seq atomic.Int64

func ctx() context.Context { return context.Background() }

// account creates an account with a unique name on a balanced shard.
func (f *fixture) account(t *testing.T) *sparrow.Account {
	t.Helper()
	n := seq.Add(1)
	a := &sparrow.Account{ID: f.ids.NextBalanced(), Username: fmt.Sprintf("User%d", n), Email: fmt.Sprintf("u%d@example.com", n),
		PasswordHash: "x", CreatedAt: f.now, UpdatedAt: f.now}
	if err := f.s.CreateAccount(ctx(), a); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

// post creates a status by author with the given text and options.
func (f *fixture) post(t *testing.T, author *sparrow.Account, text string, opts ...func(*sparrow.Status)) *sparrow.Status {
	t.Helper()
	st := &sparrow.Status{ID: f.ids.Next(author.ID.Shard()), AccountID: author.ID, Text: text, Visibility: sparrow.Public,
		CreatedAt: f.now, Version: 1}
	for _, o := range opts {
		o(st)
	}
	got, created, err := f.s.CreateStatus(ctx(), sparrow.NewStatus{Status: st})
	if err != nil || !created {
		t.Fatalf("CreateStatus: %v created=%v", err, created)
	}
	return got
}

func (f *fixture) event(gene int, typ sparrow.EventType, subject sparrow.ID) sparrow.Event {
	return sparrow.NewEvent(f.ids.Next(gene), typ, subject, map[string]any{"x": 1}, f.now)
}

// pending drains nothing: it lists every pending event across outboxes.
func (f *fixture) pending(t *testing.T) []sparrow.Event {
	t.Helper()
	var out []sparrow.Event
	for _, o := range f.s.Outboxes() {
		evs, err := o.PendingEvents(ctx(), 10000)
		if err != nil {
			t.Fatalf("PendingEvents: %v", err)
		}
		out = append(out, evs...)
	}
	return out
}

func wantKind(t *testing.T, err error, kind sparrow.Kind) {
	t.Helper()
	if !sparrow.IsKind(err, kind) {
		t.Fatalf("err = %v, want kind %s", err, kind)
	}
}
