package http

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routeUnmatched labels requests that matched no route (404, 405, redirects),
// so that raw paths never become label values.
const routeUnmatched = "unmatched"

// metrics are the HTTP layer's collectors, registered on one registry.
type metrics struct {
	gatherer prometheus.Gatherer
	duration *prometheus.HistogramVec
	partial  *prometheus.CounterVec
}

// newMetrics registers the collectors on reg, reusing those already
// registered by an earlier Handler call on the same registry.
func newMetrics(reg *prometheus.Registry) *metrics {
	d := register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sparrow_http_request_duration_seconds",
		Help:    "Duration of HTTP requests by route pattern and status code.",
		Buckets: prometheus.DefBuckets,
	}, []string{"route", "code"}))
	p := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sparrow_partial_responses_total",
		Help: "Answers that left out what an unavailable store holds (marked X-Sparrow-Partial), by route pattern.",
	}, []string{"route"}))
	return &metrics{gatherer: reg, duration: d, partial: p}
}

// register registers c on reg, or returns the collector of the same name
// registered already.
func register[C prometheus.Collector](reg *prometheus.Registry, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			panic(err) // a conflicting collector of the same name: a wiring bug
		}
		return are.ExistingCollector.(C)
	}
	return c
}

// instrument observes the duration of every request, labelled with its
// route pattern (as registered, e.g. "GET /api/v1/statuses/{id}", or
// "unmatched") and status code.
func (m *metrics) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx, info := withRequestInfo(r.Context())
		rw := wrapWriter(w)
		defer func() {
			route := info.route
			if route == "" {
				route = routeUnmatched
			}
			m.duration.WithLabelValues(route, strconv.Itoa(rw.Status())).Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(rw, r.WithContext(ctx))
	})
}

// handler serves the registry in the Prometheus exposition format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.gatherer, promhttp.HandlerOpts{})
}
