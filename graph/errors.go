package graph

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/graph/scalar"
)

// presentError is gqlgen's error presenter: every error leaves with extensions.code. gqlgen's own
// parse and validation failures get snake_case codes; variables of the wrong shape get
// invalid_body, as the same body would over REST.
func presentError(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		if gqlErr.Extensions == nil {
			gqlErr.Extensions = map[string]any{}
		}
		if code, ok := gqlErr.Extensions["code"].(string); ok && gqlErr.Err == nil {
			switch {
			case code == errcode.ValidationFailed && gqlErr.Rule == "" && len(gqlErr.Path) > 0 &&
				gqlErr.Path[0] == (ast.PathName("variable")):
				gqlErr.Extensions["code"] = apperr.CodeInvalidBody
			case code == errcode.ValidationFailed:
				gqlErr.Extensions["code"] = apperr.CodeGraphQLValidationFailed
			case code == errcode.ParseFailed:
				gqlErr.Extensions["code"] = apperr.CodeGraphQLParseFailed
			default:
				// gqlgen's extensions (complexity limit, persisted queries) use upper case.
				gqlErr.Extensions["code"] = strings.ToLower(code)
			}
			return gqlErr
		}
		cause := gqlErr.Err
		if cause == nil {
			cause = err
		}
		if errors.Is(cause, context.DeadlineExceeded) || errors.Is(cause, context.Canceled) {
			// The request's budget ran out or its client left (Limits.Budget): whatever failed
			// because of it failed for that reason, not for its own.
			cause = contextError(cause)
		}
		e, ok := operation.ErrorOf(cause)
		if !ok {
			log.ErrorContext(ctx, "graphql: operation failed", "err", cause, "path", gqlErr.Path.String())
		}
		gqlErr.Message = e.Message
		var ie *scalar.InputError
		if errors.As(cause, &ie) && len(gqlErr.Path) > 0 {
			// An input value of the wrong form: name the field, as REST does.
			if name, ok := gqlErr.Path[len(gqlErr.Path)-1].(ast.PathName); ok {
				gqlErr.Message = string(name) + " " + ie.Reason
			}
		}
		for k, v := range e.Details {
			gqlErr.Extensions[k] = v
		}
		gqlErr.Extensions["code"] = e.Code
		return gqlErr
	}
}

// recoverPanic logs a resolver's panic with its stack and answers internal_error.
func recoverPanic(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		log.ErrorContext(ctx, "graphql: panic", "panic", p, "stack", string(debug.Stack()))
		return apperr.Internal()
	}
}
