package graph

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// TestWriteResponse holds jsonPOST's writer to what gqlgen's transport writes (json.Marshal of the
// response), apart from HTML escaping, which it leaves out.
func TestWriteResponse(t *testing.T) {
	t.Parallel()
	yes := true
	for name, resp := range map[string]*graphql.Response{
		"Data":        {Data: json.RawMessage(`{"event":{"name":"Go <3 & more","n":[1,2.5,null]}}`)},
		"NullData":    {Errors: gqlerror.List{{Message: "not found", Path: ast.Path{ast.PathName("event")}, Extensions: map[string]any{"code": "not_found"}}}},
		"Both":        {Data: json.RawMessage(`{"a":null}`), Errors: gqlerror.List{{Message: "x"}}, Extensions: map[string]any{"k": 1}},
		"Incremental": {Data: json.RawMessage(`{}`), Label: "l", Path: ast.Path{ast.PathIndex(0)}, HasNext: &yes},
	} {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			writeResponse(&got, resp)
			want, err := json.Marshal(resp)
			require.NoError(t, err)
			require.True(t, json.Valid(got.Bytes()), got.String())
			require.JSONEq(t, string(want), got.String())
			require.Equal(t, keys(t, want), keys(t, got.Bytes()), "keys in gqlgen's order")
		})
	}

	var got bytes.Buffer
	writeResponse(&got, &graphql.Response{Data: json.RawMessage(`{"s":"<b>&</b>"}`)})
	// Byte for byte on purpose: <, > and & must be written as they are, not as \u003c and the like,
	// and JSONEq would accept either.
	require.Equal(t, `{"data":{"s":"<b>&</b>"}}`, got.String()) //nolint:testifylint // exact bytes on purpose, see above

}

// keys lists the top-level keys of a JSON object in order.
func keys(t *testing.T, doc []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	_, err := dec.Token()
	require.NoError(t, err)
	var out []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		out = append(out, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return out
}
