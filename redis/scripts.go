package redis

import (
	"context"
	"errors"

	goredis "github.com/redis/go-redis/v9"
)

// scriptCall is one run of a script: its keys and arguments.
type scriptCall struct {
	keys []string
	args []any
}

// runPipelined runs script once per call with EVALSHA, all in one pipelined
// round trip, and returns the commands in call order. The script is not
// loaded ahead: if the server answers NOSCRIPT (first use on this server,
// after a restart or a SCRIPT FLUSH), runPipelined loads it with SCRIPT
// LOAD and sends the whole batch again, once. Calls that did run the first
// time run twice, so only idempotent scripts may be run this way.
func runPipelined(ctx context.Context, rdb *goredis.Client, script *goredis.Script, calls []scriptCall) ([]*goredis.Cmd, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	cmds, err := evalShaPipeline(ctx, rdb, script, calls)
	if err == nil || !anyNoScript(cmds) {
		return cmds, err
	}
	if err := script.Load(ctx, rdb).Err(); err != nil {
		return nil, err
	}
	return evalShaPipeline(ctx, rdb, script, calls)
}

func evalShaPipeline(ctx context.Context, rdb *goredis.Client, script *goredis.Script, calls []scriptCall) ([]*goredis.Cmd, error) {
	pipe := rdb.Pipeline()
	cmds := make([]*goredis.Cmd, len(calls))
	hash := script.Hash()
	for i, c := range calls {
		cmds[i] = pipe.EvalSha(ctx, hash, c.keys, c.args...)
	}
	_, err := pipe.Exec(ctx)
	return cmds, err
}

func anyNoScript(cmds []*goredis.Cmd) bool {
	for _, c := range cmds {
		if err := c.Err(); errors.Is(err, goredis.ErrNoScript) || goredis.HasErrorPrefix(err, "NOSCRIPT") {
			return true
		}
	}
	return false
}
