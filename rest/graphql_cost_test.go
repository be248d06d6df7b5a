package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph"
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
