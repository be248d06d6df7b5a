package rest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/reviewanswer"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/signintoken"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/access/secret"
)

const deskQuery = `{ myReviewAssignments { id eventId eventName status round { id blind status }
  submission { id code title description participants { name role contactId headshotUrl } }
  criteria { id label type } answers { criterionId numericValue } } }`

// gqlVars posts a document with variables and a session cookie, from the same origin.
func (b *testBundle) gqlVars(cookie, query, variables string) gqlResponse {
	b.t.Helper()
	return b.matrixCall(matrixCaller{cookie: cookie}, query, variables)
}

// TestReviewerDesk: a reviewer reads their own assignment of a blind round without anything
// that identifies the speaker, answers it and recuses; another reviewer asking for it by id gets
// the answer of an id that does not exist, and nothing is written.
// blindDesk is the fixture with its proposal naming its speaker, its round blind, and idle a second
// reviewer of the round with nothing assigned.
func (b *testBundle) blindDesk(idle string) (fixture, world) {
	b.t.Helper()
	f := b.fixture()
	ids := f.ids
	_, err := b.db.System.Exec(b.sys(), `UPDATE submissions SET title = 'Ada Lovelace on engines', description = 'By ada@example.test' WHERE id = $1`, ids["proposalId"])
	require.NoError(b.t, err)
	_, err = b.db.System.Exec(b.sys(), `UPDATE review_rounds SET blind = true WHERE id = $1`, ids["roundId"])
	require.NoError(b.t, err)
	w := world{event: ids["eventId"], base: "/api/v1/events/" + ids["eventId"]}
	b.addReviewer(w, ids["roundId"], idle, nil)
	return f, w
}

func TestReviewerDesk(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f, w := b.blindDesk("idle-reviewer@example.test")
	ids := f.ids
	reviewer := b.signIn("reviewer@example.test")
	idle := b.signIn("idle-reviewer@example.test")

	r := b.gqlCookie(reviewer, deskQuery, nil)
	require.Empty(t, r.Errors, r.Raw)
	list := r.Data["myReviewAssignments"].([]any)
	require.Len(t, list, 1, r.Raw)
	a := list[0].(map[string]any)
	require.Equal(t, ids["assignmentId"], a["id"])
	require.Equal(t, "[redacted] on engines", a["submission"].(map[string]any)["title"])
	for _, s := range []string{"Ada", "Lovelace", "ada@example.test", ids["contactId"]} {
		require.NotContains(t, r.Raw, s, "a blind round shows the reviewer who the speaker is")
	}
	require.Contains(t, r.Raw, `"name":"Speaker 1"`)

	// The reviewer not assigned sees nothing, and asking by id answers as a made-up id does.
	r = b.gqlCookie(idle, deskQuery, nil)
	require.Equal(t, []any{}, r.Data["myReviewAssignments"], r.Raw)
	one := `query($id: ID!) { myReviewAssignment(id: $id) { id submission { title } } }`
	theirs := b.gqlVars(idle, one, `{"id":"`+ids["assignmentId"]+`"}`)
	madeUp := b.gqlVars(idle, one, `{"id":"asg_0000000000000000000000"}`)
	require.Equal(t, []string{"not_found"}, theirs.Codes(), theirs.Raw)
	require.Equal(t, madeUp.Errors[0].Message, theirs.Errors[0].Message)
	require.Equal(t, strings.ReplaceAll(madeUp.Raw, "asg_0000000000000000000000", ids["assignmentId"]), theirs.Raw)
	// A submission's id (not assigned to them) names nothing either.
	proposal := b.gqlVars(idle, one, `{"id":"`+ids["proposalId"]+`"}`)
	require.Equal(t, strings.ReplaceAll(madeUp.Raw, "asg_0000000000000000000000", ids["proposalId"]), proposal.Raw)

	submit := `mutation($id: ID!, $in: SubmitReviewAnswersInput!) { submitMyReview(assignmentId: $id, input: $in) { status answers { criterionId numericValue } } }`
	answers := `{"id":"` + ids["assignmentId"] + `","in":{"answers":[{"criterionId":"` + ids["criterionId"] + `","numericValue":4,"textValue":null,"optionValue":null}]}}`
	r = b.gqlVars(idle, submit, answers)
	require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
	n, err := b.db.Ent.ReviewAnswer.Query().Where(reviewanswer.AssignmentID(ids["assignmentId"])).Count(b.sys())
	require.NoError(t, err)
	require.Zero(t, n, "another reviewer's answers were written")
	r = b.gqlVars(idle, `mutation($id: ID!) { recuseMyAssignment(assignmentId: $id, input: {reason: "x"}) { status } }`,
		`{"id":"`+ids["assignmentId"]+`"}`)
	require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)

	// A value out of range is refused with the contract's code, and writes nothing.
	bad := strings.Replace(answers, `"numericValue":4`, `"numericValue":9`, 1)
	r = b.gqlVars(reviewer, submit, bad)
	require.Equal(t, []string{"numeric_out_of_bounds"}, r.Codes(), r.Raw)

	r = b.gqlVars(reviewer, submit, answers)
	require.Empty(t, r.Errors, r.Raw)
	require.Equal(t, "completed", r.Data["submitMyReview"].(map[string]any)["status"])
	// The organizer's results show the reviewer's answer.
	entry := roundIn(t, b.workspace(w), ids["roundId"])
	got := assignmentOf(t, entry, ids["eventMemberId"], ids["proposalId"])
	require.Equal(t, "completed", got["status"])
	require.Contains(t, b.must(http.StatusOK, http.MethodGet, w.base+"/evaluation", b.acme, nil).Raw, `"numericValue":4`)

	// Once the round has closed, answers are refused.
	_, err = b.db.System.Exec(b.sys(), `UPDATE review_rounds SET closes_at = now() - interval '1 minute' WHERE id = $1`, ids["roundId"])
	require.NoError(t, err)
	r = b.gqlVars(reviewer, submit, answers)
	require.Equal(t, []string{"round_closed"}, r.Codes(), r.Raw)

	r = b.gqlVars(reviewer, `mutation($id: ID!) { recuseMyAssignment(assignmentId: $id, input: {reason: "I know them"}) { status } }`,
		`{"id":"`+ids["assignmentId"]+`"}`)
	require.Empty(t, r.Errors, r.Raw)
	require.Equal(t, "recused", r.Data["recuseMyAssignment"].(map[string]any)["status"])

	// An API key reviews nothing.
	k := b.matrixCall(matrixCaller{key: b.acme}, deskQuery, "")
	require.Equal(t, []any{}, k.Data["myReviewAssignments"], k.Raw)
}

// TestSpeakerOwnRecords: a speaker reads their contact, sessions with tasks and deliverables, and
// the resources meant for them; another speaker asking for them by id gets the answer of an id
// that does not exist.
func TestSpeakerOwnRecords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	ids := f.ids
	base := "/api/v1/events/" + ids["eventId"]
	graceID := str(b.must(http.StatusCreated, http.MethodPost, base+"/speakers", b.acme, speakerBody("grace@example.test")).Obj(), "id")
	// Grace co-speaks in the session: her own tasks are hers, not Ada's.
	b.must(http.StatusOK, http.MethodPut, base+"/sessions/"+ids["submissionId"]+"/speakers", b.acme,
		map[string]any{"speakerIds": []any{ids["contactId"], graceID}})
	require.Contains(t, b.must(http.StatusOK, http.MethodGet, base+"/sessions/"+ids["submissionId"]+"/tasks", b.acme, nil).Raw,
		graceID, "Grace has a task of her own in the session")
	ada := b.signIn("ada@example.test")
	grace := b.signIn("grace@example.test")

	r := b.gqlCookie(ada, `{ mySpeaking { eventId eventName contact { id email } sessions { id code title status
	  tasks { title contactId status } deliverables { label status } ready } resources { title } agenda { id } } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	events := r.Data["mySpeaking"].([]any)
	require.Len(t, events, 1, r.Raw)
	ev := events[0].(map[string]any)
	require.Equal(t, ids["contactId"], ev["contact"].(map[string]any)["id"])
	sessions := ev["sessions"].([]any)
	require.Len(t, sessions, 2, "the session and the proposal: %s", r.Raw)
	require.Contains(t, r.Raw, ids["submissionId"])
	require.Contains(t, r.Raw, ids["proposalId"])
	require.Contains(t, r.Raw, `"title":"Bio"`, "the speaker's task")

	require.NotContains(t, r.Raw, graceID, "a co-speaker's tasks and deliverables")
	require.Contains(t, r.Raw, `"contactId":"`+ids["contactId"]+`"`, "Ada's own speaker task")

	r = b.gqlCookie(grace, `{ mySpeaking { contact { email } sessions { id tasks { contactId } } } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	require.Contains(t, r.Raw, "grace@example.test")
	require.Contains(t, r.Raw, ids["submissionId"], "the session she speaks in")
	require.NotContains(t, r.Raw, ids["proposalId"], "Ada's proposal")
	require.NotContains(t, r.Raw, `"contactId":"`+ids["contactId"]+`"`, "Ada's tasks")

	// The portal's landing page shows each speaker their own sessions.
	portal := func(cookie string) string {
		req := httptest.NewRequest(http.MethodGet, "/portal", nil)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusOK, rec.Code)
		return rec.Body.String()
	}
	require.Contains(t, portal(ada), " — S</strong>")
	require.Contains(t, portal(ada), " — P</strong>")
	require.NotContains(t, portal(grace), " — P</strong>")

	for _, q := range []struct{ doc, id, madeUp string }{
		{`query($id: ID!) { mySpeakerSession(id: $id) { id title } }`, ids["proposalId"], "sub_0000000000000000000000"},
		{`query($id: ID!) { mySpeakerContact(id: $id) { id email } }`, ids["contactId"], "con_0000000000000000000000"},
	} {
		theirs := b.gqlVars(grace, q.doc, `{"id":"`+q.id+`"}`)
		madeUp := b.gqlVars(grace, q.doc, `{"id":"`+q.madeUp+`"}`)
		require.Equal(t, []string{"not_found"}, theirs.Codes(), theirs.Raw)
		require.Equal(t, strings.ReplaceAll(madeUp.Raw, q.madeUp, q.id), theirs.Raw)
		require.NotContains(t, theirs.Raw, "Lovelace")
		mine := b.gqlVars(ada, q.doc, `{"id":"`+q.id+`"}`)
		require.Empty(t, mine.Errors, mine.Raw)
	}
}

// TestOneClickInvitation: a reviewer invitation signs its recipient in with one click. The
// email log (which organizers read) holds the link with a placeholder, never a token; the
// message sent holds a fresh token that works once, for seven days, and lands on the reviewer's
// page; used, expired, forged and truncated links land on the sign-in page with where they led.
func TestOneClickInvitation(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	ev := str(b.createEvent(b.acme, "Oneclick"), "id")
	w := world{event: ev, base: "/api/v1/events/" + ev}
	round := b.saveRound(w, roundBody("R", numericCriterion("Q", 1, 5, 1, true)))
	roundID := str(roundOf(round), "id")
	b.addReviewer(w, roundID, "click@example.test", nil)
	msgs := b.sink.Wait(t, 1, 10*time.Second)
	m := msgs[0]
	link := regexp.MustCompile(`https?://[^\s]*/auth/link\?token=([A-Za-z0-9_-]+)&next=(\S+)`).FindStringSubmatch(m.Text)
	require.NotNil(t, link, m.Text)
	token, next := link[1], link[2]
	require.Len(t, token, 43, "a fresh token in the message sent")
	require.Equal(t, url.QueryEscape("/reviews/"+roundID), next)
	require.Contains(t, m.HTML, "token="+token)

	// The log keeps the placeholder: no stored copy signs anyone in.
	logged, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("click@example.test")).Only(b.sys())
	require.NoError(t, err)
	require.NotContains(t, logged.Body+logged.HTMLBody, token)
	require.Contains(t, logged.Body, "token="+secret.Placeholder)
	emails := b.must(http.StatusOK, http.MethodGet, w.base+"/emails", b.acme, nil).Raw
	require.NotContains(t, emails, token)
	rec := b.follow(secret.Placeholder, "")
	require.Equal(t, http.StatusForbidden, rec.Code, "the logged link signs nobody in")

	tok, err := b.db.Ent.SignInToken.Query().Where(signintoken.Email("click@example.test")).Only(b.sys())
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(7*24*time.Hour), tok.ExpiresAt, time.Minute)
	require.Equal(t, "/reviews/"+roundID, tok.Next)

	// The page the link opens changes nothing; its button signs in and lands on the reviews.
	page := b.sendRaw(httptest.NewRequest(http.MethodGet, "/auth/link?token="+token+"&next="+next, nil))
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body.String(), `name="next" value="/reviews/`+roundID+`"`)
	rec = b.follow(token, "")
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, "/reviews/"+roundID, rec.Header().Get("Location"))

	// A second invitation's link, expired: refused like the others below.
	round2 := str(roundOf(b.saveRound(w, roundBody("R2", numericCriterion("Q", 1, 5, 1, true)))), "id")
	b.addReviewer(w, round2, "click@example.test", nil)
	second := b.sink.Wait(t, 2, 10*time.Second)[1]
	expired := regexp.MustCompile(`token=([A-Za-z0-9_-]{43})`).FindStringSubmatch(second.Text)
	require.NotNil(t, expired, second.Text)
	require.NotEqual(t, token, expired[1], "every email gets its own token")
	_, err = b.db.System.Exec(b.sys(), `UPDATE sign_in_tokens SET expires_at = now() - interval '1 second' WHERE next = $1`, "/reviews/"+round2)
	require.NoError(t, err)

	// Used again, expired, truncated or forged: the sign-in page, keeping where the link led.
	for _, bad := range []string{token, expired[1], token[:42], strings.Repeat("A", 43)} {
		form := url.Values{"token": {bad}, "next": {"/reviews/" + roundID}}
		req := httptest.NewRequest(http.MethodPost, "/auth/link", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusForbidden, rec.Code)
		body := rec.Body.String()
		require.Contains(t, body, "invalid, expired or already used")
		require.Contains(t, body, `name="next" value="/reviews/`+roundID+`"`)
		require.Contains(t, body, `action="/auth/signin"`)
	}
}

// TestReviewerDeskPages: the reviewer's pages list and show the assignment (redacted in a blind
// round), keep what was typed when the form is refused, save the review, refuse cross-origin
// posts, and answer another reviewer's assignment as a missing one.
func TestReviewerDeskPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	ids := f.ids
	_, err := b.db.System.Exec(b.sys(), `UPDATE review_rounds SET blind = true WHERE id = $1`, ids["roundId"])
	require.NoError(t, err)
	_, err = b.db.System.Exec(b.sys(), `UPDATE submissions SET description = 'Ada Lovelace talks' WHERE id = $1`, ids["proposalId"])
	require.NoError(t, err)
	w := world{event: ids["eventId"], base: "/api/v1/events/" + ids["eventId"]}
	b.addReviewer(w, ids["roundId"], "idle-reviewer@example.test", nil)
	reviewer := b.signIn("reviewer@example.test")
	idle := b.signIn("idle-reviewer@example.test")
	page := func(cookie, method, path string, form url.Values, site string) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Sec-Fetch-Site", site)
		}
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		return b.sendRaw(req)
	}
	path := "/reviews/" + ids["assignmentId"]

	list := page(reviewer, http.MethodGet, "/reviews", nil, "")
	require.Equal(t, http.StatusOK, list.Code)
	require.Contains(t, list.Body.String(), `href="`+path+`"`)
	one := page(reviewer, http.MethodGet, path, nil, "")
	require.Equal(t, http.StatusOK, one.Code)
	body := one.Body.String()
	require.Contains(t, body, "[redacted] talks")
	require.Contains(t, body, "Speaker 1")
	require.NotContains(t, body, "Lovelace")
	require.Contains(t, body, `<label for="c_`+ids["criterionId"]+`"`)

	// Another reviewer: the page of a missing assignment, nothing of this one.
	theirs := page(idle, http.MethodGet, path, nil, "")
	require.Equal(t, http.StatusNotFound, theirs.Code)
	require.NotContains(t, theirs.Body.String(), "talks")
	madeUp := page(idle, http.MethodGet, "/reviews/asg_0000000000000000000000", nil, "")
	require.Equal(t, madeUp.Body.String(), theirs.Body.String())
	require.Equal(t, http.StatusNotFound, page(idle, http.MethodPost, path, url.Values{"c_" + ids["criterionId"]: {"4"}}, "same-origin").Code)

	// A refused form keeps what was typed, with the reason next to the field.
	field := "c_" + ids["criterionId"]
	bad := page(reviewer, http.MethodPost, path, url.Values{field: {"four"}}, "same-origin")
	require.Equal(t, http.StatusBadRequest, bad.Code)
	require.Contains(t, bad.Body.String(), `value="four"`)
	require.Contains(t, bad.Body.String(), `aria-describedby="h_`+ids["criterionId"]+` err_`+ids["criterionId"]+`"`)
	out := page(reviewer, http.MethodPost, path, url.Values{field: {"9"}}, "same-origin")
	require.Equal(t, http.StatusBadRequest, out.Code)
	require.Contains(t, out.Body.String(), `value="9"`)
	require.Contains(t, out.Body.String(), "outside its allowed range")

	// From another site: refused, nothing written.
	cross := page(reviewer, http.MethodPost, path, url.Values{field: {"4"}}, "cross-site")
	require.Equal(t, http.StatusForbidden, cross.Code)
	n, err := b.db.Ent.ReviewAnswer.Query().Where(reviewanswer.AssignmentID(ids["assignmentId"])).Count(b.sys())
	require.NoError(t, err)
	require.Zero(t, n)

	ok := page(reviewer, http.MethodPost, path, url.Values{field: {"4"}}, "same-origin")
	require.Equal(t, http.StatusSeeOther, ok.Code, ok.Body.String())
	saved := page(reviewer, http.MethodGet, ok.Header().Get("Location"), nil, "")
	require.Contains(t, saved.Body.String(), "Your review is saved")
	require.Contains(t, saved.Body.String(), `value="4"`)
	require.Contains(t, b.must(http.StatusOK, http.MethodGet, w.base+"/evaluation", b.acme, nil).Raw, `"numericValue":4`)
}

// TestReviewerChangeAlone: a reviewer's change commits in a transaction of its own, so a
// document sending it with other mutation fields is refused whole and writes nothing.
func TestReviewerChangeAlone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	ids := f.ids
	reviewer := b.signIn("reviewer@example.test")
	answers := `{"id":"` + ids["assignmentId"] + `","in":{"answers":[{"criterionId":"` + ids["criterionId"] + `","numericValue":4,"textValue":null,"optionValue":null}]}}`
	r := b.gqlVars(reviewer, `mutation($id: ID!, $in: SubmitReviewAnswersInput!) {
	  a: submitMyReview(assignmentId: $id, input: $in) { status }
	  b: recuseMyAssignment(assignmentId: $id, input: {reason: "x"}) { status } }`, answers)
	require.Equal(t, []string{"invalid_input", "invalid_input"}, r.Codes(), r.Raw)
	n, err := b.db.Ent.ReviewAnswer.Query().Where(reviewanswer.AssignmentID(ids["assignmentId"])).Count(b.sys())
	require.NoError(t, err)
	require.Zero(t, n)
	a, err := b.db.Ent.ReviewAssignment.Get(b.sys(), ids["assignmentId"])
	require.NoError(t, err)
	require.Equal(t, "pending", a.Status.String())
}

// TestReviewerDeskQueryCount: the reviewer's list costs the same statements for one assignment
// and for twenty in a round: the round's workspace is read once, not per assignment.
func TestReviewerDeskQueryCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	ids := f.ids
	base := "/api/v1/events/" + ids["eventId"]
	w := world{event: ids["eventId"], base: base}
	reviewer := b.signIn("reviewer@example.test")
	people := &access.People{DB: b.db}
	desk := func() (int64, int) {
		p, err := people.Authenticate(context.Background(), reviewer)
		require.NoError(t, err)
		ctx, counter := dbx.WithQueryCount(context.Background())
		list, err := b.res.Ops.ReviewerDesk(viewer.NewContext(ctx, access.PersonViewer(p, "")))
		require.NoError(t, err)
		return counter.Load(), len(list)
	}
	one, n := desk()
	require.Equal(t, 1, n)
	more := make([]string, 19)
	for i := range more {
		more[i] = str(b.must(http.StatusCreated, http.MethodPost, base+"/submissions", b.acme, map[string]any{
			"title": "P" + strconv.Itoa(i), "description": "d", "formatId": ids["formatId"], "trackIds": []any{ids["trackId"]},
			"speakerIds": []any{ids["contactId"]}}).Obj(), "id")
	}
	require.Equal(t, http.StatusOK, b.assign(w, ids["roundId"], ids["eventMemberId"], more...).Status)
	twenty, n := desk()
	require.Equal(t, 20, n)
	require.NotZero(t, one)
	require.Equal(t, one, twenty, "statements for 1 and 20 assignments")
	t.Logf("reviewer desk: %d statements for 1 assignment and for 20", one)
}
