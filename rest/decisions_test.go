package rest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
)

// Deciding and informing (docs/decisions.md), through GraphQL with the SMTP sink.
const (
	decideGQL = `mutation($e: ID!, $in: DecideSubmissionsInput!) { decideSubmissions(eventId: $e, input: $in) {
		createdEmails submissions { id status notifiedAt } } }`
	informGQL = `mutation($e: ID!, $in: InformSubmissionsInput!) { informSubmissions(eventId: $e, input: $in) {
		createdEmails submissions { id status notifiedAt } send { id sentAt sent scheduledAt cancelledAt subject replyTo } } }`
	cancelSendGQL = `mutation($e: ID!, $s: ID!) { cancelDecisionSend(eventId: $e, sendId: $s) { id cancelledAt sentAt } }`
	sendsGQL      = `query($e: ID!) { event(id: $e) { decisionSends { id sentAt cancelledAt submissionIds } } }`
)

// decide decides ids through GraphQL, without informing.
func (b *testBundle) decide(w world, decision string, ids ...any) map[string]any {
	b.t.Helper()
	return b.gqlOK(b.acme, decideGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": ids,
		"decision": decision}})["decideSubmissions"].(map[string]any)
}

// decisionMails counts the decision emails logged for a submission.
func (b *testBundle) decisionMails(submissionID string) int {
	b.t.Helper()
	return b.count(`SELECT count(*) FROM email_log WHERE submission_id = $1 AND type IN ('accepted', 'declined')`, submissionID)
}

// mailsWithSubject are the messages the sink received to addr with subject.
func mailsWithSubject(sink *mailtest.Sink, addr, subject string) []mailtest.Message {
	var out []mailtest.Message
	for _, m := range sink.Messages() {
		if len(m.To) == 1 && m.To[0] == addr && m.Header.Get("Subject") == subject {
			out = append(out, m)
		}
	}
	return out
}

func TestDecideThenInform(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	p1 := b.propose(w, "Generics", w.ada, w.grace)
	p2 := b.propose(w, "Channels", w.alan)

	// Deciding records only.
	res := b.decide(w, "accept", p1["id"])
	require.Equal(t, float64(0), res["createdEmails"])
	require.Equal(t, []any{map[string]any{"id": p1["id"], "status": "accepted", "notifiedAt": nil}}, res["submissions"])
	b.decide(w, "decline", p2["id"])
	require.Zero(t, b.decisionMails(str(p1, "id")))
	require.Zero(t, b.decisionMails(str(p2, "id")))
	require.Zero(t, b.count(`SELECT count(*) FROM submissions WHERE id = ANY($1) AND notified_at IS NOT NULL`, []string{str(p1, "id"), str(p2, "id")}))

	t.Run("OrganizersSeeUninformed", func(t *testing.T) {
		const list = `query($e: ID!) { event(id: $e) { submissions(informed: false) { submissions { code decisionSent } }
			sessions { edges { node { code decisionSent } } } } }`
		data := b.gqlOK(b.acme, list, map[string]any{"e": w.event})["event"].(map[string]any)
		require.Equal(t, []any{map[string]any{"code": p1["code"], "decisionSent": false}, map[string]any{"code": p2["code"], "decisionSent": false}},
			data["submissions"].(map[string]any)["submissions"])
		require.Equal(t, []any{map[string]any{"node": map[string]any{"code": p1["code"], "decisionSent": false}}},
			data["sessions"].(map[string]any)["edges"])
		com := b.communications(w)
		require.Equal(t, json.Number("1"), com["acceptedNotInformed"])
		require.Equal(t, json.Number("1"), com["declinedNotInformed"])
	})

	t.Run("PortalShowsPending", func(t *testing.T) {
		ada := b.signIn("ada@example.test")
		r := b.gqlCookie(ada, `{ mySpeaking { sessions { code status room tasks { id } } } }`, nil)
		require.Empty(t, r.Errors, r.Raw)
		require.Contains(t, r.Raw, `"status":"pending"`)
		require.NotContains(t, r.Raw, `"status":"accepted"`)
	})

	t.Run("OtherOrganizationCannotInform", func(t *testing.T) {
		r := b.gql(b.globex, informGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p1["id"]}}})
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
		r = b.gql(b.globex, sendsGQL, map[string]any{"e": w.event})
		require.NotEmpty(t, r.Errors, r.Raw)
		require.Zero(t, b.decisionMails(str(p1, "id")))
		require.Zero(t, b.count(`SELECT count(*) FROM decision_sends`))
	})

	t.Run("BadInputWritesNothing", func(t *testing.T) {
		for _, in := range []map[string]any{
			{"submissionIds": []any{p1["id"]}, "replyTo": "not an address"},
			{"submissionIds": []any{p1["id"]}, "subject": strings.Repeat("x", 201)},
			{"submissionIds": []any{}},
			{"submissionIds": []any{p1["id"], b.propose(w, "Pending", w.alan)["id"]}},
		} {
			r := b.gql(b.acme, informGQL, map[string]any{"e": w.event, "in": in})
			require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
		}
		require.Zero(t, b.decisionMails(str(p1, "id")))
		require.Zero(t, b.count(`SELECT count(*) FROM decision_sends`))
	})

	// Informing: one email per speaker, with the subject, feedback and Reply-To of the send.
	const subject = "Your talk at World"
	res = b.gqlOK(b.acme, informGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p1["id"], p2["id"]},
		"subject": subject, "feedback": "The committee loved it.", "replyTo": "Program@World.test"}})["informSubmissions"].(map[string]any)
	require.Equal(t, float64(3), res["createdEmails"])
	require.Len(t, res["submissions"], 2)
	send := res["send"].(map[string]any)
	require.NotNil(t, send["sentAt"])
	require.Equal(t, "program@world.test", send["replyTo"])
	for _, addr := range []string{"ada@example.test", "grace@example.test", "alan@example.test"} {
		require.Eventually(t, func() bool { return len(mailsWithSubject(b.sink, addr, subject)) == 1 }, 15*time.Second, 20*time.Millisecond, addr)
		m := mailsWithSubject(b.sink, addr, subject)[0]
		require.Equal(t, "<program@world.test>", m.Header.Get("Reply-To"), addr)
		require.Contains(t, m.Text, "The committee loved it.", addr)
	}
	require.Equal(t, 2, b.decisionMails(str(p1, "id")))
	require.Equal(t, 1, b.decisionMails(str(p2, "id")))
	require.Equal(t, 2, b.count(`SELECT count(*) FROM timeline_entries WHERE submission_id = ANY($1) AND kind = 'informed'`,
		[]string{str(p1, "id"), str(p2, "id")}))

	activity := b.gqlOK(b.acme, `query($e: ID!, $id: ID!) { event(id: $e) { submission(id: $id) { decisionSent activity { kind detail } } } }`,
		map[string]any{"e": w.event, "id": p1["id"]})["event"].(map[string]any)["submission"].(map[string]any)
	require.Equal(t, true, activity["decisionSent"])
	require.Contains(t, activity["activity"], map[string]any{"kind": "informed", "detail": "The committee loved it."})
	// REST answers the line in the contract's kinds, as an email (docs/rest-api.md "Timeline").
	var restKinds []string
	for _, it := range b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+str(p1, "id")+"/timeline", b.acme, nil).List() {
		e := it.(map[string]any)
		if strings.HasPrefix(str(e, "label"), "Informed") {
			restKinds = append(restKinds, str(e, "kind"))
		}
	}
	require.Equal(t, []string{"email"}, restKinds)

	t.Run("InformAgainSendsNothing", func(t *testing.T) {
		r := b.gql(b.acme, informGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p1["id"]}}})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
		require.Contains(t, r.Errors[0].Message, "informed already")
		// Deciding the same again, informing, changes nothing either.
		b.gqlOK(b.acme, decideGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p1["id"]},
			"decision": "accept", "inform": true, "feedback": "again"}})
		require.Equal(t, 2, b.decisionMails(str(p1, "id")))
	})

	t.Run("InformedAcceptanceEndsOnlyByCancelling", func(t *testing.T) {
		r := b.gql(b.acme, decideGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p1["id"]},
			"decision": "decline", "confirmRedecide": true}})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
		// An acceptance not told yet may be re-decided.
		p := b.propose(w, "Tentative", w.alan)
		b.decide(w, "accept", p["id"])
		r = b.gql(b.acme, decideGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p["id"]}, "decision": "decline"}})
		require.Equal(t, []string{"already_decided"}, r.Codes(), r.Raw)
		b.gqlOK(b.acme, decideGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p["id"]},
			"decision": "decline", "confirmRedecide": true}})
		require.Zero(t, b.decisionMails(str(p, "id")))
	})

	t.Run("ConcurrentInformsSendOnce", func(t *testing.T) {
		p := b.propose(w, "Race", w.ada, w.alan)
		b.decide(w, "accept", p["id"])
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok := 0
		for range 8 {
			wg.Go(func() {
				r := b.gql(b.acme, informGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p["id"]}}})
				mu.Lock()
				defer mu.Unlock()
				if len(r.Errors) == 0 {
					ok++
				}
			})
		}
		wg.Wait()
		require.Equal(t, 1, ok)
		require.Equal(t, 2, b.decisionMails(str(p, "id")))
	})

	t.Run("Scheduled", func(t *testing.T) {
		p := b.propose(w, "Later", w.grace)
		b.decide(w, "accept", p["id"])
		at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		res := b.gqlOK(b.acme, informGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p["id"]},
			"at": at, "subject": "Scheduled news"}})["informSubmissions"].(map[string]any)
		require.Equal(t, float64(0), res["createdEmails"])
		send := res["send"].(map[string]any)
		require.Nil(t, send["sentAt"])
		require.Equal(t, 1, b.count(`SELECT count(*) FROM river_job WHERE kind = 'inform_decisions' AND state = 'scheduled'`))
		require.Zero(t, b.decisionMails(str(p, "id")))

		// Another organization neither lists nor cancels it.
		r := b.gql(b.globex, cancelSendGQL, map[string]any{"e": w.event, "s": send["id"]})
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
		other := str(b.createEvent(b.globex, "Globex Days"), "id")
		r = b.gql(b.globex, cancelSendGQL, map[string]any{"e": other, "s": send["id"]})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
		sends := b.gqlOK(b.globex, sendsGQL, map[string]any{"e": other})["event"].(map[string]any)["decisionSends"]
		require.Empty(t, sends)

		// The job runs: sent once, however often it runs.
		ctx := b.scopeOf(w.event)
		require.NoError(t, b.res.Ops.RunDecisionSend(ctx, str(send, "id")))
		require.NoError(t, b.res.Ops.RunDecisionSend(ctx, str(send, "id")))
		require.Equal(t, 1, b.decisionMails(str(p, "id")))
		require.Eventually(t, func() bool { return len(mailsWithSubject(b.sink, "grace@example.test", "Scheduled news")) == 1 },
			15*time.Second, 20*time.Millisecond)
		r = b.gql(b.acme, cancelSendGQL, map[string]any{"e": w.event, "s": send["id"]})
		require.Equal(t, []string{"conflict"}, r.Codes(), r.Raw)

		// A cancelled send sends nothing.
		q := b.propose(w, "Never", w.alan)
		b.decide(w, "decline", q["id"])
		res = b.gqlOK(b.acme, informGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{q["id"]},
			"at": at}})["informSubmissions"].(map[string]any)
		id := str(res["send"].(map[string]any), "id")
		cancelled := b.gqlOK(b.acme, cancelSendGQL, map[string]any{"e": w.event, "s": id})["cancelDecisionSend"].(map[string]any)
		require.NotNil(t, cancelled["cancelledAt"])
		require.NoError(t, b.res.Ops.RunDecisionSend(ctx, id))
		require.Zero(t, b.decisionMails(str(q, "id")))
		list := b.gqlOK(b.acme, sendsGQL, map[string]any{"e": w.event})["event"].(map[string]any)["decisionSends"].([]any)
		require.Len(t, list, 4) // the first inform, the race's winner, the scheduled and the cancelled
	})

	t.Run("RESTDecideStillInforms", func(t *testing.T) {
		p := b.propose(w, "Rest", w.alan)
		out := b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{p["id"]}, "decision": "accept", "feedback": "Welcome", "inform": false}).Obj()
		require.Equal(t, json.Number("1"), out["createdEmails"])
		require.NotNil(t, out["submissions"].([]any)[0].(map[string]any)["notifiedAt"])
		r := b.do(http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{p["id"]}, "decision": "accept", "feedback": nil})
		b.requireError(r, http.StatusBadRequest, "invalid_body")
	})
}

// An acceptance not yet announced is on no public surface and gets no calendar invitation; once
// informed, the next publication and invitation include it.
func TestUninformedStaysOffPublicSurfaces(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	quiet := b.proposeIn(w, "Quiet", "About quiet", []string{w.track1}, w.grace)
	b.gqlOK(b.acme, decideGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{quiet},
		"decision": "accept", "approveContent": true}})
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.hall, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(st, quiet, st.annex, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z").Status)

	invites := b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/invites", b.acme, nil).Obj()
	require.Equal(t, json.Number("1"), invites["sessions"], "go1 only")
	require.Zero(t, b.count(`SELECT count(*) FROM email_log WHERE submission_id = $1`, quiet))
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	program := b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Raw
	require.Contains(t, program, st.go1)
	require.NotContains(t, program, quiet)

	b.gqlOK(b.acme, informGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{quiet}}})
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	require.Contains(t, b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Raw, quiet)
	invites = b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/invites", b.acme, nil).Obj()
	require.Equal(t, json.Number("1"), invites["sessions"], "quiet, now told")
}

// A scheduled send goes out through its River job, run by the workers, once.
func TestScheduledInformRunsItsJob(t *testing.T) {
	t.Parallel()
	b := setupWith(t, nil)
	b.sink = mailtest.New(t, mailtest.Options{})
	sender, err := jobs.NewSMTPSender(b.sink.URL(), "Podium <podium@example.test>", jobs.SMTPOptions{})
	require.NoError(t, err)
	t.Cleanup(sender.Close)
	b.startWorkers(jobs.Config{Sender: sender, EmailWorkers: 4, Informer: b.res.Ops})
	w := b.world()
	p := b.propose(w, "Soon", w.ada)
	b.decide(w, "accept", p["id"])
	at := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	b.gqlOK(b.acme, informGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p["id"]},
		"at": at, "subject": "Soon news"}})
	require.Eventually(t, func() bool { return len(mailsWithSubject(b.sink, "ada@example.test", "Soon news")) == 1 },
		30*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		return b.count(`SELECT count(*) FROM river_job WHERE kind = 'inform_decisions' AND state = 'completed'`) == 1
	}, 10*time.Second, 50*time.Millisecond)
	require.Equal(t, 1, b.decisionMails(str(p, "id")))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM decision_sends WHERE sent_at IS NOT NULL AND sent = 1`))
}
