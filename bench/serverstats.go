package bench

import (
	"context"
	"time"
)

// Process and Go runtime metrics of the server's /metrics (the Prometheus
// Go and process collectors) that a soak samples.
const (
	metricRSS          = "process_resident_memory_bytes"
	metricHeapInuse    = "go_memstats_heap_inuse_bytes"
	metricHeapIdle     = "go_memstats_heap_idle_bytes"
	metricHeapReleased = "go_memstats_heap_released_bytes"
	metricGoSys        = "go_memstats_sys_bytes"
	metricGoroutines   = "go_goroutines"
	metricSQLite       = "sparrow_sqlite_memory_bytes"
	metricLocalCache   = "sparrow_local_cache_bytes"
)

// ServerStats is one scrape of the server's memory and goroutines. A value
// the server did not report (no /metrics, a failed scrape, a metric it does
// not export) is -1.
type ServerStats struct {
	RSS        float64 `json:"rss_bytes"`        // resident set size of the whole process
	HeapInuse  float64 `json:"heap_inuse_bytes"` // Go heap spans in use
	Goroutines float64 `json:"goroutines"`
	// HeapIdle − HeapReleased is Go heap the runtime holds but does not use;
	// RSS beyond GoSys is memory outside the Go runtime (C or mmap'd).
	HeapIdle     float64 `json:"heap_idle_bytes"`
	HeapReleased float64 `json:"heap_released_bytes"`
	GoSys        float64 `json:"go_sys_bytes"`
	// SQLite is what SQLite holds in the server (embedded stores: page
	// caches, statements), part of RSS beyond GoSys; LocalCache is the fill
	// of the in-process cache (embedded deployments), part of the Go heap.
	SQLite     float64 `json:"sqlite_bytes"`
	LocalCache float64 `json:"local_cache_bytes"`
	// ScrapeError says why the scrape failed, if it did.
	ScrapeError string `json:"scrape_error,omitempty"`
}

// ServerStats scrapes /metrics once, giving up after timeout.
func (c *Client) ServerStats(ctx context.Context, timeout time.Duration) ServerStats {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	m, err := c.Metrics(ctx, metricRSS, metricHeapInuse, metricHeapIdle, metricHeapReleased, metricGoSys, metricGoroutines, metricSQLite, metricLocalCache)
	get := func(name string) float64 {
		if v, ok := m[name]; ok {
			return v
		}
		return -1
	}
	s := ServerStats{RSS: get(metricRSS), HeapInuse: get(metricHeapInuse), Goroutines: get(metricGoroutines),
		HeapIdle: get(metricHeapIdle), HeapReleased: get(metricHeapReleased), GoSys: get(metricGoSys),
		SQLite: get(metricSQLite), LocalCache: get(metricLocalCache)}
	if err != nil {
		s.ScrapeError = err.Error()
	}
	return s
}
