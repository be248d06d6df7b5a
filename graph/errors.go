package graph

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

// ErrorOf translates what an operation returned into the caller's error, once, for both
// transports: Podium's own errors pass through; PostgreSQL out of reach is unavailable
// (dbx.Unavailable); ent's validation, not-found and constraint errors
// become invalid_input, not_found and conflict; anything else is internal (ok is false then, and
// the caller logs err).
func ErrorOf(err error) (e *apperr.Error, ok bool) {
	if e, ok := apperr.As(err); ok {
		return e, true
	}
	var ve *ent.ValidationError
	if errors.As(err, &ve) {
		// A schema validator's failure wraps the validator's error, whose innermost error is a
		// sentence written for callers. ent's other validation errors (a required field missing,
		// an unknown field to order by) wrap nothing: an operation forgot or misnamed a field, a
		// bug rather than bad input.
		cause := errors.Unwrap(errors.Unwrap(ve))
		if cause == nil {
			return apperr.Internal(), false
		}
		for errors.Unwrap(cause) != nil {
			cause = errors.Unwrap(cause)
		}
		return apperr.Invalid("%s", cause.Error()), true
	}
	if ent.IsNotFound(err) {
		return apperr.NotFound("Record"), true
	}
	if dbx.Unavailable(err) {
		return apperr.Unavailable(), true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && strings.HasPrefix(pgErr.Code, "22") {
		// Class 22 is "data exception": a NUL byte, an out-of-range number — input PostgreSQL
		// cannot store, which the operation layer let through.
		return apperr.Invalid("A value in the request cannot be stored"), true
	}
	if ent.IsConstraintError(err) || (pgErr != nil && strings.HasPrefix(pgErr.Code, "23")) {
		return apperr.Conflict(apperr.CodeConflict, "This change conflicts with existing data"), true
	}
	var ie *scalar.InputError
	if errors.As(err, &ie) {
		return apperr.New(http.StatusBadRequest, ie.Code, "A value "+ie.Reason), true
	}
	return apperr.Internal(), false
}

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
		e, ok := ErrorOf(cause)
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
