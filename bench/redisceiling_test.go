package bench

import "testing"

func TestParseRedisBenchmarkCSV(t *testing.T) {
	for in, want := range map[string]float64{
		"\"test\",\"rps\",\"avg_latency_ms\"\n\"GET\",\"123456.79\",\"0.100\"\n": 123456.79,
		"\"GET\",\"98000.00\"\n": 98000,
	} {
		got, err := parseRedisBenchmarkCSV([]byte(in))
		if err != nil || got != want {
			t.Errorf("parse %q = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "\"test\",\"rps\"\n", "garbage"} {
		if _, err := parseRedisBenchmarkCSV([]byte(bad)); err == nil {
			t.Errorf("parse %q: no error", bad)
		}
	}
}
