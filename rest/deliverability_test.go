package rest_test

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
)

// hookSecret is the mail provider's bearer secret in these tests.
const hookSecret = "provider-secret-for-tests"

// deliverBundle is a bundle whose workers deliver email to an in-process SMTP sink, with
// unsubscribe links, and webhooks to loopback; the email hooks take hookSecret.
func deliverBundle(t *testing.T) *testBundle {
	t.Helper()
	b := setup(t)
	b.sink = mailtest.New(t, mailtest.Options{})
	sender, err := jobs.NewSMTPSender(b.sink.URL(), "Podium <podium@example.test>", jobs.SMTPOptions{})
	require.NoError(t, err)
	t.Cleanup(sender.Close)
	b.res.Ops.EmailHookSecret = hookSecret
	b.startWorkers(jobs.Config{Sender: sender, EmailWorkers: 2, Webhooks: b.loopbackWebhooks(jobs.WebhookConfig{}),
		RetryPolicy: immediateRetry{}, Unsubscribe: &jobs.Unsubscribe{PublicURL: "https://podium.example.test"}})
	return b
}

// raw serves a request that is not JSON (a page, a form, a mail client's POST), with no cookie
// and no key unless the header says so.
func (b *testBundle) raw(method, path, contentType, body string, header ...string) *httptest.ResponseRecorder {
	b.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, req)
	return rec
}

// messageTo waits for the sink's message to address, among the first n.
func (b *testBundle) messageTo(n int, address string) mailtest.Message {
	b.t.Helper()
	for _, m := range b.sink.Wait(b.t, n, 10*time.Second) {
		if m.To[0] == address {
			return m
		}
	}
	b.t.Fatalf("no message to %s", address)
	return mailtest.Message{}
}

// unsubscribeLink reads a message's List-Unsubscribe header as a mail client does: the path of
// its https URL.
func unsubscribeLink(t *testing.T, m mailtest.Message) string {
	t.Helper()
	h := m.Header.Get("List-Unsubscribe")
	require.True(t, strings.HasPrefix(h, "<https://podium.example.test/unsubscribe/") && strings.HasSuffix(h, ">"), h)
	require.Equal(t, "List-Unsubscribe=One-Click", m.Header.Get("List-Unsubscribe-Post"))
	u, err := url.Parse(strings.Trim(h, "<>"))
	require.NoError(t, err)
	return u.Path
}

// emailStatus is the status and error of the email log's newest row to address.
func (b *testBundle) emailStatus(address string) (status, errText string) {
	b.t.Helper()
	var e *string
	require.NoError(b.t, b.db.System.QueryRow(b.sys(), `SELECT status, error FROM email_log WHERE recipient = $1
		ORDER BY created_at DESC, id DESC LIMIT 1`, address).Scan(&status, &e))
	if e != nil {
		errText = *e
	}
	return status, errText
}

// waitEmail waits until the newest email to address has the status.
func (b *testBundle) waitEmail(address, status string) string {
	b.t.Helper()
	var got, errText string
	require.Eventually(b.t, func() bool {
		got, errText = b.emailStatus(address)
		return got == status
	}, 10*time.Second, 20*time.Millisecond, "email to %s", address)
	return errText
}

// TestUnsubscribeOneClick: a mail client reads List-Unsubscribe and List-Unsubscribe-Post from a
// campaign email and POSTs List-Unsubscribe=One-Click, without cookies: 200, and the next
// campaign skips the address while a transactional email still reaches it. Opening the link
// changes nothing.
func TestUnsubscribeOneClick(t *testing.T) {
	t.Parallel()
	b := deliverBundle(t)
	rc := newReceiver(t)
	_, secret := b.createWebhook(b.acme, rc.srv.URL, "email.suppressed")
	rc.set(0, secret)
	w := b.world()
	b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, campaignBody("News", "Hello", w.ada, w.grace))
	ada := b.messageTo(2, "ada@example.test")
	link := unsubscribeLink(t, ada)
	require.Contains(t, ada.Text, "https://podium.example.test"+link, "the text footer shows the link")
	require.Contains(t, ada.HTML, `href="https://podium.example.test`+link+`"`, "the HTML footer links it")
	require.NotEqual(t, link, unsubscribeLink(t, b.messageTo(2, "grace@example.test")), "one link per recipient")
	// Transactional mail carries no unsubscribe header.
	s := b.createSession(w, "Keynote", w.ada)
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+str(s, "id")+"/cancel", b.acme,
		map[string]any{"cause": "organizer", "message": "Sorry"})
	for _, m := range b.sink.Wait(t, 3, 10*time.Second) {
		if m.Header.Get("Subject") != "News" {
			require.Empty(t, m.Header.Get("List-Unsubscribe"))
		}
	}

	t.Run("GetDoesNotUnsubscribe", func(t *testing.T) {
		page := b.raw(http.MethodGet, link, "", "")
		require.Equal(t, http.StatusOK, page.Code)
		require.Contains(t, page.Body.String(), "ada@example.test")
		require.Contains(t, page.Body.String(), `<button id="unsubscribe" type="submit">Unsubscribe</button>`)
		require.Equal(t, 0, b.count(`SELECT count(*) FROM email_suppressions`))
	})

	t.Run("OneClickPost", func(t *testing.T) {
		res := b.raw(http.MethodPost, link, "application/x-www-form-urlencoded", "List-Unsubscribe=One-Click")
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		require.Contains(t, res.Body.String(), `role="status"`)
		require.Equal(t, 1, b.count(`SELECT count(*) FROM email_suppressions WHERE organization_id = $1
			AND address = 'ada@example.test' AND reason = 'unsubscribe'`, b.acmeOrg))
		// Again: still 200, still one row, one webhook.
		require.Equal(t, http.StatusOK, b.raw(http.MethodPost, link, "application/x-www-form-urlencoded", "List-Unsubscribe=One-Click").Code)
		require.Equal(t, 1, b.count(`SELECT count(*) FROM email_suppressions`))
		require.Eventually(t, func() bool { return len(rc.types()) == 1 }, 10*time.Second, 20*time.Millisecond)
		rc.mu.Lock()
		got := rc.got[0]
		rc.mu.Unlock()
		require.Equal(t, "email.suppressed", got.Type)
		require.Equal(t, "ada@example.test", got.Data["address"])
		require.Equal(t, "unsubscribe", got.Data["reason"])
	})

	t.Run("NextCampaignSkipsTheAddress", func(t *testing.T) {
		b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, campaignBody("More news", "Hello", w.ada, w.grace))
		b.waitEmail("grace@example.test", "sent")
		require.Equal(t, "suppressed", b.waitEmail("ada@example.test", "failed"))
		for _, m := range b.sink.Messages() {
			require.False(t, m.To[0] == "ada@example.test" && m.Header.Get("Subject") == "More news")
		}
		// A transactional email still goes.
		before := len(b.sink.Messages())
		b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+str(s, "id")+"/reinstate", b.acme, map[string]any{})
		m := b.sink.Wait(t, before+1, 10*time.Second)[before]
		require.Equal(t, "ada@example.test", m.To[0])
	})
}

// TestUnsubscribeAttacks: a token names one organization and one address and is signed; altered,
// it is refused, and an organization's list shows only its own suppressions.
func TestUnsubscribeAttacks(t *testing.T) {
	t.Parallel()
	b := deliverBundle(t)
	w := b.world()
	b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, campaignBody("News", "Hello", w.ada))
	link := unsubscribeLink(t, b.messageTo(1, "ada@example.test"))
	token := strings.TrimPrefix(link, "/unsubscribe/")
	payload, mac, ok := strings.Cut(token, ".")
	require.True(t, ok)

	t.Run("OtherOrganization", func(t *testing.T) {
		// The same address and signature, naming Globex instead of Acme.
		forged := b64(b.globexOrg+"\x00ada@example.test") + "." + mac
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			require.Equal(t, http.StatusNotFound, b.raw(method, "/unsubscribe/"+forged, "application/x-www-form-urlencoded",
				"List-Unsubscribe=One-Click").Code)
		}
		require.Equal(t, 0, b.count(`SELECT count(*) FROM email_suppressions`))
	})
	t.Run("AlteredToken", func(t *testing.T) {
		for _, bad := range []string{
			b64(b.acmeOrg+"\x00grace@example.test") + "." + mac, // another address
			payload + "." + flip(mac),                           // another signature
			payload, "", "x.y", token + "x",
		} {
			res := b.raw(http.MethodPost, "/unsubscribe/"+bad, "application/x-www-form-urlencoded", "List-Unsubscribe=One-Click")
			require.Contains(t, []int{http.StatusNotFound, http.StatusMethodNotAllowed}, res.Code, bad)
		}
		require.Equal(t, 0, b.count(`SELECT count(*) FROM email_suppressions`))
	})
	t.Run("ListsAreWalled", func(t *testing.T) {
		require.Equal(t, http.StatusOK, b.raw(http.MethodPost, link, "", "").Code)
		q := `{ emailSuppressions { totalCount nodes { address reason } nextCursor } }`
		acme := b.gqlOK(b.acme, q, nil)["emailSuppressions"].(map[string]any)
		require.EqualValues(t, 1, acme["totalCount"])
		require.Equal(t, []any{map[string]any{"address": "ada@example.test", "reason": "unsubscribe"}}, acme["nodes"])
		globex := b.gqlOK(b.globex, q, nil)["emailSuppressions"].(map[string]any)
		require.EqualValues(t, 0, globex["totalCount"])
		require.Empty(t, globex["nodes"])
		// Globex cannot remove Acme's row either.
		remove := `mutation($a: String!) { removeEmailSuppression(address: $a) }`
		require.Equal(t, false, b.gqlOK(b.globex, remove, map[string]any{"a": "ada@example.test"})["removeEmailSuppression"])
		require.Equal(t, 1, b.count(`SELECT count(*) FROM email_suppressions`))
	})
}

// TestEmailSuppressionsGraphQL: organizers add, page through and remove suppressions; bad input
// is invalid_input and writes nothing.
func TestEmailSuppressionsGraphQL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	add := `mutation($in: AddEmailSuppressionInput!) { addEmailSuppression(input: $in) { id address reason detail } }`
	for _, a := range []string{"C@Example.test", "a@example.test", "b@example.test"} {
		got := b.gqlOK(b.acme, add, map[string]any{"in": map[string]any{"address": a, "detail": "asked by phone"}})["addEmailSuppression"].(map[string]any)
		require.Equal(t, strings.ToLower(a), got["address"])
		require.Equal(t, "manual", got["reason"])
		require.Equal(t, "asked by phone", got["detail"])
	}
	// Adding again answers the row there.
	b.gqlOK(b.acme, add, map[string]any{"in": map[string]any{"address": "c@example.test"}})
	require.Equal(t, 3, b.count(`SELECT count(*) FROM email_suppressions`))
	for _, bad := range []string{"", "not an address", "Ada <ada@example.test>"} {
		r := b.gql(b.acme, add, map[string]any{"in": map[string]any{"address": bad}})
		require.Len(t, r.Errors, 1, r.Raw)
		require.Equal(t, "invalid_input", r.Errors[0].Extensions["code"])
	}
	q := `query($after: String) { emailSuppressions(first: 2, after: $after) { totalCount nextCursor nodes { address } } }`
	p1 := b.gqlOK(b.acme, q, nil)["emailSuppressions"].(map[string]any)
	require.EqualValues(t, 3, p1["totalCount"])
	require.Equal(t, []any{map[string]any{"address": "a@example.test"}, map[string]any{"address": "b@example.test"}}, p1["nodes"])
	p2 := b.gqlOK(b.acme, q, map[string]any{"after": p1["nextCursor"]})["emailSuppressions"].(map[string]any)
	require.Equal(t, []any{map[string]any{"address": "c@example.test"}}, p2["nodes"])
	require.Nil(t, p2["nextCursor"])
	r := b.gql(b.acme, `{ emailSuppressions(first: 0) { totalCount } }`, nil)
	require.Equal(t, "invalid_input", r.Errors[0].Extensions["code"])

	remove := `mutation($a: String!) { removeEmailSuppression(address: $a) }`
	require.Equal(t, true, b.gqlOK(b.acme, remove, map[string]any{"a": "B@example.test"})["removeEmailSuppression"])
	require.Equal(t, false, b.gqlOK(b.acme, remove, map[string]any{"a": "b@example.test"})["removeEmailSuppression"])
	require.Equal(t, 2, b.count(`SELECT count(*) FROM email_suppressions`))
}

// TestBounces: a bounce reported by the provider, a delivery-status notification and the relay's
// 5xx each suppress the address for the organization's campaigns and emit email.suppressed; the
// hook refuses a missing or wrong secret and an email that did not go to the address.
func TestBounces(t *testing.T) {
	t.Parallel()
	b := deliverBundle(t)
	rc := newReceiver(t)
	_, secret := b.createWebhook(b.acme, rc.srv.URL, "email.suppressed")
	rc.set(0, secret)
	w := b.world()
	b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, campaignBody("News", "Hello", w.ada, w.grace))
	ada, grace := b.messageTo(2, "ada@example.test"), b.messageTo(2, "grace@example.test")
	adaID, graceID := ada.Header.Get("Message-Id"), grace.Header.Get("Message-Id")
	require.NotEmpty(t, adaID)
	event := func(email, id string) string {
		return `{"type":"bounce","email":"` + email + `","messageId":"` + id + `","reason":"550 5.1.1 mailbox unknown"}`
	}

	t.Run("HookRefusesWithoutTheSecret", func(t *testing.T) {
		require.Equal(t, http.StatusUnauthorized, b.raw(http.MethodPost, "/hooks/email-events", "application/json", event("ada@example.test", adaID)).Code)
		require.Equal(t, http.StatusUnauthorized, b.raw(http.MethodPost, "/hooks/email-events", "application/json",
			event("ada@example.test", adaID), "Authorization", "Bearer wrong").Code)
		// An API key is not the hook's secret.
		require.Equal(t, http.StatusUnauthorized, b.raw(http.MethodPost, "/hooks/email-events", "application/json",
			event("ada@example.test", adaID), "Authorization", "Bearer "+b.acme).Code)
		// A message that did not go to the address marks nothing.
		res := b.raw(http.MethodPost, "/hooks/email-events", "application/json", event("alan@example.test", adaID),
			"Authorization", "Bearer "+hookSecret)
		require.Equal(t, http.StatusNotFound, res.Code, res.Body.String())
		res = b.raw(http.MethodPost, "/hooks/email-events", "application/json", `{"type":"bounce","email":"ada@example.test"}`,
			"Authorization", "Bearer "+hookSecret)
		require.Equal(t, http.StatusBadRequest, res.Code, res.Body.String())
		require.Equal(t, 0, b.count(`SELECT count(*) FROM email_suppressions`))
	})

	t.Run("ProviderReport", func(t *testing.T) {
		res := b.raw(http.MethodPost, "/hooks/email-events", "application/json", event("ADA@example.test", adaID),
			"Authorization", "Bearer "+hookSecret)
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		require.Equal(t, 1, b.count(`SELECT count(*) FROM email_suppressions WHERE organization_id = $1
			AND address = 'ada@example.test' AND reason = 'bounce' AND detail = '550 5.1.1 mailbox unknown'`, b.acmeOrg))
	})

	t.Run("DeliveryStatusNotification", func(t *testing.T) {
		res := b.raw(http.MethodPost, "/hooks/email-dsn", "message/rfc822", dsn("grace@example.test", graceID),
			"Authorization", "Bearer "+hookSecret)
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		require.Equal(t, 1, b.count(`SELECT count(*) FROM email_suppressions WHERE organization_id = $1
			AND address = 'grace@example.test' AND reason = 'bounce'`, b.acmeOrg))
		// Not a notification: 400.
		res = b.raw(http.MethodPost, "/hooks/email-dsn", "message/rfc822", "Subject: hi\r\n\r\nhello\r\n",
			"Authorization", "Bearer "+hookSecret)
		require.Equal(t, http.StatusBadRequest, res.Code, res.Body.String())
	})

	t.Run("RelayRefusal", func(t *testing.T) {
		n := len(b.sink.Messages())
		b.sink.FailNext(1, 550)
		b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, campaignBody("Alan only", "Hello", w.alan))
		require.Contains(t, b.waitEmail("alan@example.test", "failed"), "550")
		require.Equal(t, 1, b.count(`SELECT count(*) FROM email_suppressions WHERE organization_id = $1
			AND address = 'alan@example.test' AND reason = 'bounce'`, b.acmeOrg))
		require.Len(t, b.sink.Messages(), n)
	})

	t.Run("CampaignsStop", func(t *testing.T) {
		n := len(b.sink.Messages())
		b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, campaignBody("Again", "Hello", w.ada, w.grace, w.alan))
		for _, a := range []string{"ada@example.test", "grace@example.test", "alan@example.test"} {
			require.Equal(t, "suppressed", b.waitEmail(a, "failed"))
		}
		require.Len(t, b.sink.Messages(), n)
		require.Eventually(t, func() bool { return len(rc.types()) == 3 }, 10*time.Second, 20*time.Millisecond)
		require.Equal(t, []string{"email.suppressed", "email.suppressed", "email.suppressed"}, rc.types())
	})

	t.Run("OtherOrganizationsUnaffected", func(t *testing.T) {
		require.EqualValues(t, 0, b.gqlOK(b.globex, `{ emailSuppressions { totalCount } }`, nil)["emailSuppressions"].(map[string]any)["totalCount"])
	})
}

// TestReplyTo: the Sink sees the campaign's Reply-To when it names one, else the event's, else
// none.
func TestReplyTo(t *testing.T) {
	t.Parallel()
	b := deliverBundle(t)
	w := b.world()
	send := func(subject string, replyTo any) mailtest.Message {
		body := campaignBody(subject, "Hello", w.ada)
		if replyTo != nil {
			body["replyTo"] = replyTo
		}
		r := b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme, body).Obj()
		require.Equal(t, replyTo, r["campaign"].(map[string]any)["replyTo"])
		n := len(b.sink.Messages())
		return b.sink.Wait(t, n+1, 10*time.Second)[n]
	}
	require.Empty(t, send("None", nil).Header.Get("Reply-To"))
	ev := b.must(http.StatusOK, http.MethodPatch, w.base, b.acme, map[string]any{"replyToEmail": "team@world.test"}).Obj()
	require.Equal(t, "team@world.test", ev["replyToEmail"])
	require.Equal(t, "<team@world.test>", send("Event's", nil).Header.Get("Reply-To"))
	require.Equal(t, "<cfp@world.test>", send("Campaign's", "cfp@world.test").Header.Get("Reply-To"))
	// GraphQL sets it too; null clears it.
	b.gqlOK(b.acme, `mutation($id: ID!) { updateEvent(id: $id, input: {replyToEmail: null}) { replyToEmail } }`,
		map[string]any{"id": w.event})
	require.Empty(t, send("Cleared", nil).Header.Get("Reply-To"))
	// Bad addresses are refused, with nothing written.
	r := b.do(http.MethodPatch, w.base, b.acme, map[string]any{"replyToEmail": "not an address"})
	require.Equal(t, http.StatusBadRequest, r.Status, r.Raw)
	body := campaignBody("Bad", "Hello", w.ada)
	body["replyTo"] = "Team <team@world.test>"
	r = b.do(http.MethodPost, w.base+"/campaigns", b.acme, body)
	require.Equal(t, http.StatusBadRequest, r.Status, r.Raw)
	require.Equal(t, 4, b.count(`SELECT count(*) FROM email_campaigns`))
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func flip(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

// dsn is a delivery-status notification (RFC 3464) saying the message messageID could not be
// delivered to rcpt.
func dsn(rcpt, messageID string) string {
	return strings.ReplaceAll(`From: MAILER-DAEMON@relay.test
To: podium@example.test
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="BOUND"

--BOUND
Content-Type: text/plain

This is the mail system at host relay.test. Your message could not be delivered.

--BOUND
Content-Type: message/delivery-status

Reporting-MTA: dns; relay.test
Arrival-Date: Fri, 27 Nov 2026 10:00:00 +0000

Final-Recipient: rfc822; `+rcpt+`
Original-Recipient: rfc822;`+rcpt+`
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <`+rcpt+`>: Recipient address rejected

--BOUND
Content-Type: text/rfc822-headers

From: Podium <podium@example.test>
To: `+rcpt+`
Subject: News
Message-ID: `+messageID+`

--BOUND--
`, "\n", "\r\n")
}
