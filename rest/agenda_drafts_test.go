package rest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/ai"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/rest"
)

// agendaProvider is a local stand-in for Anthropic's Messages API answering agenda requests with
// a tool_use block; reply gives the nth call's status and placements (nil: no propose_agenda call).
type agendaProvider struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []map[string]any
	reply    func(n int) (int, []any)
}

func newAgendaProvider(t *testing.T, reply func(n int) (int, []any)) *agendaProvider {
	t.Helper()
	p := &agendaProvider{reply: reply}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		body := map[string]any{}
		_ = json.Unmarshal(raw, &body)
		p.mu.Lock()
		p.requests = append(p.requests, body)
		n := len(p.requests)
		p.mu.Unlock()
		status, placements := p.reply(n)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			_, _ = io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`)
			return
		}
		// An unrelated tool call first, as real replies may have: only propose_agenda counts.
		content := []any{map[string]any{"type": "tool_use", "id": "t0", "name": "think", "input": map[string]any{}}}
		if placements != nil {
			content = append(content, map[string]any{"type": "tool_use", "id": "t1", "name": "propose_agenda",
				"input": map[string]any{"placements": placements}})
		} else {
			content = append(content, map[string]any{"type": "text", "text": "I would rather not."})
		}
		out, _ := json.Marshal(map[string]any{"id": "msg", "type": "message", "role": "assistant", "content": content})
		_, _ = w.Write(out)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *agendaProvider) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.requests)
}

func (p *agendaProvider) last() map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests[len(p.requests)-1]
}

func place(session, room, starts, ends, reason string) map[string]any {
	return map[string]any{"submissionId": session, "roomId": room, "startsAt": starts, "endsAt": ends, "reason": reason}
}

// draftBody asks for a draft on days in rooms (the stage's event runs 2027-09-10 to 12 in
// Europe/Berlin, UTC+2: 08:00 local is 06:00Z).
func draftBody(name string, days []any, rooms []any, rules ...any) map[string]any {
	if rules == nil {
		rules = []any{}
	}
	return map[string]any{"name": name, "criteria": map[string]any{"days": days, "roomIds": rooms,
		"includeStatuses": []any{"accepted"}, "respectExistingPlacements": false, "rules": rules}}
}

// generate posts a draft, which REST generates before it answers: the answer is the draft as
// listed, generated or failed — unless the provider could not answer, when it is still queued and
// its job's work is run at once.
func (b *testBundle) generate(st stage, body map[string]any) map[string]any {
	b.t.Helper()
	d := b.must(http.StatusCreated, http.MethodPost, st.w.base+"/agenda/drafts", b.acme, body).Obj()
	listed := b.draft(st, str(d, "id"))
	require.Equal(b.t, listed, d, "the answer is the draft as stored")
	if d["status"] == "queued" {
		require.Equal(b.t, map[string]any{"placements": []any{}, "unplaced": []any{}}, d["proposal"])
		require.NoError(b.t, b.res.Ops.GenerateAgendaDraft(b.scopeOf(st.w.event), str(d, "id"), false))
		return b.draft(st, str(d, "id"))
	}
	return d
}

// draft reads one draft from the list.
func (b *testBundle) draft(st stage, id string) map[string]any {
	b.t.Helper()
	for _, d := range objects(b.must(http.StatusOK, http.MethodGet, st.w.base+"/agenda/drafts", b.acme, nil).List()) {
		if d["id"] == id {
			return d
		}
	}
	require.Failf(b.t, "draft not listed", "%s", id)
	return nil
}

func placements(d map[string]any) []map[string]any {
	return objects(d["proposal"].(map[string]any)["placements"])
}

func TestAgendaDraftSolver(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w

	// No provider: the deterministic solver, sessions interleaved by track, the earliest
	// conflict-free slots (Alan speaks in go1 and go2, which share a room but not a time).
	d := b.generate(st, draftBody(" Friday ", []any{"2027-09-10"}, []any{st.annex, st.hall}))
	require.Equal(t, "generated", d["status"])
	require.Equal(t, "Friday", d["name"])
	require.Equal(t, "solver", d["generator"])
	require.NotNil(t, d["generatedAt"])
	require.Nil(t, d["failureReason"])
	require.Equal(t, map[string]any{"days": []any{"2027-09-10"}, "roomIds": []any{st.annex, st.hall},
		"includeStatuses": []any{"accepted"}, "respectExistingPlacements": false, "rules": []any{},
		"dayStartMinutes": jsonNum(480), "dayEndMinutes": jsonNum(1140)}, d["criteria"])
	require.Equal(t, []any{}, d["proposal"].(map[string]any)["unplaced"])
	const reason = "Earliest conflict-free slot, interleaved by track."
	want := []any{
		place(st.go1, st.annex, "2027-09-10T06:00:00.000Z", "2027-09-10T06:30:00.000Z", reason),
		place(st.keynote, st.hall, "2027-09-10T06:00:00.000Z", "2027-09-10T06:30:00.000Z", reason),
		place(st.go2, st.annex, "2027-09-10T06:30:00.000Z", "2027-09-10T07:00:00.000Z", reason),
	}
	if st.annex > st.hall {
		want[0], want[1] = want[1], want[0]
	}
	require.Equal(t, want, d["proposal"].(map[string]any)["placements"])
	require.False(t, b.agendaOf(w)["event"].(map[string]any)["agendaDirty"].(bool), "generating touches nothing live")

	// Accept two of the three changes: they are scheduled like scheduleSession schedules, webhook
	// included.
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/webhooks", b.acme,
		map[string]any{"url": "https://93.184.215.14/hooks", "description": "d", "eventTypes": []any{"session.scheduled"}})
	accept := w.base + "/agenda/drafts/" + str(d, "id") + "/accept"
	res := b.must(http.StatusOK, http.MethodPost, accept, b.acme, map[string]any{"submissionIds": []any{st.go2, st.go1}}).Obj()
	require.Equal(t, []any{st.go1, st.go2}, res["changedSubmissionIds"], "in the proposal's order")
	require.Equal(t, "committed", res["draft"].(map[string]any)["status"])
	require.NotNil(t, res["draft"].(map[string]any)["committedAt"])
	agenda := res["agenda"].(map[string]any)
	require.Equal(t, true, agenda["event"].(map[string]any)["agendaDirty"])
	g := sessionIn(t, agenda, st.go1)
	require.Equal(t, st.annex, g["roomId"])
	require.Equal(t, "2027-09-10T06:00:00.000Z", g["startsAt"])
	require.Equal(t, true, g["scheduleDirty"])
	require.Nil(t, sessionIn(t, agenda, st.keynote)["roomId"], "not chosen, not moved")
	timeline := b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+st.go2+"/timeline", b.acme, nil).List()
	require.Equal(t, "scheduled", str(timeline[0].(map[string]any), "kind"))
	require.Contains(t, str(timeline[0].(map[string]any), "label"), "Scheduled in Annex")
	require.Contains(t, str(timeline[0].(map[string]any), "actorName"), "API key")
	require.Equal(t, 2, b.count(`SELECT count(*) FROM webhook_messages WHERE event_type = 'session.scheduled'`))

	// A committed draft is not accepted again, nor discarded.
	r := b.do(http.MethodPost, accept, b.acme, map[string]any{"submissionIds": []any{st.keynote}})
	b.requireError(r, 400, "invalid_input")
	require.Equal(t, "Choose a generated draft", r.ErrMessage())
	r = b.do(http.MethodPost, w.base+"/agenda/drafts/"+str(d, "id"), b.acme, map[string]any{"action": "discard"})
	b.requireError(r, 400, "invalid_input")
	require.Equal(t, "A committed draft cannot be discarded", r.ErrMessage())

	// Respecting existing placements keeps the live ones and places the rest around them.
	d = b.generate(st, map[string]any{"name": "Keep", "criteria": map[string]any{"days": []any{"2027-09-10"},
		"roomIds": []any{st.annex}, "includeStatuses": []any{"accepted"}, "respectExistingPlacements": true, "rules": []any{}}})
	require.Equal(t, []any{
		place(st.go1, st.annex, "2027-09-10T06:00:00.000Z", "2027-09-10T06:30:00.000Z", "Kept existing placement."),
		place(st.go2, st.annex, "2027-09-10T06:30:00.000Z", "2027-09-10T07:00:00.000Z", "Kept existing placement."),
		place(st.keynote, st.annex, "2027-09-10T07:00:00.000Z", "2027-09-10T07:30:00.000Z", reason),
	}, d["proposal"].(map[string]any)["placements"])
	// Only real changes can be chosen: go1 is already where the draft puts it.
	r = b.do(http.MethodPost, w.base+"/agenda/drafts/"+str(d, "id")+"/accept", b.acme, map[string]any{"submissionIds": []any{st.go1}})
	b.requireError(r, 400, "invalid_input")
	require.Equal(t, "Choose changes from this draft", r.ErrMessage())
}

func (b *testBundle) agendaOf(w world) map[string]any {
	b.t.Helper()
	return b.must(http.StatusOK, http.MethodGet, w.base+"/agenda", b.acme, nil).Obj()
}

func TestAgendaDraftProvider(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	var proposal []any
	var mu sync.Mutex
	p := newAgendaProvider(t, func(int) (int, []any) {
		mu.Lock()
		defer mu.Unlock()
		return http.StatusOK, proposal
	})
	b.res.Ops.AI = ai.New(ai.Config{APIKey: "sk-ant-test-key", BaseURL: p.srv.URL, Model: "claude-test"})
	propose := func(ps ...any) {
		mu.Lock()
		defer mu.Unlock()
		proposal = ps
	}
	days, rooms := []any{"2027-09-11"}, []any{st.annex, st.hall}

	t.Run("GoodProposal", func(t *testing.T) {
		propose(
			place(st.keynote, st.hall, "2027-09-11T07:00:00Z", "2027-09-11T07:30:00Z", "  Opening \n keynote  "),
			place(st.go1, st.annex, "2027-09-11T09:00:00+02:00", "2027-09-11T09:30:00+02:00", "Morning Go."),
			place(st.go2, st.annex, "2027-09-11T07:30:00.000Z", "2027-09-11T08:00:00.000Z", ""),
		)
		d := b.generate(st, draftBody("AI", days, rooms, "Keynote in Hall"))
		require.Equal(t, "generated", d["status"], d["failureReason"])
		require.Equal(t, "anthropic", d["generator"])
		want := []any{
			place(st.go1, st.annex, "2027-09-11T07:00:00.000Z", "2027-09-11T07:30:00.000Z", "Morning Go."),
			place(st.keynote, st.hall, "2027-09-11T07:00:00.000Z", "2027-09-11T07:30:00.000Z", "Opening keynote"),
			place(st.go2, st.annex, "2027-09-11T07:30:00.000Z", "2027-09-11T08:00:00.000Z", "Conflict-free placement."),
		}
		if st.annex > st.hall {
			want[0], want[1] = want[1], want[0]
		}
		require.Equal(t, want, d["proposal"].(map[string]any)["placements"])

		req := p.last()
		require.Equal(t, "claude-test", req["model"])
		require.Contains(t, req["system"], "never overlap a room or speaker")
		require.Equal(t, map[string]any{"type": "tool", "name": "propose_agenda"}, req["tool_choice"])
		tool := req["tools"].([]any)[0].(map[string]any)
		require.Equal(t, "propose_agenda", tool["name"])
		require.Equal(t, []any{"placements"}, tool["input_schema"].(map[string]any)["required"])
		var prompt map[string]any
		content := req["messages"].([]any)[0].(map[string]any)["content"].(string)
		require.NoError(t, json.Unmarshal([]byte(content), &prompt))
		require.Equal(t, "Europe/Berlin", prompt["timezone"])
		require.Equal(t, days, prompt["days"])
		require.Equal(t, []any{"Keynote in Hall"}, prompt["rules"])
		require.Len(t, prompt["rooms"], 2)
		require.Len(t, prompt["sessions"], 3)
		require.Contains(t, content, "Ada Lovelace")
		require.NotContains(t, content, "ada@example.test", "speakers are named, not addressed")
	})

	t.Run("Repaired", func(t *testing.T) {
		propose(
			place("sub_01nosuchsession000000000000", st.hall, "2027-09-11T07:00:00Z", "2027-09-11T07:30:00Z", "Ghost."),
			place(st.keynote, st.hall, "2027-09-11T07:00:00Z", "2027-09-11T07:30:00Z", "Keynote."),
			place(st.keynote, st.annex, "2027-09-11T08:00:00Z", "2027-09-11T08:30:00Z", "Second copy, ignored."),
			// 21:00 local: after hours.
			place(st.go1, st.annex, "2027-09-11T19:00:00Z", "2027-09-11T19:30:00Z", "Late."),
			// The keynote's room and time.
			place(st.go2, st.hall, "2027-09-11T07:00:00Z", "2027-09-11T07:30:00Z", "Clash."),
		)
		d := b.generate(st, draftBody("Repair", days, rooms))
		require.Equal(t, "generated", d["status"], d["failureReason"])
		const repaired = "Repaired by validation gate: earliest conflict-free slot."
		require.ElementsMatch(t, []any{
			place(st.go1, st.annex, "2027-09-11T06:00:00.000Z", "2027-09-11T06:30:00.000Z", repaired),
			place(st.go2, st.annex, "2027-09-11T06:30:00.000Z", "2027-09-11T07:00:00.000Z", repaired),
			place(st.keynote, st.hall, "2027-09-11T07:00:00.000Z", "2027-09-11T07:30:00.000Z", "Keynote."),
		}, d["proposal"].(map[string]any)["placements"])
	})

	t.Run("NotAProposal", func(t *testing.T) {
		propose()
		d := b.generate(st, draftBody("Silent", days, rooms))
		require.Equal(t, "failed", d["status"])
		require.Equal(t, "The AI provider did not return an agenda proposal", d["failureReason"])
		require.Equal(t, []any{}, d["proposal"].(map[string]any)["placements"])
	})

	t.Run("NoLegalSlot", func(t *testing.T) {
		// A session of 12 hours fits no day from 08:00 to 19:00, whatever the provider says: it is
		// left unplaced, the others placed.
		long := str(b.saveItem(b.acme, w.event, map[string]any{"kind": "format", "name": "Marathon", "durationMinutes": 720}), "id")
		marathon := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/sessions", b.acme, map[string]any{
			"title": "Marathon", "description": nil, "formatId": long, "speakerIds": []any{w.grace}}).Obj(), "id")
		defer b.must(http.StatusNoContent, http.MethodDelete, w.base+"/sessions/"+marathon, b.acme, nil)
		propose(place(st.keynote, st.hall, "2027-09-11T07:00:00Z", "2027-09-11T07:30:00Z", "Keynote."))
		d := b.generate(st, draftBody("Too long", days, rooms))
		require.Equal(t, "generated", d["status"], d["failureReason"])
		require.Equal(t, []any{map[string]any{"submissionId": marathon, "reason": "Left unplaced: it is longer than the daily window."}},
			d["proposal"].(map[string]any)["unplaced"])
		require.Len(t, placements(d), 3)
	})
}

func TestAgendaDraftRetriedOnOutage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	// The provider fails its first call, then answers an empty proposal, until it goes down.
	var down atomic.Bool
	p := newAgendaProvider(t, func(n int) (int, []any) {
		if n == 1 || down.Load() {
			return http.StatusServiceUnavailable, nil
		}
		return http.StatusOK, []any{}
	})
	b.res.Ops.AI = ai.New(ai.Config{APIKey: "sk-ant-test-key", BaseURL: p.srv.URL, Model: "claude-test"})
	d := b.must(http.StatusCreated, http.MethodPost, st.w.base+"/agenda/drafts", b.acme,
		draftBody("Retried", []any{"2027-09-12"}, []any{st.hall})).Obj()
	// The request meets a 503: the draft is answered queued, and its job is due at once.
	require.Equal(t, "queued", d["status"])
	require.Equal(t, 1, p.calls(), "the request asked once")
	require.Equal(t, 1, b.count(`SELECT count(*) FROM river_job WHERE kind = 'agenda_draft' AND queue = 'ai'
		AND state = 'available' AND scheduled_at <= now()`))

	// The worker meets an empty proposal the solver completes.
	b.startWorkers(jobs.Config{Drafter: b.res.Ops, EmailWorkers: 1, RetryPolicy: immediateRetry{}})
	require.Eventually(t, func() bool { return b.draft(st, str(d, "id"))["status"] == "generated" }, 15*time.Second, 50*time.Millisecond)
	require.Equal(t, 2, p.calls())
	require.Len(t, placements(b.draft(st, str(d, "id"))), 3)

	// On the last attempt an outage fails the draft, with the reason.
	down.Store(true)
	d = b.must(http.StatusCreated, http.MethodPost, st.w.base+"/agenda/drafts", b.acme,
		draftBody("Down", []any{"2027-09-12"}, []any{st.hall})).Obj()
	require.Eventually(t, func() bool { return b.draft(st, str(d, "id"))["status"] == "failed" }, 15*time.Second, 50*time.Millisecond)
	require.Equal(t, "The AI provider refused the request (HTTP 503)", b.draft(st, str(d, "id"))["failureReason"])
	require.Equal(t, 2+1+5, p.calls(), "the request's, then five attempts, as AI reviews have")
}

func TestAgendaDraftAcceptConflict(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	d := b.generate(st, draftBody("Plan", []any{"2027-09-10"}, []any{st.annex, st.hall}))
	require.Equal(t, "generated", d["status"])
	var keynoteAt map[string]any
	for _, p := range placements(d) {
		if p["submissionId"] == st.keynote {
			keynoteAt = p
		}
	}
	// Someone puts go2 live where the draft puts the keynote.
	r := b.schedule(st, st.go2, keynoteAt["roomId"], keynoteAt["startsAt"], keynoteAt["endsAt"])
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	before := b.agendaOf(w)
	timeline := b.count(`SELECT count(*) FROM timeline_entries`)

	// Accepting the keynote alone would book its room twice: nothing changes.
	accept := w.base + "/agenda/drafts/" + str(d, "id") + "/accept"
	r = b.do(http.MethodPost, accept, b.acme, map[string]any{"submissionIds": []any{st.go1, st.keynote}})
	b.requireError(r, 409, "schedule_conflict")
	require.Equal(t, "Those selected changes conflict with the current live agenda", r.ErrMessage())
	require.Equal(t, before, b.agendaOf(w), "all or nothing: go1 is not scheduled either")
	require.Equal(t, timeline, b.count(`SELECT count(*) FROM timeline_entries`))
	require.Equal(t, "generated", b.draft(st, str(d, "id"))["status"])

	// With go2 moved back to its proposed slot as well, the three fit.
	res := b.must(http.StatusOK, http.MethodPost, accept, b.acme,
		map[string]any{"submissionIds": []any{st.keynote, st.go1, st.go2}}).Obj()
	require.Len(t, res["changedSubmissionIds"], 3)
	require.Empty(t, b.gqlOK(b.acme, `query($id: ID!) { event(id: $id) { agenda { conflicts { kind } } } }`,
		map[string]any{"id": w.event})["event"].(map[string]any)["agenda"].(map[string]any)["conflicts"])

	// Refused selections.
	d = b.generate(st, draftBody("Again", []any{"2027-09-11"}, []any{st.annex}))
	accept = w.base + "/agenda/drafts/" + str(d, "id") + "/accept"
	for name, ids := range map[string][]any{
		"Empty":     {},
		"Repeated":  {st.go1, st.go1},
		"Unknown":   {"sub_01nosuchsession000000000000"},
		"NotChosen": {st.go1, "nope"},
	} {
		r := b.do(http.MethodPost, accept, b.acme, map[string]any{"submissionIds": ids})
		b.requireError(r, 400, "invalid_input")
		require.Contains(t, []string{"Choose at least one proposed change", "Choose changes from this draft"}, r.ErrMessage(), name)
	}
	b.requireError(b.do(http.MethodPost, accept, b.acme, map[string]any{}), 400, "invalid_body")
}

func TestAgendaDraftChanges(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	d := b.generate(st, draftBody("Base", []any{"2027-09-10"}, []any{st.annex}, "Spread each track"))
	change := func(key, event, id, action string) response {
		return b.do(http.MethodPost, "/api/v1/events/"+event+"/agenda/drafts/"+id, key, map[string]any{"action": action})
	}

	dup := change(b.acme, w.event, str(d, "id"), "duplicate")
	require.Equal(t, http.StatusOK, dup.Status, dup.Raw)
	copied := dup.Obj()
	require.NotEqual(t, d["id"], copied["id"])
	require.Equal(t, "Base copy", copied["name"])
	require.Equal(t, "draft", copied["status"])
	require.Equal(t, d["criteria"], copied["criteria"])
	require.Equal(t, []any{}, copied["proposal"].(map[string]any)["placements"])
	require.Nil(t, copied["generatedAt"])

	gone := change(b.acme, w.event, str(copied, "id"), "discard")
	require.Equal(t, http.StatusOK, gone.Status, gone.Raw)
	require.Equal(t, "discarded", gone.Obj()["status"])
	again := change(b.acme, w.event, str(copied, "id"), "discard")
	require.Equal(t, http.StatusOK, again.Status, "discarding twice is allowed")
	r := b.do(http.MethodPost, w.base+"/agenda/drafts/"+str(copied, "id")+"/accept", b.acme, map[string]any{"submissionIds": []any{st.go1}})
	b.requireError(r, 400, "invalid_input")

	list := b.must(http.StatusOK, http.MethodGet, w.base+"/agenda/drafts", b.acme, nil).List()
	require.Len(t, list, 2)
	require.Equal(t, copied["id"], list[0].(map[string]any)["id"], "newest first")

	b.requireError(change(b.acme, w.event, str(d, "id"), "rename"), 400, "invalid_body")
	b.requireError(change(b.acme, w.event, "adr_01nosuchdraft0000000000000", "discard"), 404, "not_found")
	b.requireError(change(b.acme, w.event, url.PathEscape("'; DROP TABLE agenda_drafts; --"), "discard"), 404, "not_found")
	other := str(b.createEvent(b.acme, "Other"), "id")
	b.requireError(change(b.acme, other, str(d, "id"), "discard"), 404, "not_found")
	b.requireError(b.do(http.MethodGet, w.base+"/agenda/drafts/"+str(d, "id"), b.acme, nil), 405, "method_not_allowed")

	// Another organization sees and changes nothing: its key on this event is forbidden, and on
	// its own event the draft does not exist.
	b.requireError(b.do(http.MethodGet, w.base+"/agenda/drafts", b.globex, nil), 403, "forbidden")
	b.requireError(change(b.globex, w.event, str(d, "id"), "discard"), 403, "forbidden")
	theirs := str(b.createEvent(b.globex, "Theirs"), "id")
	b.requireError(change(b.globex, theirs, str(d, "id"), "discard"), 404, "not_found")
	b.requireError(b.do(http.MethodPost, "/api/v1/events/"+theirs+"/agenda/drafts/"+str(d, "id")+"/accept", b.globex,
		map[string]any{"submissionIds": []any{st.go1}}), 404, "not_found")
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+theirs+"/agenda/drafts", b.globex, nil).List())
	gq := b.gql(b.globex, `query($e: ID!) { agendaDrafts(eventId: $e) { id } }`, map[string]any{"e": w.event})
	require.Equal(t, []string{"forbidden"}, gq.Codes())
	require.NotContains(t, gq.Raw, str(d, "id"))
	require.Equal(t, "generated", b.draft(st, str(d, "id"))["status"])

	// GraphQL answers the same drafts.
	got := b.gqlOK(b.acme, `query($e: ID!) { agendaDrafts(eventId: $e) { id status criteria { rules } proposal { placements { roomId } } } }`,
		map[string]any{"e": w.event})["agendaDrafts"].([]any)
	require.Len(t, got, 2)
	require.Equal(t, []any{"Spread each track"}, got[1].(map[string]any)["criteria"].(map[string]any)["rules"])
}

func TestAgendaDraftCriteriaChecked(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	foreignRoom := str(b.saveItem(b.acme, str(b.createEvent(b.acme, "Other"), "id"), map[string]any{"kind": "room", "name": "Far"}), "id")
	tooMany := make([]any, 13)
	for i := range tooMany {
		tooMany[i] = "rule"
	}
	criteria := func(change func(c map[string]any)) map[string]any {
		body := draftBody("Name", []any{"2027-09-10"}, []any{st.hall})
		change(body["criteria"].(map[string]any))
		return body
	}
	for name, tc := range map[string]struct {
		body    map[string]any
		message string
	}{
		"BlankName":    {draftBody("  ", []any{"2027-09-10"}, []any{st.hall}), "Name this agenda draft"},
		"LongName":     {draftBody(strings.Repeat("n", 121), []any{"2027-09-10"}, []any{st.hall}), "Name this agenda draft in at most 120 characters"},
		"Maybe":        {criteria(func(c map[string]any) { c["includeStatuses"] = []any{"maybe"} }), "AI drafts can schedule accepted sessions only"},
		"Both":         {criteria(func(c map[string]any) { c["includeStatuses"] = []any{"accepted", "maybe"} }), "AI drafts can schedule accepted sessions only"},
		"NoStatus":     {criteria(func(c map[string]any) { c["includeStatuses"] = []any{} }), "AI drafts can schedule accepted sessions only"},
		"NoRooms":      {criteria(func(c map[string]any) { c["roomIds"] = []any{} }), "Choose at least one room"},
		"ForeignRoom":  {criteria(func(c map[string]any) { c["roomIds"] = []any{st.hall, foreignRoom} }), "Choose rooms from this event"},
		"BadRoom":      {criteria(func(c map[string]any) { c["roomIds"] = []any{"'; --"} }), "Choose rooms from this event"},
		"NoDays":       {criteria(func(c map[string]any) { c["days"] = []any{} }), "Choose at least one day"},
		"DayOutside":   {criteria(func(c map[string]any) { c["days"] = []any{"2027-09-13"} }), "Choose days of this event (YYYY-MM-DD, from 2027-09-10 to 2027-09-12)"},
		"NotADay":      {criteria(func(c map[string]any) { c["days"] = []any{"tomorrow"} }), "Choose days of this event (YYYY-MM-DD, from 2027-09-10 to 2027-09-12)"},
		"TooManyRules": {criteria(func(c map[string]any) { c["rules"] = tooMany }), "Give at most 12 rules"},
		"LongRule":     {criteria(func(c map[string]any) { c["rules"] = []any{strings.Repeat("r", 201)} }), "Keep each rule within 200 characters"},
		"NulRule":      {criteria(func(c map[string]any) { c["rules"] = []any{"a\u0000b"} }), "Keep each rule within 200 characters"},
	} {
		t.Run(name, func(t *testing.T) {
			r := b.do(http.MethodPost, w.base+"/agenda/drafts", b.acme, tc.body)
			b.requireError(r, 400, "invalid_input")
			require.Equal(t, tc.message, r.ErrMessage())
		})
	}
	b.requireError(b.do(http.MethodPost, w.base+"/agenda/drafts", b.acme,
		criteria(func(c map[string]any) { c["includeStatuses"] = []any{"pending"} })), 400, "invalid_body")
	b.requireError(b.do(http.MethodPost, w.base+"/agenda/drafts", b.acme, map[string]any{"name": "x"}), 400, "invalid_body")
	b.requireError(b.do(http.MethodPost, w.base+"/agenda/drafts", b.globex, draftBody("x", []any{"2027-09-10"}, []any{st.hall})), 403, "forbidden")
	require.Zero(t, b.count(`SELECT count(*) FROM agenda_drafts`), "a refused request writes nothing")
	require.Zero(t, b.count(`SELECT count(*) FROM river_job WHERE kind = 'agenda_draft'`))

	// GraphQL refuses the same way, with the code in extensions.
	r := b.gql(b.acme, `mutation($e: ID!, $in: GenerateAgendaDraftInput!) { generateAgendaDraft(eventId: $e, input: $in) { id } }`,
		map[string]any{"e": w.event, "in": draftBody("", []any{"2027-09-10"}, []any{st.hall})})
	require.Equal(t, []string{"invalid_input"}, r.Codes())
}

// TestAgendaDraftStatements counts SQL statements: listing drafts costs the same for 1 and for 20,
// and accepting costs a fixed number per moved session on top of a fixed base.
func TestAgendaDraftStatements(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	statements := func(r response) int {
		t.Helper()
		require.Less(t, r.Status, 300, r.Raw)
		n, err := strconv.Atoi(r.Header.Get(rest.QueryCountHeader))
		require.NoError(t, err)
		return n
	}
	list := func() int { return statements(b.do(http.MethodGet, w.base+"/agenda/drafts", b.acme, nil)) }
	one := b.generate(st, draftBody("One", []any{"2027-09-10"}, []any{st.annex, st.hall}))
	listOne := list()
	for range 19 {
		b.generate(st, draftBody("More", []any{"2027-09-10"}, []any{st.annex, st.hall}))
	}
	require.Equal(t, listOne, list(), "listing 20 drafts costs what listing 1 does")

	accept := func(d map[string]any, ids ...any) int {
		return statements(b.do(http.MethodPost, w.base+"/agenda/drafts/"+str(d, "id")+"/accept", b.acme, map[string]any{"submissionIds": ids}))
	}
	acceptOne := accept(one, st.go1)
	three := b.generate(st, draftBody("Three", []any{"2027-09-11"}, []any{st.annex, st.hall}))
	acceptThree := accept(three, st.go1, st.go2, st.keynote)
	perSession := (acceptThree - acceptOne) / 2
	require.Equal(t, acceptThree, acceptOne+2*perSession, "linear in the moved sessions")
	require.LessOrEqual(t, perSession, 4)
	t.Logf("list: %d statements; accept: %d + %d per moved session", listOne, acceptOne-perSession, perSession)
}

// TestAgendaDraftOverBudget: a request whose solver runs past the draft budget answers the draft
// queued, with its job due at once, and the job generates it.
func TestAgendaDraftOverBudget(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	b.res.Ops.DraftBudget = time.Nanosecond
	d := b.must(http.StatusCreated, http.MethodPost, st.w.base+"/agenda/drafts", b.acme,
		draftBody("Late", []any{"2027-09-10"}, []any{st.annex, st.hall})).Obj()
	require.Equal(t, "queued", d["status"])
	require.Equal(t, 1, b.count(`SELECT count(*) FROM river_job WHERE kind = 'agenda_draft' AND state = 'available'
		AND scheduled_at <= now()`))
	b.startWorkers(jobs.Config{Drafter: b.res.Ops, EmailWorkers: 1})
	require.Eventually(t, func() bool { return b.draft(st, str(d, "id"))["status"] == "generated" }, 15*time.Second, 50*time.Millisecond)
	require.Len(t, placements(b.draft(st, str(d, "id"))), 3)
}
