package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/seed"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/rest"
)

// listPath is a list field reachable from a session of the board, and the selection that reaches
// it from the session.
type listPath struct {
	name      string
	selection string
}

// sessionListPaths walks the schema from Session, depth fields deep, and returns every list field
// on the way (fields with required arguments left out): each is a list read once per parent row
// unless a loader batches it.
func sessionListPaths(schema *ast.Schema, depth int) []listPath {
	var out []listPath
	var walk func(typ string, prefix []string, wrap func(string) string, left int)
	walk = func(typ string, prefix []string, wrap func(string) string, left int) {
		def := schema.Types[typ]
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") || hasRequiredArg(f) {
				continue
			}
			elem := schema.Types[f.Type.Name()]
			object := elem.Kind == ast.Object || elem.Kind == ast.Interface || elem.Kind == ast.Union
			sel := f.Name
			if object {
				sel += " { __typename }"
			}
			path := append(append([]string{}, prefix...), f.Name)
			if f.Type.Elem != nil {
				out = append(out, listPath{name: strings.Join(path, "."), selection: wrap(sel)})
			}
			if object && left > 1 && elem.Kind == ast.Object {
				name := f.Name
				walk(elem.Name, path, func(s string) string { return wrap(name + " { __typename " + s + " }") }, left-1)
			}
		}
	}
	walk("Session", nil, func(s string) string { return s }, depth)
	return out
}

func hasRequiredArg(f *ast.FieldDefinition) bool {
	for _, a := range f.Arguments {
		if a.Type.NonNull && a.DefaultValue == nil {
			return true
		}
	}
	return false
}

// TestGraphQLNestedListStatements: every list field reachable from a page of sessions, at any
// depth up to three, costs the same SQL statements for a page of 1 session as for a page of 30.
// The fields come from the schema, so a new list field without a loader fails here.
func TestGraphQLNestedListStatements(t *testing.T) {
	t.Parallel()
	type board struct {
		b     *testBundle
		event string
	}
	seeded := func(sessions int) board {
		b := setup(t)
		var res seed.BenchResult
		require.NoError(t, b.db.InTx(b.sys(), func(ctx context.Context) error {
			var err error
			res, err = seed.Bench(ctx, dbx.TxFromContext(ctx).PGX(), seed.BenchOptions{OrganizationID: b.acmeOrg,
				Sessions: sessions, Submissions: 1, Reviewers: 1, Criteria: 1})
			return err
		}))
		return board{b, res.SessionsEventID}
	}
	one, many := seeded(1), seeded(30)
	paths := sessionListPaths(graph.NewExecutableSchema(graph.Config{}).Schema(), 3)
	require.NotEmpty(t, paths)
	count := func(bd board, sel string) int64 {
		doc := fmt.Sprintf(`query($e: ID!) { event(id: $e) { sessions(first: 100) { edges { node { id %s } } } } }`, sel)
		r := bd.b.do(http.MethodPost, "/graphql", bd.b.acme, map[string]any{"query": doc, "variables": map[string]any{"e": bd.event}})
		require.Equal(t, http.StatusOK, r.Status, r.Raw)
		require.NotContains(t, r.Raw, `"internal_error"`, sel)
		n, err := strconv.ParseInt(r.Header.Get(rest.QueryCountHeader), 10, 64)
		require.NoError(t, err)
		return n
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			c1, c30 := count(one, p.selection), count(many, p.selection)
			require.Equal(t, c1, c30, "%s: %d statements for 1 session, %d for 30", p.selection, c1, c30)
		})
	}
}
