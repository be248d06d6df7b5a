package rest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/agendablock"
)

// The editing of blocks and availability is another operation's: tests write the rows directly.

func tm(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return v
}

// addBlock inserts a block of the event; room nil spans every room.
func (b *testBundle) addBlock(event, title string, room *string, starts, ends string) string {
	b.t.Helper()
	blk, err := b.db.Ent.AgendaBlock.Create().SetEventID(event).SetTitle(title).SetKind(agendablock.KindBreak).
		SetNillableRoomID(room).SetStartsAt(tm(b.t, starts)).SetEndsAt(tm(b.t, ends)).Save(b.scopeOf(event))
	require.NoError(b.t, err)
	return blk.ID
}

// addAvailability inserts a stretch a speaker of the event can speak.
func (b *testBundle) addAvailability(event, contact, starts, ends string) {
	b.t.Helper()
	require.NoError(b.t, b.db.Ent.SpeakerAvailability.Create().SetEventID(event).SetContactID(contact).
		SetStartsAt(tm(b.t, starts)).SetEndsAt(tm(b.t, ends)).Exec(b.scopeOf(event)))
}

const conflictsQuery = `query($e: ID!) { event(id: $e) { agenda { conflicts {
  kind severity sessionIds contactId roomId blockId name startsAt endsAt } } } }`

const publishMutation = `mutation($e: ID!, $force: Boolean!) { publishAgenda(eventId: $e, force: $force) {
  event { agendaPublishedAt agendaDirty } } }`

func TestAgendaConflictKinds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	// go1 (Ada, Alan) in the Annex 10:00–11:00Z; the keynote (Grace) in the Hall 11:00–12:00Z.
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.annex, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, st.keynote, st.hall, "2027-09-10T11:00:00Z", "2027-09-10T12:00:00Z").Status)
	coffee := b.addBlock(w.event, "Coffee", new(st.annex), "2027-09-10T10:30:00Z", "2027-09-10T10:45:00Z")
	// The Hall's setup overlaps go1 in another room, and ends as the keynote starts: no conflict.
	b.addBlock(w.event, "Hall setup", new(st.hall), "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z")
	lunch := b.addBlock(w.event, "Lunch", nil, "2027-09-10T11:45:00Z", "2027-09-10T12:30:00Z")
	// Grace is available until 11:30; Ada throughout go1; Alan gave nothing.
	b.addAvailability(w.event, w.grace, "2027-09-10T07:00:00Z", "2027-09-10T11:30:00Z")
	b.addAvailability(w.event, w.ada, "2027-09-10T09:00:00Z", "2027-09-10T12:00:00Z")

	got := b.gqlOK(b.acme, conflictsQuery, map[string]any{"e": w.event})["event"].(map[string]any)["agenda"].(map[string]any)["conflicts"]
	require.Equal(t, []any{
		map[string]any{"kind": "block", "severity": "blocking", "sessionIds": []any{st.go1}, "contactId": nil, "roomId": st.annex,
			"blockId": coffee, "name": "Coffee", "startsAt": "2027-09-10T10:30:00.000Z", "endsAt": "2027-09-10T10:45:00.000Z"},
		map[string]any{"kind": "block", "severity": "blocking", "sessionIds": []any{st.keynote}, "contactId": nil, "roomId": st.hall,
			"blockId": lunch, "name": "Lunch", "startsAt": "2027-09-10T11:45:00.000Z", "endsAt": "2027-09-10T12:00:00.000Z"},
		map[string]any{"kind": "availability", "severity": "warning", "sessionIds": []any{st.keynote}, "contactId": w.grace,
			"roomId": nil, "blockId": nil, "name": "Grace Hopper", "startsAt": "2027-09-10T11:30:00.000Z", "endsAt": "2027-09-10T12:00:00.000Z"},
	}, got)

	// REST's agenda shows blocks, not availability (nor conflicts).
	agenda := b.agendaOf(w)
	require.NotContains(t, agenda, "availability")
	require.NotContains(t, agenda, "Availability")
	require.Len(t, agenda["blocks"], 3)
}

func TestAgendaPublishGate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	// go1 and go2 share Alan and overlap; the keynote runs into lunch; Grace is not available then.
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.annex, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-10T10:30:00Z", "2027-09-10T11:00:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, st.keynote, st.hall, "2027-09-10T11:00:00Z", "2027-09-10T12:00:00Z").Status)
	lunch := b.addBlock(w.event, "Lunch", nil, "2027-09-10T11:45:00Z", "2027-09-10T12:30:00Z")
	b.addAvailability(w.event, w.grace, "2027-09-10T07:00:00Z", "2027-09-10T11:30:00Z")
	vars := map[string]any{"e": w.event, "force": false}

	// Refused, with the blocking conflicts listed; nothing is published.
	r := b.gql(b.acme, publishMutation, vars)
	require.Len(t, r.Errors, 1, r.Raw)
	require.Nil(t, r.Data["publishAgenda"])
	e := r.Errors[0]
	require.Equal(t, "schedule_conflict", e.Extensions["code"])
	require.Equal(t, "The agenda has 2 blocking conflicts; resolve them, or publish with force", e.Message)
	require.Equal(t, []any{
		map[string]any{"kind": "speaker", "severity": "blocking", "sessionIds": []any{st.go1, st.go2}, "contactId": w.alan,
			"roomId": nil, "blockId": nil, "name": "Alan Turing", "startsAt": "2027-09-10T10:30:00.000Z", "endsAt": "2027-09-10T11:00:00.000Z"},
		map[string]any{"kind": "block", "severity": "blocking", "sessionIds": []any{st.keynote}, "contactId": nil, "roomId": st.hall,
			"blockId": lunch, "name": "Lunch", "startsAt": "2027-09-10T11:45:00.000Z", "endsAt": "2027-09-10T12:00:00.000Z"},
	}, e.Extensions["conflicts"], "blocking only: Grace's availability is a warning")
	ev := b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil).Obj()
	require.Nil(t, ev["agendaPublishedAt"])
	// Leaving force out is not forcing.
	r = b.gql(b.acme, `mutation($e: ID!) { publishAgenda(eventId: $e) { event { agendaPublishedAt } } }`, map[string]any{"e": w.event})
	require.Len(t, r.Errors, 1, r.Raw)
	require.Equal(t, "schedule_conflict", r.Errors[0].Extensions["code"])

	// Forced, it publishes as before.
	vars["force"] = true
	pub := b.gqlOK(b.acme, publishMutation, vars)["publishAgenda"].(map[string]any)["event"].(map[string]any)
	require.NotNil(t, pub["agendaPublishedAt"])
	require.Equal(t, false, pub["agendaDirty"])

	// REST publishes as v1 always has, conflicts or not.
	agenda := b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil).Obj()
	require.NotNil(t, agenda["event"].(map[string]any)["agendaPublishedAt"])
	require.NotEmpty(t, b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil).Obj()["publishedAgenda"])

	// With the double booking and the lunch overlap gone, a warning alone does not stop a publish.
	require.Equal(t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, st.keynote, st.hall, "2027-09-10T10:45:00Z", "2027-09-10T11:45:00Z").Status)
	vars["force"] = false
	pub = b.gqlOK(b.acme, publishMutation, vars)["publishAgenda"].(map[string]any)["event"].(map[string]any)
	require.Equal(t, false, pub["agendaDirty"])
	got := b.gqlOK(b.acme, conflictsQuery, map[string]any{"e": w.event})["event"].(map[string]any)["agenda"].(map[string]any)["conflicts"].([]any)
	require.Len(t, got, 1)
	require.Equal(t, "warning", got[0].(map[string]any)["severity"])

	// Another organization is refused before any check.
	r = b.gql(b.globex, publishMutation, vars)
	require.Len(t, r.Errors, 1, r.Raw)
	require.Equal(t, "forbidden", r.Errors[0].Extensions["code"])
}

func TestAgendaDraftHonoursWindowBlocksAndAvailability(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	// 10 September in Berlin (UTC+2): registration in every room 08:00–08:50 local, the Annex
	// closed until 09:30; Grace (the keynote) available from 11:00 local only.
	b.addBlock(w.event, "Registration", nil, "2027-09-10T06:00:00Z", "2027-09-10T06:50:00Z")
	b.addBlock(w.event, "Annex setup", new(st.annex), "2027-09-10T06:00:00Z", "2027-09-10T07:30:00Z")
	b.addAvailability(w.event, w.grace, "2027-09-10T09:00:00Z", "2027-09-10T15:00:00Z")
	body := draftBody("Window", []any{"2027-09-10"}, []any{st.annex, st.hall})
	crit := body["criteria"].(map[string]any)
	crit["dayStartMinutes"], crit["dayEndMinutes"] = 8*60, 12*60+30

	d := b.generate(st, body)
	require.Equal(t, "generated", d["status"], d["failureReason"])
	require.Equal(t, jsonNum(480), d["criteria"].(map[string]any)["dayStartMinutes"])
	require.Equal(t, jsonNum(750), d["criteria"].(map[string]any)["dayEndMinutes"])
	require.Equal(t, []any{}, d["proposal"].(map[string]any)["unplaced"])
	const reason = "Earliest conflict-free slot, interleaved by track."
	want := map[string]map[string]any{
		// The first free start after registration, on a 5-minute mark (08:50 local).
		st.go1: place(st.go1, st.hall, "2027-09-10T06:50:00.000Z", "2027-09-10T07:20:00.000Z", reason),
		// Alan is in go1 until 07:20Z; the Annex opens at 07:30Z, the Hall is free from 07:20Z.
		st.go2:     place(st.go2, st.hall, "2027-09-10T07:20:00.000Z", "2027-09-10T07:50:00.000Z", reason),
		st.keynote: place(st.keynote, st.annex, "2027-09-10T09:00:00.000Z", "2027-09-10T09:30:00.000Z", reason),
	}
	for _, p := range placements(d) {
		require.Equal(t, want[str(p, "submissionId")], p)
	}

	// Accepted whole, the agenda has no conflict of any kind.
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/drafts/"+str(d, "id")+"/accept", b.acme,
		map[string]any{"submissionIds": []any{st.go1, st.go2, st.keynote}})
	require.Equal(t, []any{}, b.gqlOK(b.acme, conflictsQuery, map[string]any{"e": w.event})["event"].(map[string]any)["agenda"].(map[string]any)["conflicts"])

	// A window the keynote's speaker is never available in leaves it unplaced, with the reason.
	crit["dayEndMinutes"] = 10 * 60
	d = b.generate(st, body)
	require.Equal(t, "generated", d["status"], d["failureReason"])
	require.Equal(t, []any{map[string]any{"submissionId": st.keynote,
		"reason": "Left unplaced: its speakers' availability leaves no slot in the daily window of the chosen days."}},
		d["proposal"].(map[string]any)["unplaced"])
	require.Len(t, placements(d), 2)
}

func TestAgendaDraftWindowChecks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	drafts := st.w.base + "/agenda/drafts"
	for name, c := range map[string]struct {
		start, end any
		message    string
	}{
		"BeforeCanvas": {475, 600, "Keep the daily window between 08:00 (480) and 19:00 (1140)"},
		"AfterCanvas":  {480, 1145, "Keep the daily window between 08:00 (480) and 19:00 (1140)"},
		"OffMarks":     {482, 600, "Give the daily window on 5-minute marks (minutes after midnight, such as 540 for 09:00)"},
		"EndFirst":     {700, 600, "Start the daily window before it ends"},
		"Empty":        {600, 600, "Start the daily window before it ends"},
		"EndOnly":      {nil, 480, "Start the daily window before it ends"},
	} {
		body := draftBody(name, []any{"2027-09-10"}, []any{st.hall})
		body["criteria"].(map[string]any)["dayStartMinutes"] = c.start
		body["criteria"].(map[string]any)["dayEndMinutes"] = c.end
		r := b.do(http.MethodPost, drafts, b.acme, body)
		b.requireError(r, 400, "invalid_input")
		require.Equal(t, c.message, r.ErrMessage(), name)
	}
	body := draftBody("Text", []any{"2027-09-10"}, []any{st.hall})
	body["criteria"].(map[string]any)["dayStartMinutes"] = "9:00"
	b.requireError(b.do(http.MethodPost, drafts, b.acme, body), 400, "invalid_body")
	require.Zero(t, b.count(`SELECT count(*) FROM agenda_drafts`), "nothing is stored")

	// Left out, the window is the whole canvas; over GraphQL as over REST.
	d := b.gqlOK(b.acme, `mutation($e: ID!, $rooms: [ID!]!) { generateAgendaDraft(eventId: $e, input: {name: "G",
	  criteria: {days: ["2027-09-10"], roomIds: $rooms, includeStatuses: [accepted], respectExistingPlacements: false, rules: [],
	  dayStartMinutes: 545}}) { criteria { dayStartMinutes dayEndMinutes } } }`,
		map[string]any{"e": st.w.event, "rooms": []any{st.hall}})
	require.Equal(t, map[string]any{"dayStartMinutes": float64(545), "dayEndMinutes": float64(1140)},
		d["generateAgendaDraft"].(map[string]any)["criteria"])
}
