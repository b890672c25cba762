package relay

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sparrow"
)

// lagTimeout bounds the OldestPending queries of a scrape.
const lagTimeout = 2 * time.Second

// metrics are a relay's Prometheus metrics, labelled by store.
type metrics struct {
	r              *Relay
	lag            *prometheus.Desc
	published      *prometheus.CounterVec
	errors         *prometheus.CounterVec
	publishSeconds *prometheus.HistogramVec
	leaseHeld      *prometheus.GaugeVec
}

func newMetrics(r *Relay) *metrics {
	return &metrics{
		r: r,
		lag: prometheus.NewDesc("sparrow_outbox_lag_seconds",
			"Age of the oldest event not yet published from the store's outbox (0 when empty).",
			[]string{"store"}, nil),
		published: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sparrow_outbox_published_total",
			Help: "Events published to the bus and removed from the store's outbox by this process.",
		}, []string{"store"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sparrow_outbox_errors_total",
			Help: "Failed relay steps (lease, read, publish, mark), each retried.",
		}, []string{"store", "step"}),
		publishSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sparrow_outbox_publish_duration_seconds",
			Help:    "Time to publish a batch of events until the bus acknowledged all of them.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14), // 0.5ms to 4s
		}, []string{"store"}),
		leaseHeld: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "sparrow_outbox_lease_held",
			Help: "1 if this process holds the store's relay lease, else 0.",
		}, []string{"store"}),
	}
}

// Describe implements prometheus.Collector.
func (r *Relay) Describe(ch chan<- *prometheus.Desc) {
	m := r.metrics
	ch <- m.lag
	m.published.Describe(ch)
	m.errors.Describe(ch)
	m.publishSeconds.Describe(ch)
	m.leaseHeld.Describe(ch)
}

// Collect implements prometheus.Collector. It asks every outbox for its
// oldest pending event (within a short timeout; a store that does not answer
// has no lag sample in this scrape).
func (r *Relay) Collect(ch chan<- prometheus.Metric) {
	m := r.metrics
	m.published.Collect(ch)
	m.errors.Collect(ch)
	m.publishSeconds.Collect(ch)
	m.leaseHeld.Collect(ch)

	ctx, cancel := context.WithTimeout(context.Background(), lagTimeout)
	defer cancel()
	now := r.opts.Clock.Now()
	var wg sync.WaitGroup
	for _, l := range r.loops {
		wg.Go(func() {
			oldest, err := l.ob.OldestPending(ctx)
			if err != nil {
				l.log.Warn("relay: outbox lag unknown", "err", err)
				return
			}
			ch <- prometheus.MustNewConstMetric(m.lag, prometheus.GaugeValue, lag(now, oldest), l.name)
		})
	}
	wg.Wait()
}

// lag is the age of oldest at now in seconds, 0 for the zero time.
func lag(now, oldest time.Time) float64 {
	if oldest.IsZero() || !now.After(oldest) {
		return 0
	}
	return now.Sub(oldest).Seconds()
}

// Register registers the relay's metrics with reg: sparrow_outbox_lag_seconds,
// sparrow_outbox_published_total, sparrow_outbox_errors_total,
// sparrow_outbox_publish_duration_seconds and sparrow_outbox_lease_held, all
// labelled by store. It fails if two outboxes have the same name.
func (r *Relay) Register(reg prometheus.Registerer) error {
	seen := map[string]bool{}
	for _, l := range r.loops {
		if seen[l.name] {
			return sparrow.Errorf(sparrow.EInvalid, "relay: two outboxes are named %q", l.name)
		}
		seen[l.name] = true
		// Export the series from the start, at zero.
		r.metrics.published.WithLabelValues(l.name)
		r.metrics.leaseHeld.WithLabelValues(l.name)
	}
	if err := reg.Register(r); err != nil {
		return sparrow.WrapError(sparrow.EInternal, err, "relay: register metrics")
	}
	return nil
}

var _ prometheus.Collector = (*Relay)(nil)
