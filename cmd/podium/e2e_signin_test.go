//go:build e2e

package main

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// TestBrowserSignIn follows Podium's emails in Chromium as a speaker and a reviewer would, read
// from an SMTP sink as they arrive in an inbox: the portal invitation's link signs the speaker in
// with one click and lands on their portal; the reviewer invitation's link signs the reviewer in
// and lands on their reviews, where they answer a blind round's scorecard, and the organizer's
// results show the answer.
func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "Sign-in Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}

	eventID := createE2EEvent(t, api, "Sign-in Check")
	base := "/events/" + eventID
	speaker := addAda(t, api, base)
	proposal := api.must(t, http.StatusCreated, http.MethodPost, base+"/submissions", map[string]any{
		"title": "Engines by Ada Lovelace", "description": "Notes on the analytical engine.", "formatId": nil,
		"trackIds": []any{}, "speakerIds": []any{speaker["id"]}})
	api.must(t, http.StatusOK, http.MethodPost, base+"/speakers/invite",
		map[string]any{"contactIds": []string{speaker["id"].(string)}})

	browser := newBrowser(t, srv.url)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)

	t.Run("SpeakerFromPortalInvitation", func(t *testing.T) {
		ctx := browser.tab(t)
		invitation := lastTo(t, sink, "ada@example.test", 1)
		oneClick := link.FindString(invitation.Text)
		require.Contains(t, oneClick, "/auth/link?token=")
		require.Contains(t, oneClick, "next=%2Fportal")

		run(t, ctx, "follow the invitation's link and confirm",
			chromedp.Navigate(oneClick),
			chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
			chromedp.Click(`#confirm`, chromedp.ByQuery))
		waitText(t, ctx, `#signed-in-as`, "ada@example.test")
		waitText(t, ctx, `main`, "Engines by Ada Lovelace")
		var location string
		run(t, ctx, "read where the browser landed", chromedp.Location(&location))
		require.Equal(t, srv.url+"/portal", location)
		checkAccessibility(t, ctx, "/portal")
		screen(t, ctx, "portal-landing.png")
	})

	t.Run("ReviewerFromInvitationSubmitsAReview", func(t *testing.T) {
		ctx := browser.tab(t)
		saved := api.must(t, http.StatusOK, http.MethodPost, base+"/review-rounds", map[string]any{
			"roundId": nil, "name": "First round", "blind": true, "reviewsPerSubmission": 2, "position": 1,
			"opensAt":  time.Now().Add(-time.Hour).UTC().Format(time.RFC3339),
			"closesAt": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339),
			"criteria": []any{map[string]any{"id": nil, "label": "Depth", "type": "numeric", "min": 1, "max": 5,
				"options": []any{}, "required": true, "weight": 1, "position": 1}}})
		round := saved["roundId"].(string)
		added := api.must(t, http.StatusCreated, http.MethodPost, base+"/review-rounds/"+round+"/members",
			map[string]any{"email": "grace@example.test", "assignmentCap": nil, "accessPath": "/reviews/" + round})
		member := added["reviewer"].(map[string]any)["member"].(map[string]any)["eventMemberId"]
		api.must(t, http.StatusOK, http.MethodPost, base+"/review-rounds/"+round+"/assignments",
			map[string]any{"eventMemberId": member, "submissionIds": []any{proposal["id"]}})
		invitation := lastTo(t, sink, "grace@example.test", 1)
		oneClick := link.FindString(invitation.Text)
		require.Contains(t, oneClick, "next=%2Freviews%2F"+round)

		// The browser is still signed in as the speaker: the link replaces that session.
		run(t, ctx, "follow the invitation's link and confirm",
			chromedp.Navigate(oneClick),
			chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
			chromedp.Click(`#confirm`, chromedp.ByQuery))
		waitText(t, ctx, `#signed-in-as`, "grace@example.test")
		var location string
		run(t, ctx, "read where the browser landed", chromedp.Location(&location))
		require.Equal(t, srv.url+"/reviews/"+round, location)
		checkAccessibility(t, ctx, "/reviews/{round}")
		screen(t, ctx, "review-assignments.png")

		run(t, ctx, "open the assignment",
			chromedp.Click(`#assignments a`, chromedp.ByQuery),
			chromedp.WaitVisible(`#review-form`, chromedp.ByQuery))
		checkAccessibility(t, ctx, "/reviews/{assignment}")
		screen(t, ctx, "review-assignment.png")
		var page string
		run(t, ctx, "read the assignment", chromedp.Text(`main`, &page, chromedp.ByQuery))
		require.Contains(t, page, "[redacted]")
		require.NotContains(t, page, "Lovelace", "a blind round shows the reviewer who the speaker is")
		run(t, ctx, "answer the scorecard and submit",
			chromedp.SendKeys(`#review-form input`, "4", chromedp.ByQuery),
			chromedp.Click(`#submit-review`, chromedp.ByQuery))
		waitText(t, ctx, `#notice`, "Your review is saved")
		waitText(t, ctx, `#status`, "completed")
		checkAccessibility(t, ctx, "review saved")
		screen(t, ctx, "review-saved.png")

		status, raw := api.do(t, http.MethodGet, base+"/evaluation", nil)
		require.Equal(t, http.StatusOK, status)
		results := string(raw)
		require.Contains(t, results, `"numericValue":4`)
		require.Contains(t, results, `"status":"completed"`)
	})

	browser.requireLocal(t)
}

// lastTo waits until the sink holds n messages to addr and returns the n-th.
func lastTo(t *testing.T, sink *mailtest.Sink, addr string, n int) mailtest.Message {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var to []mailtest.Message
		for _, m := range sink.Messages() {
			if len(m.To) == 1 && m.To[0] == addr {
				to = append(to, m)
			}
		}
		if len(to) >= n {
			return to[n-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d messages to %s after 30s, want %d", len(to), addr, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
