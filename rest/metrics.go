package rest

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
)

// Metrics are Podium's Prometheus metrics, served at /metrics: HTTP requests by route, GraphQL
// operations and their errors, the database pool, River's jobs by kind and state, emails by
// status, and Go's runtime. Counts that live in the database are read when Prometheus scrapes, at
// most every countsTTL, so a busy scraper cannot make the database busy.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	queries   *prometheus.HistogramVec
	gqlOps    *prometheus.CounterVec
	gqlErrors *prometheus.CounterVec
	opNames   *labelSet
}

// maxOperationNames bounds the GraphQL operation names that get series of their own. An
// operation's name is the client's to choose: counted as it comes, one client sending random
// names adds series (memory in Podium and in Prometheus) without end. The names Podium's own
// tools send, then the first names seen up to this bound, keep their own series; the rest count
// as "other".
const maxOperationNames = 100

// knownOperationNames are the operation names Podium's own pages and tools send (GraphiQL's
// schema query) and the name of unnamed operations, kept whatever came first.
var knownOperationNames = []string{"anonymous", "IntrospectionQuery"}

// maxOperationNameLen is the longest operation name given a series of its own.
const maxOperationNameLen = 64

// labelSet admits label values first come, first served, up to a bound.
type labelSet struct {
	mu    sync.Mutex
	max   int
	known map[string]bool
	seen  map[string]bool
}

// value returns v when it has, or may now get, a series of its own, and "other" when not.
func (s *labelSet) value(v string) string {
	if v == "" || s.known[v] {
		return v
	}
	if len(v) > maxOperationNameLen {
		return "other"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.seen[v] {
		if len(s.seen) >= s.max {
			return "other"
		}
		s.seen[v] = true
	}
	return v
}

// methodLabel is the method label of a request: an HTTP method is also the client's to choose.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "OTHER"
}

// NewMetrics registers the metrics of the server on db; more adds other packages' collectors
// (jobs.Collectors).
func NewMetrics(db *dbx.DB, more ...prometheus.Collector) *Metrics {
	known := map[string]bool{"other": true}
	for _, n := range knownOperationNames {
		known[n] = true
	}
	m := &Metrics{
		reg:     prometheus.NewRegistry(),
		opNames: &labelSet{max: maxOperationNames, known: known, seen: map[string]bool{}},
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podium_http_requests_total", Help: "HTTP requests answered, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "podium_http_request_duration_seconds", Help: "HTTP request latency, by route pattern and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
		queries: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "podium_http_request_sql_statements", Help: "SQL statements an HTTP request sent, by route pattern.",
			Buckets: []float64{0, 1, 2, 4, 8, 16, 32, 64, 128},
		}, []string{"route"}),
		gqlOps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podium_graphql_operations_total", Help: "GraphQL operations answered, by operation name and type.",
		}, []string{"operation", "type"}),
		gqlErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podium_graphql_errors_total", Help: "Errors in GraphQL answers, by operation name and code.",
		}, []string{"operation", "code"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.queries, m.gqlOps, m.gqlErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&dbCollector{db: db})
	m.reg.MustRegister(more...)
	return m
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// observeRequest counts an answered HTTP request.
func (m *Metrics) observeRequest(route, method string, status int, took time.Duration, statements int64) {
	if route == "" {
		route = "unmatched"
	}
	method = methodLabel(method)
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route, method).Observe(took.Seconds())
	m.queries.WithLabelValues(route).Observe(float64(statements))
}

// ObserveGraphQL counts an answered GraphQL operation (graph.HandlerOptions.Observe).
func (m *Metrics) ObserveGraphQL(_ context.Context, name, typ string, codes []string) {
	name = m.opNames.value(name)
	m.gqlOps.WithLabelValues(name, typ).Inc()
	for _, c := range codes {
		m.gqlErrors.WithLabelValues(name, c).Inc()
	}
}

// countsTTL is how long the database's counts are reused between scrapes.
const countsTTL = 10 * time.Second

// dbCollector reports the connection pool, the statements sent, and the counts kept in the
// database: River's jobs by kind and state, and emails by status (of every organization: these
// metrics are for operators).
type dbCollector struct {
	db *dbx.DB

	mu     sync.Mutex
	at     time.Time
	jobs   map[[2]string]float64
	emails map[string]float64
}

var (
	descConns = prometheus.NewDesc("podium_db_pool_connections",
		"Connections of the database pool, by state (acquired, idle, constructing) and the maximum.", []string{"state"}, nil)
	descAcquires = prometheus.NewDesc("podium_db_pool_acquires_total",
		"Connections acquired from the pool, and those that had to wait (empty_acquire).", []string{"kind"}, nil)
	descAcquireWait = prometheus.NewDesc("podium_db_pool_acquire_wait_seconds_total",
		"Time spent waiting for a connection.", nil, nil)
	descStatements = prometheus.NewDesc("podium_db_statements_total", "SQL statements sent through the pool.", nil, nil)
	descJobs       = prometheus.NewDesc("podium_river_jobs",
		"River jobs in the database, by kind and state.", []string{"kind", "state"}, nil)
	descEmails = prometheus.NewDesc("podium_emails", "Emails in the email log, by status.", []string{"status"}, nil)
)

// Describe lists the metrics.
func (c *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descConns, descAcquires, descAcquireWait, descStatements, descJobs, descEmails} {
		ch <- d
	}
}

// Collect reads them.
func (c *dbCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.db.Pool.Stat()
	for state, v := range map[string]int32{"acquired": st.AcquiredConns(), "idle": st.IdleConns(),
		"constructing": st.ConstructingConns(), "max": st.MaxConns()} {
		ch <- prometheus.MustNewConstMetric(descConns, prometheus.GaugeValue, float64(v), state)
	}
	ch <- prometheus.MustNewConstMetric(descAcquires, prometheus.CounterValue, float64(st.AcquireCount()), "acquire")
	ch <- prometheus.MustNewConstMetric(descAcquires, prometheus.CounterValue, float64(st.EmptyAcquireCount()), "empty_acquire")
	ch <- prometheus.MustNewConstMetric(descAcquireWait, prometheus.CounterValue, st.AcquireDuration().Seconds())
	ch <- prometheus.MustNewConstMetric(descStatements, prometheus.CounterValue, float64(c.db.Queries.Load()))

	jobs, emails := c.counts()
	for k, v := range jobs {
		ch <- prometheus.MustNewConstMetric(descJobs, prometheus.GaugeValue, v, k[0], k[1])
	}
	for status, v := range emails {
		ch <- prometheus.MustNewConstMetric(descEmails, prometheus.GaugeValue, v, status)
	}
}

// counts returns the database's counts, read again when older than countsTTL. A failed read keeps
// the last counts.
func (c *dbCollector) counts() (map[[2]string]float64, map[string]float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) < countsTTL {
		return c.jobs, c.emails
	}
	ctx, cancel := context.WithTimeout(viewer.System(context.Background(), "metrics: emails by status, all organizations"), 2*time.Second)
	defer cancel()
	jobs, emails := map[[2]string]float64{}, map[string]float64{}
	var kind, state string
	var n int64
	rows, _ := c.db.System.Query(ctx, `SELECT kind, state::text, count(*) FROM river_job GROUP BY kind, state`)
	if _, err := pgx.ForEachRow(rows, []any{&kind, &state, &n}, func() error {
		jobs[[2]string{kind, state}] = float64(n)
		return nil
	}); err != nil {
		return c.jobs, c.emails
	}
	rows, _ = c.db.System.Query(ctx, `SELECT status, count(*) FROM email_log GROUP BY status`)
	if _, err := pgx.ForEachRow(rows, []any{&state, &n}, func() error {
		emails[state] = float64(n)
		return nil
	}); err != nil {
		return c.jobs, c.emails
	}
	c.at, c.jobs, c.emails = time.Now(), jobs, emails
	return jobs, emails
}
