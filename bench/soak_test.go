package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestWindowRecorder(t *testing.T) {
	r := NewWindowRecorder()
	for i := 1; i <= 100; i++ {
		r.Record(OpHome, time.Duration(i)*time.Millisecond, nil)
	}
	r.Record(OpPost, time.Millisecond, &StatusError{Code: 503})
	r.Record(OpPost, time.Millisecond, fmt.Errorf("wrapped: %w", context.DeadlineExceeded))
	w := r.Swap()
	if w.Requests != 102 || w.Errors != 2 || w.ErrorKinds["post: HTTP 503"] != 1 || w.ErrorKinds["post: timeout"] != 1 {
		t.Errorf("window %+v", w)
	}
	if w.P50 < 49 || w.P50 > 51 || w.P99 < 98 || w.P99 > 100.1 || w.Seconds <= 0 || w.RPS <= 0 {
		t.Errorf("percentiles of window %+v", w)
	}
	for i := 0; i < 2*maxErrorKinds; i++ {
		r.Record(OpHome, time.Millisecond, errors.New(fmt.Sprint("error ", i)))
	}
	if w := r.Swap(); w.Requests != 2*maxErrorKinds || len(w.ErrorKinds) != maxErrorKinds+1 || w.ErrorKinds["other"] != maxErrorKinds {
		t.Errorf("second window: %d requests, kinds %v", w.Requests, w.ErrorKinds)
	}
	if w := r.Swap(); w.Requests != 0 || w.P99 != 0 || w.ErrorKinds != nil {
		t.Errorf("empty window %+v", w)
	}
}

// soakServer is the workload's fake server with a /metrics whose RSS grows
// by 1 MB per scrape.
func soakServer(t *testing.T) (*httptest.Server, *fakeServer) {
	f := newFakeServer()
	var scrapes atomic.Int64
	mux := http.NewServeMux()
	mux.Handle("/", f)
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		n := scrapes.Add(1)
		fmt.Fprintf(w, "process_resident_memory_bytes %d\ngo_memstats_heap_inuse_bytes 2e7\ngo_goroutines %d\n", 50_000_000+n*1_000_000, 10+n)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts, f
}

func TestDriveSoak(t *testing.T) {
	ts, f := soakServer(t)
	w := testWorkload(ts.URL)
	var seen atomic.Int64
	r, err := DriveSoak(context.Background(), ts.URL, w.Readers, w.Targets, SoakConfig{Clients: 4, CapacityDuration: 200 * time.Millisecond,
		Duration: 700 * time.Millisecond, Interval: 200 * time.Millisecond, Warmup: 200 * time.Millisecond, Cooldown: 200 * time.Millisecond,
		OnSample: func(SoakSample) { seen.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Capacity == nil || r.Capacity.RPS <= 0 || !r.RateIsHalfCapacity || r.Rate != r.Capacity.RPS/2 {
		t.Fatalf("capacity %+v, rate %v", r.Capacity, r.Rate)
	}
	// 700 ms in 200 ms windows: 3 full ones and a last one of about 100 ms, then one cool-down sample.
	if len(r.Samples) != 5 || seen.Load() != 5 {
		t.Fatalf("%d samples (%d seen), want 5", len(r.Samples), seen.Load())
	}
	for i, x := range r.Samples {
		if want := i < 4; (x.Phase == "load") != want || x.Server.RSS <= 0 || x.Server.Goroutines <= 0 || x.Server.HeapInuse != 2e7 {
			t.Errorf("sample %d: %+v", i, x)
		}
		if x.Phase == "load" && (x.Requests == 0 || x.P99 <= 0) {
			t.Errorf("load sample %d has no requests: %+v", i, x)
		}
	}
	if last := r.Samples[3]; last.T < 0.69 || last.Seconds > 0.2 {
		t.Errorf("last load window ends at %.3f s after %.3f s", last.T, last.Seconds)
	}
	s := r.Summary
	if s.Samples != 4 || s.SteadySamples != 3 || !s.SlopeOK || s.RSSSlopeMBPerHour <= 0 || s.Errors != 0 || s.RSSCooldownEndMB <= s.RSSEndMB {
		t.Errorf("summary %+v", s)
	}
	f.mu.Lock()
	for tok, ids := range f.following {
		if len(ids) > 0 {
			t.Errorf("%s still follows %v after the soak", tok, ids)
		}
	}
	f.mu.Unlock()

	dir := t.TempDir()
	if werr := r.WriteFiles(dir); werr != nil {
		t.Fatal(werr)
	}
	b, err := os.ReadFile(filepath.Join(dir, SoakJSON))
	if err != nil {
		t.Fatal(err)
	}
	var back SoakReport
	if err := json.Unmarshal(b, &back); err != nil || len(back.Samples) != 5 || back.Summary.SteadySamples != 3 {
		t.Errorf("soak.json: %v, %+v", err, back.Summary)
	}
	md, _ := os.ReadFile(filepath.Join(dir, SoakMD))
	for _, want := range []string{"RSS slope after warm-up", "half the capacity", "MB/hour", "soak.svg"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("soak.md lacks %q:\n%s", want, md)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, SoakSVG))
	els := svgElements(t, string(svg))
	// the document and 3 charts; RSS, heap, goroutines, p99, p50 and 3 warm-up
	// marks (the fake server has no go_memstats_sys_bytes: no RSS − Go sys)
	if els["svg"] != 4 || els["polyline"] != 8 {
		t.Errorf("soak.svg elements %v", els)
	}
}

func TestDriveSoakCancelled(t *testing.T) {
	ts, _ := soakServer(t)
	w := testWorkload(ts.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	r, err := DriveSoak(ctx, ts.URL, w.Readers, w.Targets, SoakConfig{Clients: 2, Rate: 100, Duration: time.Hour, Interval: 100 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(t0))
	}
	if r == nil || r.Capacity != nil || len(r.Samples) < 2 || r.Summary.Samples != len(r.Samples) {
		t.Fatalf("partial report %+v", r)
	}
}
