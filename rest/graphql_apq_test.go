package rest_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPersistedQueryMistakes checks that automatic persisted queries a client got wrong (a query
// that does not match its hash, extension data of another shape, a version the server does not
// speak) are the client's error, answered invalid_body, and are not logged as the server's.
func TestPersistedQueryMistakes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	query := `{ events(first: 1) { totalCount } }`
	sum := sha256.Sum256([]byte(query))
	hash := hex.EncodeToString(sum[:])

	for name, ext := range map[string]any{
		"hash mismatch":       map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(make([]byte, 32))},
		"unsupported version": map[string]any{"version": 2, "sha256Hash": hash},
		"invalid extension":   "not an object",
	} {
		r := b.do(http.MethodPost, "/graphql", b.acme, map[string]any{
			"query": query, "extensions": map[string]any{"persistedQuery": ext},
		})
		out := gqlResponse{Status: r.Status, Raw: r.Raw}
		require.NoError(t, json.Unmarshal([]byte(r.Raw), &out), r.Raw)
		require.Equal(t, []string{"invalid_body"}, out.Codes(), "%s: %s", name, r.Raw)
		require.Nil(t, out.Data, name)
	}
	// The matching hash still works, and the hash alone then finds the query.
	b.gqlOK(b.acme, query, nil)
	r := b.do(http.MethodPost, "/graphql", b.acme, map[string]any{
		"query": query, "extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}},
	})
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	r = b.do(http.MethodPost, "/graphql", b.acme, map[string]any{
		"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}},
	})
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Contains(t, r.Raw, `"totalCount"`)
	require.NotContains(t, b.logs.String(), `"level":"ERROR"`)
}
