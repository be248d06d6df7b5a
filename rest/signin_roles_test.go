package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/reviewanswer"
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
func TestReviewerDesk(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	ids := f.ids
	_, err := b.db.Pool.Exec(b.sys(), `UPDATE submissions SET title = 'Ada Lovelace on engines', description = 'By ada@example.test' WHERE id = $1`, ids["proposalId"])
	require.NoError(t, err)
	_, err = b.db.Pool.Exec(b.sys(), `UPDATE review_rounds SET blind = true WHERE id = $1`, ids["roundId"])
	require.NoError(t, err)
	w := world{event: ids["eventId"], base: "/api/v1/events/" + ids["eventId"]}
	b.addReviewer(w, ids["roundId"], "idle-reviewer@example.test", nil)
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
	_, err = b.db.Pool.Exec(b.sys(), `UPDATE review_rounds SET closes_at = now() - interval '1 minute' WHERE id = $1`, ids["roundId"])
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
	b.must(http.StatusCreated, http.MethodPost, base+"/speakers", b.acme, speakerBody("grace@example.test"))
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

	r = b.gqlCookie(grace, `{ mySpeaking { contact { email } sessions { id } } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	require.Contains(t, r.Raw, "grace@example.test")
	require.NotContains(t, r.Raw, ids["submissionId"])

	for _, q := range []struct{ doc, id, madeUp string }{
		{`query($id: ID!) { mySpeakerSession(id: $id) { id title } }`, ids["submissionId"], "sub_0000000000000000000000"},
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
