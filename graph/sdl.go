package graph

import (
	"bytes"
	"sync"

	"github.com/vektah/gqlparser/v2/formatter"
)

var sdl = sync.OnceValue(func() string {
	var b bytes.Buffer
	formatter.NewFormatter(&b, formatter.WithIndent("  ")).FormatSchema(NewExecutableSchema(Config{}).Schema())
	return b.String()
})

// SDL is the whole GraphQL schema — entgql's generated part and the hand-written files together —
// as served at /graphql/schema.graphql and committed as docs/schema.graphql.
func SDL() string { return sdl() }
