package operation

import (
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

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
