package rest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/graph/apperr"
)

// requestInfo collects what the request log line reports; handlers deeper down fill in the key.
type requestInfo struct {
	id    string
	keyID string
}

type infoKey struct{}

// noteKey records which API key made the request (its id, never the key).
func noteKey(ctx context.Context, keyID string) {
	if info, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		info.keyID = keyID
	}
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
	// queries, when set, is written as the Podium-Query-Count header with the status: the
	// statements the request sent to PostgreSQL before answering.
	queries *dbx.QueryCount
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
		if w.queries != nil {
			w.Header().Set(QueryCountHeader, strconv.FormatInt(w.queries.Load(), 10))
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// QueryCountHeader carries a response's SQL statement count when Options.QueryCountHeader is set.
const QueryCountHeader = "Podium-Query-Count"

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequests gives every request an id (echoed in X-Request-Id) and logs one line when it ends:
// method, route pattern, status, latency, SQL statements sent and the API key's id.
func (a *API) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &requestInfo{id: r.Header.Get("X-Request-Id")}
		if info.id == "" || len(info.id) > 64 {
			var b [8]byte
			_, _ = rand.Read(b[:])
			info.id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", info.id)
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path),
			attribute.String("podium.request_id", info.id)))
		ctx, queries := dbx.WithQueryCount(context.WithValue(ctx, infoKey{}, info))
		sw := &statusWriter{ResponseWriter: w}
		if a.queryHeader {
			sw.queries = queries
		}
		next.ServeHTTP(sw, r.WithContext(ctx))
		took := time.Since(start)
		route := ""
		if rc := chi.RouteContext(ctx); rc != nil {
			route = rc.RoutePattern()
		}
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		span.SetName(r.Method + " " + route)
		span.SetAttributes(attribute.String("http.route", route), attribute.Int("http.response.status_code", sw.status),
			attribute.Int64("podium.sql_statements", queries.Load()))
		if info.keyID != "" {
			span.SetAttributes(attribute.String("podium.api_key_id", info.keyID))
		}
		if sw.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(sw.status))
		}
		span.End()
		a.metrics.observeRequest(route, r.Method, sw.status, took, queries.Load())
		attrs := []any{"request_id", info.id, "method", r.Method, "route", route, "status", sw.status,
			"latency_ms", float64(took.Microseconds()) / 1000, "queries", queries.Load(), "api_key_id", info.keyID}
		if sc := span.SpanContext(); sc.IsValid() {
			attrs = append(attrs, "trace_id", sc.TraceID().String())
		}
		a.log.InfoContext(ctx, "request", attrs...)
	})
}

var tracer = otel.Tracer("github.com/podium/podium/rest")

// recoverPanics turns a handler's panic into a logged internal_error instead of a dropped
// connection.
func (a *API) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
					panic(p)
				}
				a.log.ErrorContext(r.Context(), "panic", "panic", p, "stack", string(debug.Stack()))
				a.writeError(w, r, apperr.Internal())
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// cheapFirst runs every request but GraphQL's in the resolver's lane (graph.Lane): while it is in
// flight, expensive GraphQL operations give way to it. GraphQL decides per operation, once it
// knows what the operation costs.
func (a *API) cheapFirst(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/graphql" && a.ops != nil {
			leave := a.ops.Lane.Enter()
			defer leave()
		}
		next.ServeHTTP(w, r)
	})
}
