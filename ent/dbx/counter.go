package dbx

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// QueryCount counts the statements a piece of work sends. Tests use it to prove that a list costs
// the same number of queries whatever its length; the server reports it per request.
type QueryCount struct{ n atomic.Int64 }

// Load returns the number of statements counted so far.
func (c *QueryCount) Load() int64 { return c.n.Load() }

type countKey struct{}

// WithQueryCount returns a context whose statements are counted in the returned counter.
func WithQueryCount(ctx context.Context) (context.Context, *QueryCount) {
	c := new(QueryCount)
	return context.WithValue(ctx, countKey{}, c), c
}

// ErrStatementLimit is the cause of a context canceled by WithStatementLimit: the work sent more
// statements than it was allowed.
var ErrStatementLimit = errors.New("dbx: statement limit exceeded")

// statementLimit is what WithStatementLimit puts in a context.
type statementLimit struct {
	n      atomic.Int64
	max    int64
	cancel context.CancelCauseFunc
}

type limitKey struct{}

// WithStatementLimit returns a context that allows at most limit statements: the next one is not
// sent, and the context is canceled with cause ErrStatementLimit, so that everything else of the
// work stops too. It bounds what a request costs PostgreSQL however its shape multiplies the
// statements. Call cancel when the work is done.
func WithStatementLimit(ctx context.Context, limit int64) (_ context.Context, cancel context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(ctx)
	l := &statementLimit{max: limit, cancel: cancelCause}
	return context.WithValue(ctx, limitKey{}, l), func() { cancelCause(context.Canceled) }
}

// counter is the pool's tracer: it counts every statement, and those of contexts made by
// WithQueryCount once more there; inside a traced request it records each statement as an
// OpenTelemetry span (none are made outside one, so background polling does not flood traces).
type counter struct{ total *atomic.Int64 }

var tracer = otel.Tracer("github.com/podium/podium/ent/dbx")

// maxStatementAttr bounds the statement text recorded on a span.
const maxStatementAttr = 2000

// TraceQueryStart counts one statement and starts its span, or refuses it past the statement limit.
func (c counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if l, ok := ctx.Value(limitKey{}).(*statementLimit); ok && l.n.Add(1) > l.max {
		// pgx runs the statement with the context returned here: canceled, it is never sent and
		// the connection stays usable. A statement not sent is not counted, however many of the
		// work's goroutines try one at once.
		l.cancel(ErrStatementLimit)
		return ctx
	}
	c.total.Add(1)
	if qc, ok := ctx.Value(countKey{}).(*QueryCount); ok {
		qc.n.Add(1)
	}
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	sql := data.SQL
	if len(sql) > maxStatementAttr {
		sql = sql[:maxStatementAttr]
	}
	//nolint:spancheck // the span travels in ctx and is ended in TraceQueryEnd
	ctx, _ = tracer.Start(ctx, "SQL "+verb(data.SQL), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", "postgresql"), attribute.String("db.query.text", sql)))
	return ctx
}

// TraceQueryEnd ends the statement's span.
func (counter) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if data.Err != nil {
		span.RecordError(data.Err)
		span.SetStatus(codes.Error, "statement failed")
	}
	span.SetAttributes(attribute.Int64("db.response.returned_rows", data.CommandTag.RowsAffected()))
	span.End()
}

// verb is a statement's first word (SELECT, INSERT, …), a span name that groups well.
func verb(sql string) string {
	sql = strings.TrimSpace(sql)
	for strings.HasPrefix(sql, "--") {
		if i := strings.IndexByte(sql, '\n'); i >= 0 {
			sql = strings.TrimSpace(sql[i+1:])
		} else {
			return "statement"
		}
	}
	if i := strings.IndexAny(sql, " \n\t("); i > 0 {
		sql = sql[:i]
	}
	if sql == "" || len(sql) > 12 {
		return "statement"
	}
	return strings.ToUpper(sql)
}
