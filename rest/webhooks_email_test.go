package rest_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
)

// webhookMailBundle is a bundle whose workers deliver both email, to an in-process SMTP sink,
// and webhooks, to loopback, with the operation layer told of disabled endpoints.
func webhookMailBundle(t *testing.T, cfg jobs.WebhookConfig) *testBundle {
	b := setup(t)
	b.sink = mailtest.New(t, mailtest.Options{})
	sender, err := jobs.NewSMTPSender(b.sink.URL(), "Podium <podium@example.test>", jobs.SMTPOptions{})
	require.NoError(t, err)
	t.Cleanup(sender.Close)
	b.startWorkers(jobs.Config{Sender: sender, EmailWorkers: 2, Webhooks: b.loopbackWebhooks(cfg), Notifier: b.res.Ops,
		RetryPolicy: immediateRetry{}})
	return b
}

func TestWebhookEmailFailed(t *testing.T) {
	t.Parallel()
	b := webhookMailBundle(t, jobs.WebhookConfig{})
	rc := newReceiver(t)
	_, secret := b.createWebhook(b.acme, rc.srv.URL, "email.failed")
	rc.set(0, secret)
	w := b.world()
	s := b.createSession(w, "Keynote", w.ada)
	path := w.base + "/sessions/" + str(s, "id")

	// A temporary refusal is retried and the email delivered: nothing to report.
	b.sink.FailNext(1, 451)
	b.must(http.StatusOK, http.MethodPost, path+"/cancel", b.acme, map[string]any{"cause": "organizer", "message": "Sorry"})
	b.sink.Wait(t, 1, 10*time.Second)
	// A permanent refusal fails the email for good, and email.failed reports it.
	b.sink.FailNext(1, 550)
	b.must(http.StatusOK, http.MethodPost, path+"/reinstate", b.acme, map[string]any{})
	require.Eventually(t, func() bool { return len(rc.types()) == 1 }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, []string{"email.failed"}, rc.types())
	rc.mu.Lock()
	got := rc.got[0]
	rc.mu.Unlock()
	var emailID, emailType string
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT id, type FROM email_log WHERE status = 'failed'`).Scan(&emailID, &emailType))
	require.Equal(t, emailID, got.Data["emailId"])
	require.Equal(t, emailType, got.Data["type"])
	require.Equal(t, w.event, got.Data["eventId"])
	require.Equal(t, "ada@example.test", got.Data["recipient"])
	require.Contains(t, got.Data["error"], "550")
	require.EqualValues(t, 1, got.Data["attempts"])
	require.Equal(t, 1, b.count(`SELECT count(*) FROM email_log WHERE status = 'sent'`))
	// Exactly one message: the failure is recorded once, with its event.
	require.Equal(t, 1, b.count(`SELECT count(*) FROM webhook_messages WHERE event_type = 'email.failed'`))
}

func TestWebhookDisabledEmailsTheAdmins(t *testing.T) {
	t.Parallel()
	b := webhookMailBundle(t, jobs.WebhookConfig{DisableAfter: time.Nanosecond})
	b.addMember(b.acmeOrg, "owner@acme.test", organizationmember.RoleOwner)
	b.addMember(b.acmeOrg, "admin@acme.test", organizationmember.RoleAdmin)
	b.addMember(b.acmeOrg, "member@acme.test", organizationmember.RoleMember)
	b.addMember(b.globexOrg, "admin@globex.test", organizationmember.RoleAdmin)
	rc := newReceiver(t)
	id, _ := b.createWebhook(b.acme, rc.srv.URL, "session.created")
	rc.set(http.StatusInternalServerError)
	w := b.world()
	b.createSession(w, "Keynote", w.ada)
	require.Eventually(t, func() bool {
		return b.must(http.StatusOK, http.MethodGet, "/api/v1/webhooks/"+id, b.acme, nil).Obj()["enabled"] == false
	}, 10*time.Second, 20*time.Millisecond)

	msgs := b.sink.Wait(t, 2, 10*time.Second)
	var to []string
	for _, m := range msgs {
		to = append(to, m.To...)
		require.Contains(t, m.Header.Get("Subject"), "disabled a webhook endpoint")
		require.Contains(t, m.Text, rc.srv.URL)
		require.Contains(t, m.Text, "500")
		require.Contains(t, m.Text, "/webhooks/"+id+"?organization="+b.acmeOrg)
	}
	slices.Sort(to)
	require.Equal(t, []string{"admin@acme.test", "owner@acme.test"}, to)

	// The endpoint is disabled once: the deliveries failing after it tell no one again.
	b.createSession(w, "Another", w.ada)
	time.Sleep(500 * time.Millisecond)
	require.Len(t, b.sink.Messages(), 2)
	require.Equal(t, 2, b.count(`SELECT count(*) FROM email_log WHERE template = 'webhook_disabled'`))

	// The link opens the endpoint's page for its owners and admins, signed in; a member and
	// someone signed out do not see it.
	page := "/webhooks/" + id + "?organization=" + b.acmeOrg
	code, body := b.openPage(page, b.signIn("admin@acme.test"))
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, rc.srv.URL)
	require.Contains(t, body, "disabled")
	code, body = b.openPage(page, b.signIn("member@acme.test"))
	require.Equal(t, http.StatusNotFound, code)
	require.NotContains(t, body, rc.srv.URL)
	code, _ = b.openPage(page, "")
	require.Equal(t, http.StatusSeeOther, code)
}
