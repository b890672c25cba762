package service_test

import (
	"testing"

	"sparrow"
	"sparrow/service"
)

// TestStreamFilter: the stream policy admits what the home feed and the
// public timeline would show, and nothing else.
func TestStreamFilter(t *testing.T) {
	w := newWorld(t, service.ModeHybrid, 800)
	f := service.NewStreamFilter(w.svc.Timelines)
	reader, author, stranger := w.user("reader"), w.user("author"), w.user("stranger")
	w.follow(reader, author)
	w.settle()

	status := func(id sparrow.ID) *sparrow.Status {
		t.Helper()
		s, err := w.st.Status(bg, id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	home := func(v sparrow.Viewer, id sparrow.ID) bool {
		t.Helper()
		sv, err := f.Home(bg, v, status(id))
		if err != nil {
			t.Fatal(err)
		}
		if sv != nil && (sv.Status.ID != id || sv.Accounts[sv.Status.AccountID] == nil) {
			t.Fatalf("Home(%d) returned a view of %d without its author", id, sv.Status.ID)
		}
		return sv != nil
	}
	public := func(v sparrow.Viewer, id sparrow.ID) bool {
		t.Helper()
		sv, err := f.Public(bg, v, status(id))
		if err != nil {
			t.Fatal(err)
		}
		return sv != nil
	}
	inHome := func(user, author sparrow.Viewer) bool {
		t.Helper()
		ok, err := f.InHome(bg, user.AccountID, author.AccountID)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	pub := w.post(author, "public", sparrow.Public)
	priv := w.post(author, "followers only", sparrow.Private)
	unlisted := w.post(author, "unlisted", sparrow.Unlisted)
	direct := w.post(author, "direct to nobody", sparrow.Direct)
	own := w.post(reader, "mine", sparrow.Public)
	foreign := w.post(stranger, "not followed", sparrow.Public)

	for _, c := range []struct {
		name string
		v    sparrow.Viewer
		id   sparrow.ID
		want bool
	}{
		{"followed public", reader, pub, true},
		{"followed private", reader, priv, true},
		{"followed unlisted", reader, unlisted, true},
		{"direct not mentioning", reader, direct, false},
		{"own", reader, own, true},
		{"not followed", reader, foreign, false},
		{"private, not a follower", stranger, priv, false},
		{"anonymous", sparrow.Viewer{}, pub, false},
	} {
		if got := home(c.v, c.id); got != c.want {
			t.Errorf("Home %s = %v, want %v", c.name, got, c.want)
		}
	}
	if !inHome(reader, author) || !inHome(reader, reader) || inHome(reader, stranger) || inHome(sparrow.Viewer{}, author) {
		t.Errorf("InHome: wrong answers")
	}

	// Public: public statuses only, for anyone.
	for _, c := range []struct {
		name string
		v    sparrow.Viewer
		id   sparrow.ID
		want bool
	}{
		{"public, anonymous", sparrow.Viewer{}, pub, true},
		{"public, signed in", stranger, pub, true},
		{"unlisted", sparrow.Viewer{}, unlisted, false},
		{"private", reader, priv, false},
		{"direct", sparrow.Viewer{}, direct, false},
	} {
		if got := public(c.v, c.id); got != c.want {
			t.Errorf("Public %s = %v, want %v", c.name, got, c.want)
		}
	}

	// Mutes and blocks hide the author from home and public streams.
	if _, err := w.svc.Relations.Mute(bg, reader, author.AccountID, false); err != nil {
		t.Fatal(err)
	}
	if home(reader, pub) || public(reader, pub) {
		t.Errorf("a muted author still streams")
	}
	if _, err := w.svc.Relations.Unmute(bg, reader, author.AccountID); err != nil {
		t.Fatal(err)
	}
	if !home(reader, pub) {
		t.Errorf("unmuted author does not stream")
	}
	if _, err := w.svc.Relations.Block(bg, stranger, reader.AccountID); err != nil {
		t.Fatal(err)
	}
	w.settle()
	if public(reader, foreign) || public(stranger, own) {
		t.Errorf("public stream crosses a block")
	}
	if !public(sparrow.Viewer{}, foreign) {
		t.Errorf("anonymous public stream filtered by someone's block")
	}

	// Deleted statuses are judged as stored: never streamed, but their
	// deletion is announced on the public stream if they were public.
	old := status(pub)
	if _, err := w.svc.Statuses.Delete(bg, author, pub); err != nil {
		t.Fatal(err)
	}
	if sv, err := f.Home(bg, reader, old); err != nil || sv != nil {
		t.Errorf("Home of a status deleted since = %v, %v", sv, err)
	}
	if sv, err := f.Public(bg, sparrow.Viewer{}, old); err != nil || sv != nil {
		t.Errorf("Public of a status deleted since = %v, %v", sv, err)
	}
	if !f.OnPublic(old) || f.OnPublic(status(unlisted)) || f.OnPublic(nil) {
		t.Errorf("OnPublic: wrong answers")
	}
}
