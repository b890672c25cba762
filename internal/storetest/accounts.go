package storetest

import (
	"testing"

	"sparrow"
)

func testAccountRoundTrip(t *testing.T, f *fixture) {
	a := f.account(t)
	got, err := f.s.Account(ctx(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Username != a.Username || got.Email != a.Email || !got.CreatedAt.Equal(a.CreatedAt) {
		t.Fatalf("got %+v, want %+v", got, a)
	}
	byName, err := f.s.AccountByUsername(ctx(), a.Username)
	if err != nil || byName.ID != a.ID {
		t.Fatalf("AccountByUsername: %v %v", byName, err)
	}
	lower, err := f.s.AccountByUsername(ctx(), toLower(a.Username))
	if err != nil || lower.ID != a.ID {
		t.Fatalf("username lookup is not case-insensitive: %v", err)
	}
	byEmail, err := f.s.AccountByEmail(ctx(), toUpper(a.Email))
	if err != nil || byEmail.ID != a.ID {
		t.Fatalf("AccountByEmail: %v", err)
	}
	_, err = f.s.Account(ctx(), f.ids.Next(3))
	wantKind(t, err, sparrow.ENotFound)
	_, err = f.s.AccountByUsername(ctx(), "nobody-here")
	wantKind(t, err, sparrow.ENotFound)
}

func testAccountNamesUnique(t *testing.T, f *fixture) {
	a := f.account(t)
	dupName := &sparrow.Account{ID: f.ids.NextBalanced(), Username: toUpper(a.Username), Email: "fresh@example.com", CreatedAt: f.now, UpdatedAt: f.now}
	wantKind(t, f.s.CreateAccount(ctx(), dupName), sparrow.EConflict)
	dupEmail := &sparrow.Account{ID: f.ids.NextBalanced(), Username: "freshname", Email: a.Email, CreatedAt: f.now, UpdatedAt: f.now}
	wantKind(t, f.s.CreateAccount(ctx(), dupEmail), sparrow.EConflict)
	// The failed sign-up released its username claim: it can be used now.
	ok := &sparrow.Account{ID: f.ids.NextBalanced(), Username: "freshname", Email: "other@example.com", CreatedAt: f.now, UpdatedAt: f.now}
	if err := f.s.CreateAccount(ctx(), ok); err != nil {
		t.Fatalf("username of a failed sign-up stays taken: %v", err)
	}
}

func testAccountsMultiGet(t *testing.T, f *fixture) {
	var ids []sparrow.ID
	for i := 0; i < 10; i++ {
		ids = append(ids, f.account(t).ID)
	}
	got, err := f.s.Accounts(ctx(), append(ids, f.ids.Next(9)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ids) {
		t.Fatalf("got %d accounts, want %d", len(got), len(ids))
	}
	exist, err := f.s.AccountsExist(ctx(), append(ids[:3:3], f.ids.Next(9)))
	if err != nil || len(exist) != 3 || !exist[ids[0]] {
		t.Fatalf("AccountsExist = %v, %v", exist, err)
	}
	shards := map[int]bool{}
	for _, id := range ids {
		shards[id.Shard()] = true
	}
	if len(shards) < 5 {
		t.Fatalf("accounts not spread across shards: %v", shards)
	}
}

func testUpdateAccount(t *testing.T, f *fixture) {
	a := f.account(t)
	name, locked := "新名字", true
	got, err := f.s.UpdateAccount(ctx(), a.ID, sparrow.AccountUpdate{DisplayName: &name, Locked: &locked}, f.now,
		f.event(a.ID.Shard(), sparrow.EvAccountUpdated, a.ID))
	if err != nil {
		t.Fatal(err)
	}
	if got.DisplayName != name || !got.Locked || got.Note != "" {
		t.Fatalf("got %+v", got)
	}
	if n := len(f.pending(t)); n != 1 {
		t.Fatalf("%d events pending, want 1", n)
	}
	_, err = f.s.UpdateAccount(ctx(), f.ids.Next(1), sparrow.AccountUpdate{DisplayName: &name}, f.now)
	wantKind(t, err, sparrow.ENotFound)
}

func toLower(s string) string { return mapRunes(s, 'A', 'Z', 'a'-'A') }
func toUpper(s string) string { return mapRunes(s, 'a', 'z', 'A'-'a') }

func mapRunes(s string, lo, hi rune, delta rune) string {
	r := []rune(s)
	for i, c := range r {
		if c >= lo && c <= hi {
			r[i] = c + delta
		}
	}
	return string(r)
}

// testAccountsSeenBy: the accounts read with whether each blocks the
// viewer, from their own block rows, as the rows stand (an unblock counts).
func testAccountsSeenBy(t *testing.T, f *fixture) {
	a, b, v := f.account(t), f.account(t), f.account(t)
	f.setEdges(t, sparrow.Block, a.ID, true, v.ID)
	f.setEdges(t, sparrow.Block, b.ID, true, f.ids.NextBalanced()) // b blocks someone else
	accs, blockers, err := f.s.AccountsSeenBy(ctx(), v.ID, []sparrow.ID{a.ID, b.ID, f.ids.NextBalanced()})
	if err != nil || len(accs) != 2 || !blockers[a.ID] || blockers[b.ID] || len(blockers) != 1 {
		t.Fatalf("AccountsSeenBy = %d accounts, blockers %v, %v", len(accs), blockers, err)
	}
	f.setEdges(t, sparrow.Block, a.ID, false, v.ID)
	if _, blockers, _ := f.s.AccountsSeenBy(ctx(), v.ID, []sparrow.ID{a.ID}); len(blockers) != 0 {
		t.Fatalf("after the unblock: blockers %v", blockers)
	}
	if accs, blockers, err := f.s.AccountsSeenBy(ctx(), 0, []sparrow.ID{a.ID, b.ID}); err != nil || len(accs) != 2 || len(blockers) != 0 {
		t.Fatalf("anonymous: %d accounts, blockers %v, %v", len(accs), blockers, err)
	}
}
