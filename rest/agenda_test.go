package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// stage is an event with rooms and active sessions, for agenda tests.
type stage struct {
	w                 world
	hall, annex       string
	keynote, go1, go2 string
}

func (b *testBundle) stage() stage {
	b.t.Helper()
	st := stage{w: b.world()}
	w := st.w
	st.annex = str(b.saveItem(b.acme, w.event, map[string]any{"kind": "room", "name": "Annex"}), "id")
	st.hall = str(b.saveItem(b.acme, w.event, map[string]any{"kind": "room", "name": "Hall"}), "id")
	st.keynote = str(b.createSession(st.w, "Keynote", w.grace), "id")
	accept := func(id string) string {
		b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme,
			map[string]any{"submissionIds": []any{id}, "decision": "accept", "feedback": "", "approveContent": true})
		return id
	}
	st.go1 = accept(b.proposeIn(w, "Generics", "About generics", []string{w.track1}, w.ada, w.alan))
	st.go2 = accept(b.proposeIn(w, "Fuzzing", "About fuzzing", []string{w.track1, w.track2}, w.alan))
	return st
}

// schedule places a session (the event runs 2027-09-10 to 12 in Europe/Berlin).
func (b *testBundle) schedule(st stage, session string, room any, starts, ends any) response {
	b.t.Helper()
	return b.do(http.MethodPut, st.w.base+"/agenda/schedule", b.acme,
		map[string]any{"submissionId": session, "roomId": room, "startsAt": starts, "endsAt": ends})
}

func sessionIn(t *testing.T, agenda map[string]any, id string) map[string]any {
	t.Helper()
	for _, s := range objects(agenda["sessions"]) {
		if s["id"] == id {
			return s
		}
	}
	require.Failf(t, "session not on the agenda", "%s", id)
	return nil
}

func TestAgendaSchedule(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	pending := b.proposeIn(w, "Pending", "d", nil, w.ada)
	cancelled := b.createSession(w, "Cancelled", w.ada)
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+str(cancelled, "id")+"/cancel", b.acme,
		map[string]any{"cause": "organizer", "notifySpeakers": false})

	agenda := b.must(http.StatusOK, http.MethodGet, w.base+"/agenda", b.acme, nil).Obj()
	ev := agenda["event"].(map[string]any)
	require.Equal(t, map[string]any{"id": w.event, "slug": "world", "name": "World", "timezone": "Europe/Berlin",
		"startsAt": "2027-09-10T09:00:00.000Z", "endsAt": "2027-09-12T17:00:00.000Z", "agendaPublishedAt": nil,
		"agendaDirty": false}, ev)
	require.Equal(t, []any{
		map[string]any{"id": st.annex, "name": "Annex", "position": jsonNum(1)},
		map[string]any{"id": st.hall, "name": "Hall", "position": jsonNum(2)},
	}, agenda["rooms"])
	ids := []string{}
	for _, s := range objects(agenda["sessions"]) {
		ids = append(ids, str(s, "id"))
	}
	require.Equal(t, []string{st.keynote, st.go1, st.go2}, ids, "active sessions by code; pending and cancelled left out")
	require.NotContains(t, ids, pending)
	g := sessionIn(t, agenda, st.go1)
	require.Equal(t, map[string]any{"id": st.go1, "code": "SESS-2", "title": "Generics", "description": "About generics",
		"startsAt": nil, "endsAt": nil, "roomId": nil, "scheduleDirty": false, "durationMinutes": jsonNum(30),
		"formatName": "Talk", "tracks": []any{map[string]any{"id": w.track1, "name": "Go", "color": "#00add8"}},
		"speakers": []any{map[string]any{"id": w.ada, "name": "Ada Lovelace"}, map[string]any{"id": w.alan, "name": "Alan Turing"}},
	}, g)
	require.Len(t, agenda["tracks"], 2)

	// Refused changes.
	for name, tc := range map[string]struct {
		session, room, starts, ends any
		message                     string
	}{
		"Pending":      {pending, st.hall, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z", "Choose an accepted session"},
		"Cancelled":    {cancelled["id"], st.hall, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z", "Choose an accepted session"},
		"Unknown":      {"sub_0000000000000000000000000", st.hall, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z", "Choose an accepted session"},
		"NoRoom":       {st.go1, nil, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z", "Choose a room, start time, and end time"},
		"NoEnd":        {st.go1, st.hall, "2027-09-10T09:00:00Z", nil, "Choose a room, start time, and end time"},
		"ForeignRoom":  {st.go1, "room_0000000000000000000000000", "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z", "Choose a room from this event"},
		"EndBefore":    {st.go1, st.hall, "2027-09-10T10:00:00Z", "2027-09-10T09:00:00Z", "End time must be after start time"},
		"Empty":        {st.go1, st.hall, "2027-09-10T10:00:00Z", "2027-09-10T10:00:00Z", "End time must be after start time"},
		"BeforeEvent":  {st.go1, st.hall, "2027-09-09T10:00:00Z", "2027-09-09T11:00:00Z", "Keep the session within one event day"},
		"AfterEvent":   {st.go1, st.hall, "2027-09-13T10:00:00Z", "2027-09-13T11:00:00Z", "Keep the session within one event day"},
		"OverMidnight": {st.go1, st.hall, "2027-09-10T21:00:00Z", "2027-09-10T22:30:00Z", "Keep the session within one event day"},
	} {
		t.Run(name, func(t *testing.T) {
			r := b.schedule(st, tc.session.(string), tc.room, tc.starts, tc.ends)
			b.requireError(r, 400, "invalid_input")
			require.Equal(t, tc.message, r.ErrMessage())
		})
	}
	b.requireError(b.schedule(st, st.go1, st.hall, "tomorrow", "2027-09-10T10:00:00Z"), 400, "invalid_input")
	b.requireError(b.do(http.MethodPut, w.base+"/agenda/schedule", b.acme, map[string]any{"submissionId": st.go1}), 400, "invalid_body")
	b.requireError(b.do(http.MethodPut, w.base+"/agenda/schedule", b.globex,
		map[string]any{"submissionId": st.go1, "roomId": nil, "startsAt": nil, "endsAt": nil}), 403, "forbidden")
	require.Equal(t, false, b.must(http.StatusOK, http.MethodGet, w.base+"/agenda", b.acme, nil).Obj()["event"].(map[string]any)["agendaDirty"])

	// A local late slot within the day is fine (21:00–22:00 in Berlin is 19:00–20:00 UTC).
	r := b.schedule(st, st.go1, st.hall, "2027-09-10T19:00:00Z", "2027-09-10T20:00:00Z")
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	agenda = r.Obj()
	g = sessionIn(t, agenda, st.go1)
	require.Equal(t, st.hall, g["roomId"])
	require.Equal(t, "2027-09-10T19:00:00.000Z", g["startsAt"])
	require.Equal(t, true, g["scheduleDirty"])
	require.Equal(t, true, agenda["event"].(map[string]any)["agendaDirty"])
	timeline := b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+st.go1+"/timeline", b.acme, nil).List()
	require.Equal(t, "scheduled", str(timeline[0].(map[string]any), "kind"))
	require.Contains(t, str(timeline[0].(map[string]any), "label"), "Hall")

	// Unscheduling clears the slot.
	agenda = b.must(http.StatusOK, http.MethodPut, w.base+"/agenda/schedule", b.acme,
		map[string]any{"submissionId": st.go1, "roomId": nil, "startsAt": nil, "endsAt": nil}).Obj()
	g = sessionIn(t, agenda, st.go1)
	require.Nil(t, g["roomId"])
	require.Nil(t, g["startsAt"])
}

func TestAgendaPublish(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	public := "/api/v1/public/events/" + w.event + "/agenda.json"

	// Before any publish the public agenda is empty, for anyone, without a key.
	pub := b.must(http.StatusOK, http.MethodGet, public, "", nil).Obj()
	require.Equal(t, map[string]any{"id": w.event, "name": "World", "timezone": "Europe/Berlin", "agendaPublishedAt": nil}, pub["event"])
	require.Equal(t, []any{}, pub["sessions"])
	b.requireError(b.do(http.MethodGet, "/api/v1/public/events/evt_0000000000000000000000000/agenda.json", "", nil), 404, "not_found")
	b.requireError(b.do(http.MethodGet, "/api/v1/public/events/garbage/agenda.ics", "", nil), 404, "not_found")

	require.Equal(t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-11T09:00:00Z", "2027-09-11T09:45:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.annex, "2027-09-10T12:00:00Z", "2027-09-10T12:30:00Z").Status)
	agenda := b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil).Obj()
	ev := agenda["event"].(map[string]any)
	require.Equal(t, false, ev["agendaDirty"])
	require.NotNil(t, ev["agendaPublishedAt"])

	event := b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil).Obj()
	require.Equal(t, ev["agendaPublishedAt"], event["agendaPublishedAt"])
	require.Equal(t, false, event["agendaDirty"])
	published := objects(event["publishedAgenda"])
	require.Len(t, published, 2, "the unscheduled keynote is left out")
	require.Equal(t, map[string]any{"id": st.go1, "code": "SESS-2", "title": "Generics", "description": "About generics",
		"startsAt": "2027-09-10T12:00:00.000Z", "endsAt": "2027-09-10T12:30:00.000Z", "roomName": "Annex",
		"tracks":   []any{map[string]any{"id": w.track1, "name": "Go", "color": "#00add8"}},
		"speakers": []any{map[string]any{"id": w.ada, "name": "Ada Lovelace"}, map[string]any{"id": w.alan, "name": "Alan Turing"}},
	}, published[0], "by start time")
	require.Equal(t, st.go2, published[1]["id"])
	pub = b.must(http.StatusOK, http.MethodGet, public, "", nil).Obj()
	require.Equal(t, event["publishedAgenda"], pub["sessions"])
	require.Equal(t, ev["agendaPublishedAt"], pub["event"].(map[string]any)["agendaPublishedAt"])

	// The published agenda is a snapshot: later edits mark it dirty and change nothing public.
	b.must(http.StatusOK, http.MethodPut, w.base+"/agenda/schedule", b.acme,
		map[string]any{"submissionId": st.go1, "roomId": nil, "startsAt": nil, "endsAt": nil})
	require.Equal(t, true, b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil).Obj()["agendaDirty"])
	require.Len(t, b.must(http.StatusOK, http.MethodGet, public, "", nil).Obj()["sessions"], 2)

	// The iCalendar feed carries the same sessions under their invitation UIDs.
	req := b.request(http.MethodGet, "/api/v1/public/events/"+w.event+"/agenda.ics", "")
	rec := b.sendRaw(req)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "text/calendar; charset=utf-8", rec.Header().Get("Content-Type"))
	cal, err := ics.ParseCalendar(strings.NewReader(rec.Body.String()))
	require.NoError(t, err)
	events := cal.Events()
	require.Len(t, events, 2)
	require.Equal(t, st.go1+"@podium", events[0].Id())
	start, err := events[0].GetStartAt()
	require.NoError(t, err)
	require.True(t, start.Equal(time.Date(2027, 9, 10, 12, 0, 0, 0, time.UTC)))
	require.Equal(t, "Annex", events[0].GetProperty(ics.ComponentPropertyLocation).Value)
	require.Contains(t, events[0].GetProperty(ics.ComponentPropertyDescription).Value, "Speakers: Ada Lovelace, Alan Turing")

	// Unpublish.
	agenda = b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/unpublish", b.acme, nil).Obj()
	require.Nil(t, agenda["event"].(map[string]any)["agendaPublishedAt"])
	require.Equal(t, true, agenda["event"].(map[string]any)["agendaDirty"])
	event = b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil).Obj()
	require.Equal(t, []any{}, event["publishedAgenda"])
	require.Nil(t, event["agendaPublishedAt"])
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, public, "", nil).Obj()["sessions"])
	b.requireError(b.do(http.MethodPost, w.base+"/agenda/publish", b.globex, nil), 403, "forbidden")
}

func TestAgendaConflicts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	// go1 (Ada, Alan) and go2 (Alan) overlap 10:30–11:00 in different rooms: Alan is double-booked.
	// The keynote (Grace) shares the Hall with go2 from 11:00 to 11:15.
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.annex, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-10T10:30:00Z", "2027-09-10T11:15:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, st.keynote, st.hall, "2027-09-10T11:00:00Z", "2027-09-10T12:00:00Z").Status)
	data := b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { agenda { conflicts {
	  kind sessionIds contactId roomId name startsAt endsAt } } } }`, map[string]any{"e": w.event})
	got := data["event"].(map[string]any)["agenda"].(map[string]any)["conflicts"]
	require.Equal(t, []any{
		map[string]any{"kind": "speaker", "sessionIds": []any{st.go1, st.go2}, "contactId": w.alan, "roomId": nil,
			"name": "Alan Turing", "startsAt": "2027-09-10T10:30:00.000Z", "endsAt": "2027-09-10T11:00:00.000Z"},
		map[string]any{"kind": "room", "sessionIds": []any{st.go2, st.keynote}, "contactId": nil, "roomId": st.hall,
			"name": "Hall", "startsAt": "2027-09-10T11:00:00.000Z", "endsAt": "2027-09-10T11:15:00.000Z"},
	}, got)
	// Back to back is no conflict.
	require.Equal(t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z").Status)
	data = b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { agenda { conflicts { kind } } } }`, map[string]any{"e": w.event})
	require.Equal(t, []any{}, data["event"].(map[string]any)["agenda"].(map[string]any)["conflicts"])
}

// calendarOf parses the calendar part of an email.
func calendarOf(t *testing.T, m mailtest.Message) (method, uid, sequence string) {
	t.Helper()
	cal, err := ics.ParseCalendar(strings.NewReader(m.Calendar))
	require.NoError(t, err, m.Calendar)
	for _, p := range cal.CalendarProperties {
		if p.IANAToken == string(ics.PropertyMethod) {
			method = p.Value
		}
	}
	events := cal.Events()
	require.Len(t, events, 1)
	return method, events[0].Id(), events[0].GetProperty(ics.ComponentPropertySequence).Value
}

func TestCalendarInvites(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	st := b.stage()
	w := st.w
	url := w.base + "/agenda/invites"
	invite := func(body any) map[string]any {
		t.Helper()
		return b.must(http.StatusOK, http.MethodPost, url, b.acme, body).Obj()
	}
	// Decision emails went out at acceptance: wait for them, then count from there.
	b.sink.Wait(t, 3, 10*time.Second)
	seen := len(b.sink.Messages())
	next := func(n int) []mailtest.Message {
		t.Helper()
		msgs := b.sink.Wait(t, seen+n, 10*time.Second)[seen:]
		seen += n
		return msgs
	}

	require.Equal(t, map[string]any{"createdEmails": jsonNum(0), "sessions": jsonNum(0)}, invite(nil), "nothing is scheduled")
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.hall, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, st.keynote, st.annex, "2027-09-10T08:00:00Z", "2027-09-10T09:00:00Z").Status)

	res := b.must(http.StatusOK, http.MethodPost, url, b.acme, "").Obj()
	require.Equal(t, map[string]any{"createdEmails": jsonNum(3), "sessions": jsonNum(2)}, res, "Ada and Alan for go1, Grace for the keynote")
	uids := map[string]string{}
	for _, m := range next(3) {
		method, uid, seq := calendarOf(t, m)
		require.Equal(t, "REQUEST", method)
		require.Equal(t, "0", seq)
		require.Equal(t, "REQUEST", m.CalendarMethod)
		uids[m.To[0]] = uid
	}
	require.Equal(t, map[string]string{"ada@example.test": st.go1 + "@podium", "alan@example.test": st.go1 + "@podium",
		"grace@example.test": st.keynote + "@podium"}, uids)
	agenda := b.must(http.StatusOK, http.MethodGet, w.base+"/agenda", b.acme, nil).Obj()
	require.Equal(t, false, sessionIn(t, agenda, st.go1)["scheduleDirty"])
	require.Equal(t, map[string]any{"createdEmails": jsonNum(0), "sessions": jsonNum(0)}, invite(map[string]any{}), "all up to date")

	// Moving go1 makes its invitations out of date: an update with SEQUENCE 1, same UID.
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.hall, "2027-09-10T13:00:00Z", "2027-09-10T14:00:00Z").Status)
	require.Equal(t, map[string]any{"createdEmails": jsonNum(2), "sessions": jsonNum(1)}, invite(nil))
	for _, m := range next(2) {
		method, uid, seq := calendarOf(t, m)
		require.Equal(t, []string{"REQUEST", st.go1 + "@podium", "1"}, []string{method, uid, seq})
		require.Contains(t, m.Text, "Hall")
	}

	// A speaker added later gets the current version only; the others nothing.
	b.must(http.StatusOK, http.MethodPut, w.base+"/sessions/"+st.keynote+"/speakers", b.acme,
		map[string]any{"speakerIds": []any{w.grace, w.ada}})
	require.Equal(t, map[string]any{"createdEmails": jsonNum(1), "sessions": jsonNum(1)},
		invite(map[string]any{"submissionIds": []any{st.keynote, st.go1}}))
	m := next(1)[0]
	require.Equal(t, "ada@example.test", m.To[0])
	_, uid, seq := calendarOf(t, m)
	require.Equal(t, []string{st.keynote + "@podium", "0"}, []string{uid, seq})
	b.requireError(b.do(http.MethodPost, url, b.acme, map[string]any{"submissionIds": []any{"sub_0000000000000000000000000"}}), 404, "not_found")

	// Cancelling go1 sends a CANCEL with the next SEQUENCE.
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+st.go1+"/cancel", b.acme, map[string]any{"cause": "organizer"})
	for _, m := range next(2) {
		method, uid, seq := calendarOf(t, m)
		require.Equal(t, []string{"CANCEL", st.go1 + "@podium", "2"}, []string{method, uid, seq})
	}

	// Taking the keynote off the schedule withdraws its invitations at the next send.
	b.must(http.StatusOK, http.MethodPut, w.base+"/agenda/schedule", b.acme,
		map[string]any{"submissionId": st.keynote, "roomId": nil, "startsAt": nil, "endsAt": nil})
	require.Equal(t, map[string]any{"createdEmails": jsonNum(2), "sessions": jsonNum(1)}, invite(nil))
	for _, m := range next(2) {
		method, uid, seq := calendarOf(t, m)
		require.Equal(t, []string{"CANCEL", st.keynote + "@podium", "1"}, []string{method, uid, seq})
		require.Contains(t, m.Text, "taken off the schedule")
	}
	b.requireError(b.do(http.MethodPost, url, b.globex, nil), 403, "forbidden")
}
