package nats

import (
	"context"
	"errors"
	"strings"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"sparrow"
)

// Dead letters. An event that a consumer can never handle (its body is not
// an event, or its handler says sparrow.ErrMalformedEvent) is not
// redelivered forever, nor dropped silently: it is published, as received,
// on the dead-letter subject "<root>.dead.<consumer>", kept by a stream of
// its own (DeadStream: retained for DeadMaxAge, at most DeadMaxMsgs), with
// headers saying which consumer and why; it is logged and counted
// (sparrow_events_dead_total{consumer}); then it is terminated, so that the
// server stops redelivering it.

// Limits of the dead-letter stream.
const (
	DeadMaxAge  = 30 * 24 * time.Hour
	DeadMaxMsgs = 100000
)

// Headers of a dead letter.
const (
	DeadConsumerHeader = "Sparrow-Consumer"
	DeadReasonHeader   = "Sparrow-Reason"
	DeadSubjectHeader  = "Sparrow-Subject"
)

// DeadStream returns the name of the dead-letter stream of the bus.
func (b *Bus) DeadStream() string { return b.cfg.Stream + "_DEAD" }

// deadSubject returns the dead-letter subject of consumer.
func (b *Bus) deadSubject(consumer string) string {
	return strings.TrimSuffix(b.prefix, ".ev") + ".dead." + consumer
}

// ensureDeadStream creates or updates the dead-letter stream.
func (b *Bus) ensureDeadStream(ctx context.Context) error {
	_, err := b.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        b.DeadStream(),
		Description: "Sparrow events that a consumer could never handle",
		Subjects:    []string{b.deadSubject("*")},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Discard:     jetstream.DiscardOld,
		MaxAge:      DeadMaxAge,
		MaxMsgs:     DeadMaxMsgs,
	})
	if err != nil {
		return sparrow.WrapError(sparrow.EUnavailable, err, "nats: dead-letter stream %s", b.DeadStream())
	}
	return nil
}

// deadLetter sets m aside as consumer's dead letter (see above). If the
// dead letter cannot be published, m is left for redelivery: nothing is
// ever dropped.
func (c *consumer) deadLetter(ctx context.Context, m jetstream.Msg, reason error) {
	msg := natsgo.NewMsg(c.bus.deadSubject(c.name))
	msg.Data = m.Data()
	msg.Header.Set(DeadConsumerHeader, c.name)
	msg.Header.Set(DeadReasonHeader, reason.Error())
	msg.Header.Set(DeadSubjectHeader, m.Subject())
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ackTimeout)
	defer cancel()
	if _, err := c.bus.js.PublishMsg(pctx, msg); err != nil {
		c.log.Warn("nats: dead letter not published; the event will be redelivered", "subject", m.Subject(), "err", err)
		_ = m.NakWithDelay(c.opts.NakDelay)
		return
	}
	c.bus.dead.WithLabelValues(c.name).Inc()
	c.log.Error("nats: an event no handler can take was set aside as a dead letter",
		"subject", m.Subject(), "dead_letter_subject", msg.Subject, "reason", reason)
	_ = m.Term()
}

// malformed reports whether a handler's error says its event can never be
// handled.
func malformed(err error) bool { return errors.Is(err, sparrow.ErrMalformedEvent) }

// Register registers the bus's metrics on reg: sparrow_events_dead_total.
func (b *Bus) Register(reg prometheus.Registerer) error { return reg.Register(b.dead) }

// DeadLetters returns the counter of dead letters, by consumer.
func (b *Bus) DeadLetters() *prometheus.CounterVec { return b.dead }

func newDeadCounter() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sparrow_events_dead_total",
		Help: "Events set aside on the dead-letter subject by a consumer that can never handle them.",
	}, []string{"consumer"})
}

// DeleteStreams deletes the bus's streams, the events' and the dead
// letters', from the server: for the throwaway streams of tests and
// benchmarks on a shared server. Absent streams are not an error.
func (b *Bus) DeleteStreams(ctx context.Context) error {
	var errs []error
	for _, name := range []string{b.cfg.Stream, b.DeadStream()} {
		if err := b.js.DeleteStream(ctx, name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return sparrow.WrapError(sparrow.EUnavailable, err, "nats: delete streams")
	}
	return nil
}
