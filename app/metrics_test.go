package app_test

import (
	"regexp"
	"strconv"
	"testing"
)

// TestMemoryMetrics: the embedded stack reports what SQLite holds and how
// full the in-process cache is (the soak samples both); the scale-out stack,
// with neither, reports neither.
func TestMemoryMetrics(t *testing.T) {
	for _, st := range stacks {
		t.Run(st.name, func(t *testing.T) {
			s := start(t, st.config(t))
			s.signup("alice") // touches the stores and the cache
			_, body := s.raw("GET", "/metrics", "", "", nil)
			embedded := st.name == "embedded"
			for _, name := range []string{"sparrow_sqlite_memory_bytes", "sparrow_sqlite_memory_highwater_bytes", "sparrow_local_cache_bytes", "sparrow_local_cache_keys"} {
				m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(body)
				if (m != nil) != embedded {
					t.Errorf("%s reported: %v, want %v", name, m != nil, embedded)
					continue
				}
				if m == nil {
					continue
				}
				v, err := strconv.ParseFloat(string(m[1]), 64)
				if err != nil || v < 0 || name == "sparrow_sqlite_memory_bytes" && v == 0 {
					t.Errorf("%s = %s", name, m[1])
				}
			}
		})
	}
}
