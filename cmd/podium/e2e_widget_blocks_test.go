//go:build e2e

package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserWidgetBlocks: a published agenda's blocks (docs/agenda.md "Blocks") show in an agenda
// widget in Chromium, in time order among the sessions — registration before the first talk, lunch
// between the morning and the afternoon — with their kind in words and their room ("All rooms"
// for a block without one); the itinerary view shows them too, and both pass axe-core.
func TestBrowserWidgetBlocks(t *testing.T) {
	t.Parallel()
	srv := startE2EServer(t)
	api := e2eAPI{base: srv.url + "/api/v1", key: srv.createKey(t, "Widget Blocks Org")}
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
	block := func(title, kind string, room any, starts, ends string) {
		api.must(t, http.StatusOK, http.MethodPut, base+"/agenda/blocks", map[string]any{"id": nil, "title": title,
			"kind": kind, "roomId": room, "startsAt": starts, "endsAt": ends})
	}
	// 10 June 2027 in Berlin (UTC+2): registration 08:30, a talk at 09:00, lunch at 12:00 in the
	// hall, a talk at 13:00.
	session("Morning keynote", "2027-06-10T07:00:00Z", "2027-06-10T07:45:00Z")
	session("Afternoon deep dive", "2027-06-10T11:00:00Z", "2027-06-10T11:45:00Z")
	block("Badge pick-up", "registration", nil, "2027-06-10T06:30:00Z", "2027-06-10T07:00:00Z")
	block("Lunch buffet", "meal", hall, "2027-06-10T10:00:00Z", "2027-06-10T11:00:00Z")
	api.must(t, http.StatusOK, http.MethodPost, base+"/agenda/publish", nil)
	widgetID := api.must(t, http.StatusCreated, http.MethodPost, base+"/widgets", map[string]any{"name": "Day one", "view": "agenda"})["id"].(string)
	api.must(t, http.StatusOK, http.MethodPatch, base+"/widgets/"+widgetID, map[string]any{"name": "Day one",
		"view": "agenda", "enabled": true, "options": map[string]any{"trackIds": []any{}, "formatIds": []any{}, "tagIds": []any{},
			"dayKeys": []any{}, "theme": "light", "primaryColor": nil, "dateFormat": "24h", "showSpeakerCompany": false,
			"showSpeakerTitle": false, "showSpeakerBio": false, "showSessionDescription": false, "showSessionLevel": false,
			"showSessionFormat": false, "showAddToCalendar": false, "customCss": ""}})

	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)
	for _, view := range []string{"agenda", "itinerary"} {
		run(t, ctx, "open the "+view+" view", chromedp.EmulateViewport(1000, 900),
			chromedp.Navigate(srv.url+"/embed/"+widgetID+"?view="+view), chromedp.WaitVisible(`.os-block`, chromedp.ByQuery))
		text := waitText(t, ctx, ".embed-root", "Lunch buffet")
		order := []string{"Badge pick-up", "Morning keynote", "Lunch buffet", "Afternoon deep dive"}
		last := -1
		for _, want := range order {
			i := strings.Index(text, want)
			require.Greater(t, i, last, "%s: %q out of time order in %q", view, want, text)
			last = i
		}
		for _, want := range []string{"Registration", "All rooms", "Meal", "Main hall", "12:00–13:00"} {
			require.Contains(t, text, want, view)
		}
		var blocks []string
		run(t, ctx, "read the blocks", chromedp.Evaluate(
			`[...document.querySelectorAll("li.os-block h3")].map(h => h.textContent)`, &blocks))
		require.Equal(t, []string{"Badge pick-up", "Lunch buffet"}, blocks, view)
		checkAccessibility(t, ctx, "/embed/{id}?view="+view+" with blocks")
	}
}
