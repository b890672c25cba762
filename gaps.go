package sparrow

import (
	"context"
	"sync/atomic"
)

// Partial reads. A read that gathers from several stores (a home page, a
// list of notifications, a thread) may leave out what an unavailable store
// holds and still answer, if its context carries a Gaps (WithGaps): the
// stores skip the unavailable part and count it there, and the HTTP layer
// marks the answer as partial. Without a Gaps, an unavailable store fails
// the whole read. Decisions that must see everything they ask about (who
// blocks whom) read with Strict, which never skips.
type Gaps struct {
	n atomic.Int64
}

type gapsKey struct{}

// WithGaps returns ctx allowing partial reads, and the Gaps they count in.
func WithGaps(ctx context.Context) (context.Context, *Gaps) {
	g := &Gaps{}
	return context.WithValue(ctx, gapsKey{}, g), g
}

// Strict returns ctx without partial reads: every store it asks must answer.
func Strict(ctx context.Context) context.Context {
	if ctx.Value(gapsKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, gapsKey{}, (*Gaps)(nil))
}

// Count returns how many parts of the reads were skipped.
func (g *Gaps) Count() int64 {
	if g == nil {
		return 0
	}
	return g.n.Load()
}

// SkipUnavailable reports whether a read in ctx may go on without the part
// that failed with err: err is EUnavailable and ctx allows partial reads. It
// counts the gap.
func SkipUnavailable(ctx context.Context, err error) bool {
	g, _ := ctx.Value(gapsKey{}).(*Gaps)
	if g == nil || !IsKind(err, EUnavailable) || ctx.Err() != nil {
		return false
	}
	g.n.Add(1)
	return true
}
