package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
)

// changeKinds is the changes of a version as "code: kinds", in their order.
func changeKinds(changes any) []string {
	out := []string{}
	for _, c := range objects(changes) {
		kinds := []string{}
		for _, k := range c["kinds"].([]any) {
			kinds = append(kinds, k.(string))
		}
		out = append(out, str(c, "code")+": "+strings.Join(kinds, ","))
	}
	return out
}

// TestAgendaVersions publishes, changes three sessions (one moved, one retitled through approved
// content, one taken off the schedule), publishes again, and reads version 2's diff over REST,
// GraphQL, the public changelog and the agenda.published webhook; only the speakers of the three
// sessions are emailed.
func TestAgendaVersions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.sink = mailtest.New(t, mailtest.Options{})
	sender, err := jobs.NewSMTPSender(b.sink.URL(), "Podium <podium@example.test>", jobs.SMTPOptions{})
	require.NoError(t, err)
	t.Cleanup(sender.Close)
	b.startWorkers(jobs.Config{Sender: sender, EmailWorkers: 4, Webhooks: b.loopbackWebhooks(jobs.WebhookConfig{})})
	rc := newReceiver(t)
	_, secret := b.createWebhook(b.acme, rc.srv.URL+"/hooks", "agenda.published")
	rc.set(0, secret)

	st := b.stage()
	w := st.w
	barbara := b.speaker(w.base, "Barbara", "Liskov", "barbara@example.test")
	steady := str(b.createSession(w, "Abstraction", barbara), "id")
	versions := w.base + "/agenda/versions"
	changelog := "/api/v1/public/events/" + w.event + "/agenda/changes.json"

	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, versions, b.acme, nil).JSON, "nothing published yet")
	pub := b.must(http.StatusOK, http.MethodGet, changelog, "", nil).Obj()
	require.Equal(t, []any{}, pub["versions"])

	// Keynote (Grace), Generics (Ada, Alan), Fuzzing (Alan) and Abstraction (Barbara).
	for _, s := range []struct{ id, room, starts, ends string }{
		{st.keynote, st.hall, "2027-09-10T08:00:00Z", "2027-09-10T09:00:00Z"},
		{st.go1, st.annex, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z"},
		{st.go2, st.hall, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z"},
		{steady, st.hall, "2027-09-10T12:00:00Z", "2027-09-10T13:00:00Z"},
	} {
		require.Equal(t, http.StatusOK, b.schedule(st, s.id, s.room, s.starts, s.ends).Status)
	}
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	v1 := b.must(http.StatusOK, http.MethodGet, versions+"/1", b.acme, nil).Obj()
	require.Equal(t, jsonNum(1), v1["number"])
	require.Equal(t, "API key: test", v1["publishedBy"])
	require.Len(t, v1["sessions"], 4)
	require.Equal(t, []string{"SESS-1: added", "SESS-2: added", "SESS-3: added", "SESS-4: added"}, changeKinds(v1["changes"]),
		"version 1 diffs against nothing")

	// Move the keynote (room and time), retitle Generics (its new content approved), take Fuzzing
	// off the schedule.
	require.Equal(t, http.StatusOK, b.schedule(st, st.keynote, st.annex, "2027-09-10T14:00:00Z", "2027-09-10T15:00:00Z").Status)
	require.NoError(t, b.db.Ent.Submission.UpdateOneID(st.go1).SetTitle("Generics, revisited").
		SetContentReviewStatus(submission.ContentReviewStatusPendingReview).Exec(b.sys()))
	b.gqlOK(b.acme, `mutation($e: ID!, $s: ID!) { approveSessionContent(eventId: $e, sessionId: $s) { id } }`,
		map[string]any{"e": w.event, "s": st.go1})
	b.must(http.StatusOK, http.MethodPut, w.base+"/agenda/schedule", b.acme,
		map[string]any{"submissionId": st.go2, "roomId": nil, "startsAt": nil, "endsAt": nil})
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)

	want := []string{"SESS-1: moved", "SESS-2: retitled", "SESS-3: removed"}
	v2 := b.must(http.StatusOK, http.MethodGet, versions+"/2", b.acme, nil).Obj()
	require.Equal(t, want, changeKinds(v2["changes"]), "exactly the three sessions, unchanged Abstraction not listed")
	changes := objects(v2["changes"])
	require.Equal(t, st.keynote, changes[0]["sessionId"])
	require.Equal(t, "Hall", changes[0]["before"].(map[string]any)["roomName"])
	require.Equal(t, "Annex", changes[0]["after"].(map[string]any)["roomName"])
	require.Equal(t, "Generics, revisited", changes[1]["title"])
	require.Equal(t, "Generics", changes[1]["before"].(map[string]any)["title"])
	require.Nil(t, changes[2]["after"])
	require.Len(t, v2["sessions"], 3)

	list := b.must(http.StatusOK, http.MethodGet, versions, b.acme, nil).List()
	require.Len(t, list, 2)
	require.Equal(t, jsonNum(2), list[0].(map[string]any)["number"], "newest first")
	require.Equal(t, jsonNum(3), list[0].(map[string]any)["changeCount"])
	require.Equal(t, jsonNum(4), list[1].(map[string]any)["changeCount"])
	require.Equal(t, "API key: test", list[0].(map[string]any)["publishedBy"])

	// GraphQL reads the same.
	data := b.gqlOK(b.acme, `query($e: ID!) { event(id: $e) { agenda {
	  versions { number changeCount publishedBy }
	  version(number: 2) { number changes { sessionId code title kinds before { roomName } after { roomName } } } } } }`,
		map[string]any{"e": w.event})
	agenda := data["event"].(map[string]any)["agenda"].(map[string]any)
	require.Equal(t, []any{
		map[string]any{"number": float64(2), "changeCount": float64(3), "publishedBy": "API key: test"},
		map[string]any{"number": float64(1), "changeCount": float64(4), "publishedBy": "API key: test"},
	}, agenda["versions"])
	require.Equal(t, want, changeKinds(agenda["version"].(map[string]any)["changes"]))
	gq := b.gql(b.acme, `query($e: ID!) { event(id: $e) { agenda { version(number: 9) { number } } } }`, map[string]any{"e": w.event})
	require.Equal(t, []string{"not_found"}, gq.Codes())

	// Unknown numbers, and another organization.
	b.requireError(b.do(http.MethodGet, versions+"/9", b.acme, nil), 404, "not_found")
	b.requireError(b.do(http.MethodGet, versions+"/0", b.acme, nil), 404, "not_found")
	b.requireError(b.do(http.MethodGet, versions+"/two", b.acme, nil), 404, "not_found")
	b.requireError(b.do(http.MethodGet, versions, b.globex, nil), 403, "forbidden")
	b.requireError(b.do(http.MethodGet, versions+"/1", b.globex, nil), 403, "forbidden")
	b.requireError(b.do(http.MethodGet, versions+"/two", b.globex, nil), 403, "forbidden")
	gq = b.gql(b.globex, `query($e: ID!) { event(id: $e) { agenda { versions { number } } } }`, map[string]any{"e": w.event})
	require.NotEmpty(t, gq.Codes())

	// The public changelog: numbers, dates and changes, no names; cached by ETag.
	req := b.request(http.MethodGet, changelog, "")
	rec := b.sendRaw(req)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotContains(t, rec.Body.String(), "API key")
	pub = b.must(http.StatusOK, http.MethodGet, changelog, "", nil).Obj()
	pv := objects(pub["versions"])
	require.Len(t, pv, 2)
	require.Equal(t, jsonNum(2), pv[0]["number"])
	require.NotNil(t, pv[0]["publishedAt"])
	require.Equal(t, want, changeKinds(pv[0]["changes"]))
	req = b.request(http.MethodGet, changelog, "")
	req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
	require.Equal(t, http.StatusNotModified, b.sendRaw(req).Code)
	b.requireError(b.do(http.MethodGet, "/api/v1/public/events/evt_0000000000000000000000000/agenda/changes.json", "", nil), 404, "not_found")

	// The webhook of version 2 carries it.
	var hooked map[string]any
	require.Eventually(t, func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		for _, g := range rc.got {
			if g.Type == "agenda.published" && g.Data["version"] == float64(2) {
				hooked = g.Data
			}
		}
		return hooked != nil
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, w.event, hooked["eventId"])
	require.Equal(t, want, changeKinds(hooked["changes"]))
	require.Equal(t, float64(0), hooked["moreChanges"])
	require.Equal(t, st.keynote, objects(hooked["changes"])[0]["sessionId"])

	// Only the speakers of the three sessions are emailed, once each: Alan once for Generics and
	// Fuzzing; Barbara, whose session did not change, nothing. Version 1 emailed no one.
	logged, err := b.db.Ent.EmailLog.Query().Where(emaillog.TemplateEQ("agenda_changed")).All(b.sys())
	require.NoError(t, err)
	to := []string{}
	for _, e := range logged {
		to = append(to, e.Recipient)
	}
	slices.Sort(to)
	require.Equal(t, []string{"ada@example.test", "alan@example.test", "grace@example.test"}, to)
	var alan mailtest.Message
	require.Eventually(t, func() bool {
		n := 0
		for _, m := range b.sink.Messages() {
			if strings.Contains(m.Text, "new version of the agenda") {
				n++
				if m.To[0] == "alan@example.test" {
					alan = m
				}
			}
		}
		return n == 3
	}, 10*time.Second, 20*time.Millisecond)
	require.Contains(t, alan.Text, `"Generics, revisited": retitled (was "Generics")`)
	require.Contains(t, alan.Text, `"Fuzzing": removed from the agenda`)
	require.NotContains(t, alan.Text, "Keynote")
	for _, m := range b.sink.Messages() {
		if m.To[0] == "grace@example.test" && strings.Contains(m.Text, "new version of the agenda") {
			// 08:00 UTC is 10:00 in Berlin, the event's time zone.
			require.Contains(t, m.Text, "moved to Annex, Fri, Sep 10, 2027, 4:00 PM–5:00 PM CEST (was Hall, Fri, Sep 10, 2027, 10:00 AM–11:00 AM CEST)")
		}
	}

	// Unpublishing makes no version and empties the changelog; publishing again diffs against
	// version 2: nothing changed, and no one is emailed.
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/unpublish", b.acme, nil)
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, changelog, "", nil).Obj()["versions"])
	require.Len(t, b.must(http.StatusOK, http.MethodGet, versions, b.acme, nil).List(), 2)
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	v3 := b.must(http.StatusOK, http.MethodGet, versions+"/3", b.acme, nil).Obj()
	require.Equal(t, []any{}, v3["changes"])
	n, err := b.db.Ent.EmailLog.Query().Where(emaillog.TemplateEQ("agenda_changed")).Count(b.sys())
	require.NoError(t, err)
	require.Equal(t, 3, n)
}
