package http

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func TestPanicBecomesLogged500(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "GET", path: "/api/v1/statuses/666"})
	if w.Code != 500 {
		t.Fatalf("status = %d, want 500", w.Code)
	}
	assertJSONError(t, w.Body.Bytes(), msgInternal)
	if !strings.Contains(h.log.String(), "fake status store exploded") {
		t.Errorf("panic not logged: %s", h.log)
	}
	// The server keeps serving.
	if w := h.do(t, req{method: "GET", path: "/health"}); w.Code != 200 || w.Body.String() != "ok" {
		t.Errorf("health after panic: %d %q", w.Code, w.Body)
	}
}

func TestPanicOverRealConnection(t *testing.T) {
	h := newHarness(t)
	ts := httptest.NewServer(h.h)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/api/v1/statuses/666")
	if err != nil {
		t.Fatalf("connection failed: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	assertJSONError(t, body, msgInternal)
}

func TestPanicAfterWriteKeepsResponse(t *testing.T) {
	s := &Server{}
	h := s.recoverPanics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		w.Write([]byte("partial"))
		panic("late")
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != http.StatusAccepted || w.Body.String() != "partial" {
		t.Errorf("got %d %q; a started response must not be rewritten", w.Code, w.Body)
	}
}

func TestUnknownRouteAndWrongMethod(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "GET", path: "/api/v1/nope"})
	if w.Code != 404 {
		t.Fatalf("unknown route: %d", w.Code)
	}
	assertJSONError(t, w.Body.Bytes(), msgNotFound)
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("404 Content-Type = %q", ct)
	}

	w = h.do(t, req{method: "POST", path: "/api/v1/instance"})
	if w.Code != 405 {
		t.Fatalf("wrong method: %d", w.Code)
	}
	assertJSONError(t, w.Body.Bytes(), msgNotAllowed)
	if allow := w.Header().Get("Allow"); !strings.Contains(allow, "GET") {
		t.Errorf("Allow = %q", allow)
	}
}

func TestHealth(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "GET", path: "/health"})
	if w.Code != 200 || w.Body.String() != "ok" {
		t.Errorf("health: %d %q", w.Code, w.Body)
	}
}

// histogramCount returns the sample count of the duration histogram for the
// labels, or -1 if there is no such series.
func histogramCount(t *testing.T, reg *prometheus.Registry, route, code string) int64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "sparrow_http_request_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if labels(m)["route"] == route && labels(m)["code"] == code {
				return int64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return -1
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func TestMetricsByRoutePattern(t *testing.T) {
	h := newHarness(t)
	h.do(t, req{method: "GET", path: "/api/v1/statuses/123"})
	h.do(t, req{method: "GET", path: "/api/v1/statuses/456"})
	h.do(t, req{method: "GET", path: "/api/v1/statuses/666"}) // panics
	h.do(t, req{method: "GET", path: "/no/such/path/789"})
	if n := histogramCount(t, h.reg, "GET /api/v1/statuses/{id}", "404"); n != 2 {
		t.Errorf("count(route pattern, 404) = %d, want 2", n)
	}
	if n := histogramCount(t, h.reg, "GET /api/v1/statuses/{id}", "500"); n != 1 {
		t.Errorf("count(route pattern, 500 after panic) = %d, want 1", n)
	}
	if n := histogramCount(t, h.reg, routeUnmatched, "404"); n != 1 {
		t.Errorf("count(unmatched, 404) = %d, want 1", n)
	}
	mfs, _ := h.reg.Gather()
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if r := labels(m)["route"]; strings.Contains(r, "123") || strings.Contains(r, "789") {
				t.Errorf("raw path in route label %q", r)
			}
		}
	}

	w := h.do(t, req{method: "GET", path: "/metrics"})
	if w.Code != 200 || !strings.Contains(w.Body.String(), `sparrow_http_request_duration_seconds_count{code="404",route="GET /api/v1/statuses/{id}"} 2`) {
		t.Errorf("/metrics: %d\n%s", w.Code, w.Body)
	}
}

func TestHandlerTwiceOnOneRegistry(t *testing.T) {
	h := newHarness(t)
	h2 := h.srv.Handler() // must not panic on AlreadyRegistered
	w := httptest.NewRecorder()
	h2.ServeHTTP(w, httptest.NewRequest("GET", "/health", nil))
	if n := histogramCount(t, h.reg, "GET /health", "200"); n != 1 {
		t.Errorf("second handler's requests not counted on the shared collector: %d", n)
	}
}

func TestWriterKeepsFlushAndHijack(t *testing.T) {
	var rw http.ResponseWriter = wrapWriter(httptest.NewRecorder())
	if _, ok := rw.(http.Flusher); !ok {
		t.Error("wrapped writer is not a Flusher")
	}
	if _, ok := rw.(http.Hijacker); !ok {
		t.Error("wrapped writer is not a Hijacker")
	}
}

func TestCORS(t *testing.T) {
	h := newHarness(t)
	w := h.do(t, req{method: "OPTIONS", path: "/api/v1/statuses", header: http.Header{
		"Origin": {"https://client.example"}, "Access-Control-Request-Method": {"POST"},
		"Access-Control-Request-Headers": {"authorization, content-type, idempotency-key"}}})
	if w.Code != http.StatusNoContent {
		t.Fatalf("preflight: %d, want 204", w.Code)
	}
	if w.Header().Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(w.Header().Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(w.Header().Get("Access-Control-Allow-Headers"), "idempotency-key") {
		t.Errorf("preflight headers = %v", w.Header())
	}

	w = h.do(t, req{method: "GET", path: "/api/v1/statuses/666", header: http.Header{"Origin": {"https://client.example"}}})
	if w.Header().Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(w.Header().Get("Access-Control-Expose-Headers"), "Link") {
		t.Errorf("API response (even a 500) lacks CORS headers: %v", w.Header())
	}
	if w := h.do(t, req{method: "GET", path: "/health"}); w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS on a non-API path")
	}
	if w := h.do(t, req{method: "OPTIONS", path: "/api/v1/instance"}); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("OPTIONS without preflight headers: %d, want 405", w.Code)
	}
}

func TestMultipartTempFilesRemoved(t *testing.T) {
	h := newHarness(t)
	h.srv.MaxBodyBytes = 32 << 20
	h.h = h.srv.Handler()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "big.bin")
	fw.Write(bytes.Repeat([]byte("x"), maxMultipartMemory+1<<20)) // spills to a temp file
	mw.WriteField("status", "with file")
	mw.Close()
	w := h.do(t, req{method: "POST", path: "/api/v1/statuses", token: tokUser, ctype: mw.FormDataContentType(), body: buf.String()})
	if w.Code != 200 || h.statuses.posted.Text != "with file" {
		t.Fatalf("multipart post: %d %s", w.Code, w.Body)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
