//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserWidget is an event's site embedding a Podium widget (docs/widgets.md): the organizer
// publishes an agenda, creates a widget over the API and sets its filters and theme; a page on
// another origin (another loopback port) embeds it with the one-line script, which inserts the
// iframe. In Chromium, the visitor sees the filtered sessions and their speakers in the widget's
// theme and colour, no cancelled session and no email address. The widget page and the host page
// pass axe-core; the host page is saved as docs/screens/widget-agenda.png, the speaker gallery as
// docs/screens/widget-gallery.png.
func TestBrowserWidget(t *testing.T) {
	t.Parallel()
	srv := startE2EServer(t)
	key := srv.createKey(t, "Widget Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}

	eventID := createE2EEvent(t, api, "GopherCon EU")
	base := "/events/" + eventID
	item := func(body map[string]any) string {
		body["id"] = nil
		return api.must(t, http.StatusOK, http.MethodPost, base+"/library", body)["id"].(string)
	}
	cloud := item(map[string]any{"kind": "track", "name": "Cloud", "color": "#0b6e99"})
	tooling := item(map[string]any{"kind": "track", "name": "Tooling", "color": "#8a4baf"})
	talk := item(map[string]any{"kind": "format", "name": "Talk"})
	hall := item(map[string]any{"kind": "room", "name": "Main hall"})
	annex := item(map[string]any{"kind": "room", "name": "Annex"})
	speaker := func(first, last, email, title, company, bio string) string {
		return api.must(t, http.StatusCreated, http.MethodPost, base+"/speakers", map[string]any{"id": nil,
			"firstName": first, "lastName": last, "email": email, "title": title, "company": company, "bio": bio,
			"linkedinUrl": nil, "twitterUrl": nil, "websiteUrl": nil, "dietaryRequirements": "none", "tshirtSize": nil,
			"travelLogistics": nil, "workflowStatus": "confirmed"})["id"].(string)
	}
	ada := speaker("Ada", "Lovelace", "ada@example.test", "Principal Engineer", "Analytical Engines", "Wrote the first program.")
	grace := speaker("Grace", "Hopper", "grace@example.test", "Rear Admiral", "US Navy", "Made compilers happen.")
	alan := speaker("Alan", "Turing", "alan@example.test", "Researcher", "Bletchley Park", "Asked whether machines think.")
	session := func(title, description, track string, speakers ...string) string {
		ids := make([]any, len(speakers))
		for i, s := range speakers {
			ids[i] = s
		}
		id := api.must(t, http.StatusCreated, http.MethodPost, base+"/submissions", map[string]any{"title": title,
			"description": description, "formatId": talk, "trackIds": []any{track}, "speakerIds": ids})["id"].(string)
		api.must(t, http.StatusOK, http.MethodPost, base+"/submissions/decide", map[string]any{"submissionIds": []any{id},
			"decision": "accept", "feedback": "", "approveContent": true})
		return id
	}
	schedule := func(id, room, starts, ends string) {
		api.must(t, http.StatusOK, http.MethodPut, base+"/agenda/schedule", map[string]any{"submissionId": id,
			"roomId": room, "startsAt": starts, "endsAt": ends})
	}
	keynote := session("Withdrawn keynote", "Cancelled after publication.", cloud, grace)
	schedule(keynote, hall, "2027-06-10T07:00:00Z", "2027-06-10T07:45:00Z")
	schedule(session("Cloud-native Go at scale", "Running Go services for millions.", cloud, ada), hall,
		"2027-06-10T08:00:00Z", "2027-06-10T08:45:00Z")
	schedule(session("Fuzzing in practice", "Finding bugs before users do.", tooling, alan), annex,
		"2027-06-10T08:00:00Z", "2027-06-10T08:45:00Z")
	schedule(session("Serverless without tears", "Functions, cold starts and costs.", cloud, grace), annex,
		"2027-06-10T10:00:00Z", "2027-06-10T10:30:00Z")
	schedule(session("Observability 101", "Logs, metrics and traces that help.", cloud, grace, ada), hall,
		"2027-06-11T08:00:00Z", "2027-06-11T09:00:00Z")
	api.must(t, http.StatusOK, http.MethodPost, base+"/agenda/publish", nil)
	api.must(t, http.StatusOK, http.MethodPost, base+"/sessions/"+keynote+"/cancel", map[string]any{
		"cause": "organizer", "notifySpeakers": false})

	widget := api.must(t, http.StatusCreated, http.MethodPost, base+"/widgets", map[string]any{"name": "Cloud track", "view": "agenda"})
	widgetID := widget["id"].(string)
	options := func(theme string) map[string]any {
		return map[string]any{"trackIds": []any{cloud}, "formatIds": []any{}, "tagIds": []any{}, "dayKeys": []any{},
			"theme": theme, "primaryColor": "#1d6b4c", "dateFormat": "24h", "showSpeakerCompany": true,
			"showSpeakerTitle": true, "showSpeakerBio": true, "showSessionDescription": true, "showSessionLevel": true,
			"showSessionFormat": true, "showAddToCalendar": true, "customCss": ".os-session-title { letter-spacing: 1px; }"}
	}
	api.must(t, http.StatusOK, http.MethodPatch, base+"/widgets/"+widgetID, map[string]any{"name": "Cloud track",
		"view": "agenda", "enabled": true, "options": options("light")})

	// The event's site: another origin, embedding the widget with the script snippet.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>GopherCon EU · Program</title></head>
<body style="font-family:sans-serif;max-width:960px;margin:0 auto;padding:1rem"><main><h1>GopherCon EU: the program</h1>
<p>Three days of Go in Berlin. The Cloud track:</p>
<script src="%s/embed/%s/embed.js" data-title="GopherCon EU program" data-height="720"></script>
</main></body></html>`, srv.url, widgetID)
	}))
	t.Cleanup(site.Close)

	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)
	run(t, ctx, "open the event's site", chromedp.EmulateViewport(1100, 900), chromedp.Navigate(site.URL),
		chromedp.WaitVisible(`iframe[title="GopherCon EU program"]`, chromedp.ByQuery))
	text := frameText(t, ctx, srv.url+"/embed/"+widgetID, "Observability 101")
	for _, want := range []string{"Cloud-native Go at scale", "Serverless without tears", "Observability 101",
		"Ada Lovelace", "Principal Engineer, Analytical Engines", "Grace Hopper", "Main hall", "Thursday 10 June 2027",
		"Friday 11 June 2027", "10:00", "Add to calendar", "Cloud"} {
		require.Contains(t, text, want)
	}
	for _, never := range []string{"Fuzzing in practice", "Alan Turing", "Withdrawn keynote", "@example.test", "AM", "PM"} {
		require.NotContains(t, text, never)
	}
	require.Equal(t, "mode-light", frameEval(t, ctx, srv.url+"/embed/"+widgetID, `document.documentElement.className`))
	require.Equal(t, "rgb(29, 107, 76)", frameEval(t, ctx, srv.url+"/embed/"+widgetID,
		`getComputedStyle(document.querySelector(".os-header")).borderBottomColor`), "the widget's colour")
	require.Equal(t, "1px", frameEval(t, ctx, srv.url+"/embed/"+widgetID,
		`getComputedStyle(document.querySelector(".os-session-title")).letterSpacing`), "the custom CSS")
	checkAccessibility(t, ctx, "the event's site with the widget")
	time.Sleep(300 * time.Millisecond) // fonts and layout settle before the picture
	screen(t, ctx, "widget-agenda.png")

	// The widget page itself, in the dark theme, then the speaker gallery.
	api.must(t, http.StatusOK, http.MethodPatch, base+"/widgets/"+widgetID, map[string]any{"name": "Cloud track",
		"view": "agenda", "enabled": true, "options": options("dark")})
	run(t, ctx, "open the widget page", chromedp.Navigate(srv.url+"/embed/"+widgetID),
		chromedp.WaitVisible(`.os-day-heading`, chromedp.ByQuery))
	var class string
	run(t, ctx, "read the theme", chromedp.Evaluate(`document.documentElement.className`, &class))
	require.Equal(t, "mode-dark", class)
	checkAccessibility(t, ctx, "/embed/{id} (agenda, dark)")
	run(t, ctx, "open the speaker gallery", chromedp.Navigate(srv.url+"/embed/"+widgetID+"?view=speaker_gallery&theme=light"),
		chromedp.WaitVisible(`.os-gallery`, chromedp.ByQuery))
	gallery := waitText(t, ctx, ".os-gallery", "Grace Hopper")
	require.Contains(t, gallery, "Made compilers happen.")
	require.NotContains(t, gallery, "Alan Turing")
	checkAccessibility(t, ctx, "/embed/{id}?view=speaker_gallery")
	screen(t, ctx, "widget-gallery.png")
	for _, view := range []string{"sessions", "speakers", "itinerary"} {
		run(t, ctx, "open the "+view+" view", chromedp.Navigate(srv.url+"/embed/"+widgetID+"?view="+view),
			chromedp.WaitVisible(`.embed-root`, chromedp.ByQuery))
		checkAccessibility(t, ctx, "/embed/{id}?view="+view)
	}
}

// frameOf finds the tab's frame whose URL starts with prefix, waiting up to 30 s for it to load
// completely (stylesheets included) and show text containing want, and returns an isolated world in it (the frame is another origin: the
// host page's scripts cannot read it, DevTools can).
func frameOf(t *testing.T, ctx context.Context, prefix, want string) runtime.ExecutionContextID {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var world runtime.ExecutionContextID
		var text string
		err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
			tree, err := page.GetFrameTree().Do(ctx)
			if err != nil {
				return err
			}
			var frame cdp.FrameID
			for _, child := range tree.ChildFrames {
				if strings.HasPrefix(child.Frame.URL, prefix) {
					frame = child.Frame.ID
				}
			}
			if frame == "" {
				return nil
			}
			if world, err = page.CreateIsolatedWorld(frame).Do(ctx); err != nil {
				return err
			}
			res, _, err := runtime.Evaluate(`document.readyState === "complete" ? document.body.innerText : ""`).WithContextID(world).
				WithReturnByValue(true).Do(ctx)
			if err != nil {
				return err
			}
			return json.Unmarshal(res.Value, &text)
		}))
		require.NoError(t, err)
		if world != 0 && strings.Contains(text, want) {
			return world
		}
		if time.Now().After(deadline) {
			t.Fatalf("no frame at %s showed %q within 30s (it showed %q)", prefix, want, text)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// frameEval evaluates expression, which gives a string, in the frame at prefix.
func frameEval(t *testing.T, ctx context.Context, prefix, expression string) string {
	t.Helper()
	world := frameOf(t, ctx, prefix, "")
	var out string
	run(t, ctx, "evaluate "+expression, chromedp.ActionFunc(func(ctx context.Context) error {
		res, exc, err := runtime.Evaluate(expression).WithContextID(world).WithReturnByValue(true).Do(ctx)
		if err != nil {
			return err
		}
		if exc != nil {
			return exc
		}
		return json.Unmarshal(res.Value, &out)
	}))
	return out
}

// frameText is what the frame at prefix shows, once it shows want.
func frameText(t *testing.T, ctx context.Context, prefix, want string) string {
	t.Helper()
	frameOf(t, ctx, prefix, want)
	return frameEval(t, ctx, prefix, `document.body.innerText`)
}
