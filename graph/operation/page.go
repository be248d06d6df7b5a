package operation

import "entgo.io/contrib/entgql"

// Page selects a window of a connection, as Relay does: the first items after a cursor, or the
// last before one. The zero Page asks for the list's first page of its default size.
type Page struct {
	After  *entgql.Cursor[string]
	First  *int
	Before *entgql.Cursor[string]
	Last   *int
}
