//go:build e2e

package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// TestBrowserNewcomer follows people who are new to Podium, at a phone's size, through every
// step of signing in: a newcomer to a call for proposals whose link was already used, or expired,
// asks again from the page the link shows and gets a new link to the same form, landing on it; a person signing in on
// the plain page reads what truly happens, on the event's pages when the flow has one; an
// organizer signed in by email runs GraphiQL with their session; each role lands on its own home;
// the home page and an expired download link are pages, not JSON; the rate-limit page names the
// real wait. Every page state passes axe-core.
func TestBrowserNewcomer(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "Newcomer Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}
	gql := e2eAPI{base: srv.url, key: key}

	eventID := createE2EEvent(t, api, "GopherCon Newcomer Check")
	created := gql.graphQL(t, `mutation($e: ID!, $in: CfpFormInput!) { createForm(eventId: $e, input: $in) { id } }`,
		map[string]any{"e": eventID, "in": map[string]any{"title": "Speak at GopherCon"}})
	formID := created["createForm"].(map[string]any)["id"].(string)
	formPage := srv.url + "/cfp/" + formID

	browser := newBrowser(t, srv.url)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)
	location := func(t *testing.T, ctx context.Context) string {
		var loc string
		run(t, ctx, "read where the browser is", chromedp.Location(&loc))
		return loc
	}

	t.Run("UsedLinkOffersANewOneForTheSameForm", func(t *testing.T) {
		ctx := browser.tab(t)
		run(t, ctx, "ask for a link on the form's page", phone(), chromedp.Navigate(formPage), askForLink("newbie@example.test"))
		checkEmail := waitText(t, ctx, `main`, "sign-in link is on its way")
		require.Contains(t, checkEmail, "newbie@example.test")
		require.NotContains(t, checkEmail, "If this address is known")
		waitText(t, ctx, `header`, "GopherCon Newcomer Check")
		checkAccessibility(t, ctx, "check your email (call for proposals)")
		screen(t, ctx, "signin-check-email.png")

		first := link.FindString(lastTo(t, sink, "newbie@example.test", 1).Text)
		run(t, ctx, "follow the link and confirm", chromedp.Navigate(first),
			chromedp.WaitVisible(`#confirm`, chromedp.ByQuery))
		waitText(t, ctx, `header`, "GopherCon Newcomer Check")
		checkAccessibility(t, ctx, "confirm sign-in (call for proposals)")
		run(t, ctx, "confirm", chromedp.Click(`#confirm`, chromedp.ByQuery))
		waitText(t, ctx, `#signed-in-as`, "newbie@example.test")
		require.Equal(t, formPage, location(t, ctx))

		// Signed out, the newcomer opens the same email again: the link is used.
		run(t, ctx, "sign out", chromedp.Click(`header form.who button`, chromedp.ByQuery),
			chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery))
		run(t, ctx, "follow the used link", followLink(first))
		refused := waitText(t, ctx, `main`, "already used")
		require.Contains(t, refused, "new link")
		waitText(t, ctx, `header`, "GopherCon Newcomer Check")
		checkAccessibility(t, ctx, "used link")
		screen(t, ctx, "signin-used-link.png")
		var next, form string
		run(t, ctx, "read where the retry leads",
			chromedp.Value(`form[action="/auth/signin"] input[name=next]`, &next, chromedp.ByQuery),
			chromedp.Value(`form[action="/auth/signin"] input[name=form]`, &form, chromedp.ByQuery))
		require.Equal(t, "/cfp/"+formID, next)
		require.Equal(t, formID, form)

		run(t, ctx, "ask for a new link", askForLink("newbie@example.test"))
		waitText(t, ctx, `main`, "sign-in link is on its way")
		second := link.FindString(lastTo(t, sink, "newbie@example.test", 2).Text)
		run(t, ctx, "follow the new link", followLink(second))
		waitText(t, ctx, `#signed-in-as`, "newbie@example.test")
		require.Equal(t, formPage, location(t, ctx))
	})

	t.Run("ExpiredLinkOffersANewOneForTheSameForm", func(t *testing.T) {
		ctx := browser.tab(t)
		newPage := "/cfp/" + formID + "/new"
		run(t, ctx, "open the new proposal's page signed out", phone(), network.ClearBrowserCookies(),
			chromedp.Navigate(srv.url+newPage), chromedp.WaitVisible(`input[name=email]`, chromedp.ByQuery))
		waitText(t, ctx, `header`, "GopherCon Newcomer Check")
		waitText(t, ctx, `main`, "Speak at GopherCon")
		run(t, ctx, "ask for a link", askForLink("late@example.test"))
		waitText(t, ctx, `main`, "sign-in link is on its way")
		first := link.FindString(lastTo(t, sink, "late@example.test", 1).Text)

		// Fifteen minutes pass: the link expires unused.
		srv.exec(t, `UPDATE sign_in_tokens SET expires_at = now() - interval '1 minute' WHERE email = 'late@example.test'`)
		run(t, ctx, "follow the expired link", followLink(first))
		refused := waitText(t, ctx, `main`, "expired")
		require.Contains(t, refused, "Speak at GopherCon")
		waitText(t, ctx, `header`, "GopherCon Newcomer Check")
		checkAccessibility(t, ctx, "expired link")
		screen(t, ctx, "signin-expired-link.png")
		var next, form string
		run(t, ctx, "read where the retry leads",
			chromedp.Value(`form[action="/auth/signin"] input[name=next]`, &next, chromedp.ByQuery),
			chromedp.Value(`form[action="/auth/signin"] input[name=form]`, &form, chromedp.ByQuery))
		require.Equal(t, newPage, next)
		require.Equal(t, formID, form)

		run(t, ctx, "ask for a new link", askForLink("late@example.test"))
		waitText(t, ctx, `main`, "sign-in link is on its way")
		waitText(t, ctx, `header`, "GopherCon Newcomer Check")
		second := link.FindString(lastTo(t, sink, "late@example.test", 2).Text)
		require.NotEqual(t, first, second)
		run(t, ctx, "follow the new link", followLink(second), chromedp.WaitVisible(`#title`, chromedp.ByQuery))
		require.Equal(t, srv.url+newPage, location(t, ctx))
		checkAccessibility(t, ctx, "the form, after a new link")
	})

	t.Run("PlainSignInSaysWhatHappens", func(t *testing.T) {
		ctx := browser.tab(t)
		run(t, ctx, "ask for a link for an address nobody knows", phone(), chromedp.Navigate(srv.url+"/auth/signin"),
			askForLink("stranger@example.test"))
		page := waitText(t, ctx, `main`, "stranger@example.test")
		require.NotContains(t, page, "If this address is known")
		require.Contains(t, page, "15 minutes")
		require.Contains(t, page, "call for proposals")
		checkAccessibility(t, ctx, "check your email (plain)")
	})

	t.Run("OrganizerUsesGraphiQLWithTheirSession", func(t *testing.T) {
		gql.graphQL(t, `mutation { inviteOrganizationMember(input: {email: "org@example.test", role: "admin"}) { id } }`, nil)
		ctx := browser.tab(t)
		run(t, ctx, "open GraphiQL signed out", network.ClearBrowserCookies(), chromedp.Navigate(srv.url+"/graphql"),
			chromedp.WaitVisible(`#podium-hint`, chromedp.ByQuery))
		hint := waitText(t, ctx, `#podium-hint`, "Sign in")
		require.NotContains(t, hint, "Every query needs an API key")
		run(t, ctx, "follow the hint's sign-in link", chromedp.Click(`#podium-hint a`, chromedp.ByQuery),
			askForLink("org@example.test"))
		waitText(t, ctx, `main`, "org@example.test")
		signin := link.FindString(lastTo(t, sink, "org@example.test", 2).Text)
		run(t, ctx, "follow the link and confirm", followLink(signin),
			chromedp.WaitVisible(`.graphiql-query-editor .CodeMirror`, chromedp.ByQuery))
		require.Equal(t, srv.url+"/graphql", location(t, ctx))
		waitText(t, ctx, `#podium-hint`, "org@example.test")
		run(t, ctx, "run a query with the session",
			setEditor(`.graphiql-query-editor .CodeMirror`, "{\n  viewer { email }\n  events(first: 5) { totalCount }\n}"),
			chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery))
		response := waitText(t, ctx, `.graphiql-response`, "org@example.test")
		require.Contains(t, response, `"totalCount": 1`)
		require.NotContains(t, response, "invalid_api_key")
		screen(t, ctx, "graphiql-session.png")

		// A key typed into Headers is used, and forgotten with the page.
		run(t, ctx, "type a key into Headers",
			chromedp.Click(`//button[normalize-space(.)="Headers"]`, chromedp.BySearch),
			chromedp.WaitVisible(`.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror`, chromedp.ByQuery),
			setEditor(`.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror`, `{"Authorization": "Bearer `+key+`"}`),
			chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery))
		waitText(t, ctx, `.graphiql-response`, `"totalCount": 1`)
		var stored string
		run(t, ctx, "read what the page stored", chromedp.Reload(),
			chromedp.WaitVisible(`.graphiql-query-editor .CodeMirror`, chromedp.ByQuery),
			chromedp.Evaluate(`JSON.stringify(Object.assign({}, localStorage, sessionStorage))`, &stored))
		require.NotContains(t, stored, strings.TrimPrefix(key, "pdm_"))
		require.NotContains(t, stored, "Authorization")

		// A subscription runs over a WebSocket with the session: a session made over REST shows
		// in the response pane as it commits.
		run(t, ctx, "start a subscription",
			setEditor(`.graphiql-query-editor .CodeMirror`, "subscription {\n  eventChanges(eventId: \""+eventID+
				"\", types: [SESSION_CREATED]) {\n    type\n    session { title }\n  }\n}"),
			chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery))
		require.Eventually(t, func() bool { return srv.subscriptions(t) == 1 }, 10*time.Second, 50*time.Millisecond,
			"GraphiQL's subscription reaches the server")
		grace := api.must(t, http.StatusCreated, http.MethodPost, "/events/"+eventID+"/speakers", map[string]any{
			"id": nil, "firstName": "Grace", "lastName": "Hopper", "email": "grace@example.test", "title": nil,
			"company": nil, "bio": nil, "linkedinUrl": nil, "twitterUrl": nil, "websiteUrl": nil,
			"dietaryRequirements": "none", "tshirtSize": nil, "travelLogistics": nil, "workflowStatus": "invited"})
		api.must(t, http.StatusCreated, http.MethodPost, "/events/"+eventID+"/sessions", map[string]any{
			"title": "Live in GraphiQL", "description": nil, "formatId": nil, "speakerIds": []any{grace["id"]}})
		waitText(t, ctx, `.graphiql-response`, "Live in GraphiQL")
		response = waitText(t, ctx, `.graphiql-response`, "SESSION_CREATED")
		require.NotContains(t, response, "error")
		screen(t, ctx, "graphiql-subscription.png")
		run(t, ctx, "stop the subscription", chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery))
	})

	t.Run("EachRoleLandsOnItsHome", func(t *testing.T) {
		addAda(t, api, "/events/"+eventID)
		ctx := browser.tab(t)
		run(t, ctx, "open the home page signed out", phone(), network.ClearBrowserCookies(), chromedp.Navigate(srv.url+"/"),
			chromedp.WaitVisible(`main`, chromedp.ByQuery))
		home := waitText(t, ctx, `main`, "Sign in")
		require.NotContains(t, home, `"error"`)
		checkAccessibility(t, ctx, "/ signed out")
		screen(t, ctx, "home.png")

		run(t, ctx, "sign in from the home page", chromedp.Click(`#signin`, chromedp.ByQuery), askForLink("ada@example.test"))
		waitText(t, ctx, `main`, "ada@example.test")
		run(t, ctx, "follow the link and confirm", followLink(link.FindString(lastTo(t, sink, "ada@example.test", 1).Text)))
		waitText(t, ctx, `#signed-in-as`, "ada@example.test")
		require.Equal(t, srv.url+"/portal", location(t, ctx), "a speaker lands on their portal")

		run(t, ctx, "open the list of homes", chromedp.Navigate(srv.url+"/me"), chromedp.WaitVisible(`#homes`, chromedp.ByQuery))
		homes := waitText(t, ctx, `#homes`, "GopherCon Newcomer Check")
		require.Contains(t, homes, "speaker portal")
		require.NotContains(t, homes, "evt_")
		checkAccessibility(t, ctx, "/me")
		screen(t, ctx, "me.png")
	})

	t.Run("PeopleGetPagesNotJSON", func(t *testing.T) {
		ctx := browser.tab(t)
		run(t, ctx, "open an expired download link", phone(),
			chromedp.Navigate(srv.url+"/files/org_01jd3k2m9q8r7s6t5v4w3x2y1z/fil_01jd3k2m9q8r7s6t5v4w3x2y1z?expires=1&signature=x"),
			chromedp.WaitVisible(`main`, chromedp.ByQuery))
		waitText(t, ctx, `main`, "download link")
		checkAccessibility(t, ctx, "expired download link")
		// An API client asking for JSON still gets the envelope.
		req, err := http.NewRequest(http.MethodGet, srv.url+"/files/org_01jd3k2m9q8r7s6t5v4w3x2y1z/fil_01jd3k2m9q8r7s6t5v4w3x2y1z?expires=1&signature=x", nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Contains(t, resp.Header.Get("Content-Type"), "application/json")

		for range 5 {
			status, _ := postForm(t, srv.url+"/auth/signin", url.Values{"email": {"eager@example.test"}})
			require.Equal(t, http.StatusAccepted, status)
		}
		run(t, ctx, "ask once too often", chromedp.Navigate(srv.url+"/auth/signin"), askForLink("eager@example.test"))
		slow := waitText(t, ctx, `main`, "minutes")
		require.NotContains(t, slow, "wait a minute")
		require.Contains(t, slow, "3 minutes")
		checkAccessibility(t, ctx, "rate limited")
	})

	browser.requireLocal(t)
}

// askForLink types addr into the page's sign-in form and sends it.
func askForLink(addr string) chromedp.Action {
	return chromedp.Tasks{
		chromedp.WaitVisible(`form[action="/auth/signin"] input[name=email]`, chromedp.ByQuery),
		chromedp.SendKeys(`form[action="/auth/signin"] input[name=email]`, addr, chromedp.ByQuery),
		chromedp.Click(`form[action="/auth/signin"] button`, chromedp.ByQuery),
	}
}

// followLink opens a sign-in link from an email and presses its button.
func followLink(link string) chromedp.Action {
	return chromedp.Tasks{
		chromedp.Navigate(link),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		chromedp.Click(`#confirm`, chromedp.ByQuery),
	}
}

// postForm posts a same-origin form and returns the status and the body.
func postForm(t *testing.T, target string, form url.Values) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return resp.StatusCode, b.String()
}

// exec runs a statement on the server's database, as a test standing in for time passing.
func (s *e2eServer) exec(t *testing.T, stmt string) {
	t.Helper()
	var dsn string
	for _, kv := range s.env {
		if v, ok := strings.CutPrefix(kv, "DATABASE_URL="); ok {
			dsn = v
		}
	}
	require.NotEmpty(t, dsn)
	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), stmt)
	require.NoError(t, err)
}
