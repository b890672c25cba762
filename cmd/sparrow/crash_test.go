package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildBinary compiles this command once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sparrow")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// proc is a sparrow serve process.
type proc struct {
	cmd  *exec.Cmd
	base string
}

func startServe(t *testing.T, bin, addr, data string) *proc {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", addr, "--data", data, "--bcrypt-cost", "4", "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, base: "http://" + addr}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitHealthy(t, p)
	return p
}

// waitHealthy waits until the server answers /health.
func waitHealthy(t *testing.T, p *proc) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(p.base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
	}
	t.Fatal("server did not come up")
}

func (p *proc) call(t *testing.T, method, path, token string, form url.Values, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, p.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, body)
		}
	}
	return resp.StatusCode
}

// TestKill9KeepsAcknowledgedWrites: every status and token acknowledged
// before a SIGKILL is there after a restart on the same data directory.
func TestKill9KeepsAcknowledgedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	addr, data := freeAddr(t), t.TempDir()
	p := startServe(t, bin, addr, data)

	var app struct{ ClientID, ClientSecret string }
	var appRaw map[string]any
	if code := p.call(t, "POST", "/api/v1/apps", "", url.Values{"client_name": {"crash"}, "redirect_uris": {"urn:ietf:wg:oauth:2.0:oob"}, "scopes": {"read write"}}, &appRaw); code != 200 {
		t.Fatalf("apps: %d", code)
	}
	app.ClientID, app.ClientSecret = appRaw["client_id"].(string), appRaw["client_secret"].(string)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	p.call(t, "POST", "/oauth/token", "", url.Values{"grant_type": {"client_credentials"}, "client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "scope": {"read write"}}, &tok)
	var user struct {
		AccessToken string `json:"access_token"`
	}
	if code := p.call(t, "POST", "/api/v1/accounts", tok.AccessToken, url.Values{"username": {"crashy"}, "email": {"crashy@example.com"},
		"password": {"long enough password"}, "agreement": {"true"}}, &user); code != 200 {
		t.Fatalf("sign-up: %d", code)
	}
	var ids []string
	for i := 0; i < 50; i++ {
		var st struct{ ID string }
		if code := p.call(t, "POST", "/api/v1/statuses", user.AccessToken, url.Values{"status": {fmt.Sprintf("持久 %d", i)}}, &st); code != 200 {
			t.Fatalf("post %d: %d", i, code)
		}
		ids = append(ids, st.ID)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()

	p = startServe(t, bin, addr, data)
	for i, id := range ids {
		var st struct{ Content string }
		if code := p.call(t, "GET", "/api/v1/statuses/"+id, user.AccessToken, nil, &st); code != 200 || !strings.Contains(st.Content, fmt.Sprintf("持久 %d", i)) {
			t.Fatalf("status %s after kill -9: HTTP %d %q", id, code, st.Content)
		}
	}
	var me struct {
		StatusesCount int `json:"statuses_count"`
	}
	if code := p.call(t, "GET", "/api/v1/accounts/verify_credentials", user.AccessToken, nil, &me); code != 200 || me.StatusesCount != 50 {
		t.Fatalf("token or counter lost after kill -9: HTTP %d, statuses_count %d", code, me.StatusesCount)
	}
}
