package rest

import (
	"go/ast"
	"go/parser"
	"go/token"
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

// routeFieldExceptions are the routes whose handler's first operation is not the one their GraphQL
// counterpart's resolver calls, or who have no such operation although they have a counterpart:
// operation id → the field ("" for none), with the reason.
var routeFieldExceptions = map[string]struct{ field, reason string }{
	"getEvent":               {"Query.event", "loads the event with a.event, as every route under /events/{eventId} does"},
	"listContacts":           {"Query.contacts", "streams the same rows with ContactDirectory instead of the paged connection"},
	"getSessionTimeline":     {"Submission.activity", "looks the session up with Event.submission first"},
	"listSegmentContacts":    {"CrmSegment.contacts", "looks the segment up with Query.segment first"},
	"getSpeakerAvailability": {"Contact.availability", "looks the speaker up in the event first, as Event.speaker does"},
	"listAgendaVersions":     {"Agenda.versions", "checks the event's access first; Agenda.versions reads the versions of an agenda already read"},
	"generateAgendaDraft":    {"Mutation.generateAgendaDraft", "stores the draft as the field does, then generates it before answering (StartAgendaDraftFallback)"},
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
// calls the operation a GraphQL field's resolver calls (the first a.ops.X(…) of the handler, which
// is named after the route's operation id) is named by that field's description, and by no other
// field's.
func TestRoutesNamedByTheirField(t *testing.T) {
	t.Parallel()
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	calls := resolverCalls(t)
	named := restFields(schema)
	mapped := 0
	for _, rt := range routes {
		key := rt.method + " " + rt.path
		var names []string
		for _, f := range named[key] {
			names = append(names, f.name)
		}
		candidates := calls[rt.operationID]
		field, ok := "", len(candidates) > 0
		if ok {
			// Several fields may call one operation (Query.event and the events' own lookups);
			// the route belongs to the one naming it.
			field = candidates[0]
			for _, c := range candidates {
				if slices.Contains(names, c) {
					field = c
				}
			}
		}
		if ex, isException := routeFieldExceptions[rt.operationID]; isException {
			field, ok = ex.field, ex.field != ""
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
		if def != nil {
			// A Go name spells initialisms in capitals (APIKeys is the field apiKeys).
			for _, f := range def.Fields {
				if strings.EqualFold(f.Name, name) {
					name, field = f.Name, typ+"."+f.Name
				}
			}
		}
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

// resolverCalls maps each operation id to the GraphQL fields ("Type.field") that call the same
// operation as its handler: the first method of package operation the handler (*API).<operation
// id> calls (a.ops.X(…)), and the resolvers (graph/*.resolvers.go) that call it (r.Ops.X(…)).
func resolverCalls(t *testing.T) map[string][]string {
	t.Helper()
	fieldsOf := map[string][]string{} // operation method → fields whose resolver calls it
	eachMethod(t, "../graph/*.resolvers.go", func(recv string, fn *ast.FuncDecl) {
		typ, ok := strings.CutSuffix(recv, "Resolver")
		if !ok || typ == "" {
			return
		}
		if op, ok := firstCall(fn, "Ops"); ok {
			r, size := utf8.DecodeRuneInString(typ)
			f, fsize := utf8.DecodeRuneInString(fn.Name.Name)
			field := string(unicode.ToUpper(r)) + typ[size:] + "." + string(unicode.ToLower(f)) + fn.Name.Name[fsize:]
			fieldsOf[op] = append(fieldsOf[op], field)
		}
	})
	out := map[string][]string{}
	eachMethod(t, "*.go", func(recv string, fn *ast.FuncDecl) {
		if recv != "API" {
			return
		}
		if op, ok := firstCall(fn, "ops"); ok && len(fieldsOf[op]) > 0 {
			out[fn.Name.Name] = fieldsOf[op]
		}
	})
	return out
}

// eachMethod calls visit with every method declared in the files of pattern, tests aside.
func eachMethod(t *testing.T, pattern string, visit func(recv string, fn *ast.FuncDecl)) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no files match %s: %v", pattern, err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Body == nil {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok {
				visit(id.Name, fn)
			}
		}
	}
}

// firstCall is the method name X of the first call <…>.<holder>.X(…) in fn's body.
func firstCall(fn *ast.FuncDecl, holder string) (string, bool) {
	var name string
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if name != "" {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.SelectorExpr); ok && x.Sel.Name == holder {
			name = sel.Sel.Name
			return false
		}
		return true
	})
	return name, name != ""
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
