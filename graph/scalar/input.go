package scalar

import (
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
)

// InputError says an input value has the wrong form. Transports put the field's name in front of
// Reason ("name must be a string") and answer with Code.
type InputError struct {
	Code   string
	Reason string
}

// Error returns the reason.
func (e *InputError) Error() string { return e.Reason }

// The input errors, with the codes REST answers for the same body (docs/rest-api.md §1).
var (
	ErrInvalidTime = &InputError{Code: "invalid_input", Reason: "is not a valid ISO date"}
	ErrNotString   = &InputError{Code: "invalid_body", Reason: "must be a string"}
	ErrNotInt      = &InputError{Code: "invalid_body", Reason: "must be a whole number between -2147483648 and 2147483647"}
	ErrNotFloat    = &InputError{Code: "invalid_body", Reason: "must be a finite number"}
	ErrNotBoolean  = &InputError{Code: "invalid_body", Reason: "must be true or false"}
)

// gqlgen's built-in scalars coerce liberally (42 becomes "42", "7" becomes 7). Podium's follow the
// GraphQL specification strictly instead, which is also exactly what the REST layer accepts, so a
// body is valid over one transport if and only if it is valid over the other.

// MarshalString writes a String.
func MarshalString(s string) graphql.Marshaler { return graphql.MarshalString(s) }

// UnmarshalString accepts only strings.
func UnmarshalString(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", ErrNotString
}

// MarshalID writes an ID.
func MarshalID(s string) graphql.Marshaler { return graphql.MarshalString(s) }

// UnmarshalID accepts only strings: Podium's ids are never numbers.
func UnmarshalID(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", ErrNotString
}

// MarshalInt writes an Int.
func MarshalInt(i int) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { _, _ = io.WriteString(w, strconv.Itoa(i)) })
}

// UnmarshalInt accepts whole numbers in the 32-bit range, not numeric strings.
func UnmarshalInt(v any) (int, error) {
	if n, ok := v.(json.Number); ok {
		if i, err := strconv.ParseInt(string(n), 10, 32); err == nil {
			return int(i), nil
		}
	}
	f, ok := number(v)
	if !ok || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, ErrNotInt
	}
	return int(f), nil
}

// MarshalFloat writes a Float.
func MarshalFloat(f float64) graphql.Marshaler { return graphql.MarshalFloat(f) }

// UnmarshalFloat accepts finite numbers, not numeric strings.
func UnmarshalFloat(v any) (float64, error) {
	f, ok := number(v)
	if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, ErrNotFloat
	}
	return f, nil
}

// number reads a numeric input: a literal of the document (int64 or float64) or a JSON number
// of the variables.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// MarshalBoolean writes a Boolean.
func MarshalBoolean(b bool) graphql.Marshaler { return graphql.MarshalBoolean(b) }

// UnmarshalBoolean accepts only true and false.
func UnmarshalBoolean(v any) (bool, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return false, ErrNotBoolean
}
