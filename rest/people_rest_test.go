package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/rest"
)

// personToken connects an application for addr through the whole OAuth flow, asking and granting
// scopes, and returns its access token. The person signs in once per bundle.
func (b *testBundle) personToken(addr string, scopes ...string) string {
	b.t.Helper()
	cookie, ok := b.sessions[addr]
	if !ok {
		cookie = b.signIn(addr)
		if b.sessions == nil {
			b.sessions = map[string]string{}
		}
		b.sessions[addr] = cookie
	}
	return b.newOAuthFlow(cookie, scopes...).connect(scopes...).AccessToken
}

// TestReviewerOnREST: a reviewer acts on REST through an application they authorized — their queue
// (GET E/my-reviews, a blind round redacted), their own assignments' answers and recusal, quick
// reviews inside their assigned tracks — and nobody else's: another reviewer's assignment answers 404, an
// API key and an organizer who is no reviewer are refused the queue, a read-only grant writes
// nothing. What an application changes names the person and the application.
func TestReviewerOnREST(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f, w := b.blindDesk("idle@example.test")
	ids := f.ids
	b.addMember(b.acmeOrg, "owner@acme.test", organizationmember.RoleOwner)
	b.version = rest.VersionCurrent

	reviewer := b.personToken("reviewer@example.test", "read", "write")
	idle := b.personToken("idle@example.test", "read", "write")
	owner := b.personToken("owner@acme.test", "read", "write")
	readOnly := b.personToken("reviewer@example.test", "read")

	// The queue: the reviewer's own, redacted in a blind round.
	q := b.must(http.StatusOK, http.MethodGet, w.base+"/my-reviews", reviewer, nil)
	require.Equal(t, ids["eventMemberId"], q.Obj()["eventMemberId"])
	rounds := objects(q.Obj()["rounds"])
	require.Len(t, rounds, 1, q.Raw)
	items := objects(rounds[0]["items"])
	require.Len(t, items, 1, q.Raw)
	require.Equal(t, ids["assignmentId"], str(items[0]["assignment"].(map[string]any), "id"))
	require.Equal(t, "[redacted] on engines", items[0]["title"])
	for _, s := range []string{"Ada", "Lovelace", "ada@example.test", ids["contactId"]} {
		require.NotContains(t, q.Raw, s, "a blind round shows the reviewer who the speaker is")
	}
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, w.base+"/my-reviews", idle, nil).Obj()["rounds"])
	b.requireError(b.do(http.MethodGet, w.base+"/my-reviews", b.acme, nil), http.StatusForbidden, "forbidden")
	b.requireError(b.do(http.MethodGet, w.base+"/my-reviews", owner, nil), http.StatusForbidden, "forbidden")
	// The reviewer reaches nothing of the organization's.
	b.requireError(b.do(http.MethodGet, w.base+"/submissions", reviewer, nil), http.StatusForbidden, "forbidden")

	answers := f.bodies["submitReviewAnswers"]
	answersPath := w.base + "/review-assignments/" + ids["assignmentId"] + "/answers"
	nothingAnswered := func() {
		t.Helper()
		require.Zero(t, b.count(`SELECT count(*) FROM review_answers WHERE assignment_id = $1`, ids["assignmentId"]))
	}
	b.requireError(b.do(http.MethodPost, answersPath, idle, answers), http.StatusNotFound, "not_found")
	b.requireError(b.do(http.MethodPost, answersPath, b.acme, answers), http.StatusForbidden, "forbidden")
	b.requireError(b.do(http.MethodPost, answersPath, readOnly, answers), http.StatusForbidden, "insufficient_scope")
	b.requireError(b.do(http.MethodPost, answersPath, owner, answers), http.StatusNotFound, "not_found")
	nothingAnswered()
	done := b.must(http.StatusOK, http.MethodPost, answersPath, reviewer, answers).Obj()
	require.Equal(t, "completed", done["status"])
	require.Equal(t, 1, b.count(`SELECT count(*) FROM review_answers WHERE assignment_id = $1`, ids["assignmentId"]))
	// Through another event's path, the same assignment is no one's.
	other := "/api/v1/events/" + str(b.createEvent(b.acme, "Other"), "id")
	b.requireError(b.do(http.MethodPost, other+"/review-assignments/"+ids["assignmentId"]+"/recuse", reviewer,
		map[string]any{"reason": "x"}), http.StatusNotFound, "not_found")
	recused := b.must(http.StatusOK, http.MethodPost, w.base+"/review-assignments/"+ids["assignmentId"]+"/recuse", reviewer,
		map[string]any{"reason": "I know them"}).Obj()
	require.Equal(t, "recused", recused["status"])

	// Quick reviews: inside the reviewer's tracks once they have some.
	inTrack := ids["proposalId"]
	elsewhere := str(b.saveItem(b.acme, w.event, map[string]any{"kind": "track", "name": "Elsewhere"}), "id")
	outside := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{
		"title": "Q", "description": "d", "formatId": ids["formatId"], "trackIds": []any{elsewhere},
		"speakerIds": []any{ids["contactId"]}}).Obj(), "id")
	b.must(http.StatusOK, http.MethodPut, w.base+"/reviewer-tracks/"+ids["eventMemberId"], b.acme,
		map[string]any{"trackIds": []any{ids["trackId"]}})
	quick := map[string]any{"decision": "approve", "score": 4, "comment": "Solid"}
	b.requireError(b.do(http.MethodPut, w.base+"/submissions/"+outside+"/review", reviewer, quick), http.StatusForbidden, "forbidden")
	require.Zero(t, b.count(`SELECT count(*) FROM quick_reviews WHERE submission_id = $1`, outside))
	saved := b.must(http.StatusOK, http.MethodPut, w.base+"/submissions/"+inTrack+"/review", reviewer, quick).Obj()
	require.Equal(t, json.Number("4"), saved["score"])
	// A reviewer without tracks scores none, as in the original.
	b.requireError(b.do(http.MethodPut, w.base+"/submissions/"+inTrack+"/review", idle, quick), http.StatusForbidden, "forbidden")
	require.Equal(t, 1, b.count(`SELECT count(*) FROM quick_reviews`))

	// Idempotency-Key: kept for a person acting for an organization, refused to one of none.
	keyed := func(token, method, path, key string, body any) response {
		raw, err := json.Marshal(body)
		require.NoError(t, err)
		req := httptest.NewRequest(method, path, bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(rest.VersionHeader, rest.VersionCurrent)
		req.Header.Set(rest.IdempotencyHeader, key)
		return b.send(req)
	}
	b.requireError(keyed(reviewer, http.MethodPost, answersPath, "again-1", answers), http.StatusBadRequest, "invalid_input")
	event := map[string]any{"name": "Keyed", "type": "conference", "timezone": "UTC",
		"startsAt": "2027-01-01T00:00:00Z", "endsAt": "2027-01-02T00:00:00Z"}
	first := keyed(owner, http.MethodPost, "/api/v1/events", "event-1", event)
	require.Equal(t, http.StatusCreated, first.Status, first.Raw)
	again := keyed(owner, http.MethodPost, "/api/v1/events", "event-1", event)
	require.Equal(t, first.Raw, again.Raw)
	require.Equal(t, "true", again.Header.Get(rest.ReplayedHeader))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM events WHERE name = 'Keyed'`))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM idempotency_records WHERE user_id IS NOT NULL AND api_key_id IS NULL`))

	// An owner's application acts as the owner; its changes name the owner and the application.
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+ids["submissionId"]+"/cancel", owner,
		map[string]any{"cause": "organizer", "message": "m", "notifySpeakers": false})
	var actors []string
	for _, it := range b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+ids["submissionId"]+"/timeline", b.acme, nil).List() {
		e := it.(map[string]any)
		if e["kind"] == "cancelled" {
			actors = append(actors, str(e, "actorName"))
		}
	}
	require.Equal(t, []string{"owner@acme.test via Claude"}, actors)
	require.Equal(t, 1, b.count(`SELECT count(*) FROM event_changes WHERE event_id = $1 AND data->>'actor' = 'owner@acme.test via Claude'
		AND data ? 'clientId'`, w.event))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM webhook_messages WHERE event_type = 'session.cancelled'
		AND payload::jsonb->>'actor' = 'owner@acme.test via Claude' AND payload::jsonb ? 'clientId'`))
}
