//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/podium/podium/jobs/mailtest"
)

// loopbackApp is an application's loopback server, as an application on the person's computer
// has: the browser lands on its redirect URI (returned) with the code, whose query comes on codes.
func loopbackApp(t *testing.T) (*httptest.Server, string, chan url.Values) {
	t.Helper()
	codes := make(chan url.Values, 1)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/callback" {
			codes <- r.URL.Query()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html lang="en"><title>Connected</title><main><h1 id="connected">Connected</h1></main></html>`))
	}))
	t.Cleanup(app.Close)
	return app, app.URL + "/callback", codes
}

// TestBrowserOAuth connects an application for a speaker in Chromium (docs/agents.md): the
// application registers and sends the browser to Podium's authorization endpoint; the speaker,
// not signed in, signs in from the email link, which brings them back to the consent page; they
// allow, and the browser lands on the application's loopback redirect URI with a code, which the
// application exchanges for tokens. On their account page the speaker sees the application and
// revokes it; its token is refused at once. The consent page and the account page pass axe-core.
func TestBrowserOAuth(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "OAuth Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}
	eventID := createE2EEvent(t, api, "OAuth Check")
	addAda(t, api, "/events/"+eventID)

	// The application: a loopback server receiving the browser with the code.
	app, redirect, codes := loopbackApp(t)

	body := strings.NewReader(`{"client_name":"Assistant","redirect_uris":["` + redirect + `"]}`)
	res, err := http.Post(srv.url+"/oauth/register", "application/json", body)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, res.StatusCode)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&reg))
	_ = res.Body.Close()
	cfg := &oauth2.Config{ClientID: reg.ClientID, RedirectURL: redirect, Scopes: []string{"read", "write"},
		Endpoint: oauth2.Endpoint{AuthURL: srv.url + "/oauth/authorize", TokenURL: srv.url + "/oauth/token",
			AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()

	browser := newBrowser(t, srv.url)
	browser.allow(app.URL)
	ctx := browser.tab(t)
	run(t, ctx, "open the authorization request and ask for a sign-in link", phone(),
		chromedp.Navigate(cfg.AuthCodeURL("e2e-state", oauth2.S256ChallengeOption(verifier))),
		chromedp.WaitVisible(`#email`, chromedp.ByQuery),
		chromedp.SendKeys(`#email`, "ada@example.test", chromedp.ByQuery),
		chromedp.Submit(`#email`, chromedp.ByQuery))
	waitText(t, ctx, `#sent`, "ada@example.test")

	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)
	oneClick := link.FindString(lastTo(t, sink, "ada@example.test", 1).Text)
	require.Contains(t, oneClick, "next=%2Foauth%2Fconsent")
	run(t, ctx, "follow the link back to the consent page",
		chromedp.Navigate(oneClick),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		chromedp.Click(`#confirm`, chromedp.ByQuery))
	waitText(t, ctx, `#client-name`, "Assistant")
	waitText(t, ctx, `#redirect-host`, strings.TrimPrefix(app.URL, "http://"))
	checkAccessibility(t, ctx, "/oauth/consent")
	screen(t, ctx, "oauth-consent.png")

	run(t, ctx, "allow", chromedp.Click(`#allow`, chromedp.ByQuery))
	var back url.Values
	select {
	case back = <-codes:
	case <-time.After(15 * time.Second):
		t.Fatal("the browser did not reach the application with a code")
	}
	require.Equal(t, "e2e-state", back.Get("state"))
	tok, err := cfg.Exchange(context.Background(), back.Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	token := e2eAPI{base: srv.url, key: tok.AccessToken}
	// A speaker is no organization's member: the token acts as them, and the organization's
	// list is refused as it is to them, not as an unknown token.
	status, _ := token.do(t, http.MethodGet, "/api/v1/events", nil)
	require.Equal(t, http.StatusForbidden, status)

	run(t, ctx, "open the account page", chromedp.Navigate(srv.url+"/me"), chromedp.WaitVisible(`#connected-apps`, chromedp.ByQuery))
	waitText(t, ctx, `#connected-apps`, "Assistant")
	checkAccessibility(t, ctx, "/me with a connected application")
	screen(t, ctx, "oauth-connected-apps.png")
	run(t, ctx, "revoke it", chromedp.Click(`#connected-apps button`, chromedp.ByQuery))
	waitText(t, ctx, `#notice`, "disconnected")
	status, _ = token.do(t, http.MethodGet, "/api/v1/events", nil)
	require.Equal(t, http.StatusUnauthorized, status)

	browser.requireLocal(t)
}
