package redis

import (
	"context"
	"errors"

	goredis "github.com/redis/go-redis/v9"

	"sparrow"
	"sparrow/breaker"
)

// breakerHook puts a circuit breaker (package breaker) in front of every
// command and pipeline of a client: while Redis is down, its callers
// fail at once (they fall back to the stores, see the cache tier's users)
// instead of each waiting for the client's timeouts and retries.
type breakerHook struct {
	b *breaker.Breaker
}

var _ goredis.Hook = breakerHook{}

// unavailable reports whether err says that Redis cannot serve: the errors
// wrap translates to EUnavailable (network failures and timeouts, and the
// replies by which the server says so), but for a client closed on
// purpose. Replies to the command itself (a missing key, a wrong type) are
// answers.
func unavailable(err error) bool {
	return kindOf(err) == sparrow.EUnavailable && !errors.Is(err, goredis.ErrClosed)
}

// DialHook passes dials through: a dial that succeeds says little (a proxy
// in front of a dead server accepts), so the breaker judges commands only.
func (h breakerHook) DialHook(next goredis.DialHook) goredis.DialHook { return next }

// within marks the context of a call that the breaker let through: the
// commands the client runs inside it (those that set up a new connection)
// are part of that call, not calls of their own.
type within struct{}

func (h breakerHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		if ctx.Value(within{}) != nil {
			return next(ctx, cmd)
		}
		ran := false
		err := h.b.Do(func() error {
			ran = true
			return next(context.WithValue(ctx, within{}, true), cmd)
		})
		if !ran {
			cmd.SetErr(err) // refused by the breaker: the command did not run
		}
		return err
	}
}

func (h breakerHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		if ctx.Value(within{}) != nil {
			return next(ctx, cmds)
		}
		ran := false
		err := h.b.Do(func() error {
			ran = true
			return next(context.WithValue(ctx, within{}, true), cmds)
		})
		if !ran {
			for _, cmd := range cmds {
				cmd.SetErr(err) // refused by the breaker: nothing ran
			}
		}
		return err
	}
}
