package rest_test

import (
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSDL serves the whole schema at /graphql/schema.graphql, without a key, and holds it equal
// to the committed docs/schema.graphql (make generate writes it).
func TestSDL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.sendRaw(b.request(http.MethodGet, "/graphql/schema.graphql", ""))
	require.Equal(t, http.StatusOK, res.Code)
	require.Equal(t, "text/plain; charset=utf-8", res.Header().Get("Content-Type"))
	committed, err := os.ReadFile("../docs/schema.graphql")
	require.NoError(t, err)
	require.Equal(t, string(committed), res.Body.String(), "docs/schema.graphql is stale: run make generate")
	require.Contains(t, res.Body.String(), "type Event implements Node")
	require.Contains(t, res.Body.String(), "type Mutation {")
}
