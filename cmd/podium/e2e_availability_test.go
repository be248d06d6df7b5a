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

// TestBrowserAvailability is a speaker stating when they can speak, in Chromium at a phone's
// size: they follow the portal invitation, open My availability (in the event's time zone, named
// on the page), save a time that ends before it starts (refused on the page, the row marked),
// then a right one, add a second row and save both; the organizer's REST read shows the two
// intervals in UTC. Every state passes axe-core and is saved to docs/screens/availability-*.png.
func TestBrowserAvailability(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "Availability Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}

	eventID := createE2EEvent(t, api, "Availability Check") // 10–12 June 2027, Europe/Berlin
	base := "/events/" + eventID
	contactID := addAda(t, api, base)["id"].(string)
	api.must(t, http.StatusCreated, http.MethodPost, base+"/sessions", map[string]any{
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

	run(t, ctx, "open My availability from the portal",
		chromedp.Navigate(srv.url+"/portal"),
		chromedp.WaitVisible(`a[href="/portal/availability"]`, chromedp.ByQuery),
		chromedp.Click(`a[href="/portal/availability"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#start-0`, chromedp.ByQuery))
	waitText(t, ctx, `#availability-zone`, "Europe/Berlin")
	waitText(t, ctx, `#availability-saved`, "at any time")
	checkAccessibility(t, ctx, "/portal/availability")
	screen(t, ctx, "availability-form.png")

	run(t, ctx, "save a time that ends before it starts",
		chromedp.SetValue(`#day-0`, "2027-06-11", chromedp.ByQuery),
		chromedp.SetValue(`#start-0`, "10:00", chromedp.ByQuery),
		chromedp.SetValue(`#end-0`, "09:00", chromedp.ByQuery),
		chromedp.Click(`#save-availability`, chromedp.ByQuery))
	waitText(t, ctx, `#error`, "the end must be after the start")
	waitText(t, ctx, `#row-0-error`, "the end must be after the start")
	var invalid string
	var ok bool
	run(t, ctx, "read the row's state", chromedp.AttributeValue(`#end-0`, "aria-invalid", &invalid, &ok, chromedp.ByQuery))
	require.Equal(t, "true", invalid)
	checkAccessibility(t, ctx, "/portal/availability refused")
	screen(t, ctx, "availability-error.png")

	run(t, ctx, "correct the end and save",
		chromedp.SetValue(`#end-0`, "12:30", chromedp.ByQuery),
		chromedp.Click(`#save-availability`, chromedp.ByQuery))
	waitText(t, ctx, `#notice`, "Your availability was saved")
	waitText(t, ctx, `#availability-saved`, "Fri 11 Jun 2027, 10:00–12:30")

	run(t, ctx, "add a row and fill it",
		chromedp.Click(`#add-availability-row`, chromedp.ByQuery),
		chromedp.WaitVisible(`#start-2`, chromedp.ByQuery),
		chromedp.SetValue(`#day-1`, "2027-06-12", chromedp.ByQuery),
		chromedp.SetValue(`#start-1`, "14:00", chromedp.ByQuery),
		chromedp.SetValue(`#end-1`, "15:00", chromedp.ByQuery),
		chromedp.Click(`#save-availability`, chromedp.ByQuery))
	waitText(t, ctx, `#notice`, "Your availability was saved")
	waitText(t, ctx, `#availability-saved`, "Sat 12 Jun 2027, 14:00–15:00")
	checkAccessibility(t, ctx, "/portal/availability saved")
	screen(t, ctx, "availability-saved.png")

	got := api.must(t, http.StatusOK, http.MethodGet, base+"/speakers/"+contactID+"/availability", nil)
	require.Equal(t, []any{
		map[string]any{"startsAt": "2027-06-11T08:00:00.000Z", "endsAt": "2027-06-11T10:30:00.000Z",
			"localStart": "2027-06-11T10:00:00+02:00", "localEnd": "2027-06-11T12:30:00+02:00"},
		map[string]any{"startsAt": "2027-06-12T12:00:00.000Z", "endsAt": "2027-06-12T13:00:00.000Z",
			"localStart": "2027-06-12T14:00:00+02:00", "localEnd": "2027-06-12T15:00:00+02:00"},
	}, got["intervals"])
}
