// Package breaker is the circuit breaker of Sparrow's dependencies (each
// MariaDB store, Redis), on github.com/sony/gobreaker: after a few
// consecutive failures of the dependency itself (it cannot be reached, or
// does not answer in time), the circuit opens and every call fails at once
// with an EUnavailable error that says when to retry, until a probe finds
// the dependency back. A request that needs a down dependency then costs a
// fast 503 rather than a timeout, and the others do not queue behind it.
// Each state change is logged once.
package breaker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/sony/gobreaker/v2"

	"sparrow"
)

// Defaults of every breaker.
const (
	// Trip is how many consecutive failures of a dependency open its circuit.
	Trip = 3
	// OpenFor is how long an open circuit refuses every call before it lets
	// one probe through; it is the Retry-After of the refusals.
	OpenFor = 3 * time.Second
)

// ErrOpen is the cause of a call refused by an open circuit (or a half-open
// one whose probe is under way).
var ErrOpen = errors.New("circuit open")

// Breaker is the circuit breaker of one dependency. It is safe for
// concurrent use.
type Breaker struct {
	name string
	cb   *gobreaker.TwoStepCircuitBreaker[struct{}]
}

// New returns the breaker of the dependency name. failure tells the errors
// of the dependency itself from those of a call that it answered (a
// duplicate key, a missing key), which count as successes; a caller's
// cancelled or expired context counts as neither. log (nil: discard)
// receives each state change.
func New(name string, failure func(error) bool, log *slog.Logger) *Breaker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Breaker{name: name, cb: gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:         name,
		MaxRequests:  1,
		Timeout:      OpenFor,
		ReadyToTrip:  func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= Trip },
		IsSuccessful: func(err error) bool { return err == nil || !failure(err) },
		IsExcluded: func(err error) bool {
			return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
		},
		OnStateChange: func(name string, from, to gobreaker.State) {
			switch to {
			case gobreaker.StateOpen:
				log.Warn("dependency unavailable: the requests that need it answer 503 until it is back", "dependency", name, "from", from.String())
			case gobreaker.StateClosed:
				log.Info("dependency available again", "dependency", name)
			}
		},
	})}
}

// Do runs op if the circuit lets it, and records its outcome. A refused
// call returns an EUnavailable error wrapping ErrOpen, with a retry hint.
func (b *Breaker) Do(op func() error) error {
	done, err := b.cb.Allow()
	if err != nil {
		return sparrow.Unavailable(errors.Join(ErrOpen, err), OpenFor, "%s unavailable", b.name)
	}
	err = op()
	done(err)
	return err
}

// Up returns 1 while the circuit is closed, 0.5 while a probe is allowed,
// and 0 while it is open.
func (b *Breaker) Up() float64 {
	switch b.cb.State() {
	case gobreaker.StateClosed:
		return 1
	case gobreaker.StateHalfOpen:
		return 0.5
	}
	return 0
}
