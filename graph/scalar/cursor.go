package scalar

import (
	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
)

// ErrInvalidCursor answers a cursor the server never issued.
var ErrInvalidCursor = &InputError{Code: "invalid_input", Reason: "is not a cursor this API issued"}

// MarshalCursor writes a pagination cursor, as entgql does.
func MarshalCursor(c entgql.Cursor[string]) graphql.Marshaler { return c }

// UnmarshalCursor reads a pagination cursor. A value that is not one becomes an input error
// (invalid_input, "after is not a cursor this API issued") instead of a failure of the server.
func UnmarshalCursor(v any) (entgql.Cursor[string], error) {
	var c entgql.Cursor[string]
	if err := c.UnmarshalGQL(v); err != nil {
		return c, ErrInvalidCursor
	}
	return c, nil
}
