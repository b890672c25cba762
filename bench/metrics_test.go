package bench

import (
	"strings"
	"testing"
)

func TestParseMetric(t *testing.T) {
	text := `# HELP sparrow_fanout_inbox_inserts_total Inbox insertions made by the fan-out.
# TYPE sparrow_fanout_inbox_inserts_total counter
sparrow_fanout_inbox_inserts_total_extra 5
sparrow_fanout_inbox_inserts_total{store="a"} 7
sparrow_fanout_inbox_inserts_total 1.234e+06
sparrow_inbox_rebuild_seconds_count 42
`
	v, ok, err := ParseMetric(strings.NewReader(text), metricInserts)
	if err != nil || !ok || v != 1234000 {
		t.Errorf("inserts = %v, %v, %v; want 1234000", v, ok, err)
	}
	v, ok, _ = ParseMetric(strings.NewReader(text), metricRebuilds)
	if !ok || v != 42 {
		t.Errorf("rebuilds = %v, %v; want 42", v, ok)
	}
	if _, ok, _ := ParseMetric(strings.NewReader(text), "sparrow_absent"); ok {
		t.Error("found an absent metric")
	}
	if _, _, err := ParseMetric(strings.NewReader("sparrow_x nope\n"), "sparrow_x"); err == nil {
		t.Error("no error for a malformed value")
	}
}
