//go:build e2e

package main

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// TestBrowserProfile is a speaker of an accepted session editing their profile in Chromium, at a
// phone's size: they follow the portal invitation from the email in the SMTP sink, change their
// bio with a bad website address (refused, keeping what they typed), then correctly, which sends
// the change for approval; the organizer approves it over GraphQL and the page says so. The
// session's content page says why it cannot be edited. Every page passes axe-core and is saved
// to docs/screens/.
func TestBrowserProfile(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "Profile Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}
	gql := e2eAPI{base: srv.url, key: key}

	eventID := createE2EEvent(t, api, "Profile Check")
	base := "/events/" + eventID
	speaker := addAda(t, api, base)
	contactID := speaker["id"].(string)
	session := api.must(t, http.StatusCreated, http.MethodPost, base+"/sessions", map[string]any{
		"title": "Engines", "description": nil, "formatId": nil, "speakerIds": []any{contactID}})
	api.must(t, http.StatusOK, http.MethodPost, base+"/speakers/invite", map[string]any{"contactIds": []string{contactID}})

	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)

	run(t, ctx, "follow the invitation's link and confirm", phone(),
		chromedp.Navigate(link.FindString(lastTo(t, sink, "ada@example.test", 1).Text)),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		chromedp.Click(`#confirm`, chromedp.ByQuery))
	waitText(t, ctx, `#signed-in-as`, "ada@example.test")

	run(t, ctx, "open the profile", chromedp.Navigate(srv.url+"/portal/profile"), chromedp.WaitVisible(`#bio`, chromedp.ByQuery))
	waitText(t, ctx, `#profile-status`, "Approved")
	checkAccessibility(t, ctx, "/portal/profile")
	screen(t, ctx, "profile-form.png")

	run(t, ctx, "write a bio with a bad website address",
		chromedp.SendKeys(`#bio`, "Wrote the first program.", chromedp.ByQuery),
		chromedp.SendKeys(`#websiteUrl`, "javascript:alert(1)", chromedp.ByQuery),
		chromedp.Submit(`#bio`, chromedp.ByQuery))
	waitText(t, ctx, `#websiteUrl-error`, "must be a web address")
	var kept string
	run(t, ctx, "read the bio kept", chromedp.Value(`#bio`, &kept, chromedp.ByQuery))
	require.Equal(t, "Wrote the first program.", kept)
	checkAccessibility(t, ctx, "profile refused")
	screen(t, ctx, "profile-error.png")

	run(t, ctx, "correct the address and save",
		chromedp.SetValue(`#websiteUrl`, "https://ada.example", chromedp.ByQuery),
		chromedp.Submit(`#bio`, chromedp.ByQuery))
	waitText(t, ctx, `#notice`, "sent for organizer approval")
	waitText(t, ctx, `#profile-status`, "Waiting for approval")
	checkAccessibility(t, ctx, "profile pending")
	screen(t, ctx, "profile-pending.png")

	approved := gql.graphQL(t, `mutation($e: ID!, $c: ID!) { approveSpeakerProfile(eventId: $e, contactId: $c) {
	  profileReviewStatus approvedProfile } }`, map[string]any{"e": eventID, "c": contactID})
	require.Equal(t, "approved", approved["approveSpeakerProfile"].(map[string]any)["profileReviewStatus"])
	run(t, ctx, "reload the profile", chromedp.Navigate(srv.url+"/portal/profile"), chromedp.WaitVisible(`#bio`, chromedp.ByQuery))
	waitText(t, ctx, `#profile-status`, "Approved")
	run(t, ctx, "read the approved bio", chromedp.Value(`#bio`, &kept, chromedp.ByQuery))
	require.Equal(t, "Wrote the first program.", kept)
	screen(t, ctx, "profile-approved.png")

	// The session came from no call for proposals: its content is the organizers'.
	run(t, ctx, "open the session's content", chromedp.Navigate(srv.url+"/portal/sessions/"+session["id"].(string)+"/content"),
		chromedp.WaitVisible(`#error`, chromedp.ByQuery))
	waitText(t, ctx, `#error`, "The organizers manage this session's content")
	checkAccessibility(t, ctx, "/portal/sessions/{id}/content")
	screen(t, ctx, "profile-content.png")

	browser.requireLocal(t)
}
