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

// TestBrowserSignIn follows Podium's emails in Chromium as a speaker and a reviewer would: the
// portal invitation (or the reviewer invitation) leads to the sign-in page, the person asks for a
// link, the link from the second email signs them in, and they land back where the first email
// pointed, signed in. The emails are read from an SMTP sink, as they arrive in an inbox.
func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "Sign-in Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}

	event := api.must(t, http.StatusCreated, http.MethodPost, "/events", map[string]any{
		"name": "Sign-in Check", "type": "conference", "timezone": "Europe/Berlin",
		"startsAt": "2027-06-10T09:00:00.000Z", "endsAt": "2027-06-12T18:00:00.000Z"})
	eventID := event["id"].(string)
	speaker := api.must(t, http.StatusCreated, http.MethodPost, "/events/"+eventID+"/speakers", map[string]any{
		"id": nil, "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.test", "title": nil,
		"company": nil, "bio": nil, "linkedinUrl": nil, "twitterUrl": nil, "websiteUrl": nil,
		"dietaryRequirements": "none", "tshirtSize": nil, "travelLogistics": nil, "workflowStatus": "invited"})
	api.must(t, http.StatusOK, http.MethodPost, "/events/"+eventID+"/speakers/invite",
		map[string]any{"contactIds": []string{speaker["id"].(string)}})

	browser := newBrowser(t, srv.url)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)

	t.Run("SpeakerFromPortalInvitation", func(t *testing.T) {
		ctx := browser.tab(t)
		invitation := lastTo(t, sink, "ada@example.test", 1)
		portal := link.FindString(invitation.Text)
		require.Contains(t, portal, "/portal")

		run(t, ctx, "open the portal link and ask for a sign-in link",
			chromedp.Navigate(portal),
			chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery),
			chromedp.SendKeys(`input[name=email]`, "ada@example.test", chromedp.ByQuery),
			chromedp.Click(`button[type=submit]`, chromedp.ByQuery))
		waitText(t, ctx, `#notice`, "sign-in link is on its way")

		signin := lastTo(t, sink, "ada@example.test", 2)
		require.Contains(t, signin.Header.Get("Subject"), "sign-in link")
		run(t, ctx, "follow the sign-in link and confirm",
			chromedp.Navigate(link.FindString(signin.Text)),
			chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
			chromedp.Click(`#confirm`, chromedp.ByQuery))
		waitText(t, ctx, `#email`, "ada@example.test")
		waitText(t, ctx, `#roles`, "speaker at event "+eventID)
		var location string
		run(t, ctx, "read where the browser landed", chromedp.Location(&location))
		require.Equal(t, portal, location)
	})

	t.Run("ReviewerFromInvitation", func(t *testing.T) {
		ctx := browser.tab(t)
		saved := api.must(t, http.StatusOK, http.MethodPost, "/events/"+eventID+"/review-rounds", map[string]any{
			"roundId": nil, "name": "First round", "blind": true, "reviewsPerSubmission": 2, "position": 1,
			"opensAt":  time.Now().Add(-time.Hour).UTC().Format(time.RFC3339),
			"closesAt": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339),
			"criteria": []any{map[string]any{"id": nil, "label": "Depth", "type": "numeric", "min": 1, "max": 5,
				"options": []any{}, "required": true, "weight": 1, "position": 1}}})
		round := saved["roundId"].(string)
		api.must(t, http.StatusCreated, http.MethodPost, "/events/"+eventID+"/review-rounds/"+round+"/members",
			map[string]any{"email": "grace@example.test", "assignmentCap": nil, "accessPath": "/reviews/" + round})
		invitation := lastTo(t, sink, "grace@example.test", 1)
		reviews := link.FindString(invitation.Text)
		require.Contains(t, reviews, "/reviews/"+round)

		// The browser is still signed in as the speaker: sign out first, as a person would.
		run(t, ctx, "sign the speaker out",
			chromedp.Navigate(srv.url+"/me"),
			chromedp.Click(`form[action="/auth/signout"] button`, chromedp.ByQuery),
			chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery))
		run(t, ctx, "open the reviewer link and ask for a sign-in link",
			chromedp.Navigate(reviews),
			chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery),
			chromedp.SendKeys(`input[name=email]`, "grace@example.test", chromedp.ByQuery),
			chromedp.Click(`button[type=submit]`, chromedp.ByQuery))
		waitText(t, ctx, `#notice`, "sign-in link is on its way")
		signin := lastTo(t, sink, "grace@example.test", 2)
		run(t, ctx, "follow the sign-in link and confirm",
			chromedp.Navigate(link.FindString(signin.Text)),
			chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
			chromedp.Click(`#confirm`, chromedp.ByQuery))
		waitText(t, ctx, `#email`, "grace@example.test")
		waitText(t, ctx, `#roles`, "reviewer of event "+eventID)
		var location string
		run(t, ctx, "read where the browser landed", chromedp.Location(&location))
		require.Equal(t, reviews, location)
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
