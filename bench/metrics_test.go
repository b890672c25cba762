package bench

import (
	"strings"
	"testing"
)

func TestParseMetrics(t *testing.T) {
	text := `# HELP sparrow_fanout_inbox_inserts_total Inbox insertions made by the fan-out.
# TYPE sparrow_fanout_inbox_inserts_total counter
sparrow_fanout_inbox_inserts_total{store="a"} 7
sparrow_fanout_inbox_inserts_total 1.234e+06
sparrow_fanout_inbox_inserts_total_extra 5
# TYPE go_goroutines gauge
go_goroutines 42
process_resident_memory_bytes{x="y"} 7
process_resident_memory_bytes 5.2e+07
# TYPE sparrow_inbox_rebuild_seconds histogram
sparrow_inbox_rebuild_seconds_bucket{le="0.1"} 40
sparrow_inbox_rebuild_seconds_bucket{le="+Inf"} 42
sparrow_inbox_rebuild_seconds_sum 3.5
sparrow_inbox_rebuild_seconds_count 42
`
	m, err := ParseMetrics(strings.NewReader(text), metricInserts, metricRebuilds, "sparrow_inbox_rebuild_seconds_sum",
		"go_goroutines", "process_resident_memory_bytes", "sparrow_absent")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{metricInserts: 1234000, metricRebuilds: 42, "sparrow_inbox_rebuild_seconds_sum": 3.5,
		"go_goroutines": 42, "process_resident_memory_bytes": 52e6}
	if len(m) != len(want) {
		t.Errorf("metrics %v, want %v", m, want)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if _, err := ParseMetrics(strings.NewReader("go_goroutines many\n"), "go_goroutines"); err == nil {
		t.Error("no error for a malformed value")
	}
}
