package rest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/ai"
	"github.com/podium/podium/rest"
)

// Helpers of TestOriginalHead (original_head_test.go), the port of the original product's API
// test at its HEAD (d4mr/opensesh b3f7d2f, apps/web/e2e/api.e2e.test.ts).

// headOperation is an operation of the original's API at b3f7d2f, as its test addresses it: the
// method and path its route table gives, and the status its dispatcher answers on success.
type headOperation struct {
	id, method, path string
	status           int
}

// headOperations is the original's route table at b3f7d2f, all of its 82 operations (its own test
// still counts 80), in the order of its route files.
var headOperations = []headOperation{
	{"getAgenda", "GET", "/events/{eventId}/agenda", 200},
	{"scheduleSession", "PUT", "/events/{eventId}/agenda/schedule", 200},
	{"saveAgendaBlock", "PUT", "/events/{eventId}/agenda/blocks", 200},
	{"deleteAgendaBlock", "DELETE", "/events/{eventId}/agenda/blocks/{blockId}", 200},
	{"publishAgenda", "POST", "/events/{eventId}/agenda/publish", 200},
	{"unpublishAgenda", "POST", "/events/{eventId}/agenda/unpublish", 200},
	{"listAgendaDrafts", "GET", "/events/{eventId}/agenda/drafts", 200},
	{"generateAgendaDraft", "POST", "/events/{eventId}/agenda/drafts", 201},
	{"changeAgendaDraft", "POST", "/events/{eventId}/agenda/drafts/{draftId}", 200},
	{"acceptAgendaDraft", "POST", "/events/{eventId}/agenda/drafts/{draftId}/accept", 200},
	{"listContacts", "GET", "/contacts", 200},
	{"createContact", "POST", "/contacts", 201},
	{"getContact", "GET", "/contacts/{contactId}", 200},
	{"updateContact", "PATCH", "/contacts/{contactId}", 200},
	{"importContacts", "POST", "/contacts/import", 200},
	{"addContactTag", "POST", "/contacts/{contactId}/tags", 201},
	{"removeContactTag", "DELETE", "/contacts/{contactId}/tags/{tagId}", 204},
	{"addContactNote", "POST", "/contacts/{contactId}/notes", 201},
	{"addContactToEvent", "POST", "/contacts/{contactId}/events", 201},
	{"mergeContacts", "POST", "/contacts/merge", 200},
	{"getPipeline", "GET", "/pipeline", 200},
	{"savePipelineStage", "POST", "/pipeline/stages", 200},
	{"reorderPipelineStages", "PUT", "/pipeline/stages/order", 200},
	{"deletePipelineStage", "DELETE", "/pipeline/stages/{stageId}", 204},
	{"addPipelineCard", "POST", "/pipeline/cards", 201},
	{"movePipelineCard", "POST", "/pipeline/cards/{cardId}/move", 200},
	{"listSegments", "GET", "/segments", 200},
	{"saveSegment", "POST", "/segments", 201},
	{"getMyReviews", "GET", "/events/{eventId}/my-reviews", 200},
	{"submitReviewAnswers", "POST", "/events/{eventId}/review-assignments/{assignmentId}/answers", 200},
	{"recuseReview", "POST", "/events/{eventId}/review-assignments/{assignmentId}/recuse", 200},
	{"saveMyReview", "PUT", "/events/{eventId}/submissions/{submissionId}/review", 200},
	{"getOrganization", "GET", "/organization", 200},
	{"listEvents", "GET", "/events", 200},
	{"createEvent", "POST", "/events", 201},
	{"getEvent", "GET", "/events/{eventId}", 200},
	{"updateEvent", "PATCH", "/events/{eventId}", 200},
	{"getEventLibrary", "GET", "/events/{eventId}/library", 200},
	{"saveLibraryItem", "POST", "/events/{eventId}/library", 200},
	{"deleteLibraryItem", "DELETE", "/events/{eventId}/library/{kind}/{itemId}", 204},
	{"getAcceleventsIntegration", "GET", "/events/{eventId}/integrations/accelevents", 200},
	{"saveAcceleventsIntegration", "PUT", "/events/{eventId}/integrations/accelevents", 200},
	{"syncAccelevents", "POST", "/events/{eventId}/integrations/accelevents/sync", 200},
	{"listResources", "GET", "/events/{eventId}/resources", 200},
	{"createResource", "POST", "/events/{eventId}/resources", 201},
	{"updateResource", "PATCH", "/events/{eventId}/resources/{resourceId}", 200},
	{"deleteResource", "DELETE", "/events/{eventId}/resources/{resourceId}", 204},
	{"reorderResources", "POST", "/events/{eventId}/resources/reorder", 204},
	{"getEvaluation", "GET", "/events/{eventId}/evaluation", 200},
	{"saveReviewRound", "POST", "/events/{eventId}/review-rounds", 200},
	{"addReviewer", "POST", "/events/{eventId}/review-rounds/{roundId}/members", 201},
	{"assignReviews", "POST", "/events/{eventId}/review-rounds/{roundId}/assignments", 200},
	{"autoDistributeReviews", "POST", "/events/{eventId}/review-rounds/{roundId}/auto-distribute", 200},
	{"listReviewerTracks", "GET", "/events/{eventId}/reviewer-tracks", 200},
	{"setReviewerTracks", "PUT", "/events/{eventId}/reviewer-tracks/{eventMemberId}", 200},
	{"unassignReview", "DELETE", "/events/{eventId}/review-rounds/{roundId}/assignments/{assignmentId}", 204},
	{"sendReviewReminders", "POST", "/events/{eventId}/review-rounds/{roundId}/reminders", 200},
	{"generateAiReview", "POST", "/events/{eventId}/review-rounds/{roundId}/ai-review", 200},
	{"overrideAiReview", "POST", "/events/{eventId}/ai-review-override", 200},
	{"listSessions", "GET", "/events/{eventId}/sessions", 200},
	{"createSession", "POST", "/events/{eventId}/sessions", 201},
	{"cancelSession", "POST", "/events/{eventId}/sessions/{submissionId}/cancel", 200},
	{"reinstateSession", "POST", "/events/{eventId}/sessions/{submissionId}/reinstate", 200},
	{"deleteSession", "DELETE", "/events/{eventId}/sessions/{submissionId}", 204},
	{"getSessionTimeline", "GET", "/events/{eventId}/sessions/{submissionId}/timeline", 200},
	{"listSpeakers", "GET", "/events/{eventId}/speakers", 200},
	{"saveSpeaker", "POST", "/events/{eventId}/speakers", 201},
	{"importSpeakers", "POST", "/events/{eventId}/speakers/import", 200},
	{"inviteSpeakerPortals", "POST", "/events/{eventId}/speakers/invite", 200},
	{"getCommunications", "GET", "/events/{eventId}/communications", 200},
	{"sendCampaign", "POST", "/events/{eventId}/campaigns", 201},
	{"listSubmissions", "GET", "/events/{eventId}/submissions", 200},
	{"getSubmission", "GET", "/events/{eventId}/submissions/{submissionId}", 200},
	{"changeSubmissionStatus", "PATCH", "/events/{eventId}/submissions/{submissionId}", 200},
	{"decideSubmissions", "POST", "/events/{eventId}/submissions/decide", 200},
	{"informSubmissions", "POST", "/events/{eventId}/submissions/inform", 200},
	{"getSpeaker", "GET", "/events/{eventId}/speakers/{contactId}", 200},
	{"getProgram", "GET", "/events/{eventId}/program", 200},
	{"listWidgets", "GET", "/events/{eventId}/widgets", 200},
	{"createWidget", "POST", "/events/{eventId}/widgets", 201},
	{"updateWidget", "PATCH", "/events/{eventId}/widgets/{widgetId}", 200},
	{"listEmails", "GET", "/events/{eventId}/emails", 200},
}

// headRequest is what one call sends: path parameters, a query, a body (nil for none) and the
// bearer key (the primary key when empty).
type headRequest struct {
	params map[string]string
	query  map[string]string
	body   any
	key    string
}

// headRun is the state the original's test carries from one section to the next.
type headRun struct {
	t *testing.T
	b *testBundle
	// primary, other and revoked are the keys the original names PRIMARY, OTHER and REVOKED.
	primary, other, revoked string
	// exercised and documented are the operations called through call, and those the OpenAPI
	// document names.
	exercised, documented map[string]bool
	dev                   devflow
	createdEventID        string
	manualSessionID       string

	mu               sync.Mutex
	agendaSessionIDs []string
}

// devflow stands in for the original's seeded DevFlow event (evt_devflow_2027): the ids Podium
// answered when the seed was made through its API.
type devflow struct {
	event, base       string
	talk, trackAI     string
	room              string
	priya             string
	subs              map[int]string // sub_devflow_N
	initialRound      string         // rnd_devflow_initial
	sam               string         // mem_sam_devflow
	otherTenantEvent  string         // evt_api_e2e_other
	revokedKeyID      string
	otherSubmitterIDs []string
}

// section runs one `it` of the original as a subtest, in order; a failure ends that section only.
func (h *headRun) section(name string, fn func()) {
	h.t.Run(name, func(t *testing.T) {
		parent, bt := h.t, h.b.t
		h.t, h.b.t = t, t
		defer func() { h.t, h.b.t = parent, bt }()
		fn()
	})
}

// setAgenda records the sessions the AI stand-in places, as the original's fetch stub reads them.
func (h *headRun) setAgenda(ids ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.agendaSessionIDs = ids
}

// call is the original's requestOperation: it sends the operation's request in API version
// 2026-08-21 and checks what every call checks — the operation's success status, CORS, and JSON
// (an empty body for 204) — and returns the decoded body.
func (h *headRun) call(opID string, in headRequest) any {
	h.t.Helper()
	var op *headOperation
	for i := range headOperations {
		if headOperations[i].id == opID {
			op = &headOperations[i]
		}
	}
	require.NotNil(h.t, op, "unknown API operation %s", opID)
	path := op.path
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(path[i:], '}') + i
		name := path[i+1 : j]
		v, ok := in.params[name]
		require.True(h.t, ok, "%s is missing path parameter %s", opID, name)
		path = path[:i] + url.PathEscape(v) + path[j+1:]
	}
	if len(in.query) > 0 {
		q := url.Values{}
		for k, v := range in.query {
			q.Set(k, v)
		}
		path += "?" + q.Encode()
	}
	var rd io.Reader
	if in.body != nil {
		raw, err := json.Marshal(in.body)
		require.NoError(h.t, err)
		rd = bytes.NewReader(raw)
	}
	key := in.key
	if key == "" {
		key = h.primary
	}
	req := httptest.NewRequest(op.method, "/api/v1"+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set(rest.VersionHeader, rest.VersionCurrent)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	r := h.b.send(req)
	require.Equal(h.t, op.status, r.Status, "%s: %s", opID, r.Raw)
	assert.Equal(h.t, "*", r.Header.Get("Access-Control-Allow-Origin"), opID)
	h.exercised[opID] = true
	if op.status == http.StatusNoContent {
		assert.Empty(h.t, r.Raw, opID)
		return nil
	}
	assert.Contains(h.t, r.Header.Get("Content-Type"), "application/json", opID)
	return r.JSON
}

// raw sends a request outside the operation table (the first section's protocol checks), in API
// version 2026-08-21, with an Authorization header when auth is not empty and body as is.
func (h *headRun) raw(method, path, auth, body string) response {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set(rest.VersionHeader, rest.VersionCurrent)
	return h.b.send(req)
}

// asRec, asArr, strOf and numOf read decoded JSON as the original's asRecord, asArray,
// stringField and numberField do: a value of another type fails the test.
func asRec(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	require.True(t, ok, "expected an object, got %T: %v", v, v)
	return m
}

func asArr(t *testing.T, v any) []any {
	t.Helper()
	l, ok := v.([]any)
	require.True(t, ok, "expected an array, got %T: %v", v, v)
	return l
}

func strOf(t *testing.T, v any, key string) string {
	t.Helper()
	s, ok := asRec(t, v)[key].(string)
	require.True(t, ok, "expected %s to be a string in %v", key, v)
	return s
}

func numOf(t *testing.T, v any, key string) float64 {
	t.Helper()
	n, ok := asRec(t, v)[key].(json.Number)
	require.True(t, ok, "expected %s to be a number in %v", key, v)
	f, err := n.Float64()
	require.NoError(t, err)
	return f
}

// collectOperationIDs gathers every operationId of an OpenAPI document.
func collectOperationIDs(v any, into map[string]bool) {
	switch x := v.(type) {
	case []any:
		for _, item := range x {
			collectOperationIDs(item, into)
		}
	case map[string]any:
		for k, item := range x {
			if s, ok := item.(string); ok && k == "operationId" {
				into[s] = true
			} else {
				collectOperationIDs(item, into)
			}
		}
	}
}

// headContact, headSpeaker and headWidgetOptions are the bodies the original's test builds.
func headContact(email, first, last string) map[string]any {
	return map[string]any{"firstName": first, "lastName": last, "email": email, "title": "Staff Engineer",
		"company": "Local Harness Labs", "bio": "Created by the exhaustive local API integration suite.",
		"linkedinUrl": nil, "twitterUrl": nil, "facebookUrl": nil, "websiteUrl": nil, "headshotUrl": nil}
}

func headSpeaker(id any, email string) map[string]any {
	return map[string]any{"id": id, "firstName": "Taylor", "lastName": "E2E", "email": email,
		"title": "Principal Engineer", "company": "Local Harness Labs",
		"bio": "A complete speaker profile used by the local API suite.", "linkedinUrl": nil, "twitterUrl": nil,
		"websiteUrl": nil, "dietaryRequirements": "vegetarian", "tshirtSize": "M", "travelLogistics": "Arriving by train"}
}

func headWidgetOptions() map[string]any {
	return map[string]any{"trackIds": []any{}, "formatIds": []any{}, "tagIds": []any{}, "dayKeys": []any{},
		"theme": "light", "primaryColor": "#1d6b4c", "dateFormat": "24h", "showSpeakerCompany": true,
		"showSpeakerTitle": true, "showSpeakerBio": true, "showSessionDescription": true, "showSessionLevel": true,
		"showSessionFormat": true, "showAddToCalendar": true, "customCss": ".opensesh-widget { border-radius: 0; }"}
}

// useHeadProvider stands in for the AI provider as the original's fetch stub does: every request
// is answered with a review of score 4.25 and an agenda proposal placing the sessions of
// agendaSessionIDs in the first room, from 16:00Z on 2027-05-13, one an hour, 30 minutes each.
func (h *headRun) useHeadProvider() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h.mu.Lock()
		ids := append([]string(nil), h.agendaSessionIDs...)
		h.mu.Unlock()
		placements := make([]any, len(ids))
		for i, id := range ids {
			starts := time.Date(2027, 5, 13, 16+i, 0, 0, 0, time.UTC)
			placements[i] = map[string]any{"submissionId": id, "roomId": h.dev.room,
				"startsAt": starts.Format("2006-01-02T15:04:05.000Z"),
				"endsAt":   starts.Add(30 * time.Minute).Format("2006-01-02T15:04:05.000Z"),
				"reason":   "Deterministic local integration fixture"}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"content": []any{
			map[string]any{"type": "tool_use", "name": "submit_abstract_review", "input": map[string]any{
				"score": 4.25, "reasoning": "Strong practical relevance and a concrete, verifiable proposal."}},
			map[string]any{"type": "tool_use", "name": "propose_agenda", "input": map[string]any{"placements": placements}},
		}})
	}))
	h.t.Cleanup(srv.Close)
	h.b.res.Ops.AI = ai.New(ai.Config{APIKey: "local-e2e-anthropic-key", BaseURL: srv.URL, Model: "claude-test"})
}
