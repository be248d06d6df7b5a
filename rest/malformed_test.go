package rest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// hostile are values each field of each write body is replaced with in turn: wrong types, nulls,
// huge and odd numbers, a 1 MB string, NUL bytes, SQL, script and metadata URLs.
var hostile = []any{
	nil, 0, -1, 1.5, 1e300, json.Number("123456789012345678901234567890"), true, "", " ", "\x00", "a\x00b",
	strings.Repeat("x", 1_000_000), []any{}, []any{nil}, []any{"\x00"}, map[string]any{}, map[string]any{"$gt": ""},
	"'; DROP TABLE events; --", "2027-02-30T00:00:00Z", "javascript:alert(1)", "http://169.254.169.254/latest/meta-data",
}

// wholeBodies are request bodies that are not the right JSON at all.
var wholeBodies = []string{"", "{", "[", "null", "[]", "\"str\"", "42", "true", "{\"a\":", strings.Repeat("[", 10000),
	"{\"kind\":" + strings.Repeat("[", 5000) + "}", "\xff\xfe\xfd", `{"title":"\u0000"}`}

// TestMalformedBodiesNeverFail5xx posts to every write operation of the API bodies that are not
// JSON, JSON of the wrong shape, and well-formed bodies with each field in turn replaced by a
// hostile value or left out. Every answer must be a 4xx in the error envelope (or a success for
// values that are in fact acceptable), never a 5xx; and a refused request stores nothing.
func TestMalformedBodiesNeverFail5xx(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.useAI(newFakeProvider(t))
	f := b.fixture()

	sent := 0
	check := func(op apiOperation, path string, body any) {
		before := b.storedRows()
		r := b.do(op.method, path, b.acme, body)
		sent++
		require.Less(t, r.Status, 500, "%s %s with %.200v: %s", op.method, path, body, r.Raw)
		if r.Status >= 400 {
			require.NotEmpty(t, r.ErrCode(), r.Raw)
			require.Equal(t, before, b.storedRows(), "%s %s stored something though refused: %.200v", op.method, path, body)
		}
	}
	writes := 0
	for _, op := range b.operations(t) {
		if op.body == nil {
			continue
		}
		writes++
		path := f.path(op.path)
		valid, ok := f.bodies[op.id]
		if !ok {
			valid = sample(op.body).(map[string]any)
		}
		for _, raw := range wholeBodies {
			check(op, path, raw)
		}
		for field := range op.body["properties"].(map[string]any) {
			for _, v := range hostile {
				body := clone(valid)
				body[field] = v
				check(op, path, body)
			}
			body := clone(valid)
			delete(body, field)
			check(op, path, body)
		}
	}
	require.GreaterOrEqual(t, writes, 15)
	t.Logf("%d requests to %d write operations", sent, writes)
}

// storedRows counts the rows of every table of the schema but River's and the migrations'
// bookkeeping, so that a test can tell a refused request stored nothing.
func (b *testBundle) storedRows() int {
	b.t.Helper()
	storedRowsOnce.Do(func() {
		rows, err := b.db.System.Query(b.sys(), `SELECT table_name FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`)
		require.NoError(b.t, err)
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(b.t, err)
		var counts []string
		for _, table := range tables {
			// River's leader, queue and notification rows come and go with its clients, and the
			// migration tables only change with the schema; river_job is counted. Tables of the
			// tests themselves (countWrites) are not in every database.
			if (strings.HasPrefix(table, "river_") && table != "river_job") || strings.Contains(table, "migration") ||
				strings.HasPrefix(table, "test_") {
				continue
			}
			counts = append(counts, "(SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()+")")
		}
		storedRowsSQL = "SELECT " + strings.Join(counts, " + ")
	})
	require.NotEmpty(b.t, storedRowsSQL, "listing the tables failed in an earlier test")
	var n int
	require.NoError(b.t, b.db.System.QueryRow(b.sys(), storedRowsSQL).Scan(&n))
	return n
}

var (
	storedRowsOnce sync.Once
	// storedRowsSQL sums the row counts of the tables storedRows watches; every test database is a
	// clone of one template, so it is built once.
	storedRowsSQL string
)

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// fixture is an event with one of everything, for tests that call every operation.
type fixture struct {
	ids    map[string]string
	bodies map[string]map[string]any
}

// path fills a templated path with the fixture's ids.
func (f fixture) path(template string) string {
	p := "/api/v1" + template
	for name, id := range f.ids {
		p = strings.ReplaceAll(p, "{"+name+"}", id)
	}
	return p
}

func (b *testBundle) fixture() fixture {
	b.t.Helper()
	ev := str(b.createEvent(b.acme, "Fixture"), "id")
	webhookBody := map[string]any{"url": "https://93.184.215.14/hooks", "description": "d", "eventTypes": []any{}}
	webhook := b.must(http.StatusCreated, http.MethodPost, "/api/v1/webhooks", b.acme, webhookBody).Obj()["webhook"].(map[string]any)
	base := "/api/v1/events/" + ev
	track := str(b.saveItem(b.acme, ev, map[string]any{"kind": "track", "name": "T"}), "id")
	format := str(b.saveItem(b.acme, ev, map[string]any{"kind": "format", "name": "F"}), "id")
	speaker := b.must(http.StatusCreated, http.MethodPost, base+"/speakers", b.acme, speakerBody("ada@example.test")).Obj()
	template := str(b.must(http.StatusOK, http.MethodPost, base+"/task-templates", b.acme,
		map[string]any{"id": nil, "title": "Bio", "scope": "speaker"}).Obj(), "id")
	requirement := str(b.must(http.StatusOK, http.MethodPost, base+"/file-requirements", b.acme,
		map[string]any{"id": nil, "label": "Slides", "scope": "session"}).Obj(), "id")
	session := b.must(http.StatusCreated, http.MethodPost, base+"/sessions", b.acme, map[string]any{
		"title": "S", "description": nil, "formatId": format, "speakerIds": []any{speaker["id"]}}).Obj()
	tasks := b.must(http.StatusOK, http.MethodGet, base+"/sessions/"+str(session, "id")+"/tasks", b.acme, nil).List()
	proposal := b.must(http.StatusCreated, http.MethodPost, base+"/submissions", b.acme, map[string]any{
		"title": "P", "description": "d", "formatId": format, "trackIds": []any{track}, "speakerIds": []any{speaker["id"]}}).Obj()
	w := world{event: ev, base: base}
	round := b.saveRound(w, roundBody("R", numericCriterion("Q", 1, 5, 1, true), dropdownCriterion("V", "Yes", "No")))
	roundID := str(roundOf(round), "id")
	criterion := str(criteriaOf(round)[0], "id")
	member := b.addReviewer(w, roundID, "reviewer@example.test", nil)
	require.Equal(b.t, http.StatusOK, b.assign(w, roundID, member, str(proposal, "id")).Status)
	assignment := str(objects(roundIn(b.t, b.workspace(w), roundID)["assignments"])[0], "id")
	room := str(b.saveItem(b.acme, ev, map[string]any{"kind": "room", "name": "Hall"}), "id")
	// agenda_blocks_test.go: a block of the hall, which saveAgendaBlock's body edits.
	blk := blockBody(nil, "Lunch", "meal", room, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z")
	blk["id"] = str(objects(b.must(http.StatusOK, http.MethodPut, base+"/agenda/blocks", b.acme, blk).Obj()["blocks"])[0], "id")
	// agenda_drafts_test.go: a generated draft placing the session.
	draftCriteria := draftBody("D", []any{"2027-09-10"}, []any{room}, "r")
	draft := str(b.must(http.StatusCreated, http.MethodPost, base+"/agenda/drafts", b.acme, draftCriteria).Obj(), "id")
	require.NoError(b.t, b.res.Ops.GenerateAgendaDraft(b.scopeOf(ev), draft, false))
	resourceBody := map[string]any{"title": "Briefing", "subtitle": "s", "body": "b", "published": true,
		"audienceMode": "tracks", "attachmentKind": "embed", "linkUrl": nil, "embedUrl": "https://www.youtube.com/embed/x",
		"trackIds": []any{track}, "contactIds": []any{}}
	res := b.must(http.StatusCreated, http.MethodPost, base+"/resources", b.acme, resourceBody).Obj()
	var result string
	require.NoError(b.t, b.db.System.QueryRow(b.sys(), `INSERT INTO ai_review_results
		(id, created_at, updated_at, round_id, submission_id, score, reasoning, provider, model)
		VALUES ('air_fixture', now(), now(), $1, $2, 3, 'r', 'anthropic', 'm') RETURNING id`, roundID, proposal["id"]).Scan(&result))
	deliverables := b.must(http.StatusOK, http.MethodGet, base+"/sessions/"+str(session, "id")+"/deliverables", b.acme, nil).List()
	widget := str(b.must(http.StatusCreated, http.MethodPost, base+"/widgets", b.acme, map[string]any{"name": "W", "view": "agenda"}).Obj(), "id")
	b.fanOutWebhooks()
	delivery := str(b.must(http.StatusOK, http.MethodGet, "/api/v1/webhooks/"+str(webhook, "id")+"/deliveries", b.acme, nil).List()[0].(map[string]any), "id")
	crmContact := str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, contactBody("Ada", "L", "crm@example.test")).Obj(), "id")
	crmTag := str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+crmContact+"/tags", b.acme, map[string]any{"name": "T"}).Obj(), "id")
	f := fixture{
		ids: map[string]string{
			"eventId": ev, "submissionId": str(session, "id"), "contactId": str(speaker, "id"), "itemId": track,
			"kind": "track", "taskId": str(tasks[0].(map[string]any), "id"),
			"deliverableId": str(deliverables[0].(map[string]any), "id"), "templateId": template, "requirementId": requirement,
			"roundId": roundID, "assignmentId": assignment, "eventMemberId": member, "resourceId": str(res, "id"),
			// Not path parameters: ids the bodies refer to, named for the fuzz corpus's placeholders.
			"trackId": track, "formatId": format, "roomId": room, "proposalId": str(proposal, "id"),
			"criterionId": criterion, "resultId": result, "webhookId": str(webhook, "id"), "deliveryId": delivery,
			"crmContactId": crmContact, "tagId": crmTag,
			"draftId":  draft,
			"widgetId": widget,
			"blockId":  str(blk, "id"),
		},
		bodies: map[string]map[string]any{
			"createEvent": {"name": "E", "type": "conference", "timezone": "UTC",
				"startsAt": "2027-01-01T00:00:00Z", "endsAt": "2027-01-02T00:00:00Z"},
			"updateEvent": {"name": "E", "tagline": "t", "description": "d", "type": "summit", "websiteUrl": "https://x.test",
				"location": "L", "timezone": "UTC", "startsAt": "2027-09-10T09:00:00Z", "endsAt": "2027-09-12T17:00:00Z",
				"defaultSubmissionLimit": 2},
			"saveLibraryItem":    {"kind": "room", "id": nil, "name": "R", "color": "#000", "durationMinutes": 10, "capacity": 5},
			"saveSpeaker":        speakerBody("grace@example.test"),
			"createSession":      {"title": "S2", "description": "d", "formatId": format, "speakerIds": []any{speaker["id"]}},
			"createSubmission":   {"title": "P", "description": "d", "formatId": format, "trackIds": []any{track}, "speakerIds": []any{speaker["id"]}},
			"setSessionSpeakers": {"speakerIds": []any{speaker["id"]}},
			"cancelSession":      {"cause": "organizer", "message": "m", "notifySpeakers": false},
			"importSpeakers": {"rows": []any{map[string]any{"firstName": "Al", "lastName": "T", "email": "al@example.test",
				"title": nil, "company": nil, "bio": nil, "dietary": nil, "tshirt": nil, "linkedin": nil, "twitter": nil,
				"facebook": nil, "website": nil, "phone": nil, "action": "create"}}},
			"inviteSpeakerPortals":    {"contactIds": []any{speaker["id"]}},
			"recordDeliverableUpload": {"fileName": "s.pdf", "contentType": "application/pdf", "size": 10, "storageKey": "k"},
			"saveReviewRound": {"roundId": roundID, "name": "R", "opensAt": at(-time.Hour), "closesAt": at(time.Hour),
				"blind": true, "reviewsPerSubmission": 2, "position": 1, "criteria": []any{
					map[string]any{"id": criterion, "label": "Q", "type": "numeric", "min": 1, "max": 5, "options": []any{},
						"required": true, "weight": 1, "position": 1}}},
			"addReviewer":           {"email": "second@example.test", "assignmentCap": 5, "accessPath": "/reviews"},
			"assignReviews":         {"eventMemberId": member, "submissionIds": []any{proposal["id"]}},
			"autoDistributeReviews": {"trackIds": []any{track}, "dryRun": false},
			"setReviewerTracks":     {"trackIds": []any{track}},
			"sendReviewReminders":   {"eventMemberIds": []any{member}},
			"submitReviewAnswers": {"answers": []any{map[string]any{"criterionId": criterion, "numericValue": 3,
				"textValue": nil, "optionValue": nil}}},
			"recuseReview":     {"reason": "conflict"},
			"generateAiReview": {"submissionId": proposal["id"]},
			"overrideAiReview": {"resultId": result, "score": 4, "reason": "r"},
			"scoreRoundWithAi": {"submissionIds": []any{proposal["id"]}},
			"createResource":   resourceBody,
			"updateResource":   resourceBody,
			"reorderResources": {"resourceIds": []any{res["id"]}},
			"scheduleSession": {"submissionId": session["id"], "roomId": room, "startsAt": "2027-09-10T09:00:00Z",
				"endsAt": "2027-09-10T10:00:00Z"},
			"sendCalendarInvites": {"submissionIds": []any{session["id"]}},
			// Updates, not creations: a template or requirement made by each accepted request
			// would be given to every session and speaker, and slow the tests down.
			"saveTaskTemplate": {"id": template, "title": "Bio", "instructions": "i", "scope": "speaker",
				"autoAssignOnAccept": true, "dueDate": "2027-08-01T00:00:00Z"},
			"saveFileRequirement": {"id": requirement, "label": "Slides", "description": "d", "scope": "session",
				"dueAt": "2027-08-01T00:00:00Z"},
			"reinstateSession":    {"message": "m", "notifySpeakers": false},
			"setTaskStatus":       {"status": "done"},
			"createWebhook":       webhookBody,
			"updateWebhook":       webhookBody,
			"rotateWebhookSecret": {"graceHours": 1},
			"redeliverWebhooks":   {"since": "2020-01-01T00:00:00Z"},
			"createWidget":        {"name": "W2", "view": "sessions"},
			"updateWidget":        {"name": "W", "view": "agenda", "enabled": true, "options": widgetOptions(nil)},
			"decideSubmissions": {"submissionIds": []any{proposal["id"]}, "decision": "accept", "feedback": "Welcome",
				"confirmRedecide": false, "approveContent": false},
			"sendCampaign": {"templateId": nil, "subject": "News for {speaker_name}", "body": "Hello {talk_title}",
				"contactIds": []any{speaker["id"]}, "audience": map[string]any{"workflowStatuses": []any{"invited"}}},
			"createContact":     contactBody("Grace", "H", "crm2@example.test"),
			"updateContact":     contactBody("Ada", "L", "crm@example.test"),
			"addContactTag":     {"name": "T"},
			"addContactNote":    {"body": "n"},
			"addContactToEvent": {"eventId": ev, "participation": "speaker"},
			"mergeContacts":     {"primaryId": crmContact, "duplicateId": crmContact},
			"importContacts": {"behavior": "update", "rows": []any{map[string]any{"firstName": "A", "lastName": "L",
				"email": "crm@example.test", "title": nil, "company": nil, "bio": nil}}},
			"generateAgendaDraft": draftCriteria,
			"changeAgendaDraft":   {"action": "duplicate"},
			"acceptAgendaDraft":   {"submissionIds": []any{session["id"]}},
			"saveAgendaBlock":     blk,
		},
	}
	b.pipelineFixture(f)                                                                    // pipeline_test.go
	f.bodies["sendCampaign"]["audience"].(map[string]any)["segmentId"] = f.ids["segmentId"] // campaigns_test.go
	return f
}

func speakerBody(email string) map[string]any {
	return map[string]any{"id": nil, "firstName": "Ada", "lastName": "Lovelace", "email": email, "title": nil,
		"company": nil, "bio": nil, "linkedinUrl": nil, "twitterUrl": nil, "websiteUrl": nil,
		"dietaryRequirements": "none", "tshirtSize": nil, "travelLogistics": nil, "workflowStatus": "invited"}
}
