package rest_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/access/secret"
	"github.com/podium/podium/jobs/mailtest"
)

const (
	emailTemplatesDoc = `query($e: ID!) { emailTemplates(eventId: $e) { template subject body placeholders customized updatedBy } }`
	saveWordingDoc    = `mutation($e: ID!, $in: SaveEmailTemplateInput!) { saveEmailTemplate(eventId: $e, input: $in) { template subject body customized updatedBy } }`
	resetWordingDoc   = `mutation($e: ID!, $t: String!) { resetEmailTemplate(eventId: $e, template: $t) { template subject body customized } }`
	previewDoc        = `query($e: ID!, $t: String!, $s: String, $b: String) { emailTemplatePreview(eventId: $e, template: $t, subject: $s, body: $b) { subject text html } }`
	revokeAccessDoc   = `mutation($c: ID!) { revokeContactAccess(contactId: $c) }`
)

// accessLink is a contact's access link in an email as sent.
var accessLink = regexp.MustCompile(`/portal/access/([A-Za-z0-9_-]{43})`)

// TestEmailTemplatesOtherOrganization: another organization can neither read, save, reset nor
// preview an event's wording, nor revoke its contacts' access; nothing is written.
func TestEmailTemplatesOtherOrganization(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	vars := map[string]any{"e": w.event, "t": "session_accepted", "s": "Hi", "b": "Body",
		"in": map[string]any{"template": "session_accepted", "subject": "Hi", "body": "Body"}, "c": w.ada}
	for name, doc := range map[string]string{"list": emailTemplatesDoc, "save": saveWordingDoc,
		"reset": resetWordingDoc, "preview": previewDoc} {
		r := b.gql(b.globex, doc, vars)
		require.Equal(t, []string{"forbidden"}, r.Codes(), "%s: %s", name, r.Raw)
	}
	r := b.gql(b.globex, revokeAccessDoc, vars)
	require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
	require.Zero(t, b.count(`SELECT count(*) FROM email_templates`))
}

// TestEmailTemplateWording: the list shows Podium's wording with its placeholders; a placeholder
// the email does not take is refused on save, naming it; a saved wording shows in the list and
// the preview; reset brings Podium's back.
func TestEmailTemplateWording(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	list := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, t := range b.gqlOK(b.acme, emailTemplatesDoc, map[string]any{"e": w.event})["emailTemplates"].([]any) {
			out[t.(map[string]any)["template"].(string)] = t.(map[string]any)
		}
		return out
	}
	before := list()
	accepted := before["session_accepted"]
	require.NotContains(t, before, "sign_in")
	require.NotContains(t, before, "webhook_disabled")
	require.Equal(t, false, accepted["customized"])
	require.Equal(t, "Your proposal for {{eventName}} was accepted", accepted["subject"])
	require.Contains(t, accepted["body"], "Hi {{firstName}},")
	require.Contains(t, accepted["body"], "{{link}}")
	require.Contains(t, accepted["placeholders"], "sessionTitle")

	r := b.gql(b.acme, saveWordingDoc, map[string]any{"e": w.event, "in": map[string]any{
		"template": "session_accepted", "subject": "Yes, {{firstName}}", "body": "Dear {{ lastName }}"}})
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	require.Contains(t, r.Errors[0].Message, "{{lastName}}")
	r = b.gql(b.acme, saveWordingDoc, map[string]any{"e": w.event, "in": map[string]any{
		"template": "sign_in", "subject": "Hi", "body": "Body"}})
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	r = b.gql(b.acme, previewDoc, map[string]any{"e": w.event, "t": "session_accepted", "s": "Hi {{when}}", "b": "x"})
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	r = b.gql(b.acme, saveWordingDoc, map[string]any{"e": w.event, "in": map[string]any{
		"template": "session_accepted", "subject": " ", "body": "x"}})
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	r = b.gql(b.acme, saveWordingDoc, map[string]any{"e": w.event, "in": map[string]any{
		"template": "session_accepted", "subject": "Hi", "body": strings.Repeat("x", 20001)}})
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	require.Zero(t, b.count(`SELECT count(*) FROM email_templates`))

	saved := b.gqlOK(b.acme, saveWordingDoc, map[string]any{"e": w.event, "in": map[string]any{
		"template": "session_accepted", "subject": "Yes, {{firstName}}", "body": "Dear {{ firstName }},\n\n<b>{{sessionTitle}}</b> is in.\nSee {{link}}."}})["saveEmailTemplate"].(map[string]any)
	require.Equal(t, true, saved["customized"])
	require.Equal(t, "API key: test", saved["updatedBy"])
	require.Equal(t, "Yes, {{firstName}}", list()["session_accepted"]["subject"])

	p := b.gqlOK(b.acme, previewDoc, map[string]any{"e": w.event, "t": "session_accepted"})["emailTemplatePreview"].(map[string]any)
	require.Equal(t, "Yes, Ada", p["subject"])
	require.True(t, strings.HasPrefix(p["text"].(string), "Dear Ada,\n\n<b>The Analytical Engine</b> is in.\nSee https://podium.example.test/portal.\n"), p["text"])
	require.Contains(t, p["html"], `<p>Dear Ada,</p>`)
	require.Contains(t, p["html"], `&lt;b&gt;The Analytical Engine&lt;/b&gt; is in.<br>`)
	require.Contains(t, p["html"], `<a href="https://podium.example.test/portal">https://podium.example.test/portal</a>.`)
	require.Contains(t, p["html"], `/portal/access/`+secret.AccessPlaceholder)
	// An unsaved wording previews without being saved.
	p = b.gqlOK(b.acme, previewDoc, map[string]any{"e": w.event, "t": "session_accepted", "s": "Draft {{eventName}}", "b": "x"})["emailTemplatePreview"].(map[string]any)
	require.Equal(t, "Draft World", p["subject"])
	require.Equal(t, "Yes, {{firstName}}", list()["session_accepted"]["subject"])

	reset := b.gqlOK(b.acme, resetWordingDoc, map[string]any{"e": w.event, "t": "session_accepted"})["resetEmailTemplate"].(map[string]any)
	require.Equal(t, false, reset["customized"])
	require.Equal(t, accepted["subject"], reset["subject"])
	require.Equal(t, accepted["body"], reset["body"])
	require.Equal(t, accepted, list()["session_accepted"])
}

// acceptedMail accepts a new session of the speaker and waits for the email it sends them.
func (b *testBundle) acceptedMail(w world, title, speaker, addr string) mailtest.Message {
	b.t.Helper()
	id := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{
		"title": title, "description": "d", "formatId": w.format, "trackIds": []any{w.track1}, "speakerIds": []any{speaker}}).Obj(), "id")
	n := len(b.sink.Messages())
	b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme,
		map[string]any{"submissionIds": []any{id}, "decision": "accept", "feedback": ""})
	msgs := b.sink.Wait(b.t, n+1, 15*time.Second)
	for _, m := range msgs[n:] {
		if len(m.To) == 1 && m.To[0] == addr {
			return m
		}
	}
	b.t.Fatalf("no email to %s", addr)
	return mailtest.Message{}
}

// TestEmailTemplateReachesTheSink: an event's wording and brand reach the email delivered
// byte for byte as the preview shows them (subject, text, HTML), the access link's token put in
// place of its placeholder.
func TestEmailTemplateReachesTheSink(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	_, err := b.db.System.Exec(b.sys(), `UPDATE events SET theme = $2, logo_url = $3 WHERE id = $1`, w.event,
		`{"mode":"light","primaryColor":"#7c2d12"}`, "https://cdn.example.test/logo.png")
	require.NoError(t, err)
	b.gqlOK(b.acme, saveWordingDoc, map[string]any{"e": w.event, "in": map[string]any{
		"template": "session_accepted", "subject": "Yes, {{firstName}}: {{eventName}}",
		"body": "Dear {{firstName}},\n\n\"{{sessionTitle}}\" is in {{eventName}}.\nYour next steps: {{link}}\n\nThe team"}})
	p := b.gqlOK(b.acme, previewDoc, map[string]any{"e": w.event, "t": "session_accepted"})["emailTemplatePreview"].(map[string]any)
	require.Contains(t, p["html"], `<img src="https://cdn.example.test/logo.png" alt="World"`)
	require.Contains(t, p["html"], `#7c2d12`)

	m := b.acceptedMail(w, "The Analytical Engine", w.ada, "ada@example.test")
	require.Equal(t, p["subject"], m.Header.Get("Subject"))
	mask := func(s string) string {
		return accessLink.ReplaceAllString(s, "/portal/access/"+secret.AccessPlaceholder)
	}
	require.Equal(t, p["text"], mask(strings.ReplaceAll(m.Text, "\r\n", "\n")))
	require.Equal(t, p["html"], mask(strings.ReplaceAll(m.HTML, "\r\n", "\n")))
	require.Regexp(t, accessLink, m.Text)
}

// TestContactAccessLink: every email to a contact carries their access link; opening it twice
// signs in twice (it is not spent), pinned to the contact's event; the database holds its hash
// only; revoked, it answers a page asking for a sign-in link and ends the sessions it opened;
// expired, the same.
func TestContactAccessLink(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	m := b.acceptedMail(w, "Engines", w.ada, "ada@example.test")
	match := accessLink.FindStringSubmatch(m.Text)
	require.NotNil(t, match, m.Text)
	token := match[1]
	require.Contains(t, m.HTML, match[0])
	require.Equal(t, 1, b.count(`SELECT count(*) FROM contact_access_links WHERE hash = $1 AND contact_id = $2 AND event_id = $3`,
		secret.Hash(token), w.ada, w.event))
	require.Zero(t, b.count(`SELECT count(*) FROM contact_access_links WHERE hash = $1 OR id = $1`, token))
	require.Zero(t, b.count(`SELECT count(*) FROM email_log WHERE body LIKE '%' || $1 || '%' OR html_body LIKE '%' || $1 || '%'`, token))

	open := func() *httptest.ResponseRecorder {
		return b.sendRaw(httptest.NewRequest(http.MethodGet, match[0], nil))
	}
	var cookies []string
	for range 2 {
		rec := open()
		require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
		require.Equal(t, "/portal", rec.Header().Get("Location"))
		var pinned string
		for _, c := range rec.Result().Cookies() {
			if c.Name == "podium_portal_event" {
				pinned = c.Value
			}
		}
		require.Equal(t, w.event, pinned, "pinned to Ada's event, not another")
		cookie := cookieOf(t, rec).Value
		code, body := b.openPage("/portal", cookie)
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, body, "Engines")
		cookies = append(cookies, cookie)
	}

	// Another organization cannot revoke it; the event's organizers can.
	require.Equal(t, []string{"not_found"}, b.gql(b.globex, revokeAccessDoc, map[string]any{"c": w.ada}).Codes())
	require.Equal(t, float64(1), b.gqlOK(b.acme, revokeAccessDoc, map[string]any{"c": w.ada})["revokeContactAccess"])
	rec := open()
	require.Equal(t, http.StatusForbidden, rec.Code)
	require.Contains(t, rec.Body.String(), "expired or was revoked")
	require.Contains(t, rec.Body.String(), `action="/auth/signin"`)
	for _, c := range cookies {
		code, _ := b.openPage("/portal", c)
		require.NotEqual(t, http.StatusOK, code, "the sessions it opened are ended")
	}

	// A fresh email carries a fresh link, which works until it expires.
	m = b.acceptedMail(w, "Looms", w.ada, "ada@example.test")
	match = accessLink.FindStringSubmatch(m.Text)
	require.NotNil(t, match)
	require.Equal(t, http.StatusSeeOther, open().Code)
	_, err := b.db.System.Exec(b.sys(), `UPDATE contact_access_links SET expires_at = now() - interval '1 second' WHERE hash = $1`,
		secret.Hash(match[1]))
	require.NoError(t, err)
	rec = open()
	require.Equal(t, http.StatusForbidden, rec.Code)
	require.Contains(t, rec.Body.String(), "expired or was revoked")

	// A forged or truncated token is refused the same way, never a 500.
	for _, path := range []string{"/portal/access/" + secret.AccessPlaceholder, "/portal/access/x", match[0] + "x"} {
		rec := b.sendRaw(httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, http.StatusForbidden, rec.Code, path)
	}
}
