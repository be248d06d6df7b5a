package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph"
	"github.com/podium/podium/rest"
)

// hostileDocument is a GraphQL request built to cost the server as much as its size allows.
type hostileDocument struct {
	name string
	body []byte
}

// hostileDocuments are the shapes known to cost GraphQL servers most per byte — repeated fields
// (validation compares them pair by pair), repeated spreads, fragments, variables, directives and
// arguments by the thousand (an error each), wide and deep selections, long strings and names
// (quoted back in errors), many operations, a fragment whose expansion doubles at each level —
// each as large as fits in maxBytes of request body.
func hostileDocuments(maxBytes int) []hostileDocument {
	var docs []hostileDocument
	// add repeats unit between head and tail as often as the body allows; unit may use %d for
	// the repeat's index (which makes the units distinct).
	add := func(name, head, unit, tail string, extra map[string]any) {
		body := func(n int) []byte {
			var q strings.Builder
			q.WriteString(head)
			for i := range n {
				if strings.Contains(unit, "%d") {
					fmt.Fprintf(&q, unit, i)
				} else {
					q.WriteString(unit)
				}
			}
			q.WriteString(tail)
			req := map[string]any{"query": q.String()}
			for k, v := range extra {
				req[k] = v
			}
			raw, _ := json.Marshal(req)
			return raw
		}
		// The largest n whose body fits (units with an index grow with it).
		lo, hi := 0, maxBytes
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if len(body(mid)) <= maxBytes {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		n := lo
		docs = append(docs, hostileDocument{name: name, body: body(n)})
	}
	add("RepeatedField", "{", " __typename", " }", nil)
	add("RepeatedFieldWithArguments", "{", " events(first: 1) { edges { node { id name } } }", " }", nil)
	add("RepeatedSpread", "{", " ...F", " } fragment F on Query { __typename events(first: 1) { totalCount } }", nil)
	add("ManyFragments", "{ __typename } ", "fragment F%d on Query { __typename } ", "", nil)
	add("ManySpreadFragments", "query {", " ...F%d", " } "+strings.Repeat("fragment F on Query { __typename } ", 1), nil)
	add("ManyVariables", "query(", "$v%d: Int ", ") { __typename }", nil)
	add("ManyDirectives", "{ __typename", " @include(if: true)", " }", nil)
	add("ManyArguments", "{ events(", "first: 1 ", ") { totalCount } }", nil)
	add("ManyInlineFragments", "{", " ... on Query { __typename }", " }", nil)
	add("WideAliases", "{", " a%d: __typename", " }", nil)
	add("UnknownFields", "{", " nope%d", " }", nil)
	add("DeepSelection", "{ __schema { types { name ", "ofType { name ", "", nil) // unclosed: depth is what costs
	add("DeepInlineFragments", "{ ", "... on Query { ", "__typename }", nil)
	add("LongString", `{ event(id: "`, "x", `") { id } }`, nil)
	add("LongName", "{ ", "x", " }", nil)
	add("LongArgumentName", "{ events(", "x", ": 1) { totalCount } }", nil)
	add("ManyOperations", "", "query Q%d { __typename } ", "", map[string]any{"operationName": "Q1"})
	add("ListArgument", "{ nodes(ids: [", `"evt_1", `, `]) { id } }`, nil)
	add("ObjectArgument", "{ events(where: { and: [", "{ nameContains: \"a\" }, ", "] }) { totalCount } }", nil)

	// A fragment whose expansion doubles at each level: small to send, 2^40 fields if expanded.
	var bomb strings.Builder
	bomb.WriteString("{ ...F40 } fragment F0 on Query { __typename }")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&bomb, " fragment F%d on Query { ...F%d ...F%d }", i, i-1, i-1)
	}
	raw, _ := json.Marshal(map[string]any{"query": bomb.String()})
	docs = append(docs, hostileDocument{name: "FragmentBomb", body: raw})

	// The most the document limits let through, where validation costs most.
	l := graph.DefaultLimits.Document
	fields := func(n int, unit string) string { return strings.Repeat(unit, n) }
	for name, q := range map[string]string{
		"FieldsAtLimit":         "{" + fields(l.Fields, " __typename") + " }",
		"ArgumentFieldsAtLimit": "{" + fields(l.Fields/2, " events(first: 1) { totalCount }") + " }",
		"SpreadsAtLimit": "{" + fields(l.ExpandedFields/(l.Fields/2), " ...F") + " } fragment F on Query {" +
			fields(l.Fields/2-1, " __typename") + " }",
		"NestedSpreadsAtLimit": "{ ...F9 } fragment F0 on Query { __typename events(first: 1) { totalCount } }" + func() string {
			var f strings.Builder
			for i := 1; i <= 9; i++ {
				fmt.Fprintf(&f, " fragment F%d on Query { ...F%d ...F%d }", i, i-1, i-1)
			}
			return f.String()
		}(),
	} {
		raw, _ := json.Marshal(map[string]any{"query": q})
		docs = append(docs, hostileDocument{name: name, body: raw})
	}

	// The ids of nodes as a variable, which no document limit sees.
	ids := make([]string, 0, maxBytes/10)
	for len(ids)*10 < maxBytes-200 {
		ids = append(ids, "evt_"+strconv.Itoa(len(ids)%1000))
	}
	raw, _ = json.Marshal(map[string]any{"query": "query($ids: [ID!]!) { nodes(ids: $ids) { id } }", "variables": map[string]any{"ids": ids}})
	docs = append(docs, hostileDocument{name: "ListVariable", body: raw})
	return docs
}

// cpuTime is the CPU time the process has used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// postGraphQL serves a GraphQL request through handler, safely from any goroutine.
func postGraphQL(handler http.Handler, key string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	return rec
}

// TestGraphQLHostileDocuments sends each hostile document, as large as the body limit allows:
// each is answered — refused, or run — within a second of the process's CPU, with a response
// under 64 KiB, and while they are sent over and over a simple query is still answered at once.
// The test is not parallel, so that the process's CPU time is this test's alone.
func TestGraphQLHostileDocuments(t *testing.T) {
	b := setup(t)
	docs := hostileDocuments(rest.MaxBodyBytes)

	for _, doc := range docs {
		t.Run(doc.name, func(t *testing.T) {
			require.LessOrEqual(t, len(doc.body), rest.MaxBodyBytes)
			cpu, start := cpuTime(), time.Now()
			rec := postGraphQL(b.handler, b.acme, doc.body)
			cpu, wall := cpuTime()-cpu, time.Since(start)
			t.Logf("%-26s request %7d B  response %6d B  status %d  wall %8v  cpu %8v",
				doc.name, len(doc.body), rec.Body.Len(), rec.Code, wall.Round(time.Millisecond), cpu.Round(time.Millisecond))
			require.Less(t, cpu, time.Second, "%s: %s", doc.name, head(rec.Body.String()))
			require.Less(t, rec.Body.Len(), 64<<10, "%s: %s", doc.name, head(rec.Body.String()))
			require.Less(t, rec.Code, 500, head(rec.Body.String()))
			var out gqlResponse
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), head(rec.Body.String()))
			for _, e := range out.Errors {
				code, _ := e.Extensions["code"].(string)
				require.NotEmpty(t, code, head(rec.Body.String()))
				require.NotEqual(t, "internal_error", code, head(rec.Body.String()))
			}
		})
	}

	t.Run("SimpleQueryWhileUnderAttack", func(t *testing.T) {
		simple := []byte(`{"query":"{ organization { id } }"}`)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				for i := w; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					postGraphQL(b.handler, b.acme, docs[i%len(docs)].body)
				}
			})
		}
		var latencies []time.Duration
		for range 20 {
			start := time.Now()
			rec := postGraphQL(b.handler, b.acme, simple)
			latencies = append(latencies, time.Since(start))
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			require.Contains(t, rec.Body.String(), `"organization":{"id":`)
			time.Sleep(5 * time.Millisecond)
		}
		close(stop)
		wg.Wait()
		sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
		t.Logf("simple query under attack: median %v, slowest %v", latencies[len(latencies)/2], latencies[len(latencies)-1])
		require.Less(t, latencies[len(latencies)/2], 100*time.Millisecond, "median latency of a simple query")
	})
}

// head is the start of a long response, for failure messages.
func head(s string) string {
	if len(s) > 500 {
		return s[:500] + "…"
	}
	return s
}

// TestGraphQLDocumentLimits checks each document limit and the error cap where they start.
func TestGraphQLDocumentLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	l := graph.DefaultLimits.Document
	repeat := func(unit string, n int) string { return strings.Repeat(unit, n) }
	indexed := func(unit string, n int) string {
		var s strings.Builder
		for i := range n {
			fmt.Fprintf(&s, unit, i)
		}
		return s.String()
	}

	for name, tc := range map[string]struct {
		over, at string // a document one past the limit, and one at it
		message  string
	}{
		"Tokens": {"{ __typename(" + repeat("a: 1 ", l.Tokens/3) + ") }", "{ __typename }",
			fmt.Sprintf("The document has more than %d tokens", l.Tokens)},
		"Fields": {"{" + repeat(" __typename", l.Fields+1) + " }", "{" + repeat(" __typename", l.Fields) + " }",
			fmt.Sprintf("The document has %d fields; the limit is %d", l.Fields+1, l.Fields)},
		"ExpandedFields": {"{" + repeat(" ...F", l.ExpandedFields/100+1) + " } fragment F on Query {" + repeat(" __typename", 100) + " }",
			"{" + repeat(" ...F", l.ExpandedFields/100) + " } fragment F on Query {" + repeat(" __typename", 100) + " }",
			fmt.Sprintf("The document has %d fields once its fragments are expanded; the limit is %d", l.ExpandedFields+1, l.ExpandedFields)},
		"Fragments": {"{ __typename " + indexed("...F%d ", l.Fragments+1) + "}" + indexed(" fragment F%d on Query { __typename }", l.Fragments+1),
			"{ __typename " + indexed("...F%d ", l.Fragments) + "}" + indexed(" fragment F%d on Query { __typename }", l.Fragments),
			fmt.Sprintf("The document has %d fragment definitions; the limit is %d", l.Fragments+1, l.Fragments)},
		"Directives": {"{" + repeat(" __typename @include(if: true)", l.Directives+1) + " }",
			"{" + repeat(" __typename @include(if: true)", l.Directives) + " }",
			fmt.Sprintf("The document has %d directives; the limit is %d", l.Directives+1, l.Directives)},
		"Variables": {"query(" + indexed("$v%d: Int ", l.Variables+1) + ") { events(first: $v0) { totalCount } }",
			"query(" + indexed("$v%d: Int ", l.Variables) + ") { events(first: $v0) { totalCount } }",
			fmt.Sprintf("The document has %d variable definitions; the limit is %d", l.Variables+1, l.Variables)},
		"Arguments": {`{ nodes(ids: [` + repeat(`"x", `, l.Arguments) + `]) { id } }`, `{ nodes(ids: [` + repeat(`"x", `, l.Arguments-1) + `]) { id } }`,
			fmt.Sprintf("The document has %d arguments; the limit is %d", l.Arguments+1, l.Arguments)},
		"Operations": {indexed("query Q%d { __typename } ", l.Operations+1), indexed("query Q%d { __typename } ", l.Operations),
			fmt.Sprintf("The document has %d operations; the limit is %d", l.Operations+1, l.Operations)},
	} {
		t.Run(name, func(t *testing.T) {
			vars := map[string]any{}
			body := func(q string) map[string]any {
				m := map[string]any{"query": q, "variables": vars}
				if strings.HasPrefix(q, "query Q") {
					m["operationName"] = "Q0"
				}
				return m
			}
			r := b.do(http.MethodPost, "/graphql", b.acme, body(tc.over))
			require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.Raw)
			require.JSONEq(t, `{"data":null,"errors":[{"message":`+strconv.Quote(tc.message)+
				`,"extensions":{"code":"graphql_document_too_large"}}]}`, r.Raw)
			r = b.do(http.MethodPost, "/graphql", b.acme, body(tc.at))
			require.NotContains(t, r.Raw, "graphql_document_too_large")
		})
	}

	t.Run("GraphiQLIntrospection", func(t *testing.T) {
		data := b.gqlOK(b.acme, introspectionQuery, nil)
		require.NotEmpty(t, data["__schema"])
	})

	t.Run("GET", func(t *testing.T) {
		req := b.request(http.MethodGet, "/graphql?query="+urlQueryEscape("{"+repeat(" __typename", l.Fields+1)+" }"), "Bearer "+b.acme)
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
		require.Contains(t, rec.Body.String(), `"code":"graphql_document_too_large"`)
	})

	t.Run("ErrorsCapped", func(t *testing.T) {
		r := b.gql(b.acme, "{"+indexed(" nope%d", 100)+" }", nil)
		limit := graph.DefaultLimits.Errors
		require.Len(t, r.Errors, limit, r.Raw)
		for _, e := range r.Errors[:limit-1] {
			require.Equal(t, "graphql_validation_failed", e.Extensions["code"])
		}
		last := r.Errors[limit-1]
		require.Equal(t, "too_many_errors", last.Extensions["code"])
		require.Equal(t, float64(100-(limit-1)), last.Extensions["omitted"])
		require.Equal(t, fmt.Sprintf("%d more errors were left out; fix the ones above and send the document again", 100-(limit-1)), last.Message)
	})

	t.Run("NameBytes", func(t *testing.T) {
		n := graph.DefaultLimits.Document.NameBytes
		r := b.gql(b.acme, "{ "+repeat("x", n)+" }", nil)
		require.Equal(t, "graphql_validation_failed", r.Errors[0].Extensions["code"], r.Raw)
		for _, doc := range []string{"{ " + repeat("x", n+1) + " }", "{ events(" + repeat("x", n+1) + ": 1) { totalCount } }",
			"query($" + repeat("v", n+1) + ": Int) { __typename }", "{ ...on " + repeat("T", n+1) + " { __typename } }"} {
			r := b.gql(b.acme, doc, nil)
			require.Equal(t, "graphql_document_too_large", r.Errors[0].Extensions["code"], r.Raw)
			require.Equal(t, fmt.Sprintf("The document has a name of %d bytes; the limit is %d", n+1, n), r.Errors[0].Message)
		}
	})

	t.Run("LongMessagesCut", func(t *testing.T) {
		// A long value where an Int belongs: the message quotes it. (A long name is refused before
		// validation, see NameBytes.)
		r := b.gql(b.acme, `{ events(first: "`+repeat("x", 5000)+`") { totalCount } }`, nil)
		require.Len(t, r.Errors, 1, r.Raw)
		msg := r.Errors[0].Message
		require.LessOrEqual(t, len(msg), graph.DefaultLimits.ErrorMessageBytes+len("…"))
		require.Contains(t, msg, `"xxxx`)
		require.True(t, strings.HasSuffix(msg, "…"), msg)
		require.True(t, utf8.ValidString(msg))
	})
}

// TestGraphQLBudget checks that a request whose budget ran out, or whose client left, stops
// before its document is read, with a code saying why.
func TestGraphQLBudget(t *testing.T) {
	t.Parallel()
	b := setup(t)
	limits := graph.DefaultLimits
	limits.Budget = time.Nanosecond
	h := graph.NewHandler(graph.HandlerOptions{DB: b.db, Resolver: b.res, Log: b.quietLog(), Limits: limits})

	rec := postGraphQL(h, b.acme, []byte(`{"query":"{ __typename }"}`))
	require.JSONEq(t, `{"data":null,"errors":[{"message":"The request ran out of its time budget; ask for less at a time",`+
		`"extensions":{"code":"request_timeout"}}]}`, rec.Body.String())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ organization { id } }"}`)).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	rec = httptest.NewRecorder()
	graph.NewHandler(graph.HandlerOptions{DB: b.db, Resolver: b.res, Log: b.quietLog()}).ServeHTTP(rec, req)
	require.Contains(t, rec.Body.String(), `"code":"request_canceled"`)
}

// introspectionQuery is the introspection query GraphiQL sends when it opens, the largest
// document a client of Podium sends.
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    description
    queryType { name kind }
    mutationType { name kind }
    subscriptionType { name kind }
    types { ...FullType }
    directives {
      name description isRepeatable locations
      args(includeDeprecated: true) { ...InputValue }
    }
  }
}
fragment FullType on __Type {
  kind name description specifiedByURL isOneOf
  fields(includeDeprecated: true) {
    name description
    args(includeDeprecated: true) { ...InputValue }
    type { ...TypeRef }
    isDeprecated deprecationReason
  }
  inputFields(includeDeprecated: true) { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue {
  name description type { ...TypeRef } defaultValue isDeprecated deprecationReason
}
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name
    ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } }
}`
