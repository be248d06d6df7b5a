//go:build e2e

package main

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// TestBrowserModeration is a visitor reading a widget while a speaker edits what it shows, in
// Chromium at a phone's size (docs/profile-review.md "What the public sees"). A proposal is
// accepted the default way (no approveContent), scheduled and published; the speaker then changes
// the session's title and description and their own name and bio from the portal. The widget
// keeps showing what was accepted; after the organizers reject both edits it still does, and the
// speaker's page shows the approved text back in the form; after an edit is approved the widget
// shows it. The widget page and the portal's pending and rejected states pass axe-core.
func TestBrowserModeration(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "Moderation Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}
	gql := e2eAPI{base: srv.url, key: key}

	eventID := createE2EEvent(t, api, "Moderation Check")
	base := "/events/" + eventID
	item := func(body map[string]any) string {
		body["id"] = nil
		return api.must(t, http.StatusOK, http.MethodPost, base+"/library", body)["id"].(string)
	}
	talk := item(map[string]any{"kind": "format", "name": "Talk"})
	hall := item(map[string]any{"kind": "room", "name": "Main hall"})
	ada := api.must(t, http.StatusCreated, http.MethodPost, base+"/speakers", map[string]any{
		"id": nil, "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.test", "title": nil,
		"company": nil, "bio": "Wrote the first program.", "linkedinUrl": nil, "twitterUrl": nil, "websiteUrl": nil,
		"dietaryRequirements": "none", "tshirtSize": nil, "travelLogistics": nil, "workflowStatus": "invited"})["id"].(string)
	session := api.must(t, http.StatusCreated, http.MethodPost, base+"/submissions", map[string]any{
		"title": "Engines of thought", "description": "What the committee accepted.", "formatId": talk,
		"trackIds": []any{}, "speakerIds": []any{ada}})["id"].(string)
	decided := api.must(t, http.StatusOK, http.MethodPost, base+"/submissions/decide", map[string]any{
		"submissionIds": []any{session}, "decision": "accept", "feedback": ""})
	require.Len(t, decided["submissions"], 1)
	api.must(t, http.StatusOK, http.MethodPut, base+"/agenda/schedule", map[string]any{"submissionId": session,
		"roomId": hall, "startsAt": "2027-06-10T08:00:00Z", "endsAt": "2027-06-10T08:45:00Z"})
	api.must(t, http.StatusOK, http.MethodPost, base+"/agenda/publish", nil)
	widgetID := api.must(t, http.StatusCreated, http.MethodPost, base+"/widgets",
		map[string]any{"name": "Program", "view": "agenda"})["id"].(string)
	api.must(t, http.StatusOK, http.MethodPost, base+"/speakers/invite", map[string]any{"contactIds": []string{ada}})

	browser := newBrowser(t, srv.url)
	speaker := browser.tab(t)
	visitor := browser.tab(t)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)
	widget := srv.url + "/embed/" + widgetID
	contentPage := srv.url + "/portal/sessions/" + session + "/content"

	// seen is what the visitor's widget shows, in the agenda view and in the speaker gallery. The
	// page may be cached for a minute (docs/widgets.md "Caching"): each step asks for an address
	// of its own, with a parameter the page ignores.
	seen := func(what string) (agenda, gallery string) {
		t.Helper()
		step := url.QueryEscape(what)
		run(t, visitor, "open the widget: "+what, phone(), chromedp.Navigate(widget+"?step="+step),
			chromedp.WaitVisible(`.os-session-title`, chromedp.ByQuery))
		agenda = waitText(t, visitor, `main`, "Main hall")
		run(t, visitor, "open the speaker gallery: "+what, chromedp.Navigate(widget+"?view=speaker_gallery&step="+step),
			chromedp.WaitVisible(`.os-gallery`, chromedp.ByQuery))
		gallery = waitText(t, visitor, `.os-gallery`, "Lovelace")
		return agenda, gallery
	}
	requireApproved := func(what, title, description string) {
		t.Helper()
		agenda, gallery := seen(what)
		require.Contains(t, agenda, title, what)
		require.Contains(t, agenda, description, what)
		require.Contains(t, agenda, "Ada Lovelace", what)
		require.Contains(t, gallery, "Wrote the first program.", what)
		for _, never := range []string{"Unapproved", "Lovelace-Byron", "@example.test"} {
			require.NotContains(t, agenda+gallery, never, what)
		}
	}

	// Ada has the acceptance and the portal invitation; the invitation's link signs her in.
	signIn := ""
	for n := 1; n <= 2; n++ {
		if l := link.FindString(lastTo(t, sink, "ada@example.test", n).Text); strings.Contains(l, "token=") {
			signIn = l
		}
	}
	require.NotEmpty(t, signIn, "the invitation carries a sign-in link")
	run(t, speaker, "follow the invitation's link and confirm", phone(),
		chromedp.Navigate(signIn),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		chromedp.Click(`#confirm`, chromedp.ByQuery))
	waitText(t, speaker, `#signed-in-as`, "ada@example.test")

	// The speaker edits the session's content and their public profile: both wait for review.
	run(t, speaker, "edit the session's content", chromedp.Navigate(contentPage),
		chromedp.WaitVisible(`#title`, chromedp.ByQuery),
		chromedp.SetValue(`#title`, "Unapproved title", chromedp.ByQuery),
		chromedp.SetValue(`#description`, "Unapproved description.", chromedp.ByQuery),
		chromedp.Submit(`#title`, chromedp.ByQuery))
	waitText(t, speaker, `#notice`, "sent for organizer approval")
	waitText(t, speaker, `#content-status`, "Edits pending approval")
	checkAccessibility(t, speaker, "session content pending")
	run(t, speaker, "edit the profile", chromedp.Navigate(srv.url+"/portal/profile"),
		chromedp.WaitVisible(`#bio`, chromedp.ByQuery),
		chromedp.SetValue(`#lastName`, "Lovelace-Byron", chromedp.ByQuery),
		chromedp.SetValue(`#bio`, "Unapproved bio.", chromedp.ByQuery),
		chromedp.Submit(`#bio`, chromedp.ByQuery))
	waitText(t, speaker, `#profile-status`, "Waiting for approval")

	requireApproved("edits pending", "Engines of thought", "What the committee accepted.")
	checkAccessibility(t, visitor, "/embed/{id} (speaker gallery, edits pending)")
	screen(t, visitor, "moderation-widget-pending.png")

	// Rejected: the widget still shows what was accepted; the speaker's form holds it again.
	gql.graphQL(t, `mutation($e: ID!, $s: ID!) { rejectSessionContent(eventId: $e, sessionId: $s) { id } }`,
		map[string]any{"e": eventID, "s": session})
	gql.graphQL(t, `mutation($e: ID!, $c: ID!) { rejectSpeakerProfile(eventId: $e, contactId: $c) { id } }`,
		map[string]any{"e": eventID, "c": ada})
	requireApproved("edits rejected", "Engines of thought", "What the committee accepted.")
	run(t, speaker, "reopen the session's content", chromedp.Navigate(contentPage),
		chromedp.WaitVisible(`#title`, chromedp.ByQuery))
	waitText(t, speaker, `#content-status`, "Edits rejected")
	var title, description string
	run(t, speaker, "read the form", chromedp.Value(`#title`, &title, chromedp.ByQuery),
		chromedp.Value(`#description`, &description, chromedp.ByQuery))
	require.Equal(t, "Engines of thought", title)
	require.Equal(t, "What the committee accepted.", description)
	checkAccessibility(t, speaker, "session content rejected")
	screen(t, speaker, "moderation-content-rejected.png")

	// Approved: the new version is what the widget shows.
	run(t, speaker, "edit the content again", chromedp.SetValue(`#title`, "Engines of thought, revised", chromedp.ByQuery),
		chromedp.Submit(`#title`, chromedp.ByQuery))
	waitText(t, speaker, `#content-status`, "Edits pending approval")
	gql.graphQL(t, `mutation($e: ID!, $s: ID!) { approveSessionContent(eventId: $e, sessionId: $s) { id } }`,
		map[string]any{"e": eventID, "s": session})
	requireApproved("edit approved", "Engines of thought, revised", "What the committee accepted.")
	checkAccessibility(t, visitor, "/embed/{id} (speaker gallery, edit approved)")

	browser.requireLocal(t)
}
