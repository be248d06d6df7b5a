package graph

import (
	"context"
	"sync"

	"github.com/podium/podium/graph/operation"

	"github.com/99designs/gqlgen/graphql"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ObserveFunc is told of every GraphQL operation once it is answered: its name ("anonymous"
// without one), its type (query, mutation) and the extensions.code of each error.
type ObserveFunc func(ctx context.Context, name, typ string, errorCodes []string)

var tracer = otel.Tracer("github.com/podium/podium/graph")

// telemetry traces operations (a span each) and the resolvers of fields outside lists — a field
// resolved once per item of a list of thousands would bury the trace — and reports every answered
// operation to observe, or to the observer the request's context carries (WithObserver).
type telemetry struct {
	observe ObserveFunc
	// spans holds each running operation's span: gqlgen resolves some fields with a context
	// that does not descend from the one the operation was given, so resolvers find their
	// parent here.
	spans *sync.Map
}

type observerKey struct{}

// WithObserver returns ctx carrying observe, which the GraphQL handler tells of the operation it
// answers (the REST router's metrics use it).
func WithObserver(ctx context.Context, observe ObserveFunc) context.Context {
	return context.WithValue(ctx, observerKey{}, observe)
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
	graphql.FieldInterceptor
} = telemetry{}

// ExtensionName names the extension.
func (telemetry) ExtensionName() string { return "PodiumTelemetry" }

// Validate accepts any schema.
func (telemetry) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse spans and reports an operation.
func (t telemetry) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if !graphql.HasOperationContext(ctx) || isSubscription(ctx) { // an event's time is mostly waiting
		return next(ctx)
	}
	oc := graphql.GetOperationContext(ctx)
	name, typ := oc.OperationName, "query"
	if oc.Operation != nil {
		typ = string(oc.Operation.Operation)
		if name == "" {
			name = oc.Operation.Name
		}
	}
	if name == "" {
		name = "anonymous"
	}
	ctx, span := tracer.Start(ctx, "graphql "+typ+" "+name, trace.WithAttributes(
		attribute.String("graphql.operation.name", name), attribute.String("graphql.operation.type", typ)))
	if span.IsRecording() {
		t.spans.Store(oc, span)
		defer t.spans.Delete(oc)
	}
	resp := next(ctx)
	codesOf := make([]string, 0, len(resp.Errors))
	for _, e := range resp.Errors {
		c, _ := e.Extensions["code"].(string)
		codesOf = append(codesOf, c)
	}
	if len(codesOf) > 0 {
		span.SetStatus(codes.Error, "errors")
		span.SetAttributes(attribute.StringSlice("graphql.error.codes", codesOf))
	}
	span.End()
	if observe, ok := ctx.Value(observerKey{}).(ObserveFunc); ok {
		observe(ctx, name, typ, codesOf)
	} else if t.observe != nil {
		t.observe(ctx, name, typ, codesOf)
	}
	return resp
}

// InterceptField spans resolvers of fields that are not items of a list.
func (t telemetry) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !fc.IsResolver {
		return next(ctx)
	}
	if !trace.SpanFromContext(ctx).IsRecording() {
		op, ok := t.spans.Load(graphql.GetOperationContext(ctx))
		if !ok {
			return next(ctx)
		}
		ctx = trace.ContextWithSpan(ctx, op.(trace.Span))
	}
	if operation.InList(fc) {
		return next(ctx)
	}
	ctx, span := tracer.Start(ctx, "graphql.resolve "+fc.Object+"."+fc.Field.Name,
		trace.WithAttributes(attribute.String("graphql.field.path", fc.Path().String())))
	defer span.End()
	res, err := next(ctx)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "resolver failed")
	}
	return res, err
}
