package bench

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// RedisCeiling is what redis-benchmark shows for one Redis read on this
// machine: the ceiling of any request that needs at least one round trip to
// that Redis, measured with as many clients as the load driver uses.
type RedisCeiling struct {
	Clients int
	// GetRPS is `redis-benchmark -t get` (one GET per request, no pipelining).
	GetRPS float64
	// RangeRPS is ZREVRANGE of 20 entries with scores from an 800-entry sorted
	// set: the shape of one inbox page read.
	RangeRPS float64
	Command  string // the commands run, for the report
}

// MeasureRedisCeiling runs redis-benchmark (which must be on PATH) against
// the Redis at url with the given clients and requests per test. It fills
// and then deletes one scratch key, key.
func MeasureRedisCeiling(ctx context.Context, url, key string, clients, requests int) (RedisCeiling, error) {
	out := RedisCeiling{Clients: clients}
	bin, err := exec.LookPath("redis-benchmark")
	if err != nil {
		return out, fmt.Errorf("redis-benchmark is not installed (Debian: redis-tools): %w", err)
	}
	opt, err := goredis.ParseURL(url)
	if err != nil {
		return out, err
	}
	host, port, ok := strings.Cut(opt.Addr, ":")
	if !ok {
		port = "6379"
	}
	rdb := goredis.NewClient(opt)
	defer rdb.Close()
	members := make([]goredis.Z, 800)
	for i := range members {
		members[i] = goredis.Z{Score: float64(i), Member: strconv.Itoa(1_000_000_000 + i)}
	}
	if err = rdb.ZAdd(ctx, key, members...).Err(); err != nil {
		return out, err
	}
	defer rdb.Del(context.WithoutCancel(ctx), key)
	base := []string{"-h", host, "-p", port, "-n", strconv.Itoa(requests), "-c", strconv.Itoa(clients), "--csv"}
	if opt.Password != "" {
		base = append(base, "-a", opt.Password)
	}
	if opt.DB != 0 {
		base = append(base, "--dbnum", strconv.Itoa(opt.DB))
	}
	run := func(extra ...string) (float64, error) {
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, append(append([]string{}, base...), extra...)...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if rerr := cmd.Run(); rerr != nil {
			return 0, fmt.Errorf("redis-benchmark %s: %w: %s", strings.Join(extra, " "), rerr, stderr.String())
		}
		return parseRedisBenchmarkCSV(stdout.Bytes())
	}
	if out.GetRPS, err = run("-t", "get"); err != nil {
		return out, err
	}
	rangeCmd := []string{"zrevrange", key, "0", "19", "withscores"}
	if out.RangeRPS, err = run(rangeCmd...); err != nil {
		return out, err
	}
	out.Command = fmt.Sprintf("redis-benchmark -n %d -c %d --csv -t get; redis-benchmark -n %d -c %d --csv %s (800-entry set)",
		requests, clients, requests, clients, strings.Join(rangeCmd, " "))
	return out, nil
}

// parseRedisBenchmarkCSV returns the requests per second of the first test
// in redis-benchmark's --csv output (a header line "test","rps",… since
// Redis 7; a bare "TEST","rps" line before).
func parseRedisBenchmarkCSV(b []byte) (float64, error) {
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil && len(recs) == 0 {
		return 0, fmt.Errorf("redis-benchmark output: %w", err)
	}
	for _, r := range recs {
		if len(r) < 2 || strings.EqualFold(r[0], "test") {
			continue
		}
		if v, err := strconv.ParseFloat(r[1], 64); err == nil {
			return v, nil
		}
	}
	return 0, fmt.Errorf("redis-benchmark output has no rate: %q", b)
}
