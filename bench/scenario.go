package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// scenarioRow is one measured (backend, op) of the statuses, interactions
// and relations scenarios.
type scenarioRow struct {
	Backend string `json:"backend"`
	Mode    string `json:"mode"`
	Result
}

// printScenarioRows prints rows as a table to w.
func printScenarioRows(w io.Writer, rows []scenarioRow) {
	fmt.Fprintf(w, "%-10s %-14s %9s %7s %9s %8s %8s %8s %8s\n", "backend", "op", "requests", "errors", "req/s", "p50 ms", "p95 ms", "p99 ms", "p999 ms")
	for _, r := range rows {
		fmt.Fprintf(w, "%-10s %-14s %9d %7d %9.0f %8.2f %8.2f %8.2f %8.2f\n", r.Backend, r.Op, r.Requests, r.Errors, r.RPS, r.P50, r.P95, r.P99, r.P999)
	}
}

// writeScenarioJSON writes rows with the machine and date to path (nothing
// if path is "").
func writeScenarioJSON(path string, rows []scenarioRow) error {
	if path == "" {
		return nil
	}
	b, _ := json.MarshalIndent(map[string]any{"machine": machine(), "date": time.Now().UTC().Format(time.RFC3339), "results": rows}, "", "  ")
	return os.WriteFile(path, b, 0o644)
}
