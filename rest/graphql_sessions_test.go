package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// The sessions, submissions and speakers operations through GraphQL: same rules, same codes,
// same data as REST.
func TestGraphQLSessions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil, "title": "Bio", "scope": "speaker"})

	const create = `mutation($e: ID!, $in: CreateSessionInput!) { createSession(eventId: $e, input: $in) { id code status title } }`
	s1 := b.gqlOK(b.acme, create, map[string]any{"e": w.event, "in": map[string]any{"title": "One", "speakerIds": []any{w.ada}}})["createSession"].(map[string]any)
	require.Equal(t, "SESS-1", s1["code"])
	require.Equal(t, "accepted", s1["status"])
	b.createSession(w, "Two", w.grace, w.alan)

	r := b.gql(b.acme, create, map[string]any{"e": w.event, "in": map[string]any{"title": "X", "speakerIds": []any{w.outsider}}})
	require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
	require.Equal(t, "One or more speakers do not belong to this event", r.Errors[0].Message)
	r = b.gql(b.acme, create, map[string]any{"e": w.event, "in": map[string]any{"title": " ", "speakerIds": []any{w.ada}}})
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)

	const cancel = `mutation($e: ID!, $s: ID!, $in: CancelSessionInput!) { cancelSession(eventId: $e, sessionId: $s, input: $in) { id cancelledBy createdEmails waivedTasks } }`
	res := b.gqlOK(b.acme, cancel, map[string]any{"e": w.event, "s": s1["id"], "in": map[string]any{"cause": "organizer", "notifySpeakers": false}})["cancelSession"].(map[string]any)
	require.Equal(t, map[string]any{"id": s1["id"], "cancelledBy": "organizer", "createdEmails": float64(0), "waivedTasks": float64(1)}, res)
	r = b.gql(b.acme, cancel, map[string]any{"e": w.event, "s": s1["id"], "in": map[string]any{"cause": "organizer"}})
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	r = b.gql(b.globex, cancel, map[string]any{"e": w.event, "s": s1["id"], "in": map[string]any{"cause": "organizer"}})
	require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)

	t.Run("SessionsConnection", func(t *testing.T) {
		const q = `query($e: ID!, $state: SessionState, $first: Int, $after: Cursor) { event(id: $e) {
			sessions(state: $state, first: $first, after: $after) {
				totalCount formats tracks { id }
				pageInfo { hasNextPage endCursor }
				edges { cursor node { id code cancelledBy tasksTotal speakers { name } contacts { email firstName }
					tasks { title status } submission { code source } } }
			} } }`
		conn := b.gqlOK(b.acme, q, map[string]any{"e": w.event})["event"].(map[string]any)["sessions"].(map[string]any)
		require.Equal(t, float64(2), conn["totalCount"])
		require.Equal(t, []any{"Talk"}, conn["formats"])
		edges := conn["edges"].([]any)
		require.Len(t, edges, 2)
		two := edges[0].(map[string]any)["node"].(map[string]any)
		require.Equal(t, "SESS-2", two["code"], "newest first among unscheduled")
		require.Equal(t, []any{map[string]any{"email": "grace@example.test", "firstName": "Grace"},
			map[string]any{"email": "alan@example.test", "firstName": "Alan"}}, two["contacts"])
		require.Len(t, two["tasks"], 2)
		require.Equal(t, map[string]any{"code": "SESS-2", "source": "manual"}, two["submission"])

		active := b.gqlOK(b.acme, q, map[string]any{"e": w.event, "state": "active"})["event"].(map[string]any)["sessions"].(map[string]any)
		require.Equal(t, float64(1), active["totalCount"])
		cancelled := b.gqlOK(b.acme, q, map[string]any{"e": w.event, "state": "cancelled"})["event"].(map[string]any)["sessions"].(map[string]any)
		require.Equal(t, "organizer", cancelled["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["cancelledBy"])

		page := b.gqlOK(b.acme, q, map[string]any{"e": w.event, "first": 1})["event"].(map[string]any)["sessions"].(map[string]any)
		require.Len(t, page["edges"], 1)
		info := page["pageInfo"].(map[string]any)
		require.Equal(t, true, info["hasNextPage"])
		next := b.gqlOK(b.acme, q, map[string]any{"e": w.event, "first": 1, "after": info["endCursor"]})["event"].(map[string]any)["sessions"].(map[string]any)
		require.Equal(t, "SESS-1", next["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["code"])
		require.Equal(t, false, next["pageInfo"].(map[string]any)["hasNextPage"])

		// REST lists the same sessions in the same order with the same fields.
		rest := sessionsOf(b.listSessions(w, ""))
		require.Equal(t, two["id"], rest[0]["id"])
	})

	t.Run("Speakers", func(t *testing.T) {
		const workflow = `mutation($e: ID!, $c: ID!) { setSpeakerWorkflow(eventId: $e, contactId: $c, input: {status: confirmed}) { workflowStatus confirmedAt } }`
		got := b.gqlOK(b.acme, workflow, map[string]any{"e": w.event, "c": w.ada})["setSpeakerWorkflow"].(map[string]any)
		require.Equal(t, "confirmed", got["workflowStatus"])
		require.Regexp(t, isoMillis, got["confirmedAt"])
		rest := b.must(http.StatusOK, http.MethodGet, w.base+"/speakers/"+w.ada, b.acme, nil).Obj()
		require.Equal(t, got["confirmedAt"], rest["confirmedAt"])

		const save = `mutation($e: ID!, $in: SaveSpeakerInput!) { saveSpeaker(eventId: $e, input: $in) { id email } }`
		in := map[string]any{"firstName": "Dup", "lastName": "Licate", "email": "ADA@example.test", "dietaryRequirements": "none", "workflowStatus": "invited"}
		r := b.gql(b.acme, save, map[string]any{"e": w.event, "in": in})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
		require.Equal(t, "A speaker with this email already exists", r.Errors[0].Message)

		const invite = `mutation($e: ID!, $ids: [ID!]!) { inviteSpeakerPortals(eventId: $e, input: {contactIds: $ids}) { sent invitations { contactId alreadyInvited } } }`
		first := b.gqlOK(b.acme, invite, map[string]any{"e": w.event, "ids": []any{w.ada}})["inviteSpeakerPortals"].(map[string]any)
		require.Equal(t, float64(1), first["sent"])
		second := b.gqlOK(b.acme, invite, map[string]any{"e": w.event, "ids": []any{w.ada}})["inviteSpeakerPortals"].(map[string]any)
		require.Equal(t, float64(0), second["sent"])
		require.Equal(t, true, second["invitations"].([]any)[0].(map[string]any)["alreadyInvited"])

		const list = `query($e: ID!) { event(id: $e) { speakers(first: 10) { totalCount edges { node { lastName } } }
			speakerDirectory { rows { contact { email } sessions { code } } } } }`
		data := b.gqlOK(b.acme, list, map[string]any{"e": w.event})["event"].(map[string]any)
		speakers := data["speakers"].(map[string]any)
		require.Equal(t, float64(3), speakers["totalCount"])
		require.Equal(t, "Hopper", speakers["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["lastName"])
		require.Len(t, data["speakerDirectory"].(map[string]any)["rows"], 3)
	})

	t.Run("Submissions", func(t *testing.T) {
		p := b.propose(w, "Proposal", w.alan)
		const decide = `mutation($e: ID!, $in: DecideSubmissionsInput!) { decideSubmissions(eventId: $e, input: $in) { createdEmails submissions { status } } }`
		b.gqlOK(b.acme, decide, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p["id"]}, "decision": "decline", "feedback": "No", "inform": true}})
		r := b.gql(b.acme, decide, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p["id"]}, "decision": "accept", "feedback": ""}})
		require.Equal(t, []string{"already_decided"}, r.Codes(), r.Raw)

		const list = `query($e: ID!, $id: ID!) { event(id: $e) { submissions(status: declined) { submissions { code status } }
			submission(id: $id) { code activity { kind } emails { type } } } }`
		data := b.gqlOK(b.acme, list, map[string]any{"e": w.event, "id": p["id"]})["event"].(map[string]any)
		require.Equal(t, []any{map[string]any{"code": p["code"], "status": "declined"}}, data["submissions"].(map[string]any)["submissions"])
		sub := data["submission"].(map[string]any)
		require.Equal(t, []any{map[string]any{"type": "declined"}}, sub["emails"])
		r = b.gql(b.acme, `query($e: ID!) { event(id: $e) { submission(id: "sub_01doesnotexist0000000000") { id } } }`, map[string]any{"e": w.event})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
	})
}

func TestGraphQLNodes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	s := b.createSession(w, "Node", w.ada)
	const q = `query($id: ID!) { node(id: $id) { __typename id ... on Submission { code status } ... on Contact { email } } }`
	got := b.gqlOK(b.acme, q, map[string]any{"id": s["id"]})["node"].(map[string]any)
	require.Equal(t, map[string]any{"__typename": "Submission", "id": s["id"], "code": "SESS-1", "status": "accepted"}, got)
	got = b.gqlOK(b.acme, q, map[string]any{"id": w.ada})["node"].(map[string]any)
	require.Equal(t, "ada@example.test", got["email"])
	for _, id := range []any{s["id"], w.ada} {
		r := b.gql(b.globex, q, map[string]any{"id": id})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
	}
}

// TestGraphQLSessionsQueryCount proves that navigating from sessions to their contacts, tasks,
// deliverables and submission costs the same number of queries for 1 session as for 60.
func TestGraphQLSessionsQueryCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil, "title": "Bio", "scope": "speaker"})
	b.must(http.StatusOK, http.MethodPost, w.base+"/file-requirements", b.acme, map[string]any{"id": nil, "label": "Slides", "scope": "session"})
	const q = `query($e: ID!) { event(id: $e) { sessions(first: 1000) { totalCount edges { node {
		id speakers { name } tracks { name } contacts { email } tasks { title status } deliverables { label status }
		submission { code speakers { name } } } } } } }`
	count := func() int64 {
		body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"e": w.event}})
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+b.acme)
		req.Header.Set("Content-Type", "application/json")
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusOK, rec.Code)
		require.NotContains(t, rec.Body.String(), `"errors"`)
		return statements(t, rec)
	}
	b.createSession(w, "One", w.ada)
	one := count()
	for i := range 59 {
		b.createSession(w, "Session "+itoa(i), w.ada, w.grace)
	}
	require.Equal(t, one, count())
}
