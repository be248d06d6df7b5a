package rest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/podium/podium/graph"
)

// A REST operation and its GraphQL field are one operation described once: the field's
// description names the route in a `REST: METHOD /path` sentence, and the OpenAPI document takes
// the route's description from it (restFields, proseOf). These tests hold the links true.

// routeFieldExceptions are the routes whose handler calls a resolver field that is not the
// operation's GraphQL counterpart, or calls none although it has one: operation id → the field
// ("" for none), with the reason.
var routeFieldExceptions = map[string]struct{ field, reason string }{
	"getEvent":            {"Query.event", "loads the event with a.event, as every route under /events/{eventId} does"},
	"listContacts":        {"Query.contacts", "streams the same rows with ContactDirectory instead of the paged connection"},
	"getSessionTimeline":  {"Submission.activity", "looks the session up with Event.submission first"},
	"listSegmentContacts": {"CrmSegment.contacts", "looks the segment up with Query.segment first"},
}

// TestRoutesNamedBySDL checks that every `REST: METHOD /path` sentence of a description in the
// GraphQL schema names a route of the table.
func TestRoutesNamedBySDL(t *testing.T) {
	t.Parallel()
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	table := map[string]bool{}
	for _, rt := range routes {
		table[rt.method+" "+rt.path] = true
	}
	checked := 0
	check := func(where, desc string) {
		if strings.Contains(desc, "REST:") && len(restRefs(desc)) == 0 && !strings.Contains(desc, "REST: the ") {
			t.Errorf("%s: a REST sentence names no METHOD /path: %q", where, desc)
		}
		for _, ref := range restRefs(desc) {
			checked++
			if !table[ref] {
				t.Errorf("%s: the description names %s, which is not a route of rest.routes", where, ref)
			}
		}
	}
	for _, def := range schema.Types {
		check(def.Name, def.Description)
		for _, f := range def.Fields {
			check(def.Name+"."+f.Name, f.Description)
			for _, a := range f.Arguments {
				check(def.Name+"."+f.Name+"("+a.Name+")", a.Description)
			}
		}
		for _, v := range def.EnumValues {
			check(def.Name+"."+v.Name, v.Description)
		}
	}
	if checked < 100 {
		t.Errorf("only %d REST sentences found in the schema's descriptions; is the parser broken?", checked)
	}
	t.Logf("%d route names in REST sentences checked", checked)
}

// TestRoutesNamedByTheirField checks the other direction: the route of an operation whose handler
// calls a GraphQL resolver (a.res.Mutation().CreateEvent(…), a.res.Event().Speaker(…): the first
// such call in the handler's body, the handler being named after the operation) is named by that
// field's description, and by no other field's.
func TestRoutesNamedByTheirField(t *testing.T) {
	t.Parallel()
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	calls := resolverCalls(t)
	named := restFields(schema)
	mapped := 0
	for _, rt := range routes {
		key := rt.method + " " + rt.path
		field, ok := calls[rt.operationID]
		if ex, isException := routeFieldExceptions[rt.operationID]; isException {
			field, ok = ex.field, ex.field != ""
		}
		var names []string
		for _, f := range named[key] {
			names = append(names, f.name)
		}
		if !ok {
			if len(names) > 0 {
				t.Errorf("%s (%s) calls no resolver field, yet %v names it; list it in routeFieldExceptions",
					key, rt.operationID, names)
			}
			continue
		}
		mapped++
		typ, name, _ := strings.Cut(field, ".")
		def := schema.Types[typ]
		if def == nil || def.Fields.ForName(name) == nil {
			t.Errorf("%s (%s) calls the resolver of %s, which is not a field of the schema", key, rt.operationID, field)
			continue
		}
		if !slices.Contains(names, field) {
			t.Errorf("%s (%s) is served by the resolver of %s, whose description should end with \"REST: %s.\"; "+
				"the fields naming it: %v", key, rt.operationID, field, key, names)
		}
		if len(names) > 1 {
			t.Errorf("%s (%s) is named by several fields, %v; only %s should", key, rt.operationID, names, field)
		}
	}
	for op := range routeFieldExceptions {
		if !slices.ContainsFunc(routes, func(rt route) bool { return rt.operationID == op }) {
			t.Errorf("routeFieldExceptions lists %s, which is not an operation", op)
		}
	}
	t.Logf("%d of %d routes map to a GraphQL field", mapped, len(routes))
}

// resolverCalls reads the package's handlers: operation id → "Type.field" of the first resolver
// call in the body of the method (*API).<operation id>.
func resolverCalls(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if _, done := out[fn.Name.Name]; done {
					return false
				}
				if field, ok := resolverCall(n); ok {
					out[fn.Name.Name] = field
					return false
				}
				return true
			})
		}
	}
	return out
}

// resolverCall recognises a.res.Type().Field(…) and answers "Type.field".
func resolverCall(n ast.Node) (string, bool) {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return "", false
	}
	field, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	inner, ok := field.X.(*ast.CallExpr)
	if !ok || len(inner.Args) != 0 {
		return "", false
	}
	typ, ok := inner.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	res, ok := typ.X.(*ast.SelectorExpr)
	if !ok || res.Sel.Name != "res" {
		return "", false
	}
	r, size := utf8.DecodeRuneInString(field.Sel.Name)
	return typ.Sel.Name + "." + string(unicode.ToLower(r)) + field.Sel.Name[size:], true
}

// TestRoutesOpenAPIDescriptions shows where each operation's OpenAPI description comes from; it
// fails when a route has neither its own description nor a GraphQL field naming it, unless it
// is one of those documented by summary alone.
func TestRoutesOpenAPIDescriptions(t *testing.T) {
	t.Parallel()
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	named := restFields(schema)
	var own, derived, none []string
	for _, rt := range routes {
		doc := routeDocs[rt.operationID]
		switch {
		case doc.description != "":
			own = append(own, rt.operationID)
		case len(named[rt.method+" "+rt.path]) == 1:
			derived = append(derived, rt.operationID)
		default:
			none = append(none, rt.operationID)
		}
	}
	sort.Strings(none)
	t.Logf("OpenAPI descriptions: %d from routeDocs, %d from the GraphQL field, %d summary only: %v",
		len(own), len(derived), len(none), none)
}
