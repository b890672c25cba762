package app_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"
)

// streamConns reads the gauge of open streaming connections from /metrics.
func (s *server) streamConns() string {
	s.t.Helper()
	_, body := s.raw("GET", "/metrics", "", "", nil)
	m := regexp.MustCompile(`(?m)^sparrow_stream_connections (\S+)$`).FindSubmatch(body)
	if m == nil {
		return "absent"
	}
	return string(m[1])
}

// waitStreams waits until n streaming connections are open: a client that
// connected is subscribed from then on.
func (s *server) waitStreams(t *testing.T, n int) {
	t.Helper()
	eventually(t, func() string {
		if got := s.streamConns(); got != fmt.Sprint(n) {
			return fmt.Sprintf("%s streaming connections, want %d", got, n)
		}
		return ""
	})
}

// openStream opens a go-mastodon stream; it is closed, and its channel
// drained, at the end of the test.
func openStream(t *testing.T, open func(context.Context) (chan mastodon.Event, error)) chan mastodon.Event {
	t.Helper()
	sctx, cancel := context.WithCancel(context.Background())
	events, err := open(sctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		for range events { // go-mastodon's goroutine ends once its channel is read
		}
	})
	return events
}

// awaitEvent reads events until one satisfies match (others are skipped).
func awaitEvent(t *testing.T, events chan mastodon.Event, what string, match func(mastodon.Event) bool) mastodon.Event {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("stream closed while waiting for %s", what)
			}
			if err, isErr := e.(*mastodon.ErrorEvent); isErr {
				t.Logf("stream error (the client reconnects): %v", err)
				continue
			}
			if match(e) {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s within 20s", what)
		}
	}
}

func isUpdate(id mastodon.ID) func(mastodon.Event) bool {
	return func(e mastodon.Event) bool {
		u, ok := e.(*mastodon.UpdateEvent)
		return ok && u.Status.ID == id
	}
}

// TestStreaming: A follows B and opens the user stream (Server-Sent Events,
// then the WebSocket); B's post, edit, mention of A and deletion reach A live,
// rendered as the REST API renders them; a stranger's post does not; the
// public stream gets public posts for anonymous clients. On every stack.
func TestStreaming(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		a, b, stranger := s.signup(""), s.signup(""), s.signup("")
		if _, err := a.AccountFollow(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		transports := []struct {
			name string
			open func(context.Context) (chan mastodon.Event, error)
		}{
			{"sse", a.StreamingUser},
			{"websocket", a.NewWSClient().StreamingWSUser},
		}
		for _, tr := range transports {
			t.Run(tr.name, func(t *testing.T) {
				events := openStream(t, tr.open)
				s.waitStreams(t, 1)

				if _, err := stranger.PostStatus(ctx, &mastodon.Toot{Status: "not followed " + tr.name}); err != nil {
					t.Fatal(err)
				}
				st, err := b.PostStatus(ctx, &mastodon.Toot{Status: "直播 " + tr.name, Visibility: "public"})
				if err != nil {
					t.Fatal(err)
				}
				got := awaitEvent(t, events, "B's update", func(e mastodon.Event) bool {
					if u, ok := e.(*mastodon.UpdateEvent); ok && u.Status.Account.ID == stranger.ID {
						t.Errorf("a stranger's status reached A's home stream")
					}
					return isUpdate(st.ID)(e)
				}).(*mastodon.UpdateEvent)
				rest, err := a.GetStatus(ctx, st.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Status.Content != rest.Content || got.Status.Account.Acct != rest.Account.Acct || got.Status.URL != rest.URL {
					t.Errorf("streamed %+v, REST %+v", got.Status, rest)
				}

				if _, uerr := b.UpdateStatus(ctx, &mastodon.Toot{Status: "直播（改） " + tr.name}, st.ID); uerr != nil {
					t.Fatal(uerr)
				}
				awaitEvent(t, events, "B's edit", func(e mastodon.Event) bool {
					u, ok := e.(*mastodon.UpdateEditEvent)
					return ok && u.Status.ID == st.ID && strings.Contains(u.Status.Content, "（改）")
				})

				mention, err := b.PostStatus(ctx, &mastodon.Toot{Status: "@" + a.Username + " 你好 " + tr.name})
				if err != nil {
					t.Fatal(err)
				}
				awaitEvent(t, events, "the mention notification", func(e mastodon.Event) bool {
					n, ok := e.(*mastodon.NotificationEvent)
					return ok && n.Notification.Type == "mention" && n.Notification.Account.ID == b.ID &&
						n.Notification.Status != nil && n.Notification.Status.ID == mention.ID
				})

				if err := b.DeleteStatus(ctx, st.ID); err != nil {
					t.Fatal(err)
				}
				awaitEvent(t, events, "the deletion", func(e mastodon.Event) bool {
					d, ok := e.(*mastodon.DeleteEvent)
					return ok && d.ID == st.ID
				})
			})
			s.waitStreams(t, 0) // the client left: nothing stays behind
		}

		t.Run("public", func(t *testing.T) {
			anon := mastodon.NewClient(&mastodon.Config{Server: s.url})
			sse := openStream(t, func(c context.Context) (chan mastodon.Event, error) { return anon.StreamingPublic(c, false) })
			ws := openStream(t, func(c context.Context) (chan mastodon.Event, error) {
				return anon.NewWSClient().StreamingWSPublic(c, true)
			})
			s.waitStreams(t, 2)
			hidden, err := b.PostStatus(ctx, &mastodon.Toot{Status: "unlisted", Visibility: "unlisted"})
			if err != nil {
				t.Fatal(err)
			}
			st, err := b.PostStatus(ctx, &mastodon.Toot{Status: "公开", Visibility: "public"})
			if err != nil {
				t.Fatal(err)
			}
			for _, events := range []chan mastodon.Event{sse, ws} {
				awaitEvent(t, events, "the public status", func(e mastodon.Event) bool {
					if isUpdate(hidden.ID)(e) {
						t.Errorf("an unlisted status reached the public stream")
					}
					return isUpdate(st.ID)(e)
				})
			}
		})
	})
}

// TestStreamingHealth: the streaming health check, as Mastodon's.
func TestStreamingHealth(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		if code, body := s.raw("GET", "/api/v1/streaming/health", "", "", nil); code != 200 || string(body) != "OK" {
			t.Errorf("health: %d %q", code, body)
		}
	})
}
