package rest_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/rest"
)

// world is an event with a format, two tracks and three speakers, for session tests.
type world struct {
	event, base                string
	format, track1, track2     string
	ada, grace, alan, outsider string
}

func (b *testBundle) world() world {
	b.t.Helper()
	w := world{event: str(b.createEvent(b.acme, "World"), "id")}
	w.base = "/api/v1/events/" + w.event
	w.format = str(b.saveItem(b.acme, w.event, map[string]any{"kind": "format", "name": "Talk"}), "id")
	w.track1 = str(b.saveItem(b.acme, w.event, map[string]any{"kind": "track", "name": "Go", "color": "#00add8"}), "id")
	w.track2 = str(b.saveItem(b.acme, w.event, map[string]any{"kind": "track", "name": "Data"}), "id")
	w.ada = b.speaker(w.base, "Ada", "Lovelace", "ada@example.test")
	w.grace = b.speaker(w.base, "Grace", "Hopper", "grace@example.test")
	w.alan = b.speaker(w.base, "Alan", "Turing", "alan@example.test")
	other := "/api/v1/events/" + str(b.createEvent(b.acme, "Elsewhere"), "id")
	w.outsider = b.speaker(other, "Out", "Sider", "out@example.test")
	return w
}

func (b *testBundle) speaker(base, first, last, email string) string {
	b.t.Helper()
	body := speakerBody(email)
	body["firstName"], body["lastName"] = first, last
	return str(b.must(http.StatusCreated, http.MethodPost, base+"/speakers", b.acme, body).Obj(), "id")
}

func (b *testBundle) createSession(w world, title string, speakers ...string) map[string]any {
	b.t.Helper()
	ids := make([]any, len(speakers))
	for i, s := range speakers {
		ids[i] = s
	}
	return b.must(http.StatusCreated, http.MethodPost, w.base+"/sessions", b.acme, map[string]any{
		"title": title, "description": nil, "formatId": w.format, "speakerIds": ids}).Obj()
}

func (b *testBundle) listSessions(w world, query string) map[string]any {
	b.t.Helper()
	return b.must(http.StatusOK, http.MethodGet, w.base+"/sessions"+query, b.acme, nil).Obj()
}

func sessionsOf(list map[string]any) []map[string]any {
	var out []map[string]any
	for _, s := range list["sessions"].([]any) {
		out = append(out, s.(map[string]any))
	}
	return out
}

func TestCreateSession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()

	s := b.createSession(w, "  Go at scale  ", w.grace, w.ada, w.grace)
	require.Equal(t, "SESS-1", s["code"])
	require.Equal(t, "accepted", s["status"])
	require.Equal(t, "Go at scale", s["title"])
	require.IsType(t, "", s["description"], "a null description is sent as \"\"")
	require.Empty(t, s["description"])
	require.Nil(t, s["sourceFormId"])
	require.Nil(t, s["submitterContactId"])
	require.Equal(t, "en", s["language"])
	require.Equal(t, int64(0), num(t, s, "icsSequence"))
	require.Equal(t, false, s["scheduleDirty"])
	require.Equal(t, "approved", s["contentReviewStatus"])
	require.Equal(t, map[string]any{}, s["answers"])
	require.Regexp(t, isoMillis, s["submittedAt"])
	require.Equal(t, map[string]any{"title": "Go at scale", "description": "", "formatId": w.format, "levelId": nil,
		"language": "en", "answers": map[string]any{}}, s["approvedSnapshot"])
	for _, key := range []string{"startsAt", "endsAt", "roomId", "capacity", "ceuCredits", "clientSessionId", "notifiedAt", "cancelledAt", "cancelledBy", "levelId"} {
		require.Contains(t, s, key)
		require.Nil(t, s[key], key)
	}

	// Speakers de-duplicated, in the order given, role speaker; manual source; published.
	item := sessionsOf(b.listSessions(w, ""))[0]
	require.Equal(t, "manual", item["source"])
	require.Equal(t, "Talk", item["format"])
	require.Equal(t, true, item["publicationApproved"])
	speakers := item["speakers"].([]any)
	require.Len(t, speakers, 2)
	first := speakers[0].(map[string]any)
	require.Equal(t, "Grace Hopper", first["name"])
	require.Equal(t, "speaker", first["role"])
	require.Equal(t, int64(0), num(t, first, "position"))
	require.Equal(t, "grace@example.test", first["email"])
	require.Equal(t, "Ada Lovelace", speakers[1].(map[string]any)["name"])

	// Codes count up, drafts included.
	b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{"title": "Draft",
		"description": nil, "formatId": nil, "trackIds": []any{}, "speakerIds": []any{w.ada}, "status": "draft"})
	require.Equal(t, "SESS-3", b.createSession(w, "Third", w.alan)["code"])

	t.Run("Checks", func(t *testing.T) {
		for name, tc := range map[string]struct {
			body          map[string]any
			status        int
			code, message string
		}{
			"BlankTitle":     {map[string]any{"title": " ", "description": nil, "formatId": nil, "speakerIds": []any{w.ada}}, 400, "invalid_input", "Enter a session title"},
			"NoSpeaker":      {map[string]any{"title": "T", "description": nil, "formatId": nil, "speakerIds": []any{}}, 400, "invalid_input", "Every session must have a speaker"},
			"NotAContact":    {map[string]any{"title": "T", "description": nil, "formatId": nil, "speakerIds": []any{w.ada, w.outsider}}, 403, "forbidden", "One or more speakers do not belong to this event"},
			"UnknownSpeaker": {map[string]any{"title": "T", "description": nil, "formatId": nil, "speakerIds": []any{"nope"}}, 403, "forbidden", "One or more speakers do not belong to this event"},
			"ForeignFormat":  {map[string]any{"title": "T", "description": nil, "formatId": "fmt_01doesnotexist000000000", "speakerIds": []any{w.ada}}, 400, "invalid_input", "Choose a format from this event"},
			"MissingKey":     {map[string]any{"title": "T", "formatId": nil, "speakerIds": []any{w.ada}}, 400, "invalid_body", "description is required"},
		} {
			r := b.do(http.MethodPost, w.base+"/sessions", b.acme, tc.body)
			b.requireError(r, tc.status, tc.code)
			require.Equal(t, tc.message, r.ErrMessage(), name)
		}
		// Nothing was created by the refused requests: the next code is 4.
		require.Equal(t, "SESS-4", b.createSession(w, "Fourth", w.alan)["code"])
	})
}

func TestCancelAndReinstate(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil, "title": "Send bio", "scope": "speaker"})
	b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil, "title": "Rehearse", "scope": "session"})
	s := b.createSession(w, "Doomed talk", w.ada, w.grace)
	id := str(s, "id")
	keep := b.createSession(w, "Kept talk", w.alan)

	// One task is done already; cancelling waives the open ones.
	tasks := b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+id+"/tasks", b.acme, nil).List()
	require.Len(t, tasks, 3)
	b.must(http.StatusOK, http.MethodPatch, w.base+"/sessions/"+id+"/tasks/"+str(tasks[0].(map[string]any), "id"), b.acme, map[string]any{"status": "done"})

	res := b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+id+"/cancel", b.acme, map[string]any{
		"cause": "speaker", "message": "Flight cancelled, sorry!"}).Obj()
	require.Equal(t, id, res["id"])
	require.Equal(t, "speaker", res["cancelledBy"])
	require.Regexp(t, isoMillis, res["cancelledAt"])
	require.Equal(t, int64(2), num(t, res, "createdEmails"))
	require.Equal(t, int64(2), num(t, res, "waivedTasks"))

	// One email per speaker, with the message, arrives over SMTP.
	msgs := b.sink.Wait(t, 2, 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	require.Len(t, b.sink.Messages(), 2)
	to := map[string]bool{}
	for _, m := range msgs {
		to[m.To[0]] = true
		require.Equal(t, "Your World session has been cancelled", m.Header.Get("Subject"))
		require.Contains(t, m.Text, "Flight cancelled, sorry!")
		require.Contains(t, m.Text, "Doomed talk")
		require.Contains(t, m.HTML, "Flight cancelled, sorry!")
		require.Empty(t, m.Calendar, "no invites had gone out")
	}
	require.Equal(t, map[string]bool{"ada@example.test": true, "grace@example.test": true}, to)
	emails := b.must(http.StatusOK, http.MethodGet, w.base+"/emails?type=cancelled", b.acme, nil).List()
	require.Len(t, emails, 2)

	// The session stays listed with its cause; the state filter splits the list.
	all := sessionsOf(b.listSessions(w, ""))
	require.Len(t, all, 2)
	active := sessionsOf(b.listSessions(w, "?state=active"))
	require.Len(t, active, 1)
	require.Equal(t, keep["id"], active[0]["id"])
	cancelled := sessionsOf(b.listSessions(w, "?state=cancelled"))
	require.Len(t, cancelled, 1)
	require.Equal(t, "speaker", cancelled[0]["cancelledBy"])
	require.NotNil(t, cancelled[0]["cancelledAt"])
	require.Equal(t, int64(1), num(t, cancelled[0], "tasksTotal"), "waived tasks do not count")
	require.Equal(t, int64(1), num(t, cancelled[0], "tasksDone"))
	require.Len(t, sessionsOf(b.listSessions(w, "?state=whatever")), 2)

	// Twice is refused, as is cancelling what is not a session.
	r := b.do(http.MethodPost, w.base+"/sessions/"+id+"/cancel", b.acme, map[string]any{"cause": "organizer"})
	b.requireError(r, http.StatusBadRequest, "invalid_input")
	require.Equal(t, "This session is already cancelled", r.ErrMessage())
	r = b.do(http.MethodPost, w.base+"/sessions/sub_01doesnotexist0000000000/cancel", b.acme, map[string]any{"cause": "organizer"})
	b.requireError(r, http.StatusNotFound, "not_found")
	require.Equal(t, "Session not found", r.ErrMessage())

	// Reinstating reopens the waived tasks and tells the speakers.
	back := b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+id+"/reinstate", b.acme, map[string]any{"message": "Good news"}).Obj()
	require.Equal(t, int64(2), num(t, back, "reopenedTasks"))
	require.Equal(t, int64(2), num(t, back, "createdEmails"))
	require.Equal(t, false, back["calendarReinvited"])
	b.sink.Wait(t, 4, 10*time.Second)
	listed := sessionsOf(b.listSessions(w, "?state=active"))
	require.Len(t, listed, 2)
	r = b.do(http.MethodPost, w.base+"/sessions/"+id+"/reinstate", b.acme, map[string]any{})
	b.requireError(r, http.StatusBadRequest, "invalid_input")
	require.Equal(t, "This session is not cancelled", r.ErrMessage())

	t.Run("WithoutNotification", func(t *testing.T) {
		quiet := b.createSession(w, "Quiet", w.alan)
		before := len(b.sink.Messages())
		res := b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+str(quiet, "id")+"/cancel", b.acme,
			map[string]any{"cause": "organizer", "notifySpeakers": false}).Obj()
		require.Equal(t, int64(0), num(t, res, "createdEmails"))
		require.Len(t, b.must(http.StatusOK, http.MethodGet, w.base+"/emails?type=cancelled", b.acme, nil).List(), 2)
		time.Sleep(300 * time.Millisecond)
		require.Len(t, b.sink.Messages(), before)
	})

	t.Run("Timeline", func(t *testing.T) {
		tl := b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+id+"/timeline", b.acme, nil).List()
		var kinds []string
		for _, e := range tl {
			kinds = append(kinds, str(e.(map[string]any), "kind"))
		}
		// Newest first: reinstatement (with its emails) before the cancellation, creation last.
		require.Equal(t, []string{"email", "email", "reinstated", "email", "email", "cancelled", "task", "created"}, kinds)
		require.Contains(t, kinds, "cancelled")
		require.Contains(t, kinds, "email")
		require.Contains(t, kinds, "task")
		for _, e := range tl {
			entry := e.(map[string]any)
			if entry["kind"] == "cancelled" {
				require.Equal(t, "Session cancelled by the speaker", entry["label"])
				require.Equal(t, "API key: test", entry["actorName"])
			}
		}
	})
}

func TestDeleteSession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	manual := b.createSession(w, "Mistake", w.ada)
	b.must(http.StatusNoContent, http.MethodDelete, w.base+"/sessions/"+str(manual, "id"), b.acme, nil)
	require.Empty(t, sessionsOf(b.listSessions(w, "")))
	b.requireError(b.do(http.MethodDelete, w.base+"/sessions/"+str(manual, "id"), b.acme, nil), http.StatusNotFound, "not_found")

	cfp := b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{"title": "Proposal",
		"description": nil, "formatId": nil, "trackIds": []any{}, "speakerIds": []any{w.ada}}).Obj()
	b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
		"submissionIds": []any{cfp["id"]}, "decision": "accept", "feedback": ""})
	r := b.do(http.MethodDelete, w.base+"/sessions/"+str(cfp, "id"), b.acme, nil)
	b.requireError(r, http.StatusBadRequest, "invalid_input")
	require.Equal(t, "This session came from a submission and keeps its history — cancel it instead", r.ErrMessage())
	require.Len(t, sessionsOf(b.listSessions(w, "")), 1)
}

func TestReadiness(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil, "title": "Bio", "scope": "speaker"})
	b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil, "title": "Manual only", "scope": "session", "autoAssignOnAccept": false})
	b.must(http.StatusOK, http.MethodPost, w.base+"/file-requirements", b.acme, map[string]any{"id": nil, "label": "Slides", "scope": "session"})
	b.must(http.StatusOK, http.MethodPost, w.base+"/file-requirements", b.acme, map[string]any{"id": nil, "label": "Headshot", "scope": "speaker"})
	s := b.createSession(w, "Ready?", w.ada, w.grace)
	id := str(s, "id")
	readiness := func() map[string]any { return sessionsOf(b.listSessions(w, ""))[0] }

	r := readiness()
	require.Equal(t, int64(2), num(t, r, "tasksTotal"), "one bio task per speaker")
	require.Equal(t, int64(0), num(t, r, "tasksDone"))
	require.Equal(t, int64(3), num(t, r, "deliverablesTotal"), "slides once, a headshot per speaker")
	require.Equal(t, int64(0), num(t, r, "deliverablesUploaded"))

	tasks := b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+id+"/tasks", b.acme, nil).List()
	task0 := tasks[0].(map[string]any)
	require.Equal(t, "Bio", task0["title"])
	require.Equal(t, "speaker", task0["scope"])
	done := b.must(http.StatusOK, http.MethodPatch, w.base+"/sessions/"+id+"/tasks/"+str(task0, "id"), b.acme, map[string]any{"status": "done"}).Obj()
	require.Equal(t, "done", done["status"])
	require.Regexp(t, isoMillis, done["completedAt"])
	b.must(http.StatusOK, http.MethodPatch, w.base+"/sessions/"+id+"/tasks/"+str(tasks[1].(map[string]any), "id"), b.acme, map[string]any{"status": "waived"})
	r = readiness()
	require.Equal(t, int64(1), num(t, r, "tasksTotal"))
	require.Equal(t, int64(1), num(t, r, "tasksDone"))

	deliverables := b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+id+"/deliverables", b.acme, nil).List()
	require.Len(t, deliverables, 3)
	d0 := deliverables[0].(map[string]any)
	up := b.must(http.StatusOK, http.MethodPut, w.base+"/sessions/"+id+"/deliverables/"+str(d0, "id"), b.acme, map[string]any{
		"fileName": "slides.pdf", "contentType": "application/pdf", "size": 12345, "storageKey": "events/x/slides.pdf"}).Obj()
	require.Equal(t, "uploaded", up["status"])
	require.Equal(t, int64(12345), num(t, up, "size"))
	require.Equal(t, int64(1), num(t, readiness(), "deliverablesUploaded"))
	b.must(http.StatusOK, http.MethodDelete, w.base+"/sessions/"+id+"/deliverables/"+str(d0, "id"), b.acme, nil)
	require.Equal(t, int64(0), num(t, readiness(), "deliverablesUploaded"))

	// Speaker changes: a new speaker gets their tasks and files; one who left loses theirs.
	b.must(http.StatusOK, http.MethodPut, w.base+"/sessions/"+id+"/speakers", b.acme, map[string]any{"speakerIds": []any{w.alan, w.ada}})
	r = readiness()
	require.Equal(t, int64(3), num(t, r, "deliverablesTotal"))
	require.Equal(t, "Alan Turing", r["speakers"].([]any)[0].(map[string]any)["name"])
	tasks = b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+id+"/tasks", b.acme, nil).List()
	require.Len(t, tasks, 2)

	// A new requirement reaches active sessions.
	b.must(http.StatusOK, http.MethodPost, w.base+"/file-requirements", b.acme, map[string]any{"id": nil, "label": "Video", "scope": "session"})
	require.Equal(t, int64(4), num(t, readiness(), "deliverablesTotal"))

	b.requireError(b.do(http.MethodPatch, w.base+"/sessions/"+id+"/tasks/task_01doesnotexist00000000000", b.acme, map[string]any{"status": "done"}), http.StatusNotFound, "not_found")
	b.requireError(b.do(http.MethodPatch, w.base+"/sessions/"+id+"/tasks/x", b.acme, map[string]any{"status": "finished"}), http.StatusBadRequest, "invalid_body")
}

// TestSessionListQueryCount proves the list costs the same number of queries for 1 session as for
// 300, whatever their speakers and tracks.
func TestSessionListQueryCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil, "title": "Bio", "scope": "speaker"})
	count := func() int64 {
		req := httptest.NewRequest(http.MethodGet, w.base+"/sessions", nil)
		req.Header.Set("Authorization", "Bearer "+b.acme)
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusOK, rec.Code)
		return statements(t, rec)
	}
	b.createSession(w, "One", w.ada)
	one := count()
	for i := range 299 {
		s := b.createSession(w, "Session "+itoa(i), w.ada, w.grace, w.alan)
		_, err := b.db.System.Exec(b.sys(), "INSERT INTO submission_tracks VALUES ($1, $2), ($1, $3)", s["id"], w.track1, w.track2)
		require.NoError(t, err)
	}
	many := count()
	require.Equal(t, one, many)
	require.LessOrEqual(t, many, int64(6))
	list := sessionsOf(b.listSessions(w, ""))
	require.Len(t, list, 300)
	require.Len(t, list[0]["speakers"], 3)
	require.Len(t, list[0]["tracks"], 2)
	require.True(t, strings.HasPrefix(str(list[0], "code"), "SESS-"))
}

// TestCancelWithCalendarInvites covers a scheduled session whose calendar invites had gone out:
// cancelling emails an ICS CANCEL with the next SEQUENCE and marks the agenda dirty; reinstating
// emails a fresh REQUEST with the same UID.
func TestCancelWithCalendarInvites(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	room := str(b.saveItem(b.acme, w.event, map[string]any{"kind": "room", "name": "Hall A"}), "id")
	s := b.createSession(w, "Scheduled talk", w.ada)
	id := str(s, "id")
	ctx := b.sys()
	// Scheduled, and an invite sent (the agenda's operations come with their own issue).
	_, err := b.db.PoolFor(ctx).Exec(ctx, `UPDATE submissions SET starts_at = '2027-09-10T09:00:00Z', ends_at = '2027-09-10T09:45:00Z', room_id = $2 WHERE id = $1`, id, room)
	require.NoError(t, err)
	_, err = b.db.PoolFor(ctx).Exec(ctx, `INSERT INTO email_log (id, created_at, updated_at, event_id, submission_id, type, recipient, subject, body, html_body, status)
		VALUES ('eml_01invitesentalready0000000', now(), now(), $1, $2, 'calendar_invite', 'ada@example.test', 'Invite', '', '', 'sent')`, w.event, id)
	require.NoError(t, err)

	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+id+"/cancel", b.acme, map[string]any{"cause": "organizer"})
	m := b.sink.Wait(t, 1, 10*time.Second)[0]
	require.Equal(t, "CANCEL", m.CalendarMethod)
	require.Contains(t, m.Calendar, "UID:"+id+"@podium")
	require.Contains(t, m.Calendar, "SEQUENCE:1")
	require.Contains(t, m.Calendar, "STATUS:CANCELLED")
	require.Contains(t, m.Calendar, "LOCATION:Hall A")
	require.Contains(t, m.Attachments, "invite.ics")
	ev := b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil).Obj()
	require.Equal(t, true, ev["agendaDirty"])
	emails := b.must(http.StatusOK, http.MethodGet, w.base+"/emails?type=cancelled", b.acme, nil).List()
	require.Equal(t, true, emails[0].(map[string]any)["icsAttached"])
	require.Equal(t, int64(1), num(t, emails[0].(map[string]any), "icsSequence"))

	back := b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+id+"/reinstate", b.acme, map[string]any{}).Obj()
	require.Equal(t, true, back["calendarReinvited"])
	msgs := b.sink.Wait(t, 2, 10*time.Second)
	re := msgs[1]
	require.Equal(t, "REQUEST", re.CalendarMethod)
	require.Contains(t, re.Calendar, "UID:"+id+"@podium")
	require.Contains(t, re.Calendar, "SEQUENCE:2")
}

func TestCancelNeedsAnAcceptedSession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	p := b.propose(w, "Still pending", w.ada)
	r := b.do(http.MethodPost, w.base+"/sessions/"+str(p, "id")+"/cancel", b.acme, map[string]any{"cause": "organizer"})
	b.requireError(r, http.StatusBadRequest, "invalid_input")
	require.Equal(t, "Only accepted sessions can be cancelled", r.ErrMessage())
	r = b.do(http.MethodPost, w.base+"/sessions/"+str(p, "id")+"/reinstate", b.acme, map[string]any{})
	b.requireError(r, http.StatusBadRequest, "invalid_input")
}

// statements is the number of SQL statements the request of rec sent, as the server reports it.
func statements(t *testing.T, rec *httptest.ResponseRecorder) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rec.Header().Get(rest.QueryCountHeader), 10, 64)
	require.NoError(t, err, "no %s header", rest.QueryCountHeader)
	require.Positive(t, n)
	return n
}
