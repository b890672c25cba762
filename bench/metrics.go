package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Server metrics the suite reads from /metrics (Prometheus text format).
const (
	metricInserts  = "sparrow_fanout_inbox_inserts_total"
	metricRebuilds = "sparrow_inbox_rebuild_seconds_count"
)

// ParseMetrics returns the values of the unlabelled samples names in a
// Prometheus text exposition (parsed by the Prometheus library's own text
// parser). A name may be a counter, gauge or untyped sample, or the _count
// or _sum of a histogram or summary. A name absent from the exposition is
// absent from the map; a malformed exposition is an error.
func ParseMetrics(r io.Reader, names ...string) (map[string]float64, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("read metrics: %w", err)
	}
	out := make(map[string]float64, len(names))
	for _, name := range names {
		if v, ok := sample(families, name); ok {
			out[name] = v
		}
	}
	return out, nil
}

// sample finds the unlabelled sample name among families.
func sample(families map[string]*dto.MetricFamily, name string) (float64, bool) {
	for _, m := range unlabelled(families[name]) {
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	for _, suffix := range []string{"_count", "_sum"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		for _, m := range unlabelled(families[base]) {
			count, sum := suffix == "_count", suffix == "_sum"
			switch h, s := m.Histogram, m.Summary; {
			case h != nil && count:
				return float64(h.GetSampleCount()), true
			case h != nil && sum:
				return h.GetSampleSum(), true
			case s != nil && count:
				return float64(s.GetSampleCount()), true
			case s != nil && sum:
				return s.GetSampleSum(), true
			}
		}
	}
	return 0, false
}

// unlabelled returns the metrics of f without labels (none if f is nil).
func unlabelled(f *dto.MetricFamily) []*dto.Metric {
	var out []*dto.Metric
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) == 0 {
			out = append(out, m)
		}
	}
	return out
}

// Metrics reads several unlabelled samples from one GET of the server's
// /metrics. A server without /metrics (a non-2xx answer, as from any
// Mastodon server that is not Sparrow) gives an empty map and no error; a
// transport failure is an error.
func (c *Client) Metrics(ctx context.Context, names ...string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.Base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		io.Copy(io.Discard, resp.Body)
		return map[string]float64{}, nil
	}
	return ParseMetrics(resp.Body, names...)
}

// Metric reads one unlabelled sample from the server's /metrics (Metrics);
// ok is false if the server has no /metrics or not that metric.
func (c *Client) Metric(ctx context.Context, name string) (v float64, ok bool, err error) {
	m, err := c.Metrics(ctx, name)
	if err != nil {
		return 0, false, err
	}
	v, ok = m[name]
	return v, ok, nil
}

// settle polls metric name until it has not changed for quiet (or until
// target is reached, if target > 0, or max elapsed) and returns its last value:
// how the suite waits for asynchronous work (fan-out, inbox rebuilds) to finish.
func (c *Client) settle(ctx context.Context, name string, target float64, quiet, maxWait time.Duration) (float64, bool) {
	deadline := time.Now().Add(maxWait)
	last, ok, err := c.Metric(ctx, name)
	if err != nil || !ok {
		return 0, false
	}
	stableSince := time.Now()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if target > 0 && last >= target {
			return last, true
		}
		if time.Since(stableSince) >= quiet {
			return last, true
		}
		time.Sleep(20 * time.Millisecond)
		v, ok, err := c.Metric(ctx, name)
		if err != nil || !ok {
			return last, true
		}
		if v != last {
			last, stableSince = v, time.Now()
		}
	}
	return last, true
}
