package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mattn/go-mastodon"

	"sparrow/app"
	"sparrow/internal/testenv"
	"sparrow/mysql"
)

// stack names a backend combination the end-to-end suite runs against.
type stack struct {
	name   string
	config func(t *testing.T) app.Config
}

// stacks are the embedded default and the scale-out services.
var stacks = []stack{
	{"embedded", func(t *testing.T) app.Config {
		return app.Config{DataDir: t.TempDir()}
	}},
	{"mariadb+redis+nats", func(t *testing.T) app.Config {
		base := testenv.MySQLURL(t)
		redisURL := testenv.RedisURL(t)
		natsURL := testenv.NATSURL(t)
		tag := rand.Uint32()
		a, b := fmt.Sprintf("%ssparrow_e2e_%d_a", base, tag), fmt.Sprintf("%ssparrow_e2e_%d_b", base, tag)
		t.Cleanup(func() {
			mysql.DropDatabase(context.Background(), a)
			mysql.DropDatabase(context.Background(), b)
		})
		testenv.CleanRedis(t, redisURL, fmt.Sprintf("sparrowe2e%d:", tag))
		return app.Config{DataDir: t.TempDir(), Shards: "0-127=" + a + ",128-255=" + b, RedisURL: redisURL,
			NATSURL: natsURL, Stream: fmt.Sprintf("SPARROWE2E%d", tag), RedisPrefix: fmt.Sprintf("sparrowe2e%d:", tag)}
	}},
}

// server is a running Sparrow for one test.
type server struct {
	t   *testing.T
	app *app.App
	url string
}

// start runs a server of the given stack on a random loopback port.
func start(t *testing.T, c app.Config) *server {
	t.Helper()
	return startLogged(t, c, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// startLogged is start with the server's logs going to logger.
func startLogged(t *testing.T, c app.Config, logger *slog.Logger) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.Addr = ln.Addr().String()
	c.BcryptCost = 4 // the minimum: tests register many accounts
	a, err := app.Open(context.Background(), c, logger)
	if err != nil {
		ln.Close()
		t.Fatalf("app.Open: %v", err)
	}
	go a.Serve(ln)
	t.Cleanup(func() {
		if c.NATSURL != "" { // leave nothing behind on the shared server
			a.Bus.DeleteStreams(context.Background())
		}
		a.Close()
	})
	return &server{t: t, app: a, url: "http://" + c.Addr}
}

// forEachStack runs fn as a subtest against every stack.
func forEachStack(t *testing.T, fn func(t *testing.T, s *server)) {
	for _, st := range stacks {
		t.Run(st.name, func(t *testing.T) { fn(t, start(t, st.config(t))) })
	}
}

var userSeq atomic.Int64

// user is a signed-in account with its go-mastodon client.
type user struct {
	*mastodon.Client
	ID       mastodon.ID
	Username string
	Token    string
}

// app registers an OAuth app and returns its client (no user token yet).
func (s *server) newApp(scopes string) *mastodon.Client {
	s.t.Helper()
	reg, err := mastodon.RegisterApp(context.Background(), &mastodon.AppConfig{
		Server: s.url, ClientName: "e2e", Scopes: scopes, RedirectURIs: "urn:ietf:wg:oauth:2.0:oob"})
	if err != nil {
		s.t.Fatalf("RegisterApp: %v", err)
	}
	return mastodon.NewClient(&mastodon.Config{Server: s.url, ClientID: reg.ClientID, ClientSecret: reg.ClientSecret})
}

// signup registers an account through POST /api/v1/accounts with an app token
// and then logs in with the password grant, as a new user would.
func (s *server) signup(name string) *user {
	s.t.Helper()
	c := s.newApp("read write follow")
	var appTok struct {
		AccessToken string `json:"access_token"`
	}
	// Like Mastodon, a client_credentials token defaults to "read"; sign-up needs write.
	if code := s.do("POST", "/oauth/token", "", url.Values{"grant_type": {"client_credentials"}, "client_id": {c.Config.ClientID},
		"client_secret": {c.Config.ClientSecret}, "scope": {"read write follow"}}, &appTok); code != 200 {
		s.t.Fatalf("app token: HTTP %d", code)
	}
	c.Config.AccessToken = appTok.AccessToken
	if name == "" {
		name = fmt.Sprintf("user%d", userSeq.Add(1))
	}
	email := name + "@example.com"
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	code := s.do("POST", "/api/v1/accounts", c.Config.AccessToken, url.Values{
		"username": {name}, "email": {email}, "password": {"correct horse battery"}, "agreement": {"true"}, "locale": {"en"}}, &tok)
	if code != 200 || tok.AccessToken == "" {
		s.t.Fatalf("sign-up: HTTP %d", code)
	}
	login := mastodon.NewClient(&mastodon.Config{Server: s.url, ClientID: c.Config.ClientID, ClientSecret: c.Config.ClientSecret})
	if err := login.Authenticate(context.Background(), email, "correct horse battery"); err != nil {
		s.t.Fatalf("password grant: %v", err)
	}
	me, err := login.GetAccountCurrentUser(context.Background())
	if err != nil {
		s.t.Fatalf("verify_credentials: %v", err)
	}
	return &user{Client: login, ID: me.ID, Username: name, Token: login.Config.AccessToken}
}

// do sends a form request with an optional bearer token and decodes a JSON
// answer into out (if not nil); it returns the status code.
func (s *server) do(method, path, token string, form url.Values, out any) int {
	s.t.Helper()
	code, body := s.raw(method, path, token, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if out != nil && code < 300 {
		if err := json.Unmarshal(body, out); err != nil {
			s.t.Fatalf("%s %s: %v in %s", method, path, err, body)
		}
	}
	return code
}

// raw sends a request and returns the status and body.
func (s *server) raw(method, path, token, ctype string, body io.Reader) (int, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// wantError checks a Mastodon error answer: the status code and a JSON body
// with a non-empty "error".
func (s *server) wantError(method, path, token string, body []byte, ctype string, want int) {
	s.t.Helper()
	code, got := s.raw(method, path, token, ctype, bytes.NewReader(body))
	var e struct {
		Error string `json:"error"`
	}
	if code != want || json.Unmarshal(got, &e) != nil || e.Error == "" {
		s.t.Errorf("%s %s: HTTP %d %s, want %d with an error body", method, path, code, got, want)
	}
}
