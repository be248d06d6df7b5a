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
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/seed"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/rest"
)

// listPath is a list field reachable from an item of a root list, and the selection that reaches
// it from the item.
type listPath struct {
	name      string
	selection string
}

// listPaths walks the schema from the type typ, depth fields deep, and returns every field of a
// list or object type on the way, and the scalars of typ together (fields with required
// arguments left out): each is read once per parent row unless a loader batches it or the
// parent's own read brings it.
func listPaths(schema *ast.Schema, typ string, depth int) []listPath {
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
			if f.Type.Elem != nil || object {
				out = append(out, listPath{name: strings.Join(path, "."), selection: wrap(sel)})
			}
			if object && left > 1 && elem.Kind == ast.Object {
				name := f.Name
				walk(elem.Name, path, func(s string) string { return wrap(name + " { __typename " + s + " }") }, left-1)
			}
		}
	}
	walk(typ, nil, func(s string) string { return s }, depth)
	var scalars []string
	for _, f := range schema.Types[typ].Fields {
		kind := schema.Types[f.Type.Name()].Kind
		if !strings.HasPrefix(f.Name, "__") && !hasRequiredArg(f) && (kind == ast.Scalar || kind == ast.Enum) {
			scalars = append(scalars, f.Name)
		}
	}
	if len(scalars) > 0 { // every scalar of the item at once: a resolver may read for one
		out = append(out, listPath{name: "scalars", selection: strings.Join(scalars, " ")})
	}
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

// statementWorld is a test bundle seeded with n items of each root list: n sessions and n
// submissions (seed-bench data), 2n events more than the bench's two, n directory contacts and
// n logged emails.
type statementWorld struct {
	b                *testBundle
	sessions, review string
}

func seedStatementWorld(t *testing.T, n int) statementWorld {
	b := setup(t)
	var res seed.BenchResult
	require.NoError(t, b.db.InTx(b.sys(), func(ctx context.Context) error {
		var err error
		res, err = seed.Bench(ctx, dbx.TxFromContext(ctx).PGX(), seed.BenchOptions{OrganizationID: b.acmeOrg,
			Sessions: n, Submissions: n, Reviewers: 1, Criteria: 1})
		return err
	}))
	// The events page's items: n more pairs of events, one with a session, one with a reviewed
	// submission, so that a field of an event's children read once per event shows too.
	require.NoError(t, b.db.InTx(b.sys(), func(ctx context.Context) error {
		for range n {
			if _, err := seed.Bench(ctx, dbx.TxFromContext(ctx).PGX(), seed.BenchOptions{OrganizationID: b.acmeOrg,
				Sessions: 1, Submissions: 1, Reviewers: 1, Criteria: 1}); err != nil {
				return err
			}
		}
		return nil
	}))
	for i := range n {
		b.newContact("Ada", fmt.Sprintf("Lovelace %d", i), fmt.Sprintf("ada%d@example.test", i))
	}
	ctx := b.scopeOf(res.SessionsEventID)
	for i := range n {
		require.NoError(t, b.db.Ent.EmailLog.Create().SetEventID(res.SessionsEventID).SetType(emaillog.TypeConfirmation).
			SetRecipient(fmt.Sprintf("ada%d@example.test", i)).SetSubject("Hello").SetBody("Hello").SetHTMLBody("<p>Hello</p>").
			Exec(ctx))
	}
	return statementWorld{b: b, sessions: res.SessionsEventID, review: res.ReviewsEventID}
}

// statementRoot is a root list: the document that reads a page of its items with a selection
// under each, and the type of the items.
type statementRoot struct {
	name, typ, doc string
	vars           func(statementWorld) map[string]any
}

var statementRoots = []statementRoot{
	{"Sessions", "Session", `query($e: ID!) { event(id: $e) { sessions(first: 100) { edges { node { id %s } } } } }`,
		func(w statementWorld) map[string]any { return map[string]any{"e": w.sessions} }},
	{"Speakers", "Contact", `query($e: ID!) { event(id: $e) { speakers(first: 100) { edges { node { id %s } } } } }`,
		func(w statementWorld) map[string]any { return map[string]any{"e": w.sessions} }},
	{"Submissions", "Submission", `query($e: ID!) { event(id: $e) { submissions { submissions { id %s } } } }`,
		func(w statementWorld) map[string]any { return map[string]any{"e": w.review} }},
	{"Emails", "EmailLog", `query($e: ID!) { event(id: $e) { emails(first: 100) { edges { node { id %s } } } } }`,
		func(w statementWorld) map[string]any { return map[string]any{"e": w.sessions} }},
	{"Events", "Event", `{ events(first: 30) { edges { node { id %s } } } }`,
		func(statementWorld) map[string]any { return nil }},
	{"Contacts", "CrmDirectoryRow", `{ contacts(first: 100) { edges { node { __typename %s } } } }`,
		func(statementWorld) map[string]any { return nil }},
}

// TestGraphQLNestedListStatements: every list or object field reachable from a page of a root
// list — sessions, speakers, submissions, emails, events, directory contacts —, at any depth up
// to three, and the item's scalars together, cost the same SQL statements for a page of 1 item as
// for a page of 30 (the events page: 4 and 30, each event with sessions or submissions of its
// own). The fields come from the schema, so a new field without a loader fails here.
//
// It runs alone, not beside the package's parallel tests: a loader waits 1 ms for its keys, and on a
// machine busy with a whole test run its batches split too often for the counts to settle.
func TestGraphQLNestedListStatements(t *testing.T) {
	one, many := seedStatementWorld(t, 1), seedStatementWorld(t, 30)
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	count := func(t *testing.T, w statementWorld, root statementRoot, sel string) int64 {
		doc := fmt.Sprintf(root.doc, sel)
		r := w.b.do(http.MethodPost, "/graphql", w.b.acme, map[string]any{"query": doc, "variables": root.vars(w)})
		require.Equal(t, http.StatusOK, r.Status, r.Raw)
		require.NotContains(t, r.Raw, `"errors"`, sel)
		n, err := strconv.ParseInt(r.Header.Get(rest.QueryCountHeader), 10, 64)
		require.NoError(t, err)
		return n
	}
	for _, root := range statementRoots {
		t.Run(root.name, func(t *testing.T) {
			paths := listPaths(schema, root.typ, 3)
			require.NotEmpty(t, paths)
			for _, p := range paths {
				t.Run(p.name, func(t *testing.T) {
					c1, c30 := count(t, one, root, p.selection), count(t, many, root, p.selection)
					// A loader's batch may split in two when the machine is busy (it waits 1 ms
					// for its keys); an N+1 never shrinks. So the fewest of up to ten runs counts: under
					// a full parallel test run five were once not enough.
					for range 9 {
						if c1 == c30 {
							break
						}
						c1, c30 = min(c1, count(t, one, root, p.selection)), min(c30, count(t, many, root, p.selection))
					}
					require.Equal(t, c1, c30, "%s: %d statements for 1 item, %d for 30", p.selection, c1, c30)
				})
			}
		})
	}
}
