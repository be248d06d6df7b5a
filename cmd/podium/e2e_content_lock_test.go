//go:build e2e

package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// TestBrowserContentLock is an accepted speaker fixing their abstract after the call for
// proposals has closed, in Chromium at a phone's size (docs/profile-review.md "Session content").
// Unlocked, "My sessions" offers "Edit the content" and the change goes to review; once the
// organizers lock the event's content (lockSpeakerContent) the page offers no link but says why,
// and the content page says why and shows no form; unlocked again, the link is back. Each state passes
// axe-core.
func TestBrowserContentLock(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "Content Lock Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}
	gql := e2eAPI{base: srv.url, key: key}

	eventID := createE2EEvent(t, api, "Content Lock Check")
	base := "/events/" + eventID
	ada := addAda(t, api, base)["id"].(string)
	session := api.must(t, http.StatusCreated, http.MethodPost, base+"/submissions", map[string]any{
		"title": "Engines of thought", "description": "What the committee accepted.", "formatId": nil,
		"trackIds": []any{}, "speakerIds": []any{ada}})["id"].(string)
	api.must(t, http.StatusOK, http.MethodPost, base+"/submissions/decide", map[string]any{
		"submissionIds": []any{session}, "decision": "accept", "feedback": ""})
	forms := gql.graphQL(t, `query($e: ID!) { event(id: $e) { forms { id } } }`, map[string]any{"e": eventID})
	for _, f := range forms["event"].(map[string]any)["forms"].([]any) {
		gql.graphQL(t, `mutation($e: ID!, $f: ID!) { closeForm(eventId: $e, formId: $f) { id } }`,
			map[string]any{"e": eventID, "f": f.(map[string]any)["id"]})
	}
	api.must(t, http.StatusOK, http.MethodPost, base+"/speakers/invite", map[string]any{"contactIds": []string{ada}})
	lock := func(op string) {
		t.Helper()
		got := gql.graphQL(t, `mutation($e: ID!) { `+op+`(eventId: $e) { speakerContentLocked } }`, map[string]any{"e": eventID})
		require.Equal(t, op == "lockSpeakerContent", got[op].(map[string]any)["speakerContentLocked"])
	}

	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)
	signIn := ""
	for n := 1; n <= 2; n++ {
		if l := link.FindString(lastTo(t, sink, "ada@example.test", n).Text); strings.Contains(l, "token=") {
			signIn = l
		}
	}
	require.NotEmpty(t, signIn, "the invitation carries a sign-in link")
	run(t, ctx, "follow the invitation's link and confirm", phone(),
		chromedp.Navigate(signIn),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		chromedp.Click(`#confirm`, chromedp.ByQuery))
	waitText(t, ctx, `#signed-in-as`, "ada@example.test")

	editLink := `#sessions a[href="/portal/sessions/` + session + `/content"]`
	editLinks := func(what string) int {
		t.Helper()
		var n int
		run(t, ctx, "open my sessions: "+what, chromedp.Navigate(srv.url+"/portal/sessions"),
			chromedp.WaitVisible(`#sessions`, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll('`+editLink+`').length`, &n))
		return n
	}

	// Unlocked, the form closed: the speaker fixes the abstract, and it goes to review.
	require.Equal(t, 1, editLinks("unlocked"))
	checkAccessibility(t, ctx, "/portal/sessions (content unlocked)")
	run(t, ctx, "follow Edit the content", chromedp.Click(editLink, chromedp.ByQuery),
		chromedp.WaitVisible(`#description`, chromedp.ByQuery),
		chromedp.SetValue(`#description`, "A fixed abstract.", chromedp.ByQuery),
		chromedp.Submit(`#title`, chromedp.ByQuery))
	waitText(t, ctx, `#notice`, "sent for organizer approval")
	waitText(t, ctx, `#content-status`, "Edits pending approval")

	// Locked: no link, and the content page says why and offers no form.
	lock("lockSpeakerContent")
	require.Zero(t, editLinks("locked"))
	waitText(t, ctx, `#sessions .content-closed`, "locked the content of accepted sessions")
	checkAccessibility(t, ctx, "/portal/sessions (content locked)")
	screen(t, ctx, "portal-sessions-locked.png")
	var forms2 int
	run(t, ctx, "open the content page while locked", chromedp.Navigate(srv.url+"/portal/sessions/"+session+"/content"),
		chromedp.WaitVisible(`#error`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('main form.stack, #title, #description').length`, &forms2))
	waitText(t, ctx, `#error`, "locked the content of accepted sessions")
	require.Zero(t, forms2, "no form while locked")
	checkAccessibility(t, ctx, "/portal/sessions/{id}/content (locked)")

	// Unlocked again: the link is back.
	lock("unlockSpeakerContent")
	require.Equal(t, 1, editLinks("unlocked again"))

	browser.requireLocal(t)
}
