package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"sparrow/http"
	"sparrow/internal/httpfuzz"
)

// fuzzRequests is how many requests TestHTTPFuzzEveryRoute sends per stack
// (SPARROW_FUZZ_REQUESTS overrides it).
func fuzzRequests() int {
	if n, err := strconv.Atoi(os.Getenv("SPARROW_FUZZ_REQUESTS")); err == nil && n > 0 {
		return n
	}
	return 10000
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// rssBytes returns this process's resident set size.
func rssBytes(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// TestHTTPFuzzEveryRoute sends random, often hostile requests to every
// route of a live server on each stack, with and without valid tokens,
// against real ids: no answer may be a 5xx or a 4xx without an error body,
// no handler may panic, and the process's memory stays bounded.
func TestHTTPFuzzEveryRoute(t *testing.T) {
	for _, st := range stacks {
		t.Run(st.name, func(t *testing.T) {
			logs := &syncBuffer{}
			s := startLogged(t, st.config(t), slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelError})))
			a, b, locked := s.signup(""), s.signup(""), s.signup("")
			follow(t, a, b)
			on := true
			if _, err := locked.AccountUpdate(ctx, mastodonProfile(&on)); err != nil {
				t.Fatal(err)
			}
			b.AccountFollow(ctx, locked.ID)
			target := httpfuzz.Target{BaseURL: s.url, Routes: http.Routes(),
				Tokens: []string{a.Token, b.Token, locked.Token},
				IDs:    []string{string(a.ID), string(b.ID), string(locked.ID)},
				Words:  []string{a.Username, b.Username, "matrix", "麻雀", a.Config.ClientID}}
			for _, vis := range visibilities {
				id := post(t, b, "@"+a.Username+" fuzz #fuzz "+vis, vis)
				target.IDs = append(target.IDs, string(id))
				reply := post(t, a, "a reply", "public")
				target.IDs = append(target.IDs, string(reply))
			}
			eventually(t, func() string {
				if ns, _ := a.GetNotifications(ctx, nil); len(ns) == 0 {
					return "no notification yet"
				}
				return ""
			})
			ns, _ := a.GetNotifications(ctx, nil)
			for _, n := range ns {
				target.IDs = append(target.IDs, string(n.ID))
			}

			rssBefore := rssBytes(t)
			start := time.Now()
			res := httpfuzz.Run(context.Background(), target, httpfuzz.Options{Requests: fuzzRequests(), Concurrency: 8, Seed: uint64(time.Now().UnixNano())})
			rssAfter := rssBytes(t)
			t.Logf("%d requests in %v, by status %v; RSS %d → %d MB", res.Requests, time.Since(start).Round(time.Millisecond),
				res.ByStatus, rssBefore>>20, rssAfter>>20)
			for i, f := range res.Failures {
				if i == 20 {
					t.Errorf("… and %d more", len(res.Failures)-20)
					break
				}
				t.Errorf("%s", f)
			}
			if strings.Contains(logs.String(), "panic") {
				t.Errorf("a handler panicked:\n%s", logs.String())
			}
			// Every request's memory is bounded by its limits: the process
			// does not grow with the number of requests.
			if grew := rssAfter - rssBefore; grew > 256<<20 {
				t.Errorf("RSS grew by %d MB over %d requests", grew>>20, res.Requests)
			}
		})
	}
}

func mastodonProfile(locked *bool) *mastodon.Profile { return &mastodon.Profile{Locked: locked} }
