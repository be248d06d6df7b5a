//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs/mailtest"
)

// inspectorVersion is the MCP Inspector release whose command line the check runs, installed from
// the npm registry into the user's cache on first use (never into the repository), as axe-core is.
const inspectorVersion = "2.12.0"

var inspector struct {
	once sync.Once
	bin  string
	err  error
}

// inspectorCLI returns the path of the MCP Inspector's launcher, installing it on first use.
func inspectorCLI(t *testing.T) string {
	t.Helper()
	inspector.once.Do(func() {
		inspector.bin, inspector.err = npmFile("@modelcontextprotocol/inspector", inspectorVersion,
			"node_modules/.bin/mcp-inspector")
	})
	require.NoError(t, inspector.err, "the MCP check needs the MCP Inspector from the npm registry")
	return inspector.bin
}

// TestBrowserMCP connects an assistant for a reviewer the way a real one does (docs/agents.md,
// docs/mcp.md), with the official Go SDK's client: its first call to /api/mcp is refused with a
// challenge naming the protected-resource metadata, from which it finds the authorization server,
// registers itself, and sends the reviewer's browser — Chromium here — to the consent page with a
// PKCE challenge; the reviewer signs in from the email link and allows; the client takes its
// tokens and lists the five tools a reviewer has. In the blind round the reviewer never sees the
// speaker. The MCP Inspector's command line, from the npm registry, lists the same tools with the
// same token and finds their schemas portable. Revoking the application on /me ends its access.
func TestBrowserMCP(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{})
	srv := startE2EServer(t, "SMTP_URL="+sink.URL(), "SMTP_FROM=Podium <podium@example.test>")
	key := srv.createKey(t, "MCP Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}
	eventID := createE2EEvent(t, api, "MCP Check")
	base := "/events/" + eventID
	speaker := addAda(t, api, base)
	proposal := api.must(t, http.StatusCreated, http.MethodPost, base+"/submissions", map[string]any{
		"title": "Lovelace on engines", "description": "By Ada Lovelace.", "formatId": nil, "trackIds": []any{},
		"speakerIds": []any{speaker["id"]}})["id"]
	saved := api.must(t, http.StatusOK, http.MethodPost, base+"/review-rounds", map[string]any{
		"roundId": nil, "name": "First round", "blind": true, "reviewsPerSubmission": 1, "position": 1,
		"opensAt": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "closesAt": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339),
		"criteria": []any{map[string]any{"id": nil, "label": "Depth", "type": "numeric", "min": 1, "max": 5,
			"options": []any{}, "required": true, "weight": 1, "position": 1}}})
	round := saved["roundId"].(string)
	added := api.must(t, http.StatusCreated, http.MethodPost, base+"/review-rounds/"+round+"/members",
		map[string]any{"email": "grace@example.test", "assignmentCap": nil, "accessPath": "/reviews/" + round})
	member := added["reviewer"].(map[string]any)["member"].(map[string]any)["eventMemberId"]
	api.must(t, http.StatusOK, http.MethodPost, base+"/review-rounds/"+round+"/assignments",
		map[string]any{"eventMemberId": member, "submissionIds": []any{proposal}})

	// The assistant's loopback address, where the browser brings the code.
	app, redirect, codes := loopbackApp(t)

	browser := newBrowser(t, srv.url)
	browser.allow(app.URL)
	ctx := browser.tab(t)
	link := regexp.MustCompile(regexp.QuoteMeta(srv.url) + `/[^\s]+`)
	signIns := 0
	// The SDK calls this with the authorization URL it built: the browser does the rest.
	fetchCode := func(_ context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		run(t, ctx, "open the authorization request and ask for a sign-in link", phone(),
			chromedp.Navigate(args.URL),
			chromedp.WaitVisible(`#email`, chromedp.ByQuery),
			chromedp.SendKeys(`#email`, "grace@example.test", chromedp.ByQuery),
			chromedp.Submit(`#email`, chromedp.ByQuery))
		waitText(t, ctx, `#sent`, "grace@example.test")
		signIns++
		run(t, ctx, "follow the link back to the consent page",
			chromedp.Navigate(link.FindString(lastTo(t, sink, "grace@example.test", 1+signIns).Text)),
			chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
			chromedp.Click(`#confirm`, chromedp.ByQuery))
		waitText(t, ctx, `#client-name`, "Podium MCP check")
		checkAccessibility(t, ctx, "/oauth/consent for an MCP client")
		run(t, ctx, "allow", chromedp.Click(`#allow`, chromedp.ByQuery))
		select {
		case back := <-codes:
			return &auth.AuthorizationResult{Code: back.Get("code"), State: back.Get("state"), Iss: back.Get("iss")}, nil
		case <-time.After(15 * time.Second):
			return nil, fmt.Errorf("the browser did not reach the assistant with a code")
		}
	}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Podium MCP check", RedirectURIs: []string{redirect},
			GrantTypes: []string{"authorization_code", "refresh_token"}, TokenEndpointAuthMethod: "none"}},
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: fetchCode,
		RequestRefreshToken:      true,
		AcceptUnadvertisedIss:    true,
	})
	require.NoError(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "podium-e2e", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: srv.url + "/api/mcp", OAuthHandler: handler, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })

	tools, err := session.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	require.Equal(t, []string{"getMyReviews", "recuseReview", "saveMyReview", "submitReviewAnswers", "whoami"}, names)

	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "getMyReviews",
		Arguments: map[string]any{"eventId": eventID}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	text := res.Content[0].(*mcp.TextContent).Text
	require.Contains(t, text, `"title":"[redacted] on engines"`)
	for _, s := range []string{"Lovelace", "Ada", "ada@example.test"} {
		require.NotContains(t, text, s, "a blind round shows the reviewer who the speaker is")
	}

	// The Inspector's command line, with the token the SDK's client holds.
	ts, err := handler.TokenSource(context.Background())
	require.NoError(t, err)
	tok, err := ts.Token()
	require.NoError(t, err)
	cmd := exec.Command(inspectorCLI(t), "--cli", srv.url+"/api/mcp", "--transport", "http",
		"--header", "Authorization: Bearer "+tok.AccessToken, "--method", "tools/list", "--strict")
	out, err := cmd.Output()
	var stderr string
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		stderr = string(ee.Stderr)
	}
	require.NoError(t, err, "mcp-inspector --cli tools/list: %s\n%s", out, stderr)
	var listed struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(out, &listed), "%s", out)
	var inspected []string
	for _, tool := range listed.Tools {
		inspected = append(inspected, tool.Name)
	}
	slices.Sort(inspected)
	require.Equal(t, names, inspected)

	// Revoked on /me, the application's token is refused at once.
	run(t, ctx, "open the account page", chromedp.Navigate(srv.url+"/me"), chromedp.WaitVisible(`#connected-apps`, chromedp.ByQuery))
	waitText(t, ctx, `#connected-apps`, "Podium MCP check")
	run(t, ctx, "revoke it", chromedp.Click(`#connected-apps button`, chromedp.ByQuery))
	waitText(t, ctx, `#notice`, "disconnected")
	req, err := http.NewRequest(http.MethodPost, srv.url+"/api/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	browser.requireLocal(t)
}
