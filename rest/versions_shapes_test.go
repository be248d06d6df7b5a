package rest_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/rest"
)

// TestCurrentVersionShapes drives every operation of the original's current API through Podium
// with Podium-Version: 2026-08-21, so that checkResponse holds each 2xx answer to the original's
// response schema of its operation (testdata/original/b3f7d2f-responses.json). The fixtures are
// made in the default version; everything after b.version is set runs in 2026-08-21.
func TestCurrentVersionShapes(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	st := b.stage()
	w := st.w
	s1 := b.proposeIn(w, "Review me", "About it", []string{w.track1}, w.ada)
	round := str(roundOf(b.saveRound(w, roundBody("Round 1", numericCriterion("Depth", 1, 5, 1, true)))), "id")
	r1 := b.addReviewer(w, round, "r1@example.test", nil)
	b.assign(w, round, r1, s1)
	contact := str(b.newContact("Cora", "Crm", "cora@example.test"), "id")
	other := str(b.newContact("Otto", "Other", "otto@example.test"), "id")
	b.version = rest.VersionCurrent
	b.shapesSeen = map[string]bool{}
	get := func(path string) response { return b.must(http.StatusOK, http.MethodGet, path, b.acme, nil) }

	// Organization and events.
	get("/api/v1/organization")
	get("/api/v1/events")
	ev := b.must(http.StatusCreated, http.MethodPost, "/api/v1/events", b.acme, map[string]any{"name": "Shapes",
		"startsAt": "2027-09-10", "endsAt": "2027-09-12", "timezone": "Europe/Berlin", "type": "conference"}).Obj()
	get("/api/v1/events/" + str(ev, "id"))
	b.must(http.StatusOK, http.MethodPatch, w.base, b.acme, map[string]any{"replyToEmail": "team@example.test"})
	get(w.base + "/library")
	level := str(b.must(http.StatusOK, http.MethodPost, w.base+"/library", b.acme, map[string]any{"id": nil, "kind": "level", "name": "Intro"}).Obj(), "id")
	b.must(http.StatusNoContent, http.MethodDelete, w.base+"/library/level/"+level, b.acme, nil)

	// Speakers.
	get(w.base + "/speakers")
	get(w.base + "/speakers/" + w.ada)
	body := speakerBody("new@example.test")
	delete(body, "workflowStatus")
	b.do(http.MethodPost, w.base+"/speakers", b.acme, body)
	newSpeaker := w.grace
	b.must(http.StatusOK, http.MethodPost, w.base+"/speakers/import", b.acme, map[string]any{"rows": []any{map[string]any{
		"action": "create", "email": "imp@example.test", "firstName": "Imp", "lastName": "Orted", "bio": nil, "company": nil,
		"dietary": nil, "facebook": nil, "linkedin": nil, "phone": nil, "title": nil, "tshirt": nil, "twitter": nil, "website": nil}}})
	b.must(http.StatusOK, http.MethodPost, w.base+"/speakers/invite", b.acme, map[string]any{"contactIds": []any{newSpeaker}})

	// Submissions.
	get(w.base + "/submissions")
	get(w.base + "/submissions/" + s1)
	p := b.proposeIn(w, "Decide me", "d", nil, w.grace)
	b.must(http.StatusOK, http.MethodPatch, w.base+"/submissions/"+p, b.acme, map[string]any{"status": "maybe"})
	b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{"submissionIds": []any{p}, "decision": "accept"})
	b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/inform", b.acme, map[string]any{"submissionIds": []any{p}})

	// Sessions.
	get(w.base + "/sessions")
	sess := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/sessions", b.acme, map[string]any{
		"title": "Panel", "description": nil, "formatId": w.format, "speakerIds": []any{w.alan}}).Obj(), "id")
	get(w.base + "/sessions/" + sess + "/timeline")
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+sess+"/cancel", b.acme, map[string]any{"cause": "organizer"})
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+sess+"/reinstate", b.acme, map[string]any{})
	b.must(http.StatusNoContent, http.MethodDelete, w.base+"/sessions/"+sess, b.acme, nil)

	// Communications and campaigns.
	get(w.base + "/communications")
	b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, map[string]any{"templateId": nil,
		"subject": "Hello", "body": "Hi {speaker_name}", "contactIds": []any{w.ada}, "segment": "selected", "replyTo": nil})
	get(w.base + "/communications")
	get(w.base + "/emails")

	// Reviews.
	get(w.base + "/evaluation")
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds", b.acme, roundBody("Round 2"))
	r2 := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/review-rounds/"+round+"/members", b.acme,
		map[string]any{"name": "Rita Reviewer", "email": "r2@example.test", "assignmentCap": nil, "accessPath": "/reviews/" + round}).Obj()["reviewer"].(map[string]any)["member"].(map[string]any), "eventMemberId")
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round+"/assignments", b.acme,
		map[string]any{"eventMemberId": r2, "submissionIds": []any{s1}})
	a2 := assignmentOf(t, roundIn(t, b.workspace(w), round), r2, s1)
	b.must(http.StatusNoContent, http.MethodDelete, w.base+"/review-rounds/"+round+"/assignments/"+str(a2, "id"), b.acme, nil)
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round+"/auto-distribute", b.acme,
		map[string]any{"trackIds": []any{}, "dryRun": true})
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round+"/reminders", b.acme,
		map[string]any{"eventMemberIds": []any{r1}})
	get(w.base + "/reviewer-tracks")
	b.must(http.StatusOK, http.MethodPut, w.base+"/reviewer-tracks/"+r1, b.acme, map[string]any{"trackIds": []any{w.track1}})

	// Resources.
	get(w.base + "/resources")
	res := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/resources", b.acme, resourceBody("Guide")).Obj(), "id")
	b.must(http.StatusOK, http.MethodPatch, w.base+"/resources/"+res, b.acme, resourceBody("Guide 2"))
	b.must(http.StatusNoContent, http.MethodPost, w.base+"/resources/reorder", b.acme, map[string]any{"resourceIds": []any{res}})
	b.must(http.StatusNoContent, http.MethodDelete, w.base+"/resources/"+res, b.acme, nil)

	// Agenda, blocks and drafts.
	get(w.base + "/agenda")
	b.must(http.StatusOK, http.MethodPut, w.base+"/agenda/schedule", b.acme, map[string]any{"submissionId": st.go1,
		"roomId": st.hall, "startsAt": "2027-09-10T08:00:00Z", "endsAt": "2027-09-10T09:00:00Z"})
	blk := b.must(http.StatusOK, http.MethodPut, w.base+"/agenda/blocks", b.acme,
		blockBody(nil, "Lunch", "meal", nil, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z")).Obj()
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	get(w.base + "/program")
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/unpublish", b.acme, nil)
	b.must(http.StatusOK, http.MethodDelete, w.base+"/agenda/blocks/"+str(objects(blk["blocks"])[0], "id"), b.acme, nil)
	d := b.must(http.StatusCreated, http.MethodPost, w.base+"/agenda/drafts", b.acme,
		draftBody("Plan", []any{"2027-09-10"}, []any{st.hall})).Obj()
	require.NoError(t, b.res.Ops.GenerateAgendaDraft(b.scopeOf(w.event), str(d, "id"), false))
	get(w.base + "/agenda/drafts")
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/drafts/"+str(d, "id"), b.acme, map[string]any{"action": "duplicate"})
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/drafts/"+str(d, "id")+"/accept", b.acme,
		map[string]any{"submissionIds": []any{st.go2}})

	// CRM, pipeline and segments.
	get("/api/v1/contacts")
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, contactBody("New", "Contact", "nc@example.test"))
	get("/api/v1/contacts/" + contact)
	b.must(http.StatusOK, http.MethodPatch, "/api/v1/contacts/"+contact, b.acme, contactBody("Cora", "Crm", "cora@example.test"))
	b.must(http.StatusOK, http.MethodPost, "/api/v1/contacts/import", b.acme, map[string]any{"behavior": "skip", "rows": []any{
		map[string]any{"email": "im@example.test", "firstName": "I", "lastName": "M", "bio": nil, "company": nil, "title": nil}}})
	tag := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+contact+"/tags", b.acme, map[string]any{"name": "vip"}).Obj()
	b.must(http.StatusNoContent, http.MethodDelete, "/api/v1/contacts/"+contact+"/tags/"+str(tag, "id"), b.acme, nil)
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+contact+"/notes", b.acme, map[string]any{"body": "Met"})
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+contact+"/events", b.acme,
		map[string]any{"eventId": w.event, "participation": "speaker"})
	b.must(http.StatusOK, http.MethodPost, "/api/v1/contacts/merge", b.acme, map[string]any{"primaryId": contact, "duplicateId": other})
	get("/api/v1/pipeline")
	stage := str(b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/stages", b.acme, stageBody(nil, "Lead", "open", 1)).Obj(), "id")
	won := str(b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/stages", b.acme, stageBody(nil, "Won", "won", 2)).Obj(), "id")
	b.must(http.StatusOK, http.MethodPut, "/api/v1/pipeline/stages/order", b.acme, map[string]any{"stageIds": []any{stage, won}})
	card := b.must(http.StatusCreated, http.MethodPost, "/api/v1/pipeline/cards", b.acme,
		map[string]any{"organizationContactId": contact, "stageId": stage, "note": nil}).Obj()
	b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/cards/"+str(card, "id")+"/move", b.acme, map[string]any{"toStageId": won})
	lost := str(b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/stages", b.acme, stageBody(nil, "Lost", "lost", 3)).Obj(), "id")
	b.must(http.StatusNoContent, http.MethodDelete, "/api/v1/pipeline/stages/"+lost, b.acme, nil)
	get("/api/v1/segments")
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/segments", b.acme, map[string]any{"name": "All", "filter": map[string]any{}})

	// Widgets.
	get(w.base + "/widgets")
	widget := b.must(http.StatusCreated, http.MethodPost, w.base+"/widgets", b.acme, map[string]any{"name": "Program", "view": "sessions"}).Obj()
	widget["name"] = "Program 2"
	b.must(http.StatusOK, http.MethodPatch, w.base+"/widgets/"+str(widget, "id"), b.acme,
		map[string]any{"name": "Program 2", "view": "sessions", "enabled": true, "options": widget["options"]})

	// The reviewer's own operations, with an application the reviewer authorized (docs/agents.md).
	reviewer := b.personToken("r1@example.test", "read", "write")
	get = func(path string) response { return b.must(http.StatusOK, http.MethodGet, path, reviewer, nil) }
	queue := get(w.base + "/my-reviews").Obj()
	item := objects(objects(queue["rounds"])[0]["items"])[0]
	criterion := str(objects(objects(queue["rounds"])[0]["criteria"])[0], "id")
	assignment := str(item["assignment"].(map[string]any), "id")
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-assignments/"+assignment+"/answers", reviewer, map[string]any{
		"answers": []any{map[string]any{"criterionId": criterion, "numericValue": 4, "textValue": nil, "optionValue": nil}}})
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-assignments/"+assignment+"/recuse", reviewer, map[string]any{"reason": "Conflict"})
	b.must(http.StatusOK, http.MethodPut, w.base+"/submissions/"+s1+"/review", reviewer,
		map[string]any{"decision": "approve", "score": 4, "comment": "Solid"})

	// AI reviews, last: with a provider, drafts would be generated by it.
	b.useAI(newFakeProvider(t)) // drafts above used the solver
	ai := b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round+"/ai-review", b.acme,
		map[string]any{"submissionId": s1}).Obj()
	b.must(http.StatusOK, http.MethodPost, w.base+"/ai-review-override", b.acme,
		map[string]any{"resultId": ai["id"], "score": 4, "reason": "Better"})

	// Another organization's key meets the same walls as in the default version.
	for _, path := range []string{w.base + "/submissions", w.base + "/submissions/" + s1, w.base + "/speakers",
		w.base + "/speakers/" + w.ada, w.base + "/communications", w.base + "/evaluation", w.base + "/agenda/drafts"} {
		b.requireError(b.do(http.MethodGet, path, b.globex, nil), http.StatusForbidden, "forbidden")
	}

	// Every operation of the original's current API that Podium serves answered 2xx here.
	var missed []string
	for _, op := range originalOperations(t) {
		if !b.shapesSeen[op] && servedByPodium(t, b, op) {
			missed = append(missed, op)
		}
	}
	require.Empty(t, missed, "operations this test does not drive")
}

// originalOperations are the operation ids of the original's current API with a JSON answer.
func originalOperations(t *testing.T) []string {
	t.Helper()
	originalSchema(t, "getEvent")
	return slices.Sorted(maps.Keys(originalSchemas))
}

// servedByPodium reports whether Podium's 2026-08-21 document has the operation.
func servedByPodium(t *testing.T, b *testBundle, op string) bool {
	t.Helper()
	for _, o := range b.operationsIn(t, rest.VersionCurrent) {
		if o.id == op {
			return true
		}
	}
	return false
}

// TestCurrentVersionSaveSpeaker: in 2026-08-21 a speaker's body has no workflowStatus: sending one
// is 400 invalid_body naming the version and writes nothing; a new speaker starts invited and an
// update keeps the status the speaker has. The default version still takes it.
func TestCurrentVersionSaveSpeaker(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	save := func(body map[string]any) response {
		return b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/speakers", b.acme, body)
	}
	before := b.count(`SELECT count(*) FROM contacts`)
	r := save(speakerBody("new@example.test"))
	b.requireError(r, http.StatusBadRequest, "invalid_body")
	require.Equal(t, "workflowStatus is not part of API version 2026-08-21", r.ErrMessage())
	require.Equal(t, before, b.count(`SELECT count(*) FROM contacts`))

	body := speakerBody("new@example.test")
	delete(body, "workflowStatus")
	r = save(body)
	require.Equal(t, http.StatusCreated, r.Status, r.Raw)
	require.NotContains(t, r.Obj(), "workflowStatus")
	id := str(r.Obj(), "id")
	require.Equal(t, 1, b.count(`SELECT count(*) FROM contacts WHERE id = $1 AND workflow_status = 'invited'`, id))

	b.must(http.StatusOK, http.MethodPatch, w.base+"/speakers/"+id+"/workflow", b.acme, map[string]any{"status": "confirmed"})
	body["id"], body["company"] = id, "Analytical Engines"
	r = save(body)
	require.Equal(t, http.StatusCreated, r.Status, r.Raw)
	require.Equal(t, "Analytical Engines", r.Obj()["company"])
	require.Equal(t, 1, b.count(`SELECT count(*) FROM contacts WHERE id = $1 AND workflow_status = 'confirmed'`, id))

	// Another organization's speaker is refused as before, and nothing changes.
	r = b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/speakers", b.globex, body)
	b.requireError(r, http.StatusForbidden, "forbidden")
	// The default version requires the key, as it always did.
	delete(body, "id")
	body["email"] = "other@example.test"
	b.requireError(b.do(http.MethodPost, w.base+"/speakers", b.acme, body), http.StatusBadRequest, "invalid_body")
}

// TestCurrentVersionCampaignSegment: in 2026-08-21 a campaign names its segment (required there):
// a speaker group reaches those speakers, a submitter group the people of those proposals, selected
// contactIds only; replyTo is the Reply-To of each email. The answer is {campaignId, queued}.
func TestCurrentVersionCampaignSegment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	declined := b.proposeIn(w, "Declined talk", "d", nil, w.grace)
	pending := b.proposeIn(w, "Pending talk", "d", nil, w.alan)
	b.decide(w, "decline", declined)
	send := func(subject string, extra map[string]any) response {
		body := map[string]any{"templateId": nil, "subject": subject, "body": "Hello {speaker_name}", "contactIds": []any{}}
		for k, v := range extra {
			body[k] = v
		}
		return b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/campaigns", b.acme, body)
	}
	recipients := func(subject string) []string {
		var out []string
		rows, err := b.db.System.Query(b.sys(), `SELECT recipient FROM email_log WHERE event_id = $1 AND subject = $2 ORDER BY recipient`, w.event, subject)
		require.NoError(t, err)
		defer rows.Close()
		for rows.Next() {
			var addr string
			require.NoError(t, rows.Scan(&addr))
			out = append(out, addr)
		}
		return out
	}

	r := send("No segment", nil)
	b.requireError(r, http.StatusBadRequest, "invalid_body")
	require.Equal(t, "segment is required", r.ErrMessage())
	r = send("Bad segment", map[string]any{"segment": "everyone"})
	b.requireError(r, http.StatusBadRequest, "invalid_body")
	require.Zero(t, b.count(`SELECT count(*) FROM email_campaigns`))

	r = send("Speakers", map[string]any{"segment": "all_speakers", "replyTo": "team@example.test"})
	require.Equal(t, http.StatusCreated, r.Status, r.Raw)
	require.Equal(t, json.Number("3"), r.Obj()["queued"])
	require.Equal(t, []string{"ada@example.test", "alan@example.test", "grace@example.test"}, recipients("Speakers"))
	require.Equal(t, 3, b.count(`SELECT count(*) FROM email_log WHERE subject = 'Speakers' AND reply_to = 'team@example.test'`))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM email_campaigns WHERE id = $1 AND recipient_filter->>'segment' = 'all_speakers'`,
		str(r.Obj(), "campaignId")))

	// Submitter groups: the people of declined proposals, of those awaiting a decision.
	sub := b.speaker(w.base, "Sub", "Mitter", "sub@example.test")
	b.proposeIn(w, "Another pending", "d", nil, sub)
	r = send("Declined", map[string]any{"segment": "declined"})
	require.Equal(t, http.StatusCreated, r.Status, r.Raw)
	require.Equal(t, []string{"grace@example.test"}, recipients("Declined"))
	r = send("Awaiting", map[string]any{"segment": "awaiting_decision"})
	require.Equal(t, http.StatusCreated, r.Status, r.Raw)
	require.Equal(t, []string{"alan@example.test", "sub@example.test"}, recipients("Awaiting"))
	require.NotEmpty(t, pending)

	// selected: contactIds only; none is refused.
	r = send("Selected", map[string]any{"segment": "selected", "contactIds": []any{w.ada}})
	require.Equal(t, http.StatusCreated, r.Status, r.Raw)
	require.Equal(t, []string{"ada@example.test"}, recipients("Selected"))
	b.requireError(send("Nobody", map[string]any{"segment": "selected"}), http.StatusBadRequest, "invalid_input")

	// The default version takes no segment: the key is ignored, as any unknown key.
	r = b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, map[string]any{"templateId": nil,
		"subject": "Old", "body": "Hi", "contactIds": []any{w.ada}, "segment": "all_speakers"})
	require.Equal(t, []string{"ada@example.test"}, recipients("Old"))
	require.Contains(t, r.Obj(), "campaign")

	// GraphQL takes the same segment, optional.
	res := b.gqlOK(b.acme, `mutation($e: ID!, $in: SendCampaignInput!) { sendCampaign(eventId: $e, input: $in) { sent } }`,
		map[string]any{"e": w.event, "in": map[string]any{"subject": "By GraphQL", "body": "Hi", "contactIds": []any{},
			"segment": "declined"}})
	require.EqualValues(t, 1, res["sendCampaign"].(map[string]any)["sent"])
	require.Equal(t, []string{"grace@example.test"}, recipients("By GraphQL"))

	// Another organization's key is refused as in every version, and sends nothing.
	r = b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/campaigns", b.globex, map[string]any{"templateId": nil,
		"subject": "Foreign", "body": "Hi", "contactIds": []any{}, "segment": "all_speakers"})
	b.requireError(r, http.StatusForbidden, "forbidden")
	require.Empty(t, recipients("Foreign"))
}

// TestCurrentVersionAddReviewerName: in 2026-08-21 adding a reviewer names them (required there),
// and a reviewer new to Podium gets that name; a known user keeps theirs. The default version
// ignores the key and names a new user after their email.
func TestCurrentVersionAddReviewerName(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	round := str(roundOf(b.saveRound(w, roundBody("Round 1"))), "id")
	add := func(body map[string]any) response {
		return b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/review-rounds/"+round+"/members", b.acme, body)
	}
	body := map[string]any{"email": "rita@example.test", "assignmentCap": nil, "accessPath": "/reviews/" + round}
	r := add(body)
	b.requireError(r, http.StatusBadRequest, "invalid_body")
	require.Equal(t, "name is required", r.ErrMessage())
	require.Zero(t, b.count(`SELECT count(*) FROM users WHERE email = 'rita@example.test'`))

	body["name"] = "  Rita Reviewer "
	r = add(body)
	require.Equal(t, http.StatusCreated, r.Status, r.Raw)
	require.Equal(t, "Rita Reviewer", r.Obj()["reviewer"].(map[string]any)["name"])
	require.Equal(t, 1, b.count(`SELECT count(*) FROM users WHERE email = 'rita@example.test' AND name = 'Rita Reviewer'`))
	ws := b.doVersion(rest.VersionCurrent, http.MethodGet, w.base+"/evaluation", b.acme, nil)
	require.Equal(t, http.StatusOK, ws.Status, ws.Raw)
	require.Equal(t, "Rita Reviewer", objects(ws.Obj()["eventReviewers"])[0]["name"])

	body["name"] = "Someone Else"
	r = add(body)
	require.Equal(t, http.StatusCreated, r.Status, r.Raw)
	require.Equal(t, "Rita Reviewer", r.Obj()["reviewer"].(map[string]any)["name"], "a known user keeps their name")

	b.must(http.StatusCreated, http.MethodPost, w.base+"/review-rounds/"+round+"/members", b.acme,
		map[string]any{"name": "Ignored", "email": "otto@example.test", "assignmentCap": nil, "accessPath": "/reviews/" + round})
	require.Equal(t, 1, b.count(`SELECT count(*) FROM users WHERE email = 'otto@example.test' AND name = 'otto'`))
}

// TestCurrentVersionPeople: the values 2026-08-21 adds about people follow the decisions: an
// accepted proposal not yet announced leaves its speaker's decisionInformed false and counts as
// pending; informing settles both; the directory parts accepted sessions from other submissions.
func TestCurrentVersionPeople(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	accepted := b.proposeIn(w, "Accepted talk", "d", nil, w.ada)
	pending := b.proposeIn(w, "Pending talk", "d", nil, w.ada)
	b.decide(w, "accept", accepted)
	get := func(path string) map[string]any {
		r := b.doVersion(rest.VersionCurrent, http.MethodGet, w.base+path, b.acme, nil)
		require.Equal(t, http.StatusOK, r.Status, r.Raw)
		return r.Obj()
	}
	speakerIn := func(list any, id string) map[string]any {
		for _, s := range objects(list) {
			if s["id"] == id {
				return s
			}
		}
		require.Failf(t, "not listed", "%s", id)
		return nil
	}

	comms := get("/communications")
	require.Equal(t, false, speakerIn(comms["speakers"], w.ada)["decisionInformed"])
	require.Equal(t, true, speakerIn(comms["speakers"], w.grace)["decisionInformed"], "nothing of hers awaits an email")
	require.Equal(t, "added", speakerIn(comms["speakers"], w.ada)["pipeline"])
	require.Equal(t, json.Number("1"), comms["pending"].(map[string]any)["acceptedNotInformed"])
	ada := speakerIn(comms["submitters"], w.ada)
	require.Len(t, ada["submissions"], 2)

	for _, row := range objects(get("/speakers")["rows"]) {
		if row["contact"].(map[string]any)["id"] != w.ada {
			continue
		}
		require.Equal(t, []string{accepted}, blockIDs(row["sessions"]))
		require.Equal(t, false, objects(row["sessions"])[0]["decisionSent"])
		require.Equal(t, []string{pending}, blockIDs(row["otherSubmissions"]))
		require.Equal(t, "pending", objects(row["otherSubmissions"])[0]["status"])
	}
	sub := get("/submissions/" + accepted)
	require.Equal(t, map[string]any{"id": w.ada, "name": "Ada Lovelace", "email": "ada@example.test"},
		sub["submission"].(map[string]any)["submitter"])
	require.Equal(t, w.ada, objects(sub["participants"])[0]["contactId"])

	r := b.doVersion(rest.VersionCurrent, http.MethodPost, w.base+"/submissions/inform", b.acme,
		map[string]any{"submissionIds": []any{accepted}})
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	comms = get("/communications")
	require.Equal(t, true, speakerIn(comms["speakers"], w.ada)["decisionInformed"])
	require.Equal(t, "invited", speakerIn(comms["speakers"], w.ada)["pipeline"], "told of an acceptance")
	require.Equal(t, json.Number("0"), comms["pending"].(map[string]any)["acceptedNotInformed"])
	require.Equal(t, json.Number("1"), comms["pending"].(map[string]any)["awaitingConfirmation"])
}
