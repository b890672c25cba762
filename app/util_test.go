package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sparrow"
)

type sparrowEvent = sparrow.Event

func decode(t *testing.T, body []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

// rawWithHeader posts a form with one extra header.
func (s *server) rawWithHeader(method, path, token, header, value string, form url.Values) (int, []byte) {
	s.t.Helper()
	return s.rawHeader(method, path, token, "application/x-www-form-urlencoded", form.Encode(), header, value)
}

// rawHeader sends a request with one extra header and returns the status
// and body.
func (s *server) rawHeader(method, path, token, ctype, body, header, value string) (int, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set(header, value)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}
