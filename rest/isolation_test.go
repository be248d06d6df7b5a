package rest_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph"
)

// TestCrossOrganization calls every operation — every REST route and every GraphQL query and
// mutation field, node and nodes included — with the second organization's key and the first
// organization's ids (a fixture event with one of everything). Nothing of the first organization
// may show in any answer, nor change in the database. The REST routes come from the served
// OpenAPI document, which TestOpenAPIMatchesRouter holds equal to the router, and the GraphQL
// fields from the schema, so a new operation is covered the day it is added.
//
// Two walls keep organizations apart (docs/tenancy.md): the code's tenant filter and PostgreSQL's
// row-level security. The test runs three times: with both, and with each one alone.
func TestCrossOrganization(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opts dbx.Options
	}{
		{"BothWalls", dbx.Options{}},
		{"RowLevelSecurityAlone", dbx.Options{UnsafeNoTenantFilter: true}},
		{"CodeAlone", dbx.Options{UnsafeNoRLS: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := newBundle(t, bundleOpts{DB: pgtest.NewWith(t, c.opts)})
			crossOrganization(t, b, c.opts == dbx.Options{})
		})
	}
}

func crossOrganization(t *testing.T, b *testBundle, bothWalls bool) {
	f := b.fixture()
	ids := f.replacer()
	secrets := []string{b.acmeOrg, "Acme"}
	for name, id := range f.ids {
		if name != "kind" && len(id) > 8 {
			secrets = append(secrets, id)
		}
	}
	sort.Strings(secrets)
	before := acmeRows(t, b)

	leaks := func(what, raw string) {
		t.Helper()
		for _, secret := range secrets {
			require.NotContains(t, raw, secret, "%s leaks acme's data", what)
		}
	}

	// REST: operations of an event answer 403; the others answer with the caller's own data only.
	tested := 0
	for _, op := range b.operations(t) {
		if op.public {
			continue // published data, for anyone: see TestPublicAgenda
		}
		path := pathParam.ReplaceAllString(ids.Replace("/api/v1"+op.path), "ses_01doesnotexist0000000000")
		var body any
		if op.body != nil {
			// A well-formed body, so that body checks (which come first) pass.
			body = sample(op.body)
			if valid, ok := f.bodies[op.id]; ok {
				body = valid
			}
		}
		r := b.do(op.method, path, b.globex, body)
		what := op.method + " " + op.path
		leaks(what, r.Raw)
		if bothWalls || strings.Contains(op.path, "{eventId}") {
			if strings.Contains(op.path, "{eventId}") {
				b.requireError(r, http.StatusForbidden, "forbidden")
			} else {
				require.Less(t, r.Status, 500, "%s: %s", what, r.Raw)
			}
		}
		tested++
	}
	require.Greater(t, tested, 20)

	// GraphQL: every query field with each of acme's ids in each ID argument, then every mutation
	// with the document of its fuzz seed.
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	acmeIDs := make([]string, 0, len(f.ids))
	for name, id := range f.ids {
		if name != "kind" {
			acmeIDs = append(acmeIDs, id)
		}
	}
	sort.Strings(acmeIDs)
	queries := 0
	for _, field := range schema.Query.Fields {
		if strings.HasPrefix(field.Name, "__") {
			continue
		}
		for _, id := range acmeIDs {
			query, variables := queryDocument(schema, field, id, acmeIDs)
			r := b.graphQL(b.globex, query, variables)
			what := "query " + field.Name + " with " + id
			leaks(what, r.Raw)
			if bothWalls {
				require.Less(t, r.Status, 500, "%s: %s", what, r.Raw)
			}
			if field.Name == "node" || field.Name == "event" {
				require.Nil(t, r.Data[field.Name], "%s: %s", what, r.Raw)
			}
			if field.Name == "nodes" {
				require.Equal(t, make([]any, len(acmeIDs)), r.Data["nodes"], "%s: %s", what, r.Raw)
			}
			queries++
		}
	}
	require.Greater(t, queries, len(acmeIDs))

	mutations := 0
	for _, field := range schema.Mutation.Fields {
		query, variables := mutationSeedFile(t, field.Name)
		r := b.graphQL(b.globex, query, ids.Replace(variables))
		what := "mutation " + field.Name
		leaks(what, r.Raw)
		if bothWalls {
			require.Less(t, r.Status, 500, "%s: %s", what, r.Raw)
		}
		mutations++
	}
	require.Greater(t, mutations, 20)

	// Nothing of acme's changed.
	require.Equal(t, before, acmeRows(t, b))
}

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// graphQL posts a document with its variables (JSON) and decodes the answer.
func (b *testBundle) graphQL(key, query, variables string) gqlResponse {
	b.t.Helper()
	r := b.do(http.MethodPost, "/graphql", key, graphQLBody(query, variables))
	out := gqlResponse{Status: r.Status, Raw: r.Raw}
	out.Data, _ = r.Obj()["data"].(map[string]any)
	return out
}

// queryDocument is a document calling the query field with id in each ID argument (all of ids in
// a list of IDs), selecting what names the result: its id, or the ids of a connection's nodes.
func queryDocument(schema *ast.Schema, field *ast.FieldDefinition, id string, ids []string) (string, string) {
	var params, args, vars []string
	for _, arg := range field.Arguments {
		var value string
		switch {
		case arg.Type.Name() == "ID" && arg.Type.Elem != nil:
			value = `["` + strings.Join(ids, `","`) + `"]`
		case arg.Type.Name() == "ID":
			value = strconv.Quote(id)
		case arg.Type.Name() == "String" && arg.Type.NonNull:
			// A name the field looks up (an email template's): the id, which names nothing.
			value = strconv.Quote(id)
		case arg.Type.NonNull:
			return "{ __typename }", ""
		default:
			continue
		}
		params = append(params, "$"+arg.Name+": "+arg.Type.String())
		args = append(args, arg.Name+": $"+arg.Name)
		vars = append(vars, strconv.Quote(arg.Name)+": "+value)
	}
	selection := ""
	if ret := schema.Types[field.Type.Name()]; ret.Kind != ast.Scalar && ret.Kind != ast.Enum {
		switch {
		case ret.Fields.ForName("edges") != nil:
			node := schema.Types[schema.Types[ret.Fields.ForName("edges").Type.Name()].Fields.ForName("node").Type.Name()]
			if node.Fields.ForName("id") != nil {
				selection = " { edges { node { id } } }"
			} else {
				selection = " { edges { node { __typename } } }"
			}
		case ret.Fields.ForName("id") != nil || ret.Kind == ast.Interface:
			selection = " { id }"
		default:
			selection = " { __typename }"
		}
	}
	doc := "query"
	if len(params) > 0 {
		doc += "(" + strings.Join(params, ", ") + ")"
	}
	call := field.Name
	if len(args) > 0 {
		call += "(" + strings.Join(args, ", ") + ")"
	}
	return doc + " { " + call + selection + " }", "{" + strings.Join(vars, ", ") + "}"
}

// mutationSeedFile reads the generated fuzz seed of the mutation (see TestFuzzCorpus): a document
// running it and its variables, with the fixture's ids as placeholders.
func mutationSeedFile(t *testing.T, name string) (query, variables string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzGraphQL", "mutation-"+name))
	require.NoError(t, err, "no seed for mutation %s: see TestFuzzCorpus", name)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	require.Len(t, lines, 3)
	unquote := func(line string) string {
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "string("), ")"))
		require.NoError(t, err)
		return s
	}
	return unquote(lines[1]), unquote(lines[2])
}

// acmeRows fingerprints every row of acme's in every table holding an organization_id, read
// as system work on the tables' owner's connection, which no wall under test filters.
func acmeRows(t *testing.T, b *testBundle) map[string]string {
	t.Helper()
	ctx := viewer.System(context.Background(), "test: fingerprint an organization's rows")
	owner := pgtest.OwnerPool(t, b.db)
	rows, err := owner.Query(ctx, `SELECT table_name FROM information_schema.columns
		WHERE table_schema = 'public' AND column_name = 'organization_id' ORDER BY 1`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.NotEmpty(t, tables)
	out := map[string]string{}
	for _, table := range tables {
		var sum string
		require.NoError(t, owner.QueryRow(ctx, `SELECT count(*) || ':' || coalesce(md5(string_agg(x::text, ',' ORDER BY x::text)), '')
			FROM `+pgx.Identifier{table}.Sanitize()+` x WHERE organization_id = $1`, b.acmeOrg).Scan(&sum))
		out[table] = sum
	}
	return out
}
