package graph

import (
	"bytes"
	"sync"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
)

var sdl = sync.OnceValue(func() string {
	var b bytes.Buffer
	formatter.NewFormatter(&b, formatter.WithIndent("  ")).FormatSchema(Schema())
	return b.String()
})

// SDL is the whole GraphQL schema — entgql's generated part and the hand-written files together —
// as served at /graphql/schema.graphql and committed as docs/schema.graphql.
func SDL() string { return sdl() }

// schema is the parsed schema, shared by every caller of Schema.
var schema = sync.OnceValue(func() *ast.Schema { return NewExecutableSchema(Config{}).Schema() })

// Schema is the whole GraphQL schema, parsed: what REST checks its bodies against and what its
// OpenAPI document describes them with.
func Schema() *ast.Schema { return schema() }
