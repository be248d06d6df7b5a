//go:build e2e

package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserWidgetCalendar: a visitor of a published agenda widget picks two sessions by their
// labelled checkboxes and subscribes, without script (docs/widgets.md "Subscribing to picked
// sessions"). Chromium posts the form and shows the page of the personal calendar, with its
// address and its webcal: link; the address serves both sessions, and not the third. The widget
// page and the subscription page pass axe-core.
func TestBrowserWidgetCalendar(t *testing.T) {
	t.Parallel()
	srv := startE2EServer(t)
	api := e2eAPI{base: srv.url + "/api/v1", key: srv.createKey(t, "Widget Calendar Org")}
	eventID := createE2EEvent(t, api, "GopherCon EU")
	base := "/events/" + eventID
	talk := api.must(t, http.StatusOK, http.MethodPost, base+"/library", map[string]any{"id": nil, "kind": "format", "name": "Talk"})["id"]
	hall := api.must(t, http.StatusOK, http.MethodPost, base+"/library", map[string]any{"id": nil, "kind": "room", "name": "Main hall"})["id"]
	ada := api.must(t, http.StatusCreated, http.MethodPost, base+"/speakers", map[string]any{"id": nil,
		"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.test", "title": "Engineer", "company": "Engines", "bio": "b",
		"linkedinUrl": nil, "twitterUrl": nil, "websiteUrl": nil, "dietaryRequirements": "none", "tshirtSize": nil,
		"travelLogistics": nil, "workflowStatus": "confirmed"})["id"]
	session := func(title, starts, ends string) {
		id := api.must(t, http.StatusCreated, http.MethodPost, base+"/submissions", map[string]any{"title": title,
			"description": "d", "formatId": talk, "trackIds": []any{}, "speakerIds": []any{ada}})["id"]
		api.must(t, http.StatusOK, http.MethodPost, base+"/submissions/decide", map[string]any{"submissionIds": []any{id},
			"decision": "accept", "feedback": "", "approveContent": true})
		api.must(t, http.StatusOK, http.MethodPut, base+"/agenda/schedule", map[string]any{"submissionId": id,
			"roomId": hall, "startsAt": starts, "endsAt": ends})
	}
	session("Morning keynote", "2027-06-10T07:00:00Z", "2027-06-10T07:45:00Z")
	session("Midday panel", "2027-06-10T09:00:00Z", "2027-06-10T09:45:00Z")
	session("Afternoon deep dive", "2027-06-10T11:00:00Z", "2027-06-10T11:45:00Z")
	api.must(t, http.StatusOK, http.MethodPut, base+"/agenda/blocks", map[string]any{"id": nil, "title": "Lunch buffet",
		"kind": "meal", "roomId": hall, "startsAt": "2027-06-10T10:00:00Z", "endsAt": "2027-06-10T11:00:00Z"})
	api.must(t, http.StatusOK, http.MethodPost, base+"/agenda/publish", nil)
	widgetID := api.must(t, http.StatusCreated, http.MethodPost, base+"/widgets", map[string]any{"name": "Day one", "view": "agenda"})["id"].(string)

	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)
	run(t, ctx, "open the agenda widget", chromedp.EmulateViewport(1000, 900),
		chromedp.Navigate(srv.url+"/embed/"+widgetID), chromedp.WaitVisible(`form.os-calendar-form`, chromedp.ByQuery))
	waitText(t, ctx, ".embed-root", "Lunch buffet")
	checkAccessibility(t, ctx, "/embed/{id} with the calendar form")
	// The labels are what the visitor clicks: they tick their checkboxes.
	var checked []string
	run(t, ctx, "tick two sessions",
		chromedp.Click(`//label[normalize-space()="Add Morning keynote to my calendar"]`, chromedp.BySearch),
		chromedp.Click(`//label[normalize-space()="Add Afternoon deep dive to my calendar"]`, chromedp.BySearch),
		chromedp.Evaluate(`[...document.querySelectorAll("input[name=session]:checked")].map(i => i.labels[0].textContent)`, &checked))
	require.Equal(t, []string{"Add Morning keynote to my calendar", "Add Afternoon deep dive to my calendar"}, checked)
	run(t, ctx, "subscribe",
		chromedp.Click(`//button[normalize-space()="Subscribe to the sessions I picked"]`, chromedp.BySearch),
		chromedp.WaitVisible(`.os-subscription`, chromedp.ByQuery))
	text := waitText(t, ctx, ".embed-root", "Subscribe in your calendar app")
	require.Contains(t, text, "follows the published agenda")
	require.Contains(t, text, "Back to the program")
	var address, webcal string
	var ok bool
	run(t, ctx, "read the links",
		chromedp.AttributeValue(`.os-calendar-url a`, "href", &address, &ok, chromedp.ByQuery),
		chromedp.AttributeValue(`.os-subscribe-link a`, "href", &webcal, &ok, chromedp.ByQuery))
	// The server's public address is its loopback one, over http here; https in production.
	require.True(t, strings.HasPrefix(address, srv.url+"/api/v1/public/calendars/"), address)
	require.Equal(t, "webcal://"+strings.TrimPrefix(address, "http://"), webcal)
	checkAccessibility(t, ctx, "/embed/{id}/calendar (the subscription page)")

	resp, err := http.Get(address)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	cal := string(body)
	require.Contains(t, cal, "SUMMARY:Morning keynote")
	require.Contains(t, cal, "SUMMARY:Afternoon deep dive")
	require.NotContains(t, cal, "Midday panel")
}
