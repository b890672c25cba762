package storetest

import (
	"bytes"
	"testing"
	"time"

	"sparrow"
)

func testAppsAndTokens(t *testing.T, f *fixture) {
	app := &sparrow.App{ID: f.ids.Next(sparrow.KeyShard("client-1")), Name: "Toot", RedirectURIs: []string{"urn:ietf:wg:oauth:2.0:oob", "https://x.example/cb"},
		Scopes: sparrow.Scopes{sparrow.ScopeRead, sparrow.ScopeWrite}, ClientID: "client-1", SecretHash: sparrow.HashSecret("s"), CreatedAt: f.now}
	if err := f.s.CreateApp(ctx(), app); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.AppByClientID(ctx(), "client-1")
	if err != nil || got.Name != "Toot" || len(got.RedirectURIs) != 2 || !bytes.Equal(got.SecretHash, app.SecretHash) || got.Scopes.String() != "read write" {
		t.Fatalf("app = %+v, %v", got, err)
	}
	byID, err := f.s.App(ctx(), app.ID)
	if err != nil || byID.ClientID != "client-1" {
		t.Fatalf("App(id) = %+v, %v", byID, err)
	}
	_, err = f.s.AppByClientID(ctx(), "nope")
	wantKind(t, err, sparrow.ENotFound)
	wantKind(t, f.s.CreateApp(ctx(), app), sparrow.EConflict)

	tok := &sparrow.Token{Hash: sparrow.HashSecret("tok"), AppID: app.ID, AccountID: 42, Scopes: sparrow.Scopes{sparrow.ScopeRead}, CreatedAt: f.now}
	if cerr := f.s.CreateToken(ctx(), tok); cerr != nil {
		t.Fatal(cerr)
	}
	gt, err := f.s.Token(ctx(), sparrow.HashSecret("tok"))
	if err != nil || gt.AccountID != 42 || gt.AppID != app.ID {
		t.Fatalf("token = %+v, %v", gt, err)
	}
	if rerr := f.s.RevokeToken(ctx(), tok.Hash); rerr != nil {
		t.Fatal(rerr)
	}
	_, err = f.s.Token(ctx(), tok.Hash)
	wantKind(t, err, sparrow.ENotFound)
	if err := f.s.RevokeToken(ctx(), tok.Hash); err != nil {
		t.Fatalf("revoking twice: %v", err)
	}
}

func testAuthCodeOnce(t *testing.T, f *fixture) {
	c := &sparrow.AuthCode{Hash: sparrow.HashSecret("code"), AppID: 1, AccountID: 2, RedirectURI: "urn:ietf:wg:oauth:2.0:oob",
		Scopes: sparrow.Scopes{sparrow.ScopeRead}, CodeChallenge: "abc", ExpiresAt: f.now.Add(10 * time.Minute)}
	if err := f.s.CreateAuthCode(ctx(), c); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.TakeAuthCode(ctx(), c.Hash)
	if err != nil || got.AccountID != 2 || got.CodeChallenge != "abc" || !got.ExpiresAt.Equal(c.ExpiresAt) {
		t.Fatalf("code = %+v, %v", got, err)
	}
	_, err = f.s.TakeAuthCode(ctx(), c.Hash)
	wantKind(t, err, sparrow.ENotFound)
}

func testOutbox(t *testing.T, f *fixture) {
	a := f.account(t)
	for i := 0; i < 5; i++ {
		f.post(t, a, "x")
	}
	// post() appends no events; append some through an update.
	for i := 0; i < 3; i++ {
		if _, err := f.s.UpdateAccount(ctx(), a.ID, sparrow.AccountUpdate{}, f.now, f.event(a.ID.Shard(), sparrow.EvAccountUpdated, a.ID)); err != nil {
			t.Fatal(err)
		}
	}
	evs := f.pending(t)
	if len(evs) != 3 {
		t.Fatalf("%d pending, want 3", len(evs))
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].ID <= evs[i-1].ID {
			t.Fatalf("pending events not oldest first")
		}
	}
	var box sparrow.Outbox
	for _, o := range f.s.Outboxes() {
		if got, _ := o.PendingEvents(ctx(), 10); len(got) > 0 {
			box = o
		}
	}
	oldest, err := box.OldestPending(ctx())
	if err != nil || !oldest.Equal(f.now) {
		t.Fatalf("oldest pending %v, %v", oldest, err)
	}
	if err := box.MarkPublished(ctx(), []sparrow.ID{evs[0].ID, evs[1].ID, evs[2].ID, 12345}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.pending(t)); n != 0 {
		t.Fatalf("%d pending after MarkPublished", n)
	}
	if oldest, _ := box.OldestPending(ctx()); !oldest.IsZero() {
		t.Fatalf("oldest pending of an empty outbox = %v", oldest)
	}
	// Leases: one holder at a time; it expires.
	if ok, err := box.AcquireLease(ctx(), "relay", "a", f.now, time.Minute); !ok || err != nil {
		t.Fatalf("first acquire: %v %v", ok, err)
	}
	if ok, _ := box.AcquireLease(ctx(), "relay", "a", f.now, time.Minute); !ok {
		t.Fatal("holder cannot renew its lease")
	}
	if ok, _ := box.AcquireLease(ctx(), "relay", "b", f.now.Add(30*time.Second), time.Minute); ok {
		t.Fatal("second holder took a live lease")
	}
	if ok, _ := box.AcquireLease(ctx(), "relay", "b", f.now.Add(2*time.Minute), time.Minute); !ok {
		t.Fatal("expired lease not taken over")
	}
}
