//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// TestBrowserCFP is a speaker answering a call for proposals in Chromium, at a phone's size: they
// open the form's page, ask for a sign-in link, follow it from the email in the SMTP sink, write
// a proposal (refused once for a missing title, keeping what they typed), submit it, and get the
// confirmation email; the organizer's REST list shows it pending, with the co-speaker they named
// invited, not a speaker. Then they meet the form's limit and, once the organizer closes the
// form, a closed form — each shown instead of a proposal form. Last, the co-speaker follows the
// invitation's link, is signed in, and accepts. Every page passes axe-core and is saved to
// docs/screens/.
func TestBrowserCFP(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "CFP Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}
	gql := e2eAPI{base: srv.url, key: key}

	eventID := createE2EEvent(t, api, "GopherCon CFP Check")
	for _, item := range []map[string]any{{"kind": "track", "name": "Cloud"}, {"kind": "track", "name": "Tooling"},
		{"kind": "format", "name": "Talk"}, {"kind": "level", "name": "Intermediate"}} {
		item["id"] = nil
		api.must(t, http.StatusOK, http.MethodPost, "/events/"+eventID+"/library", item)
	}
	formInput := map[string]any{"title": "Speak at GopherCon", "submissionLimit": 1, "questions": []any{
		map[string]any{"key": "audience", "label": "Who is it for?", "kind": "text", "required": true},
		map[string]any{"key": "length", "label": "Preferred length", "kind": "choice", "options": []any{"25 minutes", "45 minutes"}},
		map[string]any{"key": "notes", "label": "Notes for the organizers", "kind": "long_text"}}}
	created := gql.graphQL(t, `mutation($e: ID!, $in: CfpFormInput!) { createForm(eventId: $e, input: $in) { id } }`,
		map[string]any{"e": eventID, "in": formInput})
	formID := created["createForm"].(map[string]any)["id"].(string)
	page := srv.url + "/cfp/" + formID

	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)

	t.Run("SignInPages", func(t *testing.T) {
		run(t, ctx, "open the sign-in page", phone(), chromedp.Navigate(srv.url+"/auth/signin"),
			chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery))
		checkAccessibility(t, ctx, "/auth/signin")
		screen(t, ctx, "signin.png")
		run(t, ctx, "open a sign-in link's page", chromedp.Navigate(srv.url+"/auth/link?token=x"),
			chromedp.WaitVisible(`#confirm`, chromedp.ByQuery))
		checkAccessibility(t, ctx, "/auth/link")
	})

	t.Run("SubmitAProposal", func(t *testing.T) {
		run(t, ctx, "open the form's page", chromedp.Navigate(page), chromedp.WaitVisible(`#cfp-dates`, chromedp.ByQuery))
		checkAccessibility(t, ctx, "/cfp/{form} signed out")
		screen(t, ctx, "cfp-form.png")
		run(t, ctx, "ask for a sign-in link from the form",
			chromedp.SendKeys(`input[name=email]`, "ada@example.test", chromedp.ByQuery),
			chromedp.Click(`form[action="/auth/signin"] button`, chromedp.ByQuery))
		waitText(t, ctx, `main`, "sign-in link is on its way")
		checkAccessibility(t, ctx, "sign-in requested")

		signin := lastTo(t, sink, "ada@example.test", 1)
		run(t, ctx, "follow the link and confirm",
			chromedp.Navigate(link.FindString(signin.Text)),
			chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
			chromedp.Click(`#confirm`, chromedp.ByQuery))
		waitText(t, ctx, `#no-proposals`, "no proposals")
		var location string
		run(t, ctx, "read where the browser landed", chromedp.Location(&location))
		require.Equal(t, page, location)
		checkAccessibility(t, ctx, "/cfp/{form} signed in")

		run(t, ctx, "open a new proposal", chromedp.Click(`#new-proposal`, chromedp.ByQuery),
			chromedp.WaitVisible(`#title`, chromedp.ByQuery))
		checkAccessibility(t, ctx, "/cfp/{form}/new")
		run(t, ctx, "write it without a title and submit",
			chromedp.SendKeys(`#description`, "How generics changed our code base.", chromedp.ByQuery),
			chromedp.SetValue(`#format`, optionValue(t, ctx, `#format`, "Talk"), chromedp.ByQuery),
			chromedp.Click(`#track-1`, chromedp.ByQuery),
			chromedp.SendKeys(`#q_audience`, "Gophers who ship", chromedp.ByQuery),
			chromedp.SendKeys(`#cospeakers`, "Grace Hopper <grace@example.test>", chromedp.ByQuery),
			chromedp.SendKeys(`#first_name`, "Ada", chromedp.ByQuery),
			chromedp.SendKeys(`#last_name`, "Lovelace", chromedp.ByQuery),
			chromedp.Click(`#submit`, chromedp.ByQuery))
		waitText(t, ctx, `#title-error`, "Title must not be empty")
		var kept string
		run(t, ctx, "read the description kept", chromedp.Value(`#description`, &kept, chromedp.ByQuery))
		require.Equal(t, "How generics changed our code base.", kept)
		checkAccessibility(t, ctx, "proposal refused")
		screen(t, ctx, "cfp-proposal-error.png")

		run(t, ctx, "add the title and submit",
			chromedp.SendKeys(`#title`, "Generics in anger", chromedp.ByQuery),
			chromedp.Click(`#submit`, chromedp.ByQuery))
		waitText(t, ctx, `#notice`, "Your proposal is submitted")
		waitText(t, ctx, `#proposals`, "Generics in anger")
		checkAccessibility(t, ctx, "proposal submitted")
		screen(t, ctx, "cfp-my-proposals.png")

		list := api.must(t, http.StatusOK, http.MethodGet, "/events/"+eventID+"/submissions", nil)
		subs := list["submissions"].([]any)
		require.Len(t, subs, 1)
		sub := subs[0].(map[string]any)
		require.Equal(t, "pending", sub["status"])
		require.NotNil(t, sub["submittedAt"])
		require.Len(t, sub["speakers"], 1, "the co-speaker is invited, not a speaker until they accept")

		confirmation := lastTo(t, sink, "ada@example.test", 2)
		subject, err := new(mime.WordDecoder).DecodeHeader(confirmation.Header.Get("Subject"))
		require.NoError(t, err)
		require.Contains(t, subject, "Generics in anger")
		require.Contains(t, confirmation.Text, page)
		invited := lastTo(t, sink, "grace@example.test", 1)
		require.Contains(t, invited.Text, "/auth/link?token=")
		invitedSubject, err := new(mime.WordDecoder).DecodeHeader(invited.Header.Get("Subject"))
		require.NoError(t, err)
		require.NotContains(t, invitedSubject, "Generics in anger", "no typed text in the subject")
		run(t, ctx, "follow the confirmation's link", chromedp.Navigate(link.FindString(confirmation.Text)))
		waitText(t, ctx, `#proposals`, "Generics in anger")
	})

	t.Run("EditAndLimit", func(t *testing.T) {
		run(t, ctx, "open the proposal", chromedp.Navigate(page), chromedp.WaitVisible(`#proposals a`, chromedp.ByQuery),
			chromedp.Click(`#proposals a`, chromedp.ByQuery), chromedp.WaitVisible(`#title`, chromedp.ByQuery))
		checkAccessibility(t, ctx, "/cfp/{form}/proposals/{id}")
		screen(t, ctx, "cfp-edit.png")
		run(t, ctx, "back to the form", chromedp.Navigate(page), chromedp.WaitVisible(`#limit`, chromedp.ByQuery))
		waitText(t, ctx, `#limit`, "limit of 1")
		// The new proposal's page says so instead of showing a form that fails once filled in.
		run(t, ctx, "open a new proposal over the limit", chromedp.Navigate(page+"/new"),
			chromedp.WaitVisible(`#error`, chromedp.ByQuery))
		waitText(t, ctx, `#error`, "limit of 1")
		var fields int
		run(t, ctx, "count the form's fields", chromedp.Evaluate(`document.querySelectorAll('#title').length`, &fields))
		require.Zero(t, fields)
		checkAccessibility(t, ctx, "limit reached")
		screen(t, ctx, "cfp-limit.png")
	})

	t.Run("ClosedForm", func(t *testing.T) {
		closed := gql.graphQL(t, `mutation($e: ID!, $f: ID!) { closeForm(eventId: $e, formId: $f) { status questions { key } } }`,
			map[string]any{"e": eventID, "f": formID})["closeForm"].(map[string]any)
		require.Len(t, closed["questions"], 3, "closing keeps the questions")
		run(t, ctx, "open the closed form", chromedp.Navigate(page), chromedp.WaitVisible(`#error`, chromedp.ByQuery))
		waitText(t, ctx, `#error`, "Submissions are closed")
		dates := waitText(t, ctx, `#cfp-dates`, "Closed")
		require.NotContains(t, dates, "Open until")
		checkAccessibility(t, ctx, "closed form")
		screen(t, ctx, "cfp-closed.png")
		run(t, ctx, "open a new proposal on the closed form", chromedp.Navigate(page+"/new"),
			chromedp.WaitVisible(`#error`, chromedp.ByQuery))
		waitText(t, ctx, `#error`, "Submissions are closed")
		checkAccessibility(t, ctx, "new proposal on a closed form")
	})

	t.Run("CoSpeakerAccepts", func(t *testing.T) {
		invited := lastTo(t, sink, "grace@example.test", 1)
		run(t, ctx, "follow the invitation's link and confirm", chromedp.Navigate(link.FindString(invited.Text)),
			chromedp.WaitVisible(`#confirm`, chromedp.ByQuery), chromedp.Click(`#confirm`, chromedp.ByQuery))
		invitation := waitText(t, ctx, `#invitation`, "Generics in anger")
		require.Contains(t, invitation, "Ada Lovelace")
		waitText(t, ctx, `header`, "GopherCon CFP Check")
		checkAccessibility(t, ctx, "co-speaker invitation")
		screen(t, ctx, "cfp-invitation.png")
		run(t, ctx, "accept", chromedp.Click(`#accept`, chromedp.ByQuery))
		waitText(t, ctx, `#notice`, "You are a speaker of this proposal")
		waitText(t, ctx, `#proposals`, "co-speaker")
		checkAccessibility(t, ctx, "invitation accepted")
		list := api.must(t, http.StatusOK, http.MethodGet, "/events/"+eventID+"/submissions", nil)
		require.Len(t, list["submissions"].([]any)[0].(map[string]any)["speakers"], 2)
	})

	browser.requireLocal(t)
}

// optionValue returns the value of the option of the select matched by selector whose text is
// name.
func optionValue(t *testing.T, ctx context.Context, selector, name string) string {
	t.Helper()
	sel, _ := json.Marshal(selector)
	text, _ := json.Marshal(name)
	var value string
	run(t, ctx, "find the option "+name, chromedp.Evaluate(`[...document.querySelector(`+string(sel)+`).options]
		.find(o => o.text === `+string(text)+`).value`, &value))
	return value
}

// graphQL posts a document with the key and returns its data, failing t on any error.
func (a e2eAPI) graphQL(t *testing.T, query string, vars map[string]any) map[string]any {
	t.Helper()
	status, data := a.do(t, http.MethodPost, "/graphql", map[string]any{"query": query, "variables": vars})
	require.Equal(t, http.StatusOK, status, "%s", data)
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(data, &out), "%s", data)
	require.Empty(t, out.Errors, "%s", data)
	return out.Data
}
