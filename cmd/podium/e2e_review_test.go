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

// TestBrowserReviewerSeesWhatTheCommitteeJudges is a reviewer in Chromium at a phone's size: the
// invitation says how many proposals there are and when the round closes; the review page shows
// the proposal's format, level, language and replies to the form, less the question the organizers
// hid from reviewers, and in a blind round a reply naming the speaker is redacted. The page passes
// axe-core.
func TestBrowserReviewerSeesWhatTheCommitteeJudges(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "Review Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}
	gql := e2eAPI{base: srv.url, key: key}

	eventID := createE2EEvent(t, api, "GopherCon Review Check")
	base := "/events/" + eventID
	talk := api.must(t, http.StatusOK, http.MethodPost, base+"/library",
		map[string]any{"id": nil, "kind": "format", "name": "Lightning talk"})["id"]
	speaker := addAda(t, api, base)
	created := gql.graphQL(t, `mutation($e: ID!, $in: CreateSubmissionInput!) { createSubmission(eventId: $e, input: $in) { id } }`,
		map[string]any{"e": eventID, "in": map[string]any{"title": "Engines", "description": "Notes on the analytical engine.",
			"formatId": talk, "trackIds": []any{}, "speakerIds": []any{speaker["id"]}, "answers": map[string]any{
				"audience": "Engineers who liked Lovelace's notes; ask ada@example.test for the slides.",
				"travel":   "Needs a flight from London.",
			}}})
	proposal := created["createSubmission"].(map[string]any)["id"].(string)
	forms := gql.graphQL(t, `query($e: ID!) { event(id: $e) { forms { id isDefault } } }`, map[string]any{"e": eventID})
	form := forms["event"].(map[string]any)["forms"].([]any)[0].(map[string]any)["id"]
	gql.graphQL(t, `mutation($e: ID!, $f: ID!, $in: CfpFormInput!) { updateForm(eventId: $e, formId: $f, input: $in) { id } }`,
		map[string]any{"e": eventID, "f": form, "in": map[string]any{"title": "Speak at GopherCon", "questions": []any{
			map[string]any{"key": "audience", "label": "Who is it for?", "kind": "long_text"},
			map[string]any{"key": "travel", "label": "Travel needs", "kind": "text", "hiddenFromReviewers": true},
		}}})
	read := gql.graphQL(t, `query($e: ID!) { event(id: $e) { forms { questions { key hiddenFromReviewers } } } }`,
		map[string]any{"e": eventID})
	require.Contains(t, read["event"].(map[string]any)["forms"].([]any)[0].(map[string]any)["questions"],
		map[string]any{"key": "travel", "hiddenFromReviewers": true})

	closes := time.Date(2030, 6, 1, 16, 0, 0, 0, time.UTC)
	saved := api.must(t, http.StatusOK, http.MethodPost, base+"/review-rounds", map[string]any{
		"roundId": nil, "name": "First round", "blind": true, "reviewsPerSubmission": 1, "position": 1,
		"opensAt": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "closesAt": closes.Format(time.RFC3339),
		"criteria": []any{map[string]any{"id": nil, "label": "Depth", "type": "numeric", "min": 1, "max": 5,
			"options": []any{}, "required": true, "weight": 1, "position": 1}}})
	round := saved["roundId"].(string)
	added := api.must(t, http.StatusCreated, http.MethodPost, base+"/review-rounds/"+round+"/members",
		map[string]any{"email": "grace@example.test", "assignmentCap": nil, "accessPath": "/reviews/" + round})
	member := added["reviewer"].(map[string]any)["member"].(map[string]any)["eventMemberId"]
	api.must(t, http.StatusOK, http.MethodPost, base+"/review-rounds/"+round+"/assignments",
		map[string]any{"eventMemberId": member, "submissionIds": []any{proposal}})

	invitation := lastTo(t, sink, "grace@example.test", 1)
	require.Contains(t, invitation.Text, "1 proposal is up for review")
	require.Contains(t, invitation.Text, "The round closes on Saturday 1 June 2030, 18:00 CEST")

	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)
	run(t, ctx, "follow the invitation's link and confirm", phone(), followLink(link.FindString(invitation.Text)),
		chromedp.WaitVisible(`#assignments a`, chromedp.ByQuery),
		chromedp.Click(`#assignments a`, chromedp.ByQuery),
		chromedp.WaitVisible(`#review-form`, chromedp.ByQuery))

	facts := waitText(t, ctx, `#proposal-facts`, "Lightning talk")
	require.Contains(t, facts, "None chosen") // no level
	require.Contains(t, facts, "en")
	answers := waitText(t, ctx, `#proposal-answers`, "Who is it for?")
	require.Contains(t, answers, "Engineers who liked [redacted]'s notes; ask [redacted] for the slides.")
	require.NotContains(t, answers, "Travel needs")
	var page string
	run(t, ctx, "read the page", chromedp.Text(`main`, &page, chromedp.ByQuery))
	require.NotContains(t, page, "Lovelace")
	require.NotContains(t, page, "ada@example.test")
	require.NotContains(t, page, "flight from London")
	require.Contains(t, page, "The round closes on Sat 1 Jun 2030, 18:00 CEST")
	checkAccessibility(t, ctx, "/reviews/{assignment} with the proposal's facts")
	screen(t, ctx, "review-proposal.png")

	browser.requireLocal(t)
}
