//go:build e2e

package main

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// TestBrowserPortalAsWritten is a speaker reading what the organizers wrote, in Chromium at a
// phone's size: dates in the event's time zone (never UTC), a task's instructions and a file's
// description and due date; they download back the file they uploaded, and the same link once
// expired answers a page. When they decline, the organizers are told: an email to the
// organization's admins and a line on the session's timeline. Every page state passes axe-core.
func TestBrowserPortalAsWritten(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>",
		"PODIUM_DATA_DIR="+t.TempDir())
	key := srv.createKey(t, "Written Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}
	gql := e2eAPI{base: srv.url, key: key}

	eventID := createE2EEvent(t, api, "GopherCon Written Check")
	base := "/events/" + eventID
	speaker := addAda(t, api, base)
	api.must(t, http.StatusOK, http.MethodPost, base+"/file-requirements", map[string]any{"id": nil, "label": "Slides",
		"description": "16:9, at most 20 slides.", "scope": "session", "dueAt": "2027-05-01T00:00:00.000Z"})
	api.must(t, http.StatusOK, http.MethodPost, base+"/task-templates", map[string]any{"id": nil, "title": "Send your bio",
		"instructions": "Write 100 words about yourself.", "scope": "speaker", "dueDate": "2027-05-01T00:00:00.000Z"})
	session := api.must(t, http.StatusCreated, http.MethodPost, base+"/sessions", map[string]any{
		"title": "Engines", "description": "Notes on the analytical engine.", "formatId": nil,
		"speakerIds": []any{speaker["id"]}})
	sessionID := session["id"].(string)
	deliverables := listOf(t, api, base+"/sessions/"+sessionID+"/deliverables")
	require.Len(t, deliverables, 1)
	deliverable := deliverables[0].(map[string]any)["id"].(string)
	api.must(t, http.StatusOK, http.MethodPost, base+"/speakers/invite",
		map[string]any{"contactIds": []string{speaker["id"].(string)}})
	gql.graphQL(t, `mutation { inviteOrganizationMember(input: {email: "org@example.test", role: "admin"}) { id } }`, nil)

	slides := filepath.Join(t.TempDir(), "engines.pdf")
	content := append([]byte("%PDF-1.7\n"), make([]byte, 4096)...)
	require.NoError(t, os.WriteFile(slides, content, 0o600))

	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)
	run(t, ctx, "follow the invitation's link and confirm the sign-in", phone(),
		followLink(link.FindString(lastTo(t, sink, "ada@example.test", 1).Text)))

	t.Run("DatesInTheEventsTimeZone", func(t *testing.T) {
		run(t, ctx, "confirm taking part", chromedp.WaitVisible(`#confirm-participation`, chromedp.ByQuery),
			chromedp.Click(`#confirm-participation`, chromedp.ByQuery))
		confirmed := waitText(t, ctx, `#confirmed`, "You confirmed on")
		require.NotContains(t, confirmed, "UTC")
		require.Regexp(t, `CES?T`, confirmed)
		checkAccessibility(t, ctx, "/portal confirmed, local time")
	})

	t.Run("TasksAndFilesAsWritten", func(t *testing.T) {
		run(t, ctx, "open the tasks", chromedp.Navigate(srv.url+"/portal/tasks"),
			chromedp.WaitVisible(`#file-`+deliverable, chromedp.ByQuery))
		tasks := waitText(t, ctx, `main`, "Write 100 words about yourself.")
		require.Contains(t, tasks, "16:9, at most 20 slides.")
		require.Contains(t, tasks, "due Sat 1 May 2027, 02:00 CEST")
		require.NotContains(t, tasks, "UTC")
		require.NotContains(t, tasks, "+0000")
		checkAccessibility(t, ctx, "/portal/tasks as written")
		screen(t, ctx, "portal-tasks-written.png")
	})

	t.Run("DownloadsWhatTheyUploaded", func(t *testing.T) {
		run(t, ctx, "upload the slides",
			chromedp.SetUploadFiles(`#file-`+deliverable, []string{slides}, chromedp.ByQuery),
			chromedp.Click(`#deliverable-`+deliverable+` form.stack button`, chromedp.ByQuery))
		waitText(t, ctx, `#notice`, "Your file was uploaded")
		var href string
		var ok bool
		run(t, ctx, "read the download link", chromedp.AttributeValue(`#deliverable-`+deliverable+` a[download]`,
			"href", &href, &ok, chromedp.ByQuery))
		require.True(t, ok)
		require.Contains(t, href, srv.url+"/files/")
		checkAccessibility(t, ctx, "/portal/tasks with a download")

		resp, err := http.Get(href)
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", got)
		require.Equal(t, content, got)

		// The same link, expired: a page that says what to do, not JSON.
		expired, err := url.Parse(href)
		require.NoError(t, err)
		q := expired.Query()
		q.Set("expires", "1")
		expired.RawQuery = q.Encode()
		run(t, ctx, "open the link expired", chromedp.Navigate(expired.String()), chromedp.WaitVisible(`main`, chromedp.ByQuery))
		page := waitText(t, ctx, `main`, "download link has expired")
		require.NotContains(t, page, `"error"`)
		checkAccessibility(t, ctx, "expired link of an upload")
	})

	t.Run("DecliningTellsTheOrganizers", func(t *testing.T) {
		// The admin signs in once, outside the speaker's browser: that accepts the invitation and
		// makes them an admin.
		status, _ := postForm(t, srv.url+"/auth/signin", url.Values{"email": {"org@example.test"}})
		require.Equal(t, http.StatusAccepted, status)
		signin, err := url.Parse(link.FindString(lastTo(t, sink, "org@example.test", 2).Text))
		require.NoError(t, err)
		status, _ = postForm(t, srv.url+"/auth/link", url.Values{"token": {signin.Query().Get("token")}})
		require.Less(t, status, http.StatusBadRequest, "the admin's sign-in")

		run(t, ctx, "decline", chromedp.Navigate(srv.url+"/portal"),
			chromedp.WaitVisible(`#decline-participation`, chromedp.ByQuery),
			chromedp.Click(`#decline-participation`, chromedp.ByQuery))
		waitText(t, ctx, `#notice`, "The organizers have been told")
		checkAccessibility(t, ctx, "/portal declined")

		told := lastTo(t, sink, "org@example.test", 3)
		require.Contains(t, told.Header.Get("Subject"), "Ada Lovelace cannot take part in GopherCon Written Check")
		require.Contains(t, told.Text, `"Engines"`)
		status, body := api.do(t, http.MethodGet, base+"/sessions/"+sessionID+"/timeline", nil)
		require.Equal(t, http.StatusOK, status, "%s", body)
		// REST answers the line in the contract's kinds (docs/rest-api.md "Timeline").
		require.Contains(t, string(body), `"kind":"status_changed","label":"Speaker declined taking part"`)
	})

	browser.requireLocal(t)
}
