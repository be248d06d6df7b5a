package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// recordedChange is a row of event_changes as a test reads it.
type recordedChange struct {
	Type string
	Data map[string]string
}

// changesOf reads the changes recorded for the event, oldest first; only those of types when
// given.
func (b *testBundle) changesOf(eventID string, types ...string) []recordedChange {
	b.t.Helper()
	rows, err := b.db.System.Query(b.sys(), `SELECT type, data FROM event_changes
		WHERE event_id = $1 AND (cardinality($2::text[]) = 0 OR type = ANY($2)) ORDER BY id`, eventID, types)
	require.NoError(b.t, err)
	defer rows.Close()
	out := []recordedChange{}
	for rows.Next() {
		var c recordedChange
		require.NoError(b.t, rows.Scan(&c.Type, &c.Data))
		out = append(out, c)
	}
	require.NoError(b.t, rows.Err())
	return out
}

// TestChangesSessionReadiness: tasks done and undone, deliverables uploaded and removed, and a
// speaker's confirmation each record SESSION_READINESS_CHANGED with what changed, whether the
// organizer or the speaker (in the portal) made the change; a change that changes nothing records
// nothing.
func TestChangesSessionReadiness(t *testing.T) {
	t.Parallel()
	w := setupPortal(t, 1<<20)
	b := w.testBundle
	const readiness = "session.readiness_changed"
	seen := 0
	next := func(want ...recordedChange) {
		t.Helper()
		got := b.changesOf(w.event, readiness)
		require.Equal(t, append([]recordedChange{}, want...), got[seen:])
		seen = len(got)
	}
	task := recordedChange{readiness, map[string]string{"sessionId": w.sessID, "speakerId": w.contact, "status": "task"}}
	file := recordedChange{readiness, map[string]string{"sessionId": w.sessID, "status": "deliverable"}}
	confirmation := recordedChange{readiness, map[string]string{"sessionId": w.sessID, "speakerId": w.contact, "status": "confirmation"}}
	next()

	// The organizer marks the speaker's task done (twice: one change), the speaker undoes it.
	taskPath := w.base + "/sessions/" + w.sessID + "/tasks/" + w.task
	b.must(http.StatusOK, http.MethodPatch, taskPath, b.acme, map[string]any{"status": "done"})
	b.must(http.StatusOK, http.MethodPatch, taskPath, b.acme, map[string]any{"status": "done"})
	next(task)
	r := b.gqlCookie(w.ada, `mutation { setMyTaskDone(id: "`+w.task+`", done: false) { status } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	next(task)

	// The speaker uploads the session's slides and removes them; the organizer clears an upload.
	require.Equal(t, http.StatusSeeOther, w.uploadPage(w.ada, w.deliverable, "slides.pdf", pdf(2000)).Code)
	next(file)
	r = b.gqlCookie(w.ada, `mutation { removeMyDeliverable(id: "`+w.deliverable+`") { status } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	next(file)
	filePath := w.base + "/sessions/" + w.sessID + "/deliverables/" + w.deliverable
	b.must(http.StatusOK, http.MethodDelete, filePath, b.acme, nil)
	next() // nothing was uploaded
	require.Equal(t, http.StatusSeeOther, w.uploadPage(w.ada, w.deliverable, "slides.pdf", pdf(2000)).Code)
	b.must(http.StatusOK, http.MethodDelete, filePath, b.acme, nil)
	next(file, file)

	// The speaker confirms (twice: one change), then declines.
	confirm := `mutation { confirmMyParticipation(contactId: "` + w.contact + `") { workflowStatus } }`
	r = b.gqlCookie(w.ada, confirm, nil)
	require.Empty(t, r.Errors, r.Raw)
	r = b.gqlCookie(w.ada, confirm, nil)
	require.Empty(t, r.Errors, r.Raw)
	next(confirmation)
	r = b.gqlCookie(w.ada, `mutation { declineMyParticipation(contactId: "`+w.contact+`") { workflowStatus } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	next(confirmation)

	// The organizer confirms the speaker again.
	b.gqlOK(b.acme, `mutation($e: ID!, $c: ID!, $in: SetSpeakerWorkflowInput!) { setSpeakerWorkflow(eventId: $e, contactId: $c, input: $in) { id } }`,
		map[string]any{"e": w.event, "c": w.contact, "in": map[string]any{"status": "confirmed"}})
	next(confirmation)
}

// TestChangesReviewAssignments: assigning (by hand, in bulk, and by auto-distribution),
// completing, recusing and unassigning record review changes that name the assignment, round,
// submission and reviewer (the assignment's event member id); assignments made at once record
// one change per reviewer, with their count.
func TestChangesReviewAssignments(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	ids := f.ids
	ev, round, member := ids["eventId"], ids["roundId"], ids["eventMemberId"]
	w := world{event: ev, base: "/api/v1/events/" + ev}
	review := func(typ, assignment, submission, reviewer string) recordedChange {
		return recordedChange{typ, map[string]string{"assignmentId": assignment, "roundId": round,
			"submissionId": submission, "reviewerId": reviewer}}
	}
	types := []string{"review.assigned", "review.completed", "review.recused", "review.unassigned"}

	// The fixture's assignment.
	require.Equal(t, []recordedChange{review("review.assigned", ids["assignmentId"], ids["proposalId"], member)},
		b.changesOf(ev, types...))

	// Two at once: one change for the reviewer, counting them.
	p2 := b.proposeIn(w, "Two", "d", nil, ids["contactId"])
	p3 := b.proposeIn(w, "Three", "d", nil, ids["contactId"])
	require.Equal(t, http.StatusOK, b.assign(w, round, member, p2, p3).Status)
	entry := roundIn(t, b.workspace(w), round)
	a2, a3 := str(assignmentOf(t, entry, member, p2), "id"), str(assignmentOf(t, entry, member, p3), "id")
	got := b.changesOf(ev, types...)
	require.Equal(t, []recordedChange{{"review.assigned", map[string]string{"roundId": round, "reviewerId": member, "count": "2"}}}, got[1:])

	// Answered, recused, unassigned.
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/webhooks", b.acme,
		map[string]any{"url": "https://93.184.215.14/hooks", "description": "d", "eventTypes": []any{"review.completed"}})
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-assignments/"+ids["assignmentId"]+"/answers", b.acme,
		map[string]any{"answers": []any{map[string]any{"criterionId": ids["criterionId"], "numericValue": 4, "textValue": nil, "optionValue": nil}}})
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-assignments/"+a2+"/recuse", b.acme, map[string]any{"reason": "I know them"})
	b.must(http.StatusNoContent, http.MethodDelete, w.base+"/review-rounds/"+round+"/assignments/"+a3, b.acme, nil)
	require.Equal(t, []recordedChange{
		review("review.completed", ids["assignmentId"], ids["proposalId"], member),
		review("review.recused", a2, p2, member),
		review("review.unassigned", a3, p3, member),
	}, b.changesOf(ev, types...)[2:])
	// The webhook's payload carries the reviewer too.
	require.Equal(t, 1, b.count(`SELECT count(*) FROM webhook_messages WHERE event_type = 'review.completed' AND strpos(payload, '"reviewerId":"' || $1 || '"') > 0`, member))

	// Auto-distribution: one change per reviewer it assigns to, naming the assignment when it is
	// one and counting them otherwise.
	second := b.addReviewer(w, round, "second@example.test", nil)
	res := b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round+"/auto-distribute", b.acme,
		map[string]any{"trackIds": []any{}, "dryRun": false}).Obj()
	created := int(num(t, res, "created"))
	require.Positive(t, created)
	auto := b.changesOf(ev, types...)[5:]
	entry = roundIn(t, b.workspace(w), round)
	counted, reviewers := 0, map[string]bool{}
	for _, c := range auto {
		require.Equal(t, "review.assigned", c.Type)
		require.Equal(t, round, c.Data["roundId"])
		reviewer := c.Data["reviewerId"]
		require.Contains(t, []string{member, second}, reviewer)
		require.False(t, reviewers[reviewer], "one change per reviewer")
		reviewers[reviewer] = true
		if c.Data["count"] == "" {
			require.Equal(t, assignmentOf(t, entry, reviewer, c.Data["submissionId"])["id"], c.Data["assignmentId"])
			counted++
			continue
		}
		n, err := strconv.Atoi(c.Data["count"])
		require.NoError(t, err)
		require.Greater(t, n, 1)
		require.Empty(t, c.Data["assignmentId"])
		counted += n
	}
	require.Equal(t, created, counted)
}

// TestChangesAgendaDrafts: starting, generating, duplicating, discarding and accepting agenda
// drafts each record AGENDA_CHANGED; accepting records SESSION_SCHEDULED for each session moved.
func TestChangesAgendaDrafts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	agendaChanges := func() int { return len(b.changesOf(w.event, "agenda.changed")) }
	d := b.generate(st, draftBody("Base", []any{"2027-09-10"}, []any{st.annex, st.hall}))
	require.Equal(t, "generated", d["status"])
	require.Equal(t, []recordedChange{{"agenda.changed", map[string]string{}}, {"agenda.changed", map[string]string{}}},
		b.changesOf(w.event, "agenda.changed"), "queued, then generated")

	copied := b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/drafts/"+str(d, "id"), b.acme, map[string]any{"action": "duplicate"}).Obj()
	require.Equal(t, 3, agendaChanges())
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/drafts/"+str(copied, "id"), b.acme, map[string]any{"action": "discard"})
	require.Equal(t, 4, agendaChanges())
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/drafts/"+str(copied, "id"), b.acme, map[string]any{"action": "discard"})
	require.Equal(t, 4, agendaChanges(), "discarding a discarded draft changes nothing")

	scheduled := len(b.changesOf(w.event, "session.scheduled"))
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/drafts/"+str(d, "id")+"/accept", b.acme,
		map[string]any{"submissionIds": []any{st.go1, st.go2}})
	require.Equal(t, 5, agendaChanges())
	got := b.changesOf(w.event, "session.scheduled")[scheduled:]
	require.Len(t, got, 2)
	require.ElementsMatch(t, []string{st.go1, st.go2}, []string{got[0].Data["sessionId"], got[1].Data["sessionId"]})
}

// TestChangesEmailStatus: the emails a campaign queues record one queued change for the event,
// with their count, then each batch of outcomes one change per status (the email's id when it is
// one): subscribers get a few changes, not one per email.
func TestChangesEmailStatus(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	b.createSession(w, "Analytical Engines", w.ada)
	b.sink.FailNext(1, 554) // one of the two is refused for good
	r := b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, campaignBody("News", "Hello", w.ada, w.grace)).Obj()
	require.EqualValues(t, 2, num(t, r, "sent"))

	var got []recordedChange
	counts := map[string]int{}
	require.Eventually(t, func() bool {
		got = b.changesOf(w.event, "email.status_changed")
		counts = map[string]int{}
		for _, c := range got {
			n, err := strconv.Atoi(c.Data["count"])
			require.NoError(t, err, "%v", c)
			counts[c.Data["status"]] += n
		}
		return counts["sent"]+counts["failed"] == 2
	}, 15*time.Second, 50*time.Millisecond, "changes: %v", got)
	require.Equal(t, map[string]int{"queued": 2, "sent": 1, "failed": 1}, counts)
	require.Equal(t, map[string]string{"status": "queued", "count": "2"}, got[0].Data, "one change for the campaign's emails")
	for _, c := range got[1:] {
		var status string
		require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT status FROM email_log WHERE id = $1`, c.Data["emailId"]).Scan(&status))
		require.Equal(t, c.Data["status"], status)
	}
}

// sseSubscribeCookie is sseSubscribe for a person signed in with a session cookie.
func sseSubscribeCookie(t *testing.T, srv *httptest.Server, cookie, query string, vars map[string]any) <-chan liveEvent {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/graphql", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Cookie", sessionCookie+"="+cookie)
	resp, err := http.DefaultClient.Do(req) //nolint:bodyclose // the reading goroutine closes it
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	out := make(chan liveEvent, 100)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var ev liveEvent
				if json.Unmarshal([]byte(data), &ev) == nil {
					out <- ev
				}
			}
			if line == "event: complete" {
				return
			}
		}
	}()
	return out
}

// TestMyReviewChangesBlind: a reviewer signed in watches their assignments in a blind round; the
// assignment made and the answers submitted reach them, and nothing in what they receive names
// the submission's speaker.
func TestMyReviewChangesBlind(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	ids := f.ids
	ev, round, member := ids["eventId"], ids["roundId"], ids["eventMemberId"]
	w := world{event: ev, base: "/api/v1/events/" + ev}
	_, err := b.db.System.Exec(b.sys(), `UPDATE review_rounds SET blind = true WHERE id = $1`, round)
	require.NoError(t, err)
	p2 := b.proposeIn(w, "Ada Lovelace on engines", "By ada@example.test", nil, ids["contactId"])
	srv := b.live()
	reviewer := b.signIn("reviewer@example.test")

	const q = `subscription { myReviewChanges { cursor type assignmentId assignment { id status round { blind }
	  submission { id code title description participants { name role contactId headshotUrl } } } } }`
	events := sseSubscribeCookie(t, srv, reviewer, q, nil)
	// An API key reviews nothing: its stream stays open and receives nothing.
	keyEvents := sseSubscribe(t, srv, b.acme, q, nil)
	require.Eventually(t, func() bool { return b.res.Ops.Feed.Subscribers() == 2 }, 5*time.Second, 5*time.Millisecond)
	identifying := []string{"Ada", "Lovelace", "ada@example.test", ids["contactId"]}
	receive := func(want string) map[string]any {
		t.Helper()
		got := nextEvent(t, events, 2*time.Second)
		require.Empty(t, got.Errors)
		raw, err := json.Marshal(got)
		require.NoError(t, err)
		for _, s := range identifying {
			require.NotContains(t, string(raw), s, "a blind round's change names the speaker")
		}
		change := got.Data["myReviewChanges"].(map[string]any)
		require.Equal(t, want, change["type"], string(raw))
		return change
	}

	require.Equal(t, http.StatusOK, b.assign(w, round, member, p2).Status)
	assigned := receive("REVIEW_ASSIGNED")
	a := assigned["assignment"].(map[string]any)
	require.Equal(t, assigned["assignmentId"], a["id"])
	require.Equal(t, true, a["round"].(map[string]any)["blind"])
	require.Equal(t, p2, a["submission"].(map[string]any)["id"])
	require.Equal(t, "[redacted] on engines", a["submission"].(map[string]any)["title"])
	require.Equal(t, "Speaker 1", a["submission"].(map[string]any)["participants"].([]any)[0].(map[string]any)["name"])

	submit := `mutation($id: ID!, $in: SubmitReviewAnswersInput!) { submitMyReview(assignmentId: $id, input: $in) { status } }`
	answers := `{"id":"` + str(assigned, "assignmentId") + `","in":{"answers":[{"criterionId":"` + ids["criterionId"] +
		`","numericValue":4,"textValue":null,"optionValue":null}]}}`
	r := b.gqlVars(reviewer, submit, answers)
	require.Empty(t, r.Errors, r.Raw)
	completed := receive("REVIEW_COMPLETED")
	require.Equal(t, "completed", completed["assignment"].(map[string]any)["status"])
	select {
	case ev, ok := <-keyEvents:
		require.Fail(t, "an API key's myReviewChanges received a change", "%v %v", ev, ok)
	default:
	}
}

// TestChangesOfWebhookEventsCarryTheirStatus: a webhook event's change says its new state, whose
// values are enums in the operations (a decision, a cancellation's cause).
func TestChangesOfWebhookEventsCarryTheirStatus(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	got := b.changesOf(w.event, "submission.decided")
	require.NotEmpty(t, got)
	require.Equal(t, "accepted", got[0].Data["status"], "%v", got)
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+st.keynote+"/cancel", b.acme,
		map[string]any{"cause": "organizer", "reason": nil, "notifySpeakers": false})
	got = b.changesOf(w.event, "session.cancelled")
	require.Len(t, got, 1)
	require.Equal(t, map[string]string{"sessionId": st.keynote, "status": "organizer"}, got[0].Data)
}
