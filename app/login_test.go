package app_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// from returns an HTTP client whose connections come from the loopback
// address ip (127.0.0.0/8 is all this host's), as a client on another
// machine would.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
}

// login tries a password grant from client and returns the answer.
func (s *server) login(t *testing.T, client *http.Client, clientID, secret, username, password string) *http.Response {
	t.Helper()
	form := url.Values{"grant_type": {"password"}, "client_id": {clientID}, "client_secret": {secret},
		"username": {username}, "password": {password}, "scope": {"read"}}
	resp, err := client.Post(s.url+"/oauth/token", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestLoginLimitsNeverLockTheOwnerOut: failed logins are limited per
// address and name (5), per address (50) and, under a distributed attack,
// to one try per address; the owner logging in from an address that has
// not failed always gets in. Answers carry Mastodon's X-RateLimit-* headers
// and a refusal Retry-After.
func TestLoginLimitsNeverLockTheOwnerOut(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		victim := s.signup("")
		c := s.newApp("read")
		id, secret, name := c.Config.ClientID, c.Config.ClientSecret, victim.Username+"@example.com"
		attacker := from("127.0.0.2")
		for i := 1; i <= 6; i++ {
			resp := s.login(t, attacker, id, secret, name, "wrong password")
			want, remaining := 400, fmt.Sprint(5-i)
			if i == 6 {
				want, remaining = 429, "0"
			}
			if resp.StatusCode != want || resp.Header.Get("X-RateLimit-Limit") != "5" || resp.Header.Get("X-RateLimit-Remaining") != remaining {
				t.Fatalf("failure %d: HTTP %d, limit %q remaining %q; want %d and %s left", i, resp.StatusCode,
					resp.Header.Get("X-RateLimit-Limit"), resp.Header.Get("X-RateLimit-Remaining"), want, remaining)
			}
			if _, err := time.Parse(time.RFC3339, resp.Header.Get("X-RateLimit-Reset")); err != nil {
				t.Fatalf("X-RateLimit-Reset %q", resp.Header.Get("X-RateLimit-Reset"))
			}
			if i == 6 && resp.Header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		}
		if resp := s.login(t, attacker, id, secret, name, "correct horse battery"); resp.StatusCode != 429 {
			t.Fatalf("the right password from the throttled address: HTTP %d, want 429", resp.StatusCode)
		}
		if resp := s.login(t, from("127.0.0.3"), id, secret, name, "correct horse battery"); resp.StatusCode != 200 {
			t.Fatalf("the owner from a clean address: HTTP %d, want 200", resp.StatusCode)
		}

		// A distributed attack: 19 more addresses fail 5 times each (100
		// failures with the 5 above). Then each new address gets one try,
		// and the owner from a clean one still gets in.
		for a := 10; a < 29; a++ {
			client := from(fmt.Sprintf("127.0.0.%d", a))
			for i := 0; i < 5; i++ {
				if resp := s.login(t, client, id, secret, name, "guess"); resp.StatusCode != 400 {
					t.Fatalf("attack from .%d, try %d: HTTP %d", a, i, resp.StatusCode)
				}
			}
		}
		late := from("127.0.0.40")
		if resp := s.login(t, late, id, secret, name, "guess"); resp.StatusCode != 400 {
			t.Fatalf("a new address's first try under attack: HTTP %d, want 400", resp.StatusCode)
		}
		if resp := s.login(t, late, id, secret, name, "guess"); resp.StatusCode != 429 {
			t.Fatalf("a new address's second try under attack: HTTP %d, want 429", resp.StatusCode)
		}
		if resp := s.login(t, from("127.0.0.41"), id, secret, name, "correct horse battery"); resp.StatusCode != 200 {
			t.Fatalf("the owner from a clean address under attack: HTTP %d, want 200", resp.StatusCode)
		}

		// One address guessing many names is limited as a whole.
		scanner := from("127.0.0.50")
		codes := map[int]int{}
		for i := 0; i < 51; i++ {
			codes[s.login(t, scanner, id, secret, fmt.Sprintf("nobody%d@example.com", i), "x").StatusCode]++
		}
		if codes[400] != 50 || codes[429] != 1 {
			t.Fatalf("an address guessing 51 names: %v, want 50 × 400 then 429", codes)
		}
	})
}

// TestLoginLimitHoldsForConcurrentGuesses: guesses sent at once from one
// address get no more password checks than the pair's limit (each takes its
// place in the count before its password is checked); the rest get 429.
func TestLoginLimitHoldsForConcurrentGuesses(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *server) {
		victim := s.signup("")
		c := s.newApp("read")
		attacker := from("127.0.0.60")
		const guesses = 24
		codes := make(chan int, guesses)
		var wg sync.WaitGroup
		for i := 0; i < guesses; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes <- s.login(t, attacker, c.Config.ClientID, c.Config.ClientSecret, victim.Username+"@example.com", fmt.Sprint("guess ", i)).StatusCode
			}()
		}
		wg.Wait()
		close(codes)
		by := map[int]int{}
		for code := range codes {
			by[code]++
		}
		if by[400] != 5 || by[429] != guesses-5 {
			t.Fatalf("%d concurrent guesses: %v, want 5 × 400 and the rest 429", guesses, by)
		}
	})
}
