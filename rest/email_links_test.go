package rest_test

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
)

// linkInEmail is a link into Podium in an email's text or HTML.
var linkInEmail = regexp.MustCompile(`https://podium\.example\.test(/[^\s"<>]*)`)

// TestEveryEmailLinkOpens: the operations that send email each send theirs to a real recipient;
// every link in every message (text and HTML) opens a page that answers 200 for that recipient,
// signed in where the email is personal. A one-click link's destination opens too. Every
// template Podium has is among the emails sent.
func TestEveryEmailLinkOpens(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	// A portal invitation, and a sign-in link.
	b.must(http.StatusOK, http.MethodPost, w.base+"/speakers/invite", b.acme, map[string]any{"contactIds": []any{w.ada}})
	// A campaign pointing speakers to their portal.
	b.must(http.StatusCreated, http.MethodPost, w.base+"/campaigns", b.acme,
		campaignBody("News", "Hi {speaker_name}, see {portal_url}", w.ada))
	require.Equal(t, http.StatusAccepted, b.requestLink("ada@example.test", "/portal").Code)
	// A session cancelled and reinstated, with its speaker told.
	s := str(b.createSession(w, "Talk", w.ada), "id")
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+s+"/cancel", b.acme,
		map[string]any{"cause": "organizer", "message": "Sorry", "notifySpeakers": true})
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+s+"/reinstate", b.acme,
		map[string]any{"message": "Back", "notifySpeakers": true})
	// A session scheduled and its calendar invitation sent; then unscheduled, which tells the
	// speaker it is off the calendar.
	room := str(b.saveItem(b.acme, w.event, map[string]any{"kind": "room", "name": "Hall"}), "id")
	schedule := func(room, starts, ends any) {
		b.must(http.StatusOK, http.MethodPut, w.base+"/agenda/schedule", b.acme,
			map[string]any{"submissionId": s, "roomId": room, "startsAt": starts, "endsAt": ends})
		b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/invites", b.acme, nil)
	}
	// Published, then published again without it: the speaker is told their session changed.
	schedule(room, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z")
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	schedule(nil, nil, nil)
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	// A task due in ten days for accepted sessions' speakers, which chasers remind them of.
	b.must(http.StatusOK, http.MethodPost, w.base+"/task-templates", b.acme, map[string]any{"id": nil,
		"title": "Slides", "instructions": "", "scope": "speaker", "autoAssignOnAccept": true,
		"dueDate": time.Now().Add(240 * time.Hour).UTC().Format(time.RFC3339)})
	// Proposals decided: one accepted, one declined.
	for decision, who := range map[string]string{"accept": w.alan, "decline": w.grace} {
		id := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{
			"title": decision, "description": "d", "formatId": w.format, "trackIds": []any{w.track1}, "speakerIds": []any{who}}).Obj(), "id")
		b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme,
			map[string]any{"submissionIds": []any{id}, "decision": decision, "feedback": "Thanks"})
	}
	// Someone invited to the organization.
	r := b.gql(b.acme, `mutation($in: InviteOrganizationMemberInput!) { inviteOrganizationMember(input: $in) { email } }`,
		map[string]any{"in": map[string]any{"email": "newcomer@example.test", "role": "member"}})
	require.Empty(t, r.Errors, r.Raw)
	// A reviewer invited to a round with a proposal to review, then reminded.
	proposal := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/submissions", b.acme, map[string]any{
		"title": "P", "description": "d", "formatId": w.format, "trackIds": []any{w.track1}, "speakerIds": []any{w.grace}}).Obj(), "id")
	round := str(roundOf(b.saveRound(w, roundBody("R", numericCriterion("Q", 1, 5, 1, true)))), "id")
	member := b.addReviewer(w, round, "rev@example.test", nil)
	require.Equal(t, http.StatusOK, b.assign(w, round, member, proposal).Status)
	b.must(http.StatusOK, http.MethodPost, w.base+"/review-rounds/"+round+"/reminders", b.acme,
		map[string]any{"eventMemberIds": []any{member}})
	// A proposal submitted through the call for proposals, naming a co-speaker.
	fx := b.cfpFixture(nil)
	sam := b.formSignIn("sam@example.test", fx.form)
	r = b.gqlAs(sam, saveProposalDoc, map[string]any{"f": fx.form, "submit": true, "in": map[string]any{
		"title": "Links", "formatId": fx.format, "levelId": fx.level, "trackIds": []any{fx.track},
		"answers": map[string]any{"audience": "All"}, "firstName": "Sam", "lastName": "Speaker",
		"coSpeakers": []any{map[string]any{"name": "Cora Speaker", "email": "cora@example.test"}}}})
	require.Empty(t, r.Errors, r.Raw)
	// A speaker who declines from the portal, and a submitted proposal withdrawn: the
	// organization's admins are told.
	b.addMember(b.acmeOrg, "admin@acme.test", organizationmember.RoleAdmin)
	dee := b.speaker(w.base, "Dee", "Clines", "dee@example.test")
	b.createSession(w, "Declined", dee)
	rec := b.pageAs(b.signIn("dee@example.test"), http.MethodPost, "/portal/decline", url.Values{"contact": {dee}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	r = b.gqlAs(sam, saveProposalDoc, map[string]any{"f": fx.form, "submit": true, "in": map[string]any{
		"title": "Withdrawn", "formatId": fx.format, "levelId": fx.level, "trackIds": []any{fx.track},
		"answers": map[string]any{"audience": "All"}, "firstName": "Sam", "lastName": "Speaker"}})
	require.Empty(t, r.Errors, r.Raw)
	r = b.gqlAs(sam, `mutation($f: ID!, $id: ID!) { withdrawProposal(formId: $f, id: $id) { status } }`,
		map[string]any{"f": fx.form, "id": r.Data["saveProposal"].(map[string]any)["id"]})
	require.Empty(t, r.Errors, r.Raw)
	// A webhook endpoint that keeps failing, disabled at once: its organization's admins are told.
	b.startWorkers(jobs.Config{Webhooks: b.loopbackWebhooks(jobs.WebhookConfig{DisableAfter: time.Nanosecond}), Notifier: b.res.Ops})
	rc := newReceiver(t)
	rc.set(http.StatusInternalServerError)
	b.createWebhook(b.acme, rc.srv.URL, "session.created")
	b.createSession(w, "Hooked", w.ada)
	require.Eventually(t, func() bool {
		return b.count(`SELECT count(*) FROM email_log WHERE template = 'webhook_disabled'`) == 1
	}, 10*time.Second, 20*time.Millisecond)

	// Chasers: speakers of accepted sessions have neither confirmed nor done the task (dee, who
	// declined, is not chased).
	r = b.gql(b.acme, saveChasersDoc, map[string]any{"e": w.event, "in": map[string]any{
		"quietStart": 0, "quietEnd": 0, "dailyCap": 2, "rules": []any{
			map[string]any{"kind": "confirmation", "enabled": true, "offsetHours": 0, "everyHours": 24, "maxSends": 1},
			map[string]any{"kind": "deliverables", "enabled": true, "offsetHours": 720, "everyHours": 24, "maxSends": 1}}}})
	require.Empty(t, r.Errors, r.Raw)
	chased, err := b.res.Ops.SendChasers(b.crmScope(), w.event, time.Now())
	require.NoError(t, err)
	require.GreaterOrEqual(t, chased, 2)
	require.Zero(t, b.count(`SELECT count(*) FROM email_log WHERE recipient = 'dee@example.test' AND template LIKE 'chaser_%'`))

	logs, err := b.db.Ent.EmailLog.Query().Order(emaillog.ByCreatedAt()).All(b.sys())
	require.NoError(t, err)
	sentTemplates := map[string]bool{}
	cookies := map[string]string{}
	opened := 0
	for _, m := range logs {
		if m.Template != nil {
			sentTemplates[*m.Template] = true
		}
		// Every recipient is someone Podium knows by then and signs in as themselves, but for the
		// newcomer and the co-speaker invited, whose invitations lead to signing in.
		cookie, ok := cookies[m.Recipient]
		if !ok && m.Recipient != "newcomer@example.test" && m.Recipient != "cora@example.test" {
			cookie = b.signIn(m.Recipient)
			cookies[m.Recipient] = cookie
		}
		links := linkInEmail.FindAllStringSubmatch(m.Body, -1)
		links = append(links, linkInEmail.FindAllStringSubmatch(html.UnescapeString(m.HTMLBody), -1)...)
		require.NotEmpty(t, links, "%s to %s has no link: %s", m.Subject, m.Recipient, m.Body)
		for _, l := range links {
			path := l[1]
			if strings.HasPrefix(path, "/portal/access/") {
				// The log keeps the placeholder of a contact's access link, minted at delivery
				// (TestContactAccessLink): it signs nobody in and asks for a sign-in link.
				code, body := b.openPage(path, "")
				require.Equal(t, http.StatusForbidden, code)
				require.Contains(t, body, `action="/auth/signin"`)
				opened++
				continue
			}
			code, final := b.openFollowing(path, cookie)
			require.Equal(t, http.StatusOK, code, "%q in %q to %s ends at %s", path, m.Subject, m.Recipient, final)
			opened++
			// A one-click link's destination opens for its recipient signed in.
			if u, err := url.Parse(path); err == nil && u.Path == "/auth/link" && u.Query().Get("next") != "" && cookie != "" {
				code, final = b.openFollowing(u.Query().Get("next"), cookie)
				require.Equal(t, http.StatusOK, code, "destination of %q ends at %s", path, final)
			}
		}
	}
	t.Logf("%d emails, %d links opened, templates sent: %v", len(logs), opened, keysOf(sentTemplates))
	for _, name := range email.Names {
		require.True(t, sentTemplates[name], "no %s email was sent", name)
	}
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// openFollowing GETs path with cookie, following same-site redirects; it returns the last
// status and path.
func (b *testBundle) openFollowing(path, cookie string) (int, string) {
	for range 5 {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		}
		rec := b.sendRaw(req)
		if rec.Code < 300 || rec.Code >= 400 {
			return rec.Code, path
		}
		path = rec.Header().Get("Location")
		if !strings.HasPrefix(path, "/") {
			return rec.Code, path
		}
	}
	return 0, path
}

// openPage GETs path once, with the session cookie when given, and returns the status and body.
func (b *testBundle) openPage(path, cookie string) (int, string) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	}
	rec := b.sendRaw(req)
	return rec.Code, rec.Body.String()
}
