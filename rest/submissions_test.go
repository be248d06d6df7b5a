package rest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func (b *testBundle) propose(w world, title string, speakers ...string) map[string]any {
	b.t.Helper()
	ids := make([]any, len(speakers))
	for i, s := range speakers {
		ids[i] = s
	}
	return b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{
		"title": title, "description": "About " + title, "formatId": w.format, "trackIds": []any{w.track2},
		"speakerIds": ids, "answers": map[string]any{"level": "intro", "topics": []any{"go", "db"}}}).Obj()
}

func TestSubmissions(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()

	p1 := b.propose(w, "Generics", w.ada, w.grace)
	require.Equal(t, "SESS-1", p1["code"])
	require.Equal(t, "pending", p1["status"])
	require.NotNil(t, p1["sourceFormId"])
	require.Equal(t, w.ada, p1["submitterContactId"])
	p2 := b.propose(w, "Channels", w.alan)
	draft := b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{"title": "Draft",
		"description": nil, "formatId": nil, "trackIds": []any{}, "speakerIds": []any{w.alan}, "status": "draft"}).Obj()
	require.Nil(t, draft["submittedAt"])
	b.createSession(w, "Manual", w.alan)

	t.Run("List", func(t *testing.T) {
		list := b.must(http.StatusOK, http.MethodGet, w.base+"/submissions", b.acme, nil).Obj()
		subs := list["submissions"].([]any)
		require.Len(t, subs, 2, "manual sessions are not submissions; drafts are listed only when asked for")
		first := subs[0].(map[string]any)
		require.Equal(t, "SESS-1", first["code"])
		require.Equal(t, "cfp", first["source"])
		require.Equal(t, "Talk", first["format"])
		require.Equal(t, []any{map[string]any{"id": w.track2, "name": "Data", "color": "#1d6b4c"}}, first["tracks"])
		sp := first["speakers"].([]any)
		require.Len(t, sp, 2)
		require.Equal(t, false, sp[0].(map[string]any)["bioPresent"])
		require.Equal(t, int64(0), num(t, first, "reviewCount"))
		require.Nil(t, first["rating"])
		require.Equal(t, []any{"Talk"}, list["formats"])
		require.Len(t, b.must(http.StatusOK, http.MethodGet, w.base+"/submissions?status=draft", b.acme, nil).Obj()["submissions"], 1)
		b.requireError(b.do(http.MethodGet, w.base+"/submissions?status=lost", b.acme, nil), http.StatusBadRequest, "invalid_input")
	})

	t.Run("Detail", func(t *testing.T) {
		d := b.must(http.StatusOK, http.MethodGet, w.base+"/submissions/"+str(p1, "id"), b.acme, nil).Obj()
		require.Equal(t, p1["id"], d["submission"].(map[string]any)["id"])
		require.Len(t, d["answers"], 2)
		require.Equal(t, []any{}, d["reviews"])
		require.Equal(t, []any{}, d["roundReviews"])
		kinds := []string{}
		for _, a := range d["activity"].([]any) {
			kinds = append(kinds, str(a.(map[string]any), "kind"))
		}
		require.Equal(t, []string{"submitted", "created"}, kinds)
		b.requireError(b.do(http.MethodGet, w.base+"/submissions/sub_01doesnotexist0000000000", b.acme, nil), http.StatusNotFound, "not_found")
	})

	t.Run("ChangeStatus", func(t *testing.T) {
		path := w.base + "/submissions/" + str(p2, "id")
		require.Equal(t, map[string]any{"id": p2["id"], "status": "maybe"},
			b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{"status": "maybe"}).JSON)
		require.Equal(t, map[string]any{"id": p2["id"], "status": "maybe"},
			b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{"status": "maybe"}).JSON, "same status is a no-op")
		for _, status := range []string{"accepted", "declined", "draft"} {
			b.requireError(b.do(http.MethodPatch, path, b.acme, map[string]any{"status": status}), http.StatusBadRequest, "invalid_input")
		}
		b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{"status": "pending"})
	})

	t.Run("Decide", func(t *testing.T) {
		b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil, "title": "Bio", "scope": "speaker"})
		res := b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{p1["id"], p1["id"]}, "decision": "accept", "feedback": "Loved it."}).Obj()
		decided := res["submissions"].([]any)
		require.Len(t, decided, 1)
		require.Equal(t, "accepted", decided[0].(map[string]any)["status"])
		require.Regexp(t, isoMillis, decided[0].(map[string]any)["notifiedAt"])
		require.Equal(t, int64(2), num(t, res, "createdEmails"), "one per speaker")
		require.Equal(t, int64(2), num(t, res, "createdTasks"))
		msgs := b.sink.Wait(t, 2, 10*time.Second)
		require.Equal(t, "Your proposal for World was accepted", msgs[0].Header.Get("Subject"))
		require.Contains(t, msgs[0].Text, "Loved it.")

		// The session shows up with content waiting for approval.
		sessions := sessionsOf(b.listSessions(w, ""))
		var accepted map[string]any
		for _, s := range sessions {
			if s["id"] == p1["id"] {
				accepted = s
			}
		}
		require.NotNil(t, accepted)
		require.Equal(t, "cfp", accepted["source"])
		require.Equal(t, "pending_review", accepted["contentReviewStatus"])
		require.Equal(t, false, accepted["publicationApproved"])

		// Repeating the decision sends nothing twice.
		again := b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{p1["id"]}, "decision": "accept", "feedback": "x"}).Obj()
		require.Equal(t, int64(0), num(t, again, "createdEmails"))

		// Declining an accepted submission is refused; accepted ones are cancelled instead.
		r := b.do(http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{p1["id"]}, "decision": "decline", "feedback": ""})
		b.requireError(r, http.StatusBadRequest, "invalid_input")

		// Declined → accepted needs confirmRedecide.
		b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{p2["id"]}, "decision": "decline", "feedback": "Not this year."})
		r = b.do(http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{p2["id"]}, "decision": "accept", "feedback": ""})
		b.requireError(r, http.StatusConflict, "already_decided")
		ok := b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{p2["id"]}, "decision": "accept", "feedback": "", "confirmRedecide": true, "approveContent": true}).Obj()
		require.Equal(t, "accepted", ok["submissions"].([]any)[0].(map[string]any)["status"])

		// Drafts and withdrawn ones get no decisions; unknown ids are 404; from accepted no status change.
		b.requireError(b.do(http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{draft["id"]}, "decision": "accept", "feedback": ""}), http.StatusBadRequest, "invalid_input")
		b.requireError(b.do(http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{"sub_01doesnotexist0000000000"}, "decision": "accept", "feedback": ""}), http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{}, "decision": "accept", "feedback": ""}), http.StatusBadRequest, "invalid_input")
		b.requireError(b.do(http.MethodPatch, w.base+"/submissions/"+str(p1, "id"), b.acme, map[string]any{"status": "withdrawn"}),
			http.StatusBadRequest, "invalid_input")

		kinds := []string{}
		for _, a := range b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+str(p2, "id")+"/timeline", b.acme, nil).List() {
			kinds = append(kinds, str(a.(map[string]any), "kind"))
		}
		require.Contains(t, kinds, "decided")
		require.Contains(t, kinds, "status_changed")
	})

	t.Run("CreateChecks", func(t *testing.T) {
		for body, want := range map[string][2]string{
			`{"title":"T","description":null,"formatId":null,"trackIds":[],"speakerIds":[],"status":"pending"}`:                          {"invalid_input", "Every submission must have a speaker"},
			`{"title":"T","description":null,"formatId":null,"trackIds":["trk_01doesnotexist000000000"],"speakerIds":["` + w.ada + `"]}`: {"invalid_input", "Choose tracks from this event"},
			`{"title":"T","description":null,"formatId":null,"trackIds":[],"speakerIds":["` + w.ada + `"],"status":"accepted"}`:          {"invalid_input", "status must be draft or pending"},
			`{"title":"T","description":null,"formatId":null,"trackIds":[],"speakerIds":["` + w.outsider + `"]}`:                         {"forbidden", "One or more speakers do not belong to this event"},
			`{"title":"T","description":null,"formatId":null,"speakerIds":["` + w.ada + `"]}`:                                            {"invalid_body", "trackIds is required"},
		} {
			r := b.do(http.MethodPost, w.base+"/submissions", b.acme, body)
			require.Equal(t, want[0], r.ErrCode(), body)
			require.Equal(t, want[1], r.ErrMessage(), body)
		}
	})
}
