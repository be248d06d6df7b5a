package rest_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/rest"
)

// campaignBody is a campaign to the given contacts.
func campaignBody(subject, body string, contactIDs ...string) map[string]any {
	ids := make([]any, len(contactIDs))
	for i, id := range contactIDs {
		ids[i] = id
	}
	return map[string]any{"templateId": nil, "subject": subject, "body": body, "contactIds": ids}
}

func (b *testBundle) communications(w world) map[string]any {
	b.t.Helper()
	return b.must(http.StatusOK, http.MethodGet, w.base+"/communications", b.acme, nil).Obj()
}

// TestCampaignDelivered: a campaign reaches each speaker named once, over SMTP, with the merge
// tokens replaced for them; the communications view then shows it sent, recipient by recipient.
func TestCampaignDelivered(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	b.createSession(w, "Analytical Engines", w.ada)
	body := "Hi {speaker_name},\n<b>{talk_title}</b> at {event_name}: {portal_url} {unknown}"
	r := b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme,
		campaignBody("{event_name} news for {speaker_name}", body, w.ada, w.grace, w.ada, w.outsider, "ctc_nope")).Obj()
	require.EqualValues(t, 2, num(t, r, "sent"))
	require.EqualValues(t, 0, num(t, r, "failed"))
	campaign := r["campaign"].(map[string]any)
	require.Equal(t, "sending", campaign["status"])
	require.Nil(t, campaign["sentAt"])
	require.Equal(t, body, campaign["bodySnapshot"])
	require.Equal(t, map[string]any{}, campaign["recipientFilter"])
	require.Equal(t, b.keyID(b.acme), campaign["createdByApiKeyId"])
	require.Nil(t, campaign["createdByUserId"])

	got := map[string]string{}
	for _, m := range b.sink.Wait(t, 2, 10*time.Second) {
		got[m.To[0]] = m.Header.Get("Subject") + "|" + m.Text + "|" + m.HTML
	}
	ada := got["ada@example.test"]
	require.Contains(t, ada, "World news for Ada Lovelace|")
	require.Contains(t, ada, "Hi Ada Lovelace,\n<b>Analytical Engines</b> at World: https://podium.example.test/portal {unknown}")
	require.Contains(t, ada, "&lt;b&gt;Analytical Engines&lt;/b&gt;", "the HTML part escapes the organizer's text")
	require.Contains(t, got["grace@example.test"], "Hi Grace Hopper,\n<b></b> at World")
	require.Len(t, got, 2)

	require.Eventually(t, func() bool {
		c := b.communications(w)["campaigns"].([]any)[0].(map[string]any)["campaign"].(map[string]any)
		return c["status"] == "sent"
	}, 10*time.Second, 20*time.Millisecond)
	view := b.communications(w)
	require.Equal(t, "World", view["eventName"])
	require.Equal(t, []any{}, view["templates"])
	require.Equal(t, []any{}, view["reminderRules"])
	history := view["campaigns"].([]any)
	require.Len(t, history, 1)
	h := history[0].(map[string]any)
	require.Nil(t, h["templateName"])
	require.NotNil(t, h["campaign"].(map[string]any)["sentAt"])
	recipients := h["recipients"].([]any)
	require.Len(t, recipients, 2)
	first := recipients[0].(map[string]any)
	require.Equal(t, "Grace Hopper", first["contactName"])
	require.Equal(t, "sent", first["deliveryStatus"])
	require.Equal(t, "sent", first["emailStatus"])
	require.Equal(t, "World news for Grace Hopper", first["resolvedSubject"])
	require.Equal(t, "Ada Lovelace", recipients[1].(map[string]any)["contactName"])
	// The emails are in the event's email log too.
	emails := b.must(http.StatusOK, http.MethodGet, w.base+"/emails?type=custom", b.acme, nil).List()
	require.Len(t, emails, 2)
}

// TestCommunicationsContacts: the view lists speakers only, by last name, with the tasks that
// apply to each (their own and their sessions') and their first talk's title.
func TestCommunicationsContacts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	for _, scope := range []string{"speaker", "session"} {
		b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil,
			"title": "Task " + scope, "instructions": "", "scope": scope, "autoAssignOnAccept": true, "dueDate": nil})
	}
	b.createSession(w, "First", w.ada)
	b.createSession(w, "Second", w.ada, w.grace)
	_, err := b.db.System.Exec(b.sys(), `UPDATE contacts SET participation = 'organizer' WHERE id = $1`, w.alan)
	require.NoError(t, err)
	_, err = b.db.System.Exec(b.sys(), `UPDATE task_assignments SET status = 'done' WHERE contact_id = $1 AND
		submission_id = (SELECT id FROM submissions WHERE title = 'First')`, w.ada)
	require.NoError(t, err)

	contacts := b.communications(w)["contacts"].([]any)
	require.Len(t, contacts, 2, "organizer contacts are left out")
	grace, ada := contacts[0].(map[string]any), contacts[1].(map[string]any)
	require.Equal(t, "Hopper", grace["lastName"])
	require.Equal(t, "Second", grace["talkTitle"])
	require.EqualValues(t, 2, num(t, grace, "taskTotal"))
	require.Equal(t, "First", ada["talkTitle"])
	require.EqualValues(t, 4, num(t, ada, "taskTotal"))
	require.EqualValues(t, 1, num(t, ada, "taskDone"))
	require.EqualValues(t, 3, num(t, ada, "taskIncomplete"))
	require.Equal(t, "invited", ada["workflowStatus"])
}

// TestCampaignRules: the original's checks and messages, Podium's audience by workflow status,
// and nothing written by a refused campaign.
func TestCampaignRules(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	url := w.base + "/campaigns"
	nothingWritten := func() {
		t.Helper()
		require.Zero(t, b.count(`SELECT count(*) FROM email_campaigns`))
		require.Zero(t, b.count(`SELECT count(*) FROM email_log`))
	}

	t.Run("BlankText", func(t *testing.T) {
		for _, body := range []map[string]any{campaignBody(" ", "Hello", w.ada), campaignBody("Hi", "\n\t", w.ada)} {
			r := b.do(http.MethodPost, url, b.acme, body)
			b.requireError(r, http.StatusBadRequest, "invalid_input")
			require.Equal(t, "Enter a campaign subject and message", r.ErrMessage())
		}
		nothingWritten()
	})
	t.Run("NoRecipient", func(t *testing.T) {
		_, err := b.db.System.Exec(b.sys(), `UPDATE contacts SET participation = 'organizer' WHERE id = $1`, w.alan)
		require.NoError(t, err)
		for _, ids := range [][]string{{}, {w.outsider, w.alan, "ctc_unknown", "not an id"}} {
			r := b.do(http.MethodPost, url, b.acme, campaignBody("Hi", "Hello", ids...))
			b.requireError(r, http.StatusBadRequest, "invalid_input")
			require.Equal(t, "Choose at least one recipient", r.ErrMessage())
		}
		r := b.do(http.MethodPost, url, b.acme, map[string]any{"templateId": nil, "subject": "Hi", "body": "Hello",
			"contactIds": []any{}, "audience": map[string]any{"workflowStatuses": []any{"ready"}}})
		b.requireError(r, http.StatusBadRequest, "invalid_input")
		nothingWritten()
	})
	t.Run("Shape", func(t *testing.T) {
		b.requireError(b.do(http.MethodPost, url, b.acme, map[string]any{"subject": "Hi", "body": "Hello",
			"contactIds": []any{w.ada}}), http.StatusBadRequest, "invalid_body")
		b.requireError(b.do(http.MethodPost, url, b.acme, map[string]any{"templateId": nil, "subject": "Hi",
			"body": "Hello"}), http.StatusBadRequest, "invalid_body")
		b.requireError(b.do(http.MethodPost, url, b.acme, map[string]any{"templateId": nil, "subject": "Hi", "body": "Hello",
			"contactIds": []any{}, "audience": map[string]any{"workflowStatuses": []any{"asleep"}}}), http.StatusBadRequest, "invalid_body")
		nothingWritten()
	})
	t.Run("TooLong", func(t *testing.T) {
		b.requireError(b.do(http.MethodPost, url, b.acme, campaignBody(strings.Repeat("s", 501), "Hello", w.ada)),
			http.StatusBadRequest, "invalid_input")
		b.requireError(b.do(http.MethodPost, url, b.acme, campaignBody("Hi", strings.Repeat("b", 50001), w.ada)),
			http.StatusBadRequest, "invalid_input")
		// Control characters, and a line break in the subject, as in any typed text.
		for _, bad := range [][2]string{{"Hi\x01", "Hello"}, {"Hi\nBcc: x", "Hello"}, {"Hi", "Hello\x1b[2J"}} {
			b.requireError(b.do(http.MethodPost, url, b.acme, campaignBody(bad[0], bad[1], w.ada)),
				http.StatusBadRequest, "invalid_input")
		}
		// A subject that only grows too long once merged for one speaker refuses the whole campaign.
		long := b.speaker(w.base, strings.Repeat("L", 200), strings.Repeat("N", 200), "long@example.test")
		r := b.do(http.MethodPost, url, b.acme, campaignBody(strings.Repeat("{speaker_name}", 3), "Hello", w.ada, long))
		b.requireError(r, http.StatusBadRequest, "invalid_input")
		nothingWritten()
	})
	t.Run("OtherOrganization", func(t *testing.T) {
		b.requireError(b.do(http.MethodPost, url, b.globex, campaignBody("Hi", "Hello", w.ada)), http.StatusForbidden, "forbidden")
		b.requireError(b.do(http.MethodGet, w.base+"/communications", b.globex, nil), http.StatusForbidden, "forbidden")
		nothingWritten()
	})
	t.Run("ByWorkflowStatus", func(t *testing.T) {
		b.must(http.StatusOK, http.MethodPatch, w.base+"/speakers/"+w.grace+"/workflow", b.acme, map[string]any{"status": "confirmed"})
		r := b.must(http.StatusCreated, http.MethodPost, url, b.acme, map[string]any{"templateId": "tpl_web", "subject": "Hi",
			"body": "Hello", "contactIds": []any{w.grace, w.ada}, "audience": map[string]any{"workflowStatuses": []any{"confirmed"}}}).Obj()
		require.EqualValues(t, 2, num(t, r, "sent"), "grace is named twice and mailed once")
		campaign := r["campaign"].(map[string]any)
		require.Equal(t, "tpl_web", campaign["templateId"])
		require.Equal(t, map[string]any{"workflowStatuses": []any{"confirmed"}}, campaign["recipientFilter"])
		r = b.must(http.StatusCreated, http.MethodPost, url, b.acme, map[string]any{"templateId": nil, "subject": "Hi",
			"body": "Hello", "contactIds": []any{}, "audience": map[string]any{"workflowStatuses": []any{"confirmed", "ready"}}}).Obj()
		require.EqualValues(t, 1, num(t, r, "sent"))
		require.Equal(t, 3, b.count(`SELECT count(*) FROM email_log WHERE template = 'campaign'`))
		require.Equal(t, 3, b.count(`SELECT count(*) FROM email_campaign_recipients`))
		require.Len(t, b.communications(w)["campaigns"], 2)
	})
	t.Run("GraphQL", func(t *testing.T) {
		const send = `mutation($e: ID!, $in: SendCampaignInput!) { sendCampaign(eventId: $e, input: $in) { sent campaign { id status } } }`
		r := b.gql(b.acme, send, map[string]any{"e": w.event, "in": campaignBody("Hi", " ", w.ada)})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
		data := b.gqlOK(b.acme, send, map[string]any{"e": w.event, "in": campaignBody("Hi", "Hello", w.ada)})
		require.EqualValues(t, 1, data["sendCampaign"].(map[string]any)["sent"])
		view := b.gqlOK(b.acme, `query($e: ID!) { communications(eventId: $e) { eventSlug campaigns { recipients { email } } } }`,
			map[string]any{"e": w.event})["communications"].(map[string]any)
		require.Len(t, view["campaigns"], 3)
	})
}

// TestCampaignStatements: sending to 1 speaker and to 200 runs the same number of SQL statements,
// and so does reading the view with 1 campaign recipient or 200.
func TestCampaignStatements(t *testing.T) {
	t.Parallel()
	b := setup(t)
	queries := func(w world, ids []string) (send, read int) {
		r := b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, campaignBody("Hi {talk_title}", "Hello", ids...))
		send, err := strconv.Atoi(r.Header.Get(rest.QueryCountHeader))
		require.NoError(t, err)
		r = b.must(http.StatusOK, http.MethodGet, w.base+"/communications", b.acme, nil)
		read, err = strconv.Atoi(r.Header.Get(rest.QueryCountHeader))
		require.NoError(t, err)
		return send, read
	}
	small, large := b.world(), b.world()
	var many []string
	for i := range 200 {
		many = append(many, b.speaker(large.base, "S", fmt.Sprint(i), fmt.Sprintf("s%d@example.test", i)))
	}
	// The first campaign of a bundle runs one statement more than later ones: warm up first.
	queries(small, []string{small.alan})
	send1, read1 := queries(small, []string{small.ada})
	send200, read200 := queries(large, many)
	t.Logf("send %d/%d read %d/%d", send1, send200, read1, read200)
	require.Equal(t, send1, send200)
	require.Equal(t, read1, read200)
	t.Logf("send: %d statements, read: %d", send1, read1)
}
