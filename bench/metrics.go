package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Server metrics the suite reads from /metrics (Prometheus text format).
const (
	metricInserts  = "sparrow_fanout_inbox_inserts_total"
	metricRebuilds = "sparrow_inbox_rebuild_seconds_count"
)

// ParseMetric returns the value of the unlabelled sample name in a Prometheus
// text exposition, and whether it was there.
func ParseMetric(r io.Reader, name string) (float64, bool, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		if rest == "" || rest[0] != ' ' {
			continue // a longer name, or labels
		}
		f := strings.Fields(rest)
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, false, fmt.Errorf("metric %s: %q", name, line)
		}
		return v, true, nil
	}
	return 0, false, sc.Err()
}

// Metric reads one unlabelled sample from the server's /metrics. ok is false
// if the server has no /metrics or not that metric (any Mastodon server
// that is not Sparrow).
func (c *Client) Metric(ctx context.Context, name string) (v float64, ok bool, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.Base+"/metrics", nil)
	if err != nil {
		return 0, false, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return 0, false, nil
	}
	return ParseMetric(resp.Body, name)
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
