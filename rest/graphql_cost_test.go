package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/rest"
)

// costAttackSelection is the selection of the list attack: a large page of sessions, and under
// each session lists that used to cost a statement per parent row.
const costAttackSelection = `sessions(first: %d) { edges { node { id contacts { id resources { id } }
	submission { id activity { __typename } emails { __typename } } } } }`

// costAttack is the attack document: aliases copies of the selection, each under event(id: $e).
func costAttack(aliases, first int) string {
	var b strings.Builder
	b.WriteString("query($e: ID!) {")
	for i := range aliases {
		fmt.Fprintf(&b, " a%d: event(id: $e) { %s }", i, fmt.Sprintf(costAttackSelection, first))
	}
	b.WriteString(" }")
	return b.String()
}

// boardDocument is the organizer front end's session board over GraphQL: every field of the REST
// board, for the whole event (the W2 document of make bench).
const boardDocument = `query($e: ID!) { event(id: $e) { sessions(first: 2000) { totalCount tracks { id name color } formats
	edges { node { id eventId code title description format source tracks { id name color }
	speakers { id name email role position headshotUrl confirmedAt } startsAt endsAt roomId roomName
	deliverablesTotal deliverablesUploaded tasksTotal tasksDone contentReviewStatus publicationApproved
	cancelledAt cancelledBy capacity createdAt } } } } }`

// gqlCounted posts a document and returns the answer with its SQL statement count.
func (b *testBundle) gqlCounted(key, query string, vars map[string]any) (gqlResponse, int64) {
	b.t.Helper()
	r := b.do(http.MethodPost, "/graphql", key, map[string]any{"query": query, "variables": vars})
	out := gqlResponse{Status: r.Status, Raw: r.Raw}
	require.NoError(b.t, json.Unmarshal([]byte(r.Raw), &out), r.Raw)
	var n int64
	_, err := fmt.Sscan(r.Header.Get("Podium-Query-Count"), &n)
	require.NoError(b.t, err)
	return out, n
}

// TestGraphQLPageLimit: first and last above graph.MaxPageSize, or below zero, are refused with
// invalid_input before anything reads, whether written inline or passed in a variable.
func TestGraphQLPageLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "Pages"), "id")
	vars := map[string]any{"e": ev}
	for name, doc := range map[string]string{
		"SessionsFirst": `query($e: ID!) { event(id: $e) { sessions(first: 2001) { totalCount } } }`,
		"SessionsLast":  `query($e: ID!) { event(id: $e) { sessions(last: 100000) { totalCount } } }`,
		"Negative":      `query($e: ID!) { event(id: $e) { sessions(first: -1) { totalCount } } }`,
		"Events":        `{ events(first: 2001) { totalCount } }`,
		"Emails":        `query($e: ID!) { event(id: $e) { emails(first: 5000) { totalCount } } }`,
		"Speakers":      `query($e: ID!) { event(id: $e) { speakers(last: 2001) { totalCount } } }`,
		"Fragment":      `query($e: ID!) { event(id: $e) { ...F } } fragment F on Event { sessions(first: 2147483647) { totalCount } }`,
	} {
		t.Run(name, func(t *testing.T) {
			r, statements := b.gqlCounted(b.acme, doc, vars)
			require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
			require.Contains(t, r.Errors[0].Message, fmt.Sprint(graph.MaxPageSize))
			require.Nil(t, r.Data)
			require.LessOrEqual(t, statements, int64(2), "refused before it runs (the key and its rate limit only)")
		})
	}
	t.Run("Variable", func(t *testing.T) {
		r := b.gql(b.acme, `query($e: ID!, $n: Int) { event(id: $e) { sessions(first: $n) { totalCount } } }`,
			map[string]any{"e": ev, "n": 2001})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	})
	t.Run("AtTheLimit", func(t *testing.T) {
		b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { sessions(first: 2000) { totalCount } } }`, vars)
		b.gqlOK(b.acme, `query($e: ID!, $n: Int) { event(id: $e) { sessions(last: $n) { totalCount } } }`,
			map[string]any{"e": ev, "n": 2000})
	})
}

// TestGraphQLListComplexity: the complexity of a list is its page size (or an estimate) times the
// cost of an item, so the list attack of eight aliases is refused before it reads anything while
// the organizer's whole session board, one page of the attack and the other front-end documents
// run.
func TestGraphQLListComplexity(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "Lists"), "id")
	vars := map[string]any{"e": ev}

	for name, doc := range map[string]string{
		"EightAliases": costAttack(8, 1000),
		"ThreeAliases": costAttack(3, 1000),
		// Without first the page is the whole list: counted at the largest page.
		"NoFirst": strings.ReplaceAll(costAttack(2, 0), "(first: 0)", ""),
		// 50 copies of the whole speaker directory as CSV.
		"Directories": func() string {
			var s strings.Builder
			s.WriteString("query($e: ID!) {")
			for i := range 50 {
				fmt.Fprintf(&s, " d%d: event(id: $e) { speakerDirectory { csv } }", i)
			}
			return s.String() + " }"
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			r, statements := b.gqlCounted(b.acme, doc, vars)
			require.Equal(t, []string{"complexity_limit_exceeded"}, r.Codes(), r.Raw)
			require.Nil(t, r.Data)
			require.LessOrEqual(t, statements, int64(2), "refused before it runs")
		})
	}
	for name, doc := range map[string]string{
		"Board":   boardDocument,
		"OnePage": costAttack(1, 1000),
		"Paged":   `query($e: ID!) { event(id: $e) { sessions(first: 50) { totalCount edges { node { id title speakers { name } tasks { title } } } } } }`,
		"Directory": `query($e: ID!) { event(id: $e) { speakerDirectory { csv rows { contact { id } sessions { id }
			tasks { title } files { filename } emails { subject } } } } }`,
		"Review": `query($e: ID!) { event(id: $e) { evaluation { rounds { configuration { round { id } }
			results { submission { id } humanReviews { answers { criterionId } } } } } } }`,
	} {
		t.Run(name, func(t *testing.T) {
			b.gqlOK(b.acme, doc, vars)
		})
	}
}

// limitedGraphQL is b's router with a GraphQL endpoint of other limits (DefaultLimits changed by
// change), answering with the Podium-Query-Count header.
func (b *testBundle) limitedGraphQL(change func(*graph.Limits)) http.Handler {
	limits := graph.DefaultLimits
	change(&limits)
	return rest.NewHandler(rest.Options{DB: b.db, Ops: b.res.Ops, Log: b.quietLog(), QueryCountHeader: true,
		GraphQL: graph.NewHandler(graph.HandlerOptions{DB: b.db, Resolver: b.res, Log: b.quietLog(), Limits: limits})})
}

// postTo posts a GraphQL document to h and returns the answer and its SQL statement count.
func (b *testBundle) postTo(h http.Handler, key, query string, vars map[string]any) (gqlResponse, int64) {
	b.t.Helper()
	raw, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(b.t, err)
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Less(b.t, rec.Code, 500, rec.Body.String())
	out := gqlResponse{Status: rec.Code, Raw: rec.Body.String()}
	require.NoError(b.t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	n, err := strconv.ParseInt(rec.Header().Get(rest.QueryCountHeader), 10, 64)
	require.NoError(b.t, err)
	return out, n
}

// eventsCount counts the organization's events, directly in the database.
func (b *testBundle) eventsCount(orgID string) int {
	b.t.Helper()
	n, err := b.db.Ent.Event.Query().Where(event.OrganizationID(orgID)).Count(b.sys())
	require.NoError(b.t, err)
	return n
}

// TestGraphQLStatementLimit: an operation that needs more SQL statements than its cap stops at
// the cap, is answered statement_limit_exceeded with no data, and a mutation writes nothing.
func TestGraphQLStatementLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "Statements"), "id")
	const limit = 4
	h := b.limitedGraphQL(func(l *graph.Limits) { l.Statements, l.MutationStatements = limit, limit })

	// Each alias reads the event and its sessions: a few statements each.
	r, statements := b.postTo(h, b.acme, costAttack(6, 10), map[string]any{"e": ev})
	require.Equal(t, []string{"statement_limit_exceeded"}, r.Codes(), r.Raw)
	require.Nil(t, r.Data)
	require.LessOrEqual(t, statements, int64(limit+3), "the cap, the key and its rate limit; nothing more is sent")

	before := b.eventsCount(b.acmeOrg)
	in := map[string]any{"name": "Many", "type": "meetup", "timezone": "UTC",
		"startsAt": "2027-01-01T00:00:00Z", "endsAt": "2027-01-02T00:00:00Z"}
	r, _ = b.postTo(h, b.acme, `mutation($in: CreateEventInput!) { a: createEvent(input: $in) { id }
		b: createEvent(input: $in) { id } c: createEvent(input: $in) { id } d: createEvent(input: $in) { id } }`,
		map[string]any{"in": in})
	require.Equal(t, []string{"statement_limit_exceeded"}, r.Codes(), r.Raw)
	require.Equal(t, before, b.eventsCount(b.acmeOrg), "no partial write")

	// Under the cap, the same endpoint answers.
	r, _ = b.postTo(h, b.acme, `{ organization { id } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
}

// TestGraphQLAnswerCap: an answer larger than Limits.AnswerBytes is replaced by
// response_too_large, and a mutation whose answer is refused rolls back.
func TestGraphQLAnswerCap(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "Answers of a length that adds up"), "id")
	const limit = 300
	h := b.limitedGraphQL(func(l *graph.Limits) { l.AnswerBytes = limit })

	var q strings.Builder
	q.WriteString("query($e: ID!) {")
	for i := range 20 {
		fmt.Fprintf(&q, " e%d: event(id: $e) { id name }", i)
	}
	q.WriteString(" }")
	r, _ := b.postTo(h, b.acme, q.String(), map[string]any{"e": ev})
	require.Equal(t, []string{"response_too_large"}, r.Codes(), r.Raw)
	require.Nil(t, r.Data)
	require.Less(t, len(r.Raw), limit, "the refusal is short")

	before := b.eventsCount(b.acmeOrg)
	in := map[string]any{"name": strings.Repeat("Long name ", 19), "type": "meetup", "timezone": "UTC",
		"startsAt": "2027-01-01T00:00:00Z", "endsAt": "2027-01-02T00:00:00Z"}
	r, _ = b.postTo(h, b.acme, `mutation($in: CreateEventInput!) { createEvent(input: $in) { id name a: name b: name } }`, map[string]any{"in": in})
	require.Equal(t, []string{"response_too_large"}, r.Codes(), r.Raw)
	require.Equal(t, before, b.eventsCount(b.acmeOrg), "the write whose answer was refused rolled back")

	r, _ = b.postTo(h, b.acme, `query($e: ID!) { event(id: $e) { id } }`, map[string]any{"e": ev})
	require.Empty(t, r.Errors, r.Raw)
}

// TestGraphQLReadBudget: a query past Limits.ReadBudget is answered request_timeout, with no data.
func TestGraphQLReadBudget(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "Slow"), "id")
	h := b.limitedGraphQL(func(l *graph.Limits) { l.ReadBudget = time.Nanosecond })
	r, _ := b.postTo(h, b.acme, costAttack(2, 10), map[string]any{"e": ev})
	require.Equal(t, []string{"request_timeout"}, r.Codes(), r.Raw)
	require.Nil(t, r.Data)
}
