package rest_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/ai"
)

// The fuzz targets send what the fuzzer makes up through the real router, with a valid key and
// the ids of a fixture (an event with one of everything) in the path. Run one with
//
//	go test -run '^$' -fuzz '^FuzzRESTBodies$' -fuzztime 60s ./rest/
//
// Without -fuzz, `go test` runs their seeds (f.Add and testdata/fuzz/<Target>/) as ordinary
// tests. The seeds of testdata are generated: see TestFuzzCorpus. A seed names the fixture's ids
// with placeholders such as {eventId}, replaced before the request is sent.
//
// The go command stops a fuzzing worker a second after -fuzztime runs out, which may be before
// its database is dropped; pgtest drops such leftovers after a day.

// updateCorpus rewrites the generated seeds of testdata/fuzz from the fixture and the schema.
var updateCorpus = flag.Bool("update-corpus", false, "rewrite the generated seeds under testdata/fuzz")

// fuzzServer is the bundle and fixture every input of a fuzz target shares in one process: making
// a database and a fixture per input would leave the fuzzer a few inputs a second. The database
// is made with the *testing.F, so it lasts the whole run; the bundle is built by the first input,
// which has the *testing.T the test helpers need. Inputs run one at a time (the fuzzing engine
// calls the target sequentially within a worker process), and what a successful input changes
// stays for the next: that is part of what is fuzzed.
type fuzzServer struct {
	db    *dbx.DB
	aiURL string

	once    sync.Once
	b       *testBundle
	fixture fixture
	// writes are the operations with a request body, ordered by operation id.
	writes []apiOperation
	ids    *strings.Replacer
}

func newFuzzServer(f *testing.F) *fuzzServer {
	f.Helper()
	// A provider that always scores, so that the AI operations run their code rather than
	// answering 502 for a missing configuration.
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg","type":"message","role":"assistant","model":"claude-test",`+
			`"content":[{"type":"text","text":"{\"score\": 3, \"reasoning\": \"Fine.\"}"}]}`)
	}))
	f.Cleanup(provider.Close)
	return &fuzzServer{db: pgtest.New(f), aiURL: provider.URL}
}

// bundle returns the shared bundle, bound to t for this input.
func (s *fuzzServer) bundle(t *testing.T) *testBundle {
	t.Helper()
	s.once.Do(func() {
		b := newBundle(t, bundleOpts{DB: s.db})
		b.res.Ops.AI = ai.New(ai.Config{APIKey: "sk-ant-test-key", BaseURL: s.aiURL, Model: "claude-test"})
		s.fixture = b.fixture()
		b.countWrites()
		for _, op := range b.operations(t) {
			if op.body != nil {
				s.writes = append(s.writes, op)
			}
		}
		sort.Slice(s.writes, func(i, j int) bool { return s.writes[i].id < s.writes[j].id })
		s.ids = s.fixture.replacer()
		s.b = b
	})
	require.NotNil(t, s.b, "building the shared fuzz bundle failed in an earlier input")
	b := *s.b
	b.t = t
	return &b
}

// operation picks the write operation an input names: its operation id, or any other string,
// which selects one by its hash so that every string reaches some operation.
func (s *fuzzServer) operation(name string) apiOperation {
	for _, op := range s.writes {
		if op.id == name {
			return op
		}
	}
	return s.writes[crc32.ChecksumIEEE([]byte(name))%uint32(len(s.writes))]
}

// replacer turns the placeholders of the seeds, such as {eventId}, into the fixture's ids.
// GraphQL calls a session's id sessionId where REST paths say submissionId.
func (f fixture) replacer() *strings.Replacer {
	pairs := []string{"{sessionId}", f.ids["submissionId"]}
	for name, id := range f.ids {
		pairs = append(pairs, "{"+name+"}", id)
	}
	return strings.NewReplacer(pairs...)
}

// FuzzRESTBodies posts made-up bodies to the write operations. Whatever the body, the answer is a
// success or a 4xx in the contract's error envelope, and a refused request changes no row (see
// countWrites). A handler's panic is answered 500 by the router, so it fails here too.
func FuzzRESTBodies(f *testing.F) {
	s := newFuzzServer(f)
	// Bodies that are not the right JSON at all, for a few operations; the valid body of every
	// operation is in testdata/fuzz/FuzzRESTBodies.
	for _, body := range wholeBodies {
		for _, op := range []string{"createEvent", "submitReviewAnswers", "importSpeakers"} {
			f.Add(op, []byte(body))
		}
	}
	f.Add("updateEvent", []byte(`{"startsAt":"2027-09-12T17:00:00Z","endsAt":"2027-09-10T09:00:00Z"}`))
	f.Add("saveSpeaker", []byte(`{"id":"{contactId}","firstName":"\u0000","lastName":"L","email":"a@b.c"}`))
	f.Add("submitReviewAnswers", []byte(`{"answers":[{"criterionId":"{criterionId}","numericValue":1e308,"textValue":null,"optionValue":null}]}`))
	f.Add("scheduleSession", []byte(`{"submissionId":"{submissionId}","roomId":"{roomId}","startsAt":"0001-01-01T00:00:00Z","endsAt":"9999-12-31T23:59:59Z"}`))
	f.Add("reorderResources", []byte(`{"resourceIds":["{resourceId}","{resourceId}","'; DROP TABLE resources; --"]}`))
	f.Add("no such operation", []byte(`{}`))

	f.Fuzz(func(t *testing.T, operation string, body []byte) {
		b := s.bundle(t)
		op := s.operation(operation)
		path := s.fixture.path(op.path)
		body = []byte(s.ids.Replace(string(body)))

		before := b.writeCount()
		r := b.do(op.method, path, b.acme, body)
		require.Less(t, r.Status, 500, "%s %s with %q: %s", op.method, path, body, r.Raw)
		if r.Status >= 400 {
			requireEnvelope(t, r)
			require.Equal(t, before, b.writeCount(), "%s %s changed rows though refused (%d): %q", op.method, path, r.Status, body)
		}
	})
}

// requireEnvelope requires r to be exactly the contract's error envelope.
func requireEnvelope(t *testing.T, r response) {
	t.Helper()
	require.Equal(t, "application/json; charset=utf-8", r.Header.Get("Content-Type"), r.Raw)
	var env map[string]map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Raw), &env), "not an error envelope: %s", r.Raw)
	require.Len(t, env, 1, r.Raw)
	e, ok := env["error"]
	require.True(t, ok, r.Raw)
	require.Len(t, e, 2, r.Raw)
	code, _ := e["code"].(string)
	message, _ := e["message"].(string)
	require.NotEmpty(t, code, r.Raw)
	require.Equal(t, strings.ToLower(code), code, r.Raw)
	require.NotEmpty(t, message, r.Raw)
}

// FuzzGraphQL posts made-up documents and variables to /graphql. Whatever they are, the answer is
// not a 5xx, and every error carries extensions.code, never internal_error: a resolver's panic
// and any failure outside the error vocabulary are answered internal_error inside a 200, so that
// code is how GraphQL shows what REST shows as a 500.
func FuzzGraphQL(f *testing.F) {
	s := newFuzzServer(f)
	for _, seed := range []struct{ query, variables string }{
		{`{ __typename }`, ``},
		{`{ organization { id name slug } }`, `{}`},
		{`query($id: ID!) { event(id: $id) { id name library { tracks { id name } rooms { id } } } }`, `{"id":"{eventId}"}`},
		{`query($id: ID!) { node(id: $id) { id ... on Event { name } } }`, `{"id":"{submissionId}"}`},
		{`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, `{"ids":["{eventId}","{contactId}","{roundId}","nope",""]}`},
		{`query($id: ID!) { event(id: $id) { sessions(first: 2147483647) { totalCount edges { cursor node { id title } } } } }`, `{"id":"{eventId}"}`},
		{`query($id: ID!) { event(id: $id) { sessions(first: -1, after: "\u0000") { totalCount } } }`, `{"id":"{eventId}"}`},
		{`query($id: ID!) { event(id: $id) { evaluation { rounds { configuration { round { id } } } } } }`, `{"id":"{eventId}"}`},
		{`query($id: ID!) { event(id: $id) { agenda { sessions { id } } resources { id } emails { totalCount } } }`, `{"id":"{eventId}"}`},
		{`{ events(first: 10) { totalCount edges { node { id sessions { edges { node { speakers { id } } } } } } } }`, ``},
		{`{ __schema { types { name fields { name args { name type { name kind ofType { name } } } } } } }`, ``},
		{`query Q { ...A } fragment A on Query { ...B } fragment B on Query { ...A }`, ``},
		{`{ a: __typename b: __typename c: __typename d: __typename e: __typename f: __typename }`, ``},
		{strings.Repeat("{ organization ", 40) + strings.Repeat("}", 40), ``},
		{`{ events { edges { node { sessions { edges { node { speakers { sessions { edges { node { id } } } } } } } } } } }`, ``},
		{`query($x: Boolean!) { organization @skip(if: $x) { id } }`, `{"x":"yes"}`},
		{`query($n: Int) { events(first: $n) { totalCount } }`, `{"n":1e300}`},
		{`query($n: Int) { events(first: $n) { totalCount } }`, `{"n":99999999999999999999}`},
		{`query A { organization { id } } query B { events { totalCount } }`, `{}`},
		{`subscription { organization { id } }`, ``},
		{`mutation { __typename }`, ``},
		{`mutation($in: CreateEventInput!) { createEvent(input: $in) { id } }`, `{"in":{"name":"\ud800","type":"meetup","timezone":"UTC","startsAt":"2027-01-01T00:00:00Z","endsAt":"2027-01-02T00:00:00Z"}}`},
		{`mutation($in: CreateEventInput!) { a: createEvent(input: $in) { id } b: createEvent(input: $in) { id } }`, `{"in":{"name":"Twice","type":"meetup","timezone":"UTC","startsAt":"2027-01-01T00:00:00Z","endsAt":"2026-01-02T00:00:00Z"}}`},
		{`mutation { createEvent(input: {name: "'; DROP TABLE events; --", type: conference, timezone: "../../../etc/passwd", startsAt: "2027-01-01T00:00:00Z", endsAt: "2027-01-02T00:00:00Z"}) { id } }`, ``},
		{`{ event(id: "evt_' OR 1=1 --") { id } }`, ``},
		{`{`, ``},
		{``, ``},
		{"\x00\xff", `{"a":"\xff"}`},
		{`{ organization { id } }`, `[]`},
		{`{ organization { id } }`, `"variables"`},
		{`{ organization { id } }`, `null`},
		{`query($id: ID!) { event(id: $id) { id } }`, `{"id":{"$gt":""}}`},
	} {
		f.Add(seed.query, seed.variables)
	}
	// The shapes that cost most per byte, small: the fuzzer grows them with #repeat (see
	// expandRepeat) and mutates what is repeated.
	for _, seed := range []string{
		"#repeat 100000\n{| __typename| }",
		"#repeat 20000\n{| events(first: 1) { edges { node { id name } } }| }",
		"#repeat 100000\n{| ...F| } fragment F on Query { __typename }",
		"#repeat 30000\n{ __typename }| fragment F%d on Query { __typename }|",
		"#repeat 30000\nquery(|$v%d: Int |) { __typename }",
		"#repeat 50000\n{ __typename| @include(if: true)| }",
		"#repeat 50000\n{ events(|first: 1 |) { totalCount } }",
		"#repeat 1000\n{ |... on Query { |__typename }",
		"#repeat 500000\n{ event(id: \"|x|\") { id } }",
		"#repeat 500000\n{ |x| }",
		"#repeat 30000\n|query Q%d { __typename } |",
		"#repeat 50000\n{| nope%d| }",
		"#repeat 40\n{ ...F40 } fragment F0 on Query { __typename }| fragment F%d on Query { ...F0 ...F0 }|",
	} {
		f.Add(seed, ``)
	}
	for _, doc := range hostileDocuments(64 << 10) {
		var req struct {
			Query     string         `json:"query"`
			Variables map[string]any `json:"variables"`
		}
		require.NoError(f, json.Unmarshal(doc.body, &req))
		variables := ""
		if req.Variables != nil {
			raw, _ := json.Marshal(req.Variables)
			variables = string(raw)
		}
		f.Add(req.Query, variables)
	}

	f.Fuzz(func(t *testing.T, query, variables string) {
		b := s.bundle(t)
		query, variables = s.ids.Replace(expandRepeat(query)), s.ids.Replace(variables)
		r := b.do(http.MethodPost, "/graphql", b.acme, graphQLBody(query, variables))
		require.Less(t, r.Status, 500, "%q with %q: %s", head(query), variables, head(r.Raw))
		var out gqlResponse
		require.NoError(t, json.Unmarshal([]byte(r.Raw), &out), "%q with %q: %s", head(query), variables, head(r.Raw))
		if out.Data == nil {
			// Refused or failed as a whole: only errors, which are capped whatever the request.
			require.Less(t, len(r.Raw), 64<<10, "%q with %q: %s", head(query), variables, head(r.Raw))
		}
		for _, e := range out.Errors {
			code, _ := e.Extensions["code"].(string)
			require.NotEmpty(t, code, "%q with %q: an error without extensions.code: %s", query, variables, r.Raw)
			require.NotEqual(t, "internal_error", code, "%q with %q: %s", query, variables, r.Raw)
		}
	})
}

// expandRepeat turns a query of the form "#repeat N\nhead|unit|tail" into head, unit repeated N
// times (each %d in unit replaced by the repeat's index) and tail, cut to the 1 MiB body limit:
// the fuzzer mutates a few bytes and a count where a document of the costly shapes would be a
// megabyte. Any other query is returned as it is.
func expandRepeat(query string) string {
	rest, ok := strings.CutPrefix(query, "#repeat ")
	if !ok {
		return query
	}
	count, doc, ok := strings.Cut(rest, "\n")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || n < 0 {
		return query
	}
	parts := strings.SplitN(doc, "|", 3)
	if len(parts) != 3 {
		return query
	}
	var out strings.Builder
	out.WriteString(parts[0])
	for i := 0; i < n && out.Len() < 1<<20; i++ {
		out.WriteString(strings.ReplaceAll(parts[1], "%d", strconv.Itoa(i)))
	}
	out.WriteString(parts[2])
	return out.String()
}

// graphQLBody is the JSON body of a GraphQL request. Variables that are valid JSON are sent as
// they are (an object, or the wrong type); anything else is sent as a string, so that the body
// itself stays JSON and the server's handling of the variables is what is fuzzed.
func graphQLBody(query, variables string) []byte {
	q, _ := json.Marshal(query)
	var buf bytes.Buffer
	buf.WriteString(`{"query":`)
	buf.Write(q)
	switch {
	case variables == "":
	case json.Valid([]byte(variables)):
		buf.WriteString(`,"variables":`)
		buf.WriteString(variables)
	default:
		v, _ := json.Marshal(variables)
		buf.WriteString(`,"variables":`)
		buf.Write(v)
	}
	buf.WriteString(`}`)
	return buf.Bytes()
}

// TestFuzzCorpus holds the generated seeds of testdata/fuzz to the API: every write operation has
// its valid body there (FuzzRESTBodies/valid-<operationId>) and every mutation a document running
// it with that body (FuzzGraphQL/mutation-<name>), with the fixture's ids as placeholders such as
// {eventId}. When an operation is added, regenerate them:
//
//	go test ./rest/ -run '^TestFuzzCorpus$' -update-corpus
func TestFuzzCorpus(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()

	// The fixture's ids become placeholders again, longest first so that no id is cut in two.
	var pairs []string
	names := make([]string, 0, len(f.ids))
	for name := range f.ids {
		if name != "kind" {
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if len(f.ids[names[i]]) != len(f.ids[names[j]]) {
			return len(f.ids[names[i]]) > len(f.ids[names[j]])
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		pairs = append(pairs, f.ids[name], "{"+name+"}")
	}
	placeholders := strings.NewReplacer(pairs...)

	bodies := map[string]any{}
	want := map[string][]string{} // file name → its values, one Go expression each
	for _, op := range b.operations(t) {
		if op.body == nil {
			continue
		}
		var body any = sample(op.body)
		if valid, ok := f.bodies[op.id]; ok {
			body = stableBody(op.id, valid)
		}
		bodies[op.id] = body
		raw, err := json.Marshal(body)
		require.NoError(t, err)
		want[filepath.Join("FuzzRESTBodies", "valid-"+op.id)] = []string{
			"string(" + strconv.Quote(op.id) + ")", "[]byte(" + strconv.Quote(placeholders.Replace(string(raw))) + ")"}
	}
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for _, field := range schema.Mutation.Fields {
		query, variables := mutationSeed(schema, field, bodies[field.Name])
		raw, err := json.Marshal(variables)
		require.NoError(t, err)
		want[filepath.Join("FuzzGraphQL", "mutation-"+field.Name)] = []string{
			"string(" + strconv.Quote(query) + ")", "string(" + strconv.Quote(placeholders.Replace(string(raw))) + ")"}
	}

	for name, values := range want {
		file := filepath.Join("testdata", "fuzz", name)
		content := "go test fuzz v1\n" + strings.Join(values, "\n") + "\n"
		if *updateCorpus {
			require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
			require.NoError(t, os.WriteFile(file, []byte(content), 0o644))
			continue
		}
		_, err := os.Stat(file)
		require.NoError(t, err, "no seed for %s: run go test ./rest/ -run '^TestFuzzCorpus$' -update-corpus", name)
	}
}

// stableBody is the fixture's body of an operation with what depends on the day it was generated
// replaced, so that a seed stays valid: a review round open from 2020 to 2099.
func stableBody(operationID string, body map[string]any) map[string]any {
	body = clone(body)
	if operationID == "saveReviewRound" {
		body["opensAt"], body["closesAt"] = "2020-01-01T00:00:00.000Z", "2099-01-01T00:00:00.000Z"
	}
	return body
}

// idOf names the fixture id an argument called id stands for, by what the mutation changes.
var idOf = map[string]string{"Event": "eventId", "LibraryItem": "itemId", "FileRequirement": "requirementId",
	"TaskTemplate": "templateId"}

// mutationSeed is a document running the mutation field with variables for each of its
// arguments: input gets the REST body of the operation of the same name, ids the fixture's
// placeholders, enums their first value.
func mutationSeed(schema *ast.Schema, field *ast.FieldDefinition, body any) (string, map[string]any) {
	var params, args []string
	variables := map[string]any{}
	for _, arg := range field.Arguments {
		params = append(params, "$"+arg.Name+": "+arg.Type.String())
		args = append(args, arg.Name+": $"+arg.Name)
		def := schema.Types[arg.Type.Name()]
		switch {
		case def.Kind == ast.InputObject:
			if body == nil {
				body = map[string]any{}
			}
			variables[arg.Name] = body
		case def.Kind == ast.Enum:
			variables[arg.Name] = def.EnumValues[0].Name
		case arg.Name == "id":
			variables[arg.Name] = "{" + idOf[strings.TrimPrefix(strings.TrimPrefix(field.Name, "update"), "delete")] + "}"
		case arg.Type.Name() == "ID":
			variables[arg.Name] = "{" + arg.Name + "}"
		default:
			variables[arg.Name] = nil
		}
	}
	selection := ""
	if ret := schema.Types[field.Type.Name()]; ret.Kind == ast.Object || ret.Kind == ast.Interface || ret.Kind == ast.Union {
		selection = " { __typename }"
	}
	query := "mutation"
	if len(params) > 0 {
		query += "(" + strings.Join(params, ", ") + ")"
	}
	call := field.Name
	if len(args) > 0 {
		call += "(" + strings.Join(args, ", ") + ")"
	}
	return fmt.Sprintf("%s { %s%s }", query, call, selection), variables
}
