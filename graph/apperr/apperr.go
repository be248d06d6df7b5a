// Package apperr is Podium's one error vocabulary. Operations return these errors; the REST layer
// writes them as the contract's envelope {"error":{"code","message"}} with Status, and the GraphQL
// error presenter puts Code in extensions.code. Anything else that escapes an operation is an
// internal error: logged in full, answered as internal_error without detail.
package apperr

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
)

// Codes of the contract (docs/rest-api.md §1). Callers match on these strings, so they never change.
const (
	CodeInvalidJSON               = "invalid_json"
	CodeInvalidBody               = "invalid_body"
	CodeInvalidInput              = "invalid_input"
	CodeUnknownAPIVersion         = "unknown_api_version"
	CodeNumericOutOfBounds        = "numeric_out_of_bounds"
	CodeDropdownValueNotInOptions = "dropdown_value_not_in_options"
	CodeMissingAPIKey             = "missing_api_key"
	CodeInvalidAPIKey             = "invalid_api_key"
	CodeForbidden                 = "forbidden"
	CodeNotFound                  = "not_found"
	CodeUnknownEndpoint           = "unknown_endpoint"
	CodeMethodNotAllowed          = "method_not_allowed"
	CodeAlreadyDecided            = "already_decided"
	CodeAlreadyRecused            = "already_recused"
	CodeAssignmentCapExceeded     = "assignment_cap_exceeded"
	CodeRoundClosed               = "round_closed"
	CodeResourceInUse             = "resource_in_use"
	CodeScheduleConflict          = "schedule_conflict"
	CodeFormClosed                = "form_closed"
	CodeSubmissionLimitReached    = "submission_limit_reached"
	CodeConflict                  = "conflict"
	CodePayloadTooLarge           = "payload_too_large"
	CodeIdempotencyKeyReused      = "idempotency_key_reused"
	CodeRateLimited               = "rate_limited"
	CodeUnavailable               = "unavailable"
	CodeInternal                  = "internal_error"
	CodeReviewGenerationError     = "review_generation_error"
	CodeGraphQLParseFailed        = "graphql_parse_failed"
	CodeGraphQLValidationFailed   = "graphql_validation_failed"
	CodeComplexityLimitExceeded   = "complexity_limit_exceeded"
)

// Codes of GraphQL answers only, for a document or request refused for its size or time.
const (
	// CodeGraphQLDocumentTooLarge refuses a document over a limit on its tokens, fields,
	// fragments, directives, variables or arguments, before it is validated.
	CodeGraphQLDocumentTooLarge = "graphql_document_too_large"
	// CodeTooManyErrors is the last error of a response whose other errors were left out.
	CodeTooManyErrors = "too_many_errors"
	// CodeRequestTimeout answers a request that ran out of its time budget.
	CodeRequestTimeout = "request_timeout"
	// CodeRequestCanceled answers a request whose client went away.
	CodeRequestCanceled = "request_canceled"
	// CodeStatementLimitExceeded answers a request that needed more SQL statements than one
	// request may send.
	CodeStatementLimitExceeded = "statement_limit_exceeded"
	// CodeResponseTooLarge answers a request whose answer would be larger than one answer may be.
	CodeResponseTooLarge = "response_too_large"
	// CodeInsufficientScope refuses an API key that lacks the scope an operation needs (403).
	CodeInsufficientScope = "insufficient_scope"
)

// Codes of GraphQL operations that have no REST operation.
const (
	// CodeContentLocked refuses a speaker's change to an accepted session's content once the
	// organizers have locked the event's content (lockSpeakerContent); 409 like form_closed.
	CodeContentLocked = "content_locked"
)

// Error is an error a caller is meant to see.
type Error struct {
	// Status is the HTTP status REST answers with.
	Status int
	// Code is the stable snake_case code.
	Code string
	// Message is a human sentence, safe to show.
	Message string
	// Details are facts about the error a client can act on, such as the conflicts that stopped
	// a publish; GraphQL carries them in extensions, next to the code. Nil for most errors.
	Details map[string]any
}

// With returns a copy of e with one more detail; e itself, which may be shared, is unchanged.
func (e *Error) With(key string, value any) *Error {
	out := *e
	out.Details = maps.Clone(e.Details)
	if out.Details == nil {
		out.Details = map[string]any{}
	}
	out.Details[key] = value
	return &out
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// New returns an error with the given status, code and message.
func New(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Invalid is a business validation failure (400 invalid_input).
func Invalid(format string, args ...any) *Error {
	return New(http.StatusBadRequest, CodeInvalidInput, fmt.Sprintf(format, args...))
}

// InvalidBody is a request body of the wrong shape: a required key missing, a wrong type, a
// value outside an enum (400 invalid_body).
func InvalidBody(format string, args ...any) *Error {
	return New(http.StatusBadRequest, CodeInvalidBody, fmt.Sprintf(format, args...))
}

// InvalidJSON is a request body that is not JSON at all (400 invalid_json).
func InvalidJSON() *Error {
	return New(http.StatusBadRequest, CodeInvalidJSON, "The request body is not valid JSON")
}

// NotFound says an entity of the accessible event does not exist (404 "<Entity> not found").
func NotFound(entity string) *Error {
	return New(http.StatusNotFound, CodeNotFound, entity+" not found")
}

// Forbidden refuses access (403 forbidden).
func Forbidden(message string) *Error {
	return New(http.StatusForbidden, CodeForbidden, message)
}

// EventForbidden is the answer for an event of another organization or one that does not exist:
// the two are indistinguishable, so ids of other tenants cannot be probed.
func EventForbidden() *Error { return Forbidden("You cannot access this event") }

// Conflict is a 409 with one of the contract's conflict codes.
func Conflict(code, message string) *Error {
	return New(http.StatusConflict, code, message)
}

// Internal hides a failure's detail from the caller; the detail belongs in the log.
func Internal() *Error {
	return New(http.StatusInternalServerError, CodeInternal, "Something went wrong handling this request")
}

// UnavailableRetryAfter is the Retry-After, in seconds, of an unavailable answer: a PostgreSQL
// restart or failover usually takes a few seconds, and a client retrying sooner only adds load.
const UnavailableRetryAfter = 2

// Unavailable says the database cannot be reached right now — down, restarting, or too busy to
// hand out a connection in time (503 unavailable, with Retry-After over REST). The request may be
// retried as it was; a write answered so may or may not have committed, which is what
// Idempotency-Key is for.
func Unavailable() *Error {
	return New(http.StatusServiceUnavailable, CodeUnavailable,
		"The service is temporarily unavailable; retry the request shortly")
}
