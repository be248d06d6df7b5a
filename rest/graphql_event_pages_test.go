package rest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/organizationmember"
)

// eventPageCase is a selection of Event read for a page of events by one loader
// (graph/loaders_events*.go), and the cursors it needs, read first from the event alone.
type eventPageCase struct {
	name, sel string
}

// TestGraphQLEventPagesAsAlone: the read models of Event batched across a page of events —
// sessions, submissions, speakers, emails — answer for each event of the page, and of the same
// events read by id (Query.nodes), exactly what the event answers read alone (event(id:)), which
// keeps the single-event path: same rows, order, cursors, page info, totals and errors, whatever
// the arguments.
func TestGraphQLEventPagesAsAlone(t *testing.T) {
	t.Parallel()
	w := seedStatementWorld(t, 4)
	b := w.b
	cursor := func(event, sel string, path ...string) string {
		r := b.gql(b.acme, `query($e: ID!) { event(id: $e) { `+sel+` } }`, map[string]any{"e": event})
		require.Empty(t, r.Errors, r.Raw)
		var v any = r.Data["event"]
		for _, p := range path {
			switch x := v.(type) {
			case map[string]any:
				v = x[p]
			case []any:
				var i int
				_, err := fmt.Sscan(p, &i)
				require.NoError(t, err)
				v = x[i]
			}
		}
		s, ok := v.(string)
		require.True(t, ok, r.Raw)
		return s
	}
	connection := `totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id %s } }`
	speakers := fmt.Sprintf(connection, "lastName email")
	emails := fmt.Sprintf(connection, "createdAt status type")
	speakerAfter := cursor(w.sessions, `speakers(first: 2) { edges { cursor } }`, "speakers", "edges", "1", "cursor")
	speakerByEmail := cursor(w.sessions, `speakers(first: 2, orderBy: {field: EMAIL, direction: DESC}) { edges { cursor } }`,
		"speakers", "edges", "1", "cursor")
	sessions := fmt.Sprintf(connection, "code title startsAt tracks { id } speakers { id name } tasksTotal") +
		" tracks { id name } formats"
	// A read of every session costs more complexity: read less of each.
	allSessions := `totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } } tracks { id } formats`
	sessionAfter := cursor(w.sessions, `sessions(first: 2) { edges { cursor } }`, "sessions", "edges", "1", "cursor")
	emailAfter := cursor(w.sessions, `emails(first: 1) { edges { cursor } }`, "emails", "edges", "0", "cursor")
	cases := []eventPageCase{
		{"speakers", "speakers { " + speakers + " }"},
		{"speakers/first", "speakers(first: 2) { " + speakers + " }"},
		{"speakers/first0", "speakers(first: 0) { " + speakers + " }"},
		{"speakers/last", "speakers(last: 2) { " + speakers + " }"},
		{"speakers/after", fmt.Sprintf(`speakers(first: 2, after: %q) { %s }`, speakerAfter, speakers)},
		{"speakers/before", fmt.Sprintf(`speakers(last: 1, before: %q) { %s }`, speakerAfter, speakers)},
		{"speakers/afterAll", fmt.Sprintf(`speakers(after: %q) { %s }`, speakerAfter, speakers)},
		{"speakers/order", fmt.Sprintf(`speakers(first: 3, after: %q, orderBy: {field: EMAIL, direction: DESC}) { %s }`,
			speakerByEmail, speakers)},
		{"speakers/where", `speakers(first: 5, where: {or: [{emailContains: "1"}, {lastNameHasPrefix: "A"}]}) { ` + speakers + " }"},
		{"speakers/count", "speakers(first: 1) { totalCount }"},
		{"speakers/countAll", "speakers { totalCount pageInfo { hasNextPage } }"},
		{"speakers/aliased", "speakers(first: 2) { totalCount e: edges { node { id } } }"},
		{"speakers/invalid", "speakers(first: 1, last: 1) { totalCount }"},
		{"speakers/negative", "speakers(first: -1) { totalCount }"},
		{"emails", "emails { " + emails + " }"},
		{"emails/first", "emails(first: 2) { " + emails + " }"},
		{"emails/last", "emails(last: 2, orderBy: {field: CREATED_AT, direction: ASC}) { " + emails + " }"},
		{"emails/after", fmt.Sprintf(`emails(first: 2, after: %q) { %s }`, emailAfter, emails)},
		{"emails/where", `emails(first: 3, where: {type: confirmation}) { ` + emails + " }"},
		{"emails/none", `emails(where: {status: failed}) { ` + emails + " }"},
		{"sessions", "sessions { " + allSessions + " }"},
		{"sessions/first", "sessions(first: 2) { " + sessions + " }"},
		{"sessions/firstAll", "sessions(first: 50) { " + sessions + " }"},
		{"sessions/first0", "sessions(first: 0) { " + sessions + " }"},
		{"sessions/last", "sessions(last: 2) { " + sessions + " }"},
		{"sessions/firstLast", "sessions(first: 3, last: 1) { " + sessions + " }"},
		{"sessions/state", "sessions(state: active, first: 2) { " + sessions + " }"},
		{"sessions/cancelled", "sessions(state: cancelled) { " + allSessions + " }"},
		{"sessions/after", fmt.Sprintf(`sessions(first: 2, after: %q) { %s }`, sessionAfter, sessions)},
		{"sessions/before", fmt.Sprintf(`sessions(last: 2, before: %q) { %s }`, sessionAfter, sessions)},
		{"sessions/afterAll", fmt.Sprintf(`sessions(after: %q) { %s }`, sessionAfter, allSessions)},
		{"sessions/badCursor", `sessions(first: 1, after: "nope") { totalCount }`},
		{"sessions/negative", "sessions(last: -1) { totalCount }"},
		{"submissions", `submissions { submissions { id code status speakers { id } tracks { id } } tracks { id } formats tags { id } }`},
		{"submissions/status", `submissions(status: pending) { submissions { id code } formats }`},
		{"submissions/drafts", `submissions(status: draft) { submissions { id } }`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			frag := "fragment F on Event { " + c.sel + " }"
			events := 10
			if strings.Contains(c.sel, allSessions) { // every session of each event: within the complexity limit with fewer
				events = 8
			}
			list := b.gql(b.acme, fmt.Sprintf(`{ events(first: %d) { edges { node { id ...F } } } } `, events)+frag, nil)
			require.Equal(t, 200, list.Status, list.Raw)
			if len(list.Errors) > 0 { // refused arguments: each event's error, the same as alone
				alone := b.gql(b.acme, `query($e: ID!) { event(id: $e) { id ...F } } `+frag, map[string]any{"e": w.sessions})
				require.NotEmpty(t, alone.Errors, alone.Raw)
				require.Equal(t, messages(alone.Errors), messages(list.Errors))
				return
			}
			edges := list.Data["events"].(map[string]any)["edges"].([]any)
			require.Greater(t, len(edges), 2)
			var ids []any
			for _, e := range edges {
				ids = append(ids, e.(map[string]any)["node"].(map[string]any)["id"])
			}
			require.Subset(t, ids, []any{w.sessions, w.review})
			// The same events by id (Query.nodes), a list of its own.
			nodes := b.gql(b.acme, `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Event { id ...F } } } `+frag,
				map[string]any{"ids": ids})
			require.Empty(t, nodes.Errors, nodes.Raw)
			for i, e := range edges {
				node := e.(map[string]any)["node"].(map[string]any)
				alone := b.gql(b.acme, `query($e: ID!) { event(id: $e) { id ...F } } `+frag, map[string]any{"e": node["id"]})
				require.Empty(t, alone.Errors, alone.Raw)
				require.Equal(t, alone.Data["event"], node, "event %s", node["id"])
				require.Equal(t, alone.Data["event"], nodes.Data["nodes"].([]any)[i], "event %s by id", node["id"])
			}
		})
	}
}

// TestGraphQLEventPagesAsAloneForPeople: a signed-in admin reads the batched read models of the
// organization's events as they read them one event at a time (the organization's wall is the
// events page's).
func TestGraphQLEventPagesAsAloneForPeople(t *testing.T) {
	t.Parallel()
	w := seedStatementWorld(t, 3)
	b := w.b
	b.addMember(b.acmeOrg, "admin@example.test", organizationmember.RoleAdmin)
	rival := b.createEvent(b.globex, "Globex Days")["id"]
	sel := `sessions(first: 2) { totalCount edges { cursor node { id speakers { id } } } tracks { id } }
		submissions { submissions { id code } tags { id } }
		speakers(first: 3) { totalCount pageInfo { hasNextPage endCursor } edges { node { id email } } }
		emails(first: 2) { totalCount edges { node { id subject } } }`
	cookie := b.signIn("admin@example.test")
	list := b.gqlCookie(cookie, `{ events(first: 10) { edges { node { id `+sel+` } } } }`, nil)
	require.Empty(t, list.Errors, list.Raw)
	edges := list.Data["events"].(map[string]any)["edges"].([]any)
	require.Greater(t, len(edges), 2)
	for _, e := range edges {
		node := e.(map[string]any)["node"].(map[string]any)
		require.NotEqual(t, rival, node["id"])
		alone := b.gqlCookie(cookie, fmt.Sprintf(`{ event(id: %q) { id %s } }`, node["id"], sel), nil)
		require.Empty(t, alone.Errors, alone.Raw)
		require.Equal(t, alone.Data["event"], node, "event %s", node["id"])
	}
}

// messages are the distinct messages of errs, sorted.
func messages(errs []gqlError) []string {
	var out []string
	for _, e := range errs {
		if !slices.Contains(out, e.Message) {
			out = append(out, e.Message)
		}
	}
	slices.Sort(out)
	return out
}
