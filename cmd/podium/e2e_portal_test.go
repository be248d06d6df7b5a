//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// TestBrowserPortal is a speaker in the portal, in Chromium at a phone's size: invited by an
// organizer, they follow the invitation's one-click link from the SMTP sink, confirm taking part,
// upload a file of the wrong type (refused on the page), then the right one, and tick their task;
// the organizer's REST session list shows confirmedAt, deliverablesUploaded and tasksDone
// changed. Every portal page passes axe-core and is saved to docs/screens/portal-*.png.
func TestBrowserPortal(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>",
		"PODIUM_DATA_DIR="+t.TempDir())
	key := srv.createKey(t, "Portal Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}

	eventID := createE2EEvent(t, api, "GopherCon Portal Check")
	base := "/events/" + eventID
	speaker := addAda(t, api, base)
	api.must(t, http.StatusOK, http.MethodPost, base+"/file-requirements",
		map[string]any{"id": nil, "label": "Slides", "scope": "session"})
	api.must(t, http.StatusOK, http.MethodPost, base+"/task-templates",
		map[string]any{"id": nil, "title": "Send your bio", "description": nil, "scope": "speaker", "dueDate": nil})
	session := api.must(t, http.StatusCreated, http.MethodPost, base+"/sessions", map[string]any{
		"title": "Engines", "description": "Notes on the analytical engine.", "formatId": nil,
		"speakerIds": []any{speaker["id"]}})
	sessionID := session["id"].(string)
	api.must(t, http.StatusCreated, http.MethodPost, base+"/resources", map[string]any{
		"title": "Speaker guide", "subtitle": "Read before the day", "body": "Arrive 30 minutes early.",
		"published": true, "audienceMode": "all", "attachmentKind": "link", "linkUrl": "https://example.test/guide",
		"embedUrl": nil, "trackIds": []any{}, "contactIds": []any{}})
	deliverables := listOf(t, api, base+"/sessions/"+sessionID+"/deliverables")
	require.Len(t, deliverables, 1)
	deliverable := deliverables[0].(map[string]any)["id"].(string)
	tasks := listOf(t, api, base+"/sessions/"+sessionID+"/tasks")
	require.Len(t, tasks, 1)
	task := tasks[0].(map[string]any)["id"].(string)
	api.must(t, http.StatusOK, http.MethodPost, base+"/speakers/invite",
		map[string]any{"contactIds": []string{speaker["id"].(string)}})

	dir := t.TempDir()
	slides := filepath.Join(dir, "engines.pdf")
	require.NoError(t, os.WriteFile(slides, append([]byte("%PDF-1.7\n"), make([]byte, 4096)...), 0o600))
	wrong := filepath.Join(dir, "engines.exe")
	require.NoError(t, os.WriteFile(wrong, []byte("MZ this is not a document"), 0o600))

	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)
	invitation := lastTo(t, sink, "ada@example.test", 1)
	oneClick := link.FindString(invitation.Text)
	require.Contains(t, oneClick, "/auth/link?token=")

	run(t, ctx, "follow the invitation's link and confirm the sign-in", phone(),
		chromedp.Navigate(oneClick),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		chromedp.Click(`#confirm`, chromedp.ByQuery))
	waitText(t, ctx, `#confirm-banner`, "Please confirm your participation")
	checkAccessibility(t, ctx, "/portal")
	screen(t, ctx, "portal-home.png")

	run(t, ctx, "confirm taking part", chromedp.Click(`#confirm-participation`, chromedp.ByQuery))
	waitText(t, ctx, `#notice`, "your participation is confirmed")
	waitText(t, ctx, `#workflow-status`, "confirmed")
	checkAccessibility(t, ctx, "/portal confirmed")

	fileInput := "#file-" + deliverable
	uploadButton := fmt.Sprintf(`#deliverable-%s form.stack button`, deliverable)
	run(t, ctx, "open the tasks and upload a file of the wrong type",
		chromedp.Navigate(srv.url+"/portal/tasks"),
		chromedp.WaitVisible(fileInput, chromedp.ByQuery),
		chromedp.SetUploadFiles(fileInput, []string{wrong}, chromedp.ByQuery),
		chromedp.Click(uploadButton, chromedp.ByQuery))
	waitText(t, ctx, fileInput+"-error", "cannot be uploaded here")
	checkAccessibility(t, ctx, "/portal/tasks upload refused")
	screen(t, ctx, "portal-tasks-error.png")

	run(t, ctx, "upload the slides",
		chromedp.SetUploadFiles(fileInput, []string{slides}, chromedp.ByQuery),
		chromedp.Click(uploadButton, chromedp.ByQuery))
	waitText(t, ctx, `#notice`, "Your file was uploaded")
	waitText(t, ctx, "#deliverable-"+deliverable, "engines.pdf")

	run(t, ctx, "tick the task", chromedp.Click(fmt.Sprintf(`#task-%s button`, task), chromedp.ByQuery))
	waitText(t, ctx, `#notice`, "Your task was updated")
	waitText(t, ctx, "#task-"+task, "done")
	checkAccessibility(t, ctx, "/portal/tasks")
	screen(t, ctx, "portal-tasks.png")

	for _, p := range []struct{ path, wait, want, shot string }{
		{"/portal/sessions", "#sessions", "Engines", "portal-sessions.png"},
		{"/portal/submissions", "#submissions", "Engines", "portal-submissions.png"},
		{"/portal/resources", "#resources", "Speaker guide", "portal-resources.png"},
	} {
		run(t, ctx, "open "+p.path, chromedp.Navigate(srv.url+p.path), chromedp.WaitVisible(p.wait, chromedp.ByQuery))
		waitText(t, ctx, p.wait, p.want)
		checkAccessibility(t, ctx, p.path)
		screen(t, ctx, p.shot)
	}

	list := api.must(t, http.StatusOK, http.MethodGet, base+"/sessions", nil)
	rows := list["sessions"].([]any)
	require.Len(t, rows, 1)
	row := rows[0].(map[string]any)
	require.NotNil(t, row["speakers"].([]any)[0].(map[string]any)["confirmedAt"], row)
	require.EqualValues(t, 1, row["deliverablesUploaded"], row)
	require.EqualValues(t, 1, row["tasksDone"], row)
}

// listOf gets path, a JSON list.
func listOf(t *testing.T, api e2eAPI, path string) []any {
	t.Helper()
	status, body := api.do(t, http.MethodGet, path, nil)
	require.Equal(t, http.StatusOK, status, "%s", body)
	var out []any
	require.NoError(t, json.Unmarshal(body, &out), "%s", body)
	return out
}

// addAda adds Ada Lovelace, invited, as a speaker of the event at base.
func addAda(t *testing.T, api e2eAPI, base string) map[string]any {
	t.Helper()
	return api.must(t, http.StatusCreated, http.MethodPost, base+"/speakers", map[string]any{
		"id": nil, "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.test", "title": nil,
		"company": nil, "bio": nil, "linkedinUrl": nil, "twitterUrl": nil, "websiteUrl": nil,
		"dietaryRequirements": "none", "tshirtSize": nil, "travelLogistics": nil, "workflowStatus": "invited"})
}
