package rest_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func TestMetrics(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	b.must(http.StatusOK, http.MethodPost, w.base+"/speakers/invite", b.acme, map[string]any{"contactIds": []any{w.ada}})
	b.gqlOK(b.acme, `query Board($e: ID!) { event(id: $e) { name } }`, map[string]any{"e": w.event})
	b.gql(b.globex, `query Board($e: ID!) { event(id: $e) { name } }`, map[string]any{"e": w.event})
	b.do(http.MethodGet, "/api/v1/nowhere", b.acme, nil)

	res := serveTo(b.operator(operatorToken), b.request(http.MethodGet, "/metrics", "Bearer "+operatorToken))
	require.Equal(t, http.StatusOK, res.Code, "the operator listener serves the metrics")
	body := res.Body.String()
	for _, want := range []string{
		`podium_http_requests_total{method="POST",route="/api/v1/events",status="201"}`,
		`podium_http_requests_total{method="GET",route="/api/v1/*",status="404"}`,
		`podium_http_request_duration_seconds_bucket{method="POST",route="/api/v1/events/{eventId}/speakers",le="`,
		`podium_http_request_sql_statements_bucket{route="/api/v1/events/{eventId}/speakers/invite",le="`,
		`podium_graphql_operations_total{operation="Board",type="query"} 2`,
		`podium_graphql_errors_total{code="forbidden",operation="Board"} 1`,
		`podium_db_pool_connections{state="max"} 8`,
		`podium_db_statements_total `,
		`podium_river_jobs{kind="deliver_email",state="available"} 1`,
		`podium_emails{status="queued"} 1`,
		`go_goroutines `,
	} {
		require.Contains(t, body, want)
	}
	require.NotContains(t, body, b.acme[4:], "no key in metrics")
}

// traceRecorder keeps the spans of the traces whose HTTP request id starts with prefix, so the
// spans of tests running alongside do not pile up.
type traceRecorder struct {
	prefix string
	mu     sync.Mutex
	traces map[trace.TraceID]bool
	spans  []sdktrace.ReadOnlySpan
}

func (r *traceRecorder) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	for _, a := range s.Attributes() {
		if a.Key == "podium.request_id" && strings.HasPrefix(a.Value.AsString(), r.prefix) {
			r.mu.Lock()
			r.traces[s.SpanContext().TraceID()] = true
			r.mu.Unlock()
		}
	}
}

func (r *traceRecorder) OnEnd(s sdktrace.ReadOnlySpan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.traces[s.SpanContext().TraceID()] {
		r.spans = append(r.spans, s)
	}
}

func (*traceRecorder) Shutdown(context.Context) error   { return nil }
func (*traceRecorder) ForceFlush(context.Context) error { return nil }

func (r *traceRecorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.spans {
		out = append(out, s.Name())
	}
	return out
}

func (r *traceRecorder) attr(name string, key attribute.Key) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.spans {
		if s.Name() == name {
			for _, a := range s.Attributes() {
				if a.Key == key {
					return a.Value.String()
				}
			}
		}
	}
	return ""
}

// TestTracing installs a tracer provider for the whole test binary (OpenTelemetry's global
// provider can be set only once); its recorder keeps only this test's traces.
func TestTracing(t *testing.T) {
	t.Parallel()
	rec := &traceRecorder{prefix: "trace-test-", traces: map[trace.TraceID]bool{}}
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	b := setup(t)
	w := b.world()
	get := b.request(http.MethodGet, w.base+"/sessions", "Bearer "+b.acme)
	get.Header.Set("X-Request-Id", "trace-test-sessions")
	require.Equal(t, http.StatusOK, b.sendRaw(get).Code)
	gql := b.request(http.MethodPost, "/graphql", "Bearer "+b.acme)
	gql.Header.Set("X-Request-Id", "trace-test-graphql")
	gql.Header.Set("Content-Type", "application/json")
	gql.Body = readCloser(`{"query":"query Speakers($e: ID!) { event(id: $e) { speakerDirectory { csv } } }","variables":{"e":"` + w.event + `"}}`)
	require.Equal(t, http.StatusOK, b.sendRaw(gql).Code)

	names := rec.names()
	require.Contains(t, names, "GET /api/v1/events/{eventId}/sessions")
	require.Contains(t, names, "POST /graphql")
	require.Contains(t, names, "graphql query Speakers")
	require.Contains(t, names, "graphql.resolve Event.speakerDirectory")
	require.Contains(t, names, "SQL SELECT")
	require.Equal(t, "200", rec.attr("GET /api/v1/events/{eventId}/sessions", "http.response.status_code"))
	require.NotEmpty(t, rec.attr("SQL SELECT", "db.query.text"))
	logMu.Lock()
	defer logMu.Unlock()
	require.Contains(t, b.logs.String(), `"trace_id":"`)
}

func readCloser(s string) *nopCloser { return &nopCloser{strings.NewReader(s)} }

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }
