package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph"
	"github.com/podium/podium/rest"
)

// The session board written directly (graph/plainlists.go) is byte for byte what gqlgen's
// per-field execution writes, for every shape of selection: the same router with the direct
// writing turned off answers each query, and the two bodies are compared.
func TestGraphQLPlainListsSameBytes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	odd := str(b.createSession(w, "Quotes \" and \\ and <tags> & ünïcödé \u2028 \t tab", w.grace, w.ada), "id")
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.annex, "2027-09-10T12:00:00Z", "2027-09-10T12:30:00Z").Status)
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+odd+"/cancel", b.acme, map[string]any{"cause": "speaker", "notifySpeakers": false})
	b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil, "title": "Bio", "scope": "speaker"})

	generic := rest.NewHandler(rest.Options{DB: b.db, Ops: b.res.Ops, Log: b.quietLog(),
		GraphQL: graph.NewHandler(graph.HandlerOptions{DB: b.db, Resolver: b.res, Log: b.quietLog(), GenericLists: true})})
	post := func(h http.Handler, query string, vars map[string]any) string {
		body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
		require.NoError(t, err)
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+b.acme)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return rec.Body.String()
	}
	vars := map[string]any{"e": w.event, "yes": true, "no": false}
	for name, query := range map[string]string{
		"Board": `query($e: ID!) { event(id: $e) { sessions(first: 2000) { totalCount tracks { id name color } formats
			edges { node { id eventId code title description format source tracks { id name color }
			speakers { id name email role position headshotUrl confirmedAt } startsAt endsAt roomId roomName
			deliverablesTotal deliverablesUploaded tasksTotal tasksDone contentReviewStatus publicationApproved
			cancelledAt cancelledBy capacity createdAt } } } } }`,
		"Aliases": `query($e: ID!) { event(id: $e) { sessions { edges { c: cursor n: node { theId: id id title t: title
			who: speakers { n: name position } } } } } }`,
		"Fragments": `query($e: ID!) { event(id: $e) { sessions { edges { ...E } } } }
			fragment E on SessionEdge { cursor node { ...S ... on Session { code speakers { ...P } } } }
			fragment S on Session { __typename id tracks { __typename ...T } cancelledBy cancelledAt roomId roomName capacity format }
			fragment P on SessionSpeaker { name email headshotUrl confirmedAt role }
			fragment T on TrackSummary { name color }`,
		"SkipInclude": `query($e: ID!, $yes: Boolean!, $no: Boolean!) { event(id: $e) { sessions { edges {
			cursor @skip(if: $yes) node { id title @include(if: $no) code @include(if: $yes) startsAt @skip(if: $no) } } } } }`,
		"Duplicates": `query($e: ID!) { event(id: $e) { sessions { edges { node { id id title speakers { name } speakers { email } } } } } }`,
		"Typename":   `query($e: ID!) { event(id: $e) { sessions { __typename edges { __typename node { __typename } } } } }`,
		"Resolvers": `query($e: ID!) { event(id: $e) { sessions { edges { node { id tasks { title status } contacts { email }
			submission { code } } } } } }`,
		"Paged":     `query($e: ID!) { event(id: $e) { sessions(first: 2, state: active) { pageInfo { endCursor } edges { cursor node { id } } } } }`,
		"Cancelled": `query($e: ID!) { event(id: $e) { sessions(state: cancelled) { edges { node { id cancelledBy cancelledAt title } } } } }`,
		"Empty":     `query($e: ID!) { event(id: $e) { sessions(first: 0) { edges { node { id } } } } }`,
	} {
		direct, slow := post(b.handler, query, vars), post(generic, query, vars)
		require.NotContains(t, direct, `"errors"`, name)
		require.Equal(t, slow, direct, name)
	}
}
