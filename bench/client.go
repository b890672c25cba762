package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client is a minimal Mastodon API client tuned for load: one shared
// keep-alive transport, no per-request allocations beyond the request.
type Client struct {
	Base string
	HTTP *http.Client
}

// NewClient returns a client for base with a connection pool of conns.
func NewClient(base string, conns int) *Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     90 * time.Second,
	}
	return &Client{Base: strings.TrimSuffix(base, "/"), HTTP: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

// StatusError is a non-2xx answer.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Code, e.Body) }

// Do sends a request with a form body (if form != nil) and decodes a JSON
// answer into out (if not nil).
func (c *Client) Do(ctx context.Context, method, path, token string, form url.Values, out any) error {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, body)
	if err != nil {
		return err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		b := buf.String()
		if len(b) > 200 {
			b = b[:200]
		}
		return &StatusError{Code: resp.StatusCode, Body: b}
	}
	if out != nil {
		return json.Unmarshal(buf.Bytes(), out)
	}
	return nil
}

// Account is a signed-in account for the driver.
type Account struct {
	ID    string `json:"id"`
	Token string `json:"token"`
}

// Signup registers an app (once per call) and n accounts named prefix0…,
// returning their ids and user tokens.
func (c *Client) Signup(ctx context.Context, prefix string, n int) ([]Account, error) {
	var app struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := c.Do(ctx, "POST", "/api/v1/apps", "", url.Values{"client_name": {"sparrow-bench"},
		"redirect_uris": {"urn:ietf:wg:oauth:2.0:oob"}, "scopes": {"read write follow"}}, &app); err != nil {
		return nil, fmt.Errorf("register app: %w", err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := c.Do(ctx, "POST", "/oauth/token", "", url.Values{"grant_type": {"client_credentials"}, "client_id": {app.ClientID},
		"client_secret": {app.ClientSecret}, "scope": {"read write follow"}}, &tok); err != nil {
		return nil, fmt.Errorf("app token: %w", err)
	}
	out := make([]Account, 0, n)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s%d", prefix, i)
		var user struct {
			AccessToken string `json:"access_token"`
		}
		if err := c.Do(ctx, "POST", "/api/v1/accounts", tok.AccessToken, url.Values{"username": {name}, "email": {name + "@bench.example"},
			"password": {"bench password"}, "agreement": {"true"}}, &user); err != nil {
			return nil, fmt.Errorf("sign up %s: %w", name, err)
		}
		var me struct {
			ID string `json:"id"`
		}
		if err := c.Do(ctx, "GET", "/api/v1/accounts/verify_credentials", user.AccessToken, nil, &me); err != nil {
			return nil, err
		}
		out = append(out, Account{ID: me.ID, Token: user.AccessToken})
	}
	return out, nil
}
