package bench

import (
	"fmt"
	"os"
	"runtime"
)

// machine describes this machine for a report: host name, cores, OS and
// architecture, Go version.
func machine() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s, %d cores, %s/%s, %s", host, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// loadAvg returns the machine's 1-minute load average, -1 if unknown.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	var v float64
	if _, err := fmt.Sscan(string(b), &v); err != nil {
		return -1
	}
	return v
}
