package app

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sparrow/inmem"
	"sparrow/sqlite"
	"sparrow/sqlstore"
)

// feedMetrics is the Prometheus side of service.FeedObserver.
type feedMetrics struct {
	lag       prometheus.Histogram
	delivered prometheus.Counter
	rebuild   prometheus.Histogram
}

func newFeedMetrics(reg prometheus.Registerer) (*feedMetrics, error) {
	m := &feedMetrics{
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sparrow_fanout_lag_seconds",
			Help:    "Time from a status being posted to its delivery into follower inboxes (per delivery chunk).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}}),
		delivered: prometheus.NewCounter(prometheus.CounterOpts{Name: "sparrow_fanout_inbox_inserts_total",
			Help: "Inbox insertions made by the fan-out."}),
		rebuild: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sparrow_inbox_rebuild_seconds",
			Help:    "Background inbox rebuilds by pull (returning or new readers).",
			Buckets: prometheus.DefBuckets}),
	}
	for _, c := range []prometheus.Collector{m.lag, m.delivered, m.rebuild} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *feedMetrics) Delivered(n int, lag time.Duration) {
	m.delivered.Add(float64(n))
	m.lag.Observe(lag.Seconds())
}

func (m *feedMetrics) Rebuilt(d time.Duration) { m.rebuild.Observe(d.Seconds()) }

// registerStoreMetrics registers sparrow_store_up{store}: 1 while a store's
// circuit is closed, 0.5 while a probe is allowed, 0 while it is open (see
// sqlstore.Guard; stores without a breaker, SQLite files, are left out),
// and sparrow_store_prepared_statements{store}.
func registerStoreMetrics(reg prometheus.Registerer, dbs []*sqlstore.DB) error {
	up := prometheus.NewDesc("sparrow_store_up", "Circuit state of a physical store: 1 closed, 0.5 half open, 0 open.", []string{"store"}, nil)
	if err := reg.Register(collectorFunc{desc: up, collect: func(ch chan<- prometheus.Metric) {
		for _, db := range dbs {
			if db.Guard != nil {
				ch <- prometheus.MustNewConstMetric(up, prometheus.GaugeValue, db.Guard.Up(), db.Name)
			}
		}
	}}); err != nil {
		return err
	}
	for _, db := range dbs {
		if db.Dialect.Name == sqlite.Dialect.Name {
			if err := registerSQLiteMemory(reg); err != nil {
				return err
			}
			break
		}
	}
	stmts := prometheus.NewDesc("sparrow_store_prepared_statements", "Statements a store's read pool keeps prepared (on each connection that ran them).", []string{"store"}, nil)
	return reg.Register(collectorFunc{desc: stmts, collect: func(ch chan<- prometheus.Metric) {
		for _, db := range dbs {
			ch <- prometheus.MustNewConstMetric(stmts, prometheus.GaugeValue, float64(db.Statements()), db.Name)
		}
	}})
}

// registerSQLiteMemory registers sparrow_sqlite_memory_bytes and
// sparrow_sqlite_memory_highwater_bytes: what SQLite holds in this process,
// for every embedded store (its page caches, statements and scratch; see
// sqlite.HeapLimit).
func registerSQLiteMemory(reg prometheus.Registerer) error {
	if err := reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sparrow_sqlite_memory_bytes",
		Help: "Memory SQLite has allocated in this process (all embedded stores)."},
		func() float64 { now, _ := sqlite.MemoryUsed(); return float64(now) })); err != nil {
		return err
	}
	return reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sparrow_sqlite_memory_highwater_bytes",
		Help: "The most memory SQLite has held at once in this process."},
		func() float64 { _, hw := sqlite.MemoryUsed(); return float64(hw) }))
}

// registerLocalCacheMetrics registers sparrow_local_cache_bytes and
// sparrow_local_cache_keys: the fill of the in-process byte cache that
// stands in for Redis in the embedded deployment (bounded by
// inmem.DefaultMaxBytes and inmem.DefaultCapacity).
func registerLocalCacheMetrics(reg prometheus.Registerer, kv *inmem.KV) error {
	if err := reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sparrow_local_cache_bytes",
		Help: "Bytes charged to the keys of the in-process cache."}, func() float64 { return float64(kv.Bytes()) })); err != nil {
		return err
	}
	return reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sparrow_local_cache_keys",
		Help: "Keys held by the in-process cache."}, func() float64 { return float64(kv.Len()) }))
}

// collectorFunc is a prometheus.Collector of one description.
type collectorFunc struct {
	desc    *prometheus.Desc
	collect func(chan<- prometheus.Metric)
}

func (c collectorFunc) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }
func (c collectorFunc) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }
