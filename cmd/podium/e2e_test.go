//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
)

// The browser check opens Podium's two pages for people — GraphiQL at /graphql and River UI at
// /riverui/ — in a real headless Chromium against the real binary, and looks at what a person
// would see: a query typed into GraphiQL answers with the event created over REST, and River UI
// lists the email job the REST calls queued. Unit tests see the HTML these pages are served as;
// only a browser sees whether their scripts load, run and talk to the API with the key. Both
// pages must load everything they need from the server itself: the check fails on any request
// that leaves it, so a page that depends on a CDN is caught on a machine that has internet too.
//
// Run it with .ci/e2e, which installs Chromium when it is missing. Screenshots of both pages are
// written to docs/ for people to look at.

// chromiumPath is Debian's Chromium, which .ci/e2e installs.
const chromiumPath = "/usr/bin/chromium"

// e2eEventName is the event the check creates and expects to find in GraphiQL.
const e2eEventName = "GopherCon Browser Check"

// TestBrowser creates an event and a speaker invitation over REST, then checks GraphiQL and
// River UI in Chromium. The subtests share one server and one browser: starting either costs more
// than a page does, and River UI's check needs the job the setup queued.
func TestBrowser(t *testing.T) {
	t.Parallel()
	srv := startE2EServer(t)
	key := srv.createKey(t, "Browser Check Org")
	api := e2eAPI{base: srv.url + "/api/v1", key: key}

	event := api.must(t, http.StatusCreated, http.MethodPost, "/events", map[string]any{
		"name": e2eEventName, "type": "conference", "timezone": "Europe/Berlin",
		"startsAt": "2027-06-10T09:00:00.000Z", "endsAt": "2027-06-12T18:00:00.000Z"})
	eventID := event["id"].(string)
	speaker := api.must(t, http.StatusCreated, http.MethodPost, "/events/"+eventID+"/speakers", map[string]any{
		"id": nil, "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.test", "title": nil,
		"company": nil, "bio": nil, "linkedinUrl": nil, "twitterUrl": nil, "websiteUrl": nil,
		"dietaryRequirements": "none", "tshirtSize": nil, "travelLogistics": nil, "workflowStatus": "invited"})
	api.must(t, http.StatusOK, http.MethodPost, "/events/"+eventID+"/speakers/invite",
		map[string]any{"contactIds": []string{speaker["id"].(string)}})
	// The invitation is delivered by a deliver_email job; once its email is sent the job is
	// completed, which is the River UI list the check opens.
	api.waitEmailSent(t, eventID)

	browser := newBrowser(t, srv.url)

	t.Run("GraphiQL", func(t *testing.T) {
		ctx := browser.tab(t)
		run(t, ctx, "open GraphiQL",
			chromedp.Navigate(srv.url+"/graphql"),
			chromedp.WaitVisible(`.graphiql-query-editor .CodeMirror`, chromedp.ByQuery))
		// The key goes where a person puts it: the Headers tab of the editor tools. The editors are
		// CodeMirror 5 instances; setting their value rather than typing into them keeps
		// CodeMirror's bracket completion from rewriting the JSON and the query.
		run(t, ctx, "enter the API key in the Headers tab",
			chromedp.Click(`//button[normalize-space(.)="Headers"]`, chromedp.BySearch),
			chromedp.WaitVisible(`.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror`, chromedp.ByQuery),
			setEditor(`.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror`,
				fmt.Sprintf("{\n  \"Authorization\": \"Bearer %s\"\n}", key)))
		run(t, ctx, "run the query",
			setEditor(`.graphiql-query-editor .CodeMirror`,
				"{\n  events(first: 5) {\n    totalCount\n    edges { node { name } }\n  }\n}"),
			chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery))
		response := waitText(t, ctx, `.graphiql-response`, e2eEventName)
		require.Contains(t, response, `"totalCount": 1`)
		screenshot(t, ctx, "e2e-graphiql.png")
	})

	t.Run("RiverUI", func(t *testing.T) {
		ctx := browser.tab(t)
		// River UI is on the operator listener, behind the operator token as the password of HTTP
		// Basic authentication, which the browser asks for when the server challenges it. The
		// token is given where a person types it, in answer to that challenge. Putting it in the
		// URL (http://user:token@host/riverui/) does not work: River UI's scripts cannot fetch
		// relative to a URL with credentials. The list is filtered to the job's kind: other
		// jobs (webhook dispatch, housekeeping) would otherwise fill its first page.
		browser.allow(srv.operatorURL)
		answerBasicAuth(t, ctx, "operator", e2eOperatorToken)
		run(t, ctx, "open River UI's completed email jobs",
			chromedp.Navigate(srv.operatorURL+"/riverui/jobs?state=completed&kind=deliver_email"))
		waitText(t, ctx, `body`, "deliver_email")
		screenshot(t, ctx, "e2e-riverui.png")

		// The public listener has no River UI, for an organization's key or anyone.
		req, err := http.NewRequest(http.MethodGet, srv.url+"/riverui/api/jobs?state=completed", nil)
		require.NoError(t, err)
		req.SetBasicAuth("operator", key)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusNotFound, resp.StatusCode)
	})

	browser.requireLocal(t)
}

// e2eServer is a podium serve child process on a fresh database.
type e2eServer struct {
	url string
	// operatorURL is the operator listener's (River UI), reached with e2eOperatorToken.
	operatorURL string
	bin         string
	env         []string
}

// e2eOperatorToken is the PODIUM_OPERATOR_TOKEN of the servers the browser checks start.
const e2eOperatorToken = "e2e-operator-token-0123"

// freeLoopback returns a loopback address no one listens on now.
func freeLoopback(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// startE2EServer builds ./cmd/podium, starts podium serve on a fresh migrated database and a free
// loopback port, and waits until it is ready. Emails are logged and marked sent (no SMTP_URL)
// unless env says otherwise: env ("NAME=value") overrides the defaults. The server is stopped
// when t ends, and its log is shown if t failed.
func startE2EServer(t *testing.T, env ...string) *e2eServer {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "podium")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	addr, operatorAddr := freeLoopback(t), freeLoopback(t)
	s := &e2eServer{url: "http://" + addr, operatorURL: "http://" + operatorAddr, bin: bin}
	s.env = append(os.Environ(),
		"DATABASE_URL="+pgtest.NewURL(t),
		"PODIUM_ADDR="+addr,
		"PODIUM_OPERATOR_ADDR="+operatorAddr,
		"PODIUM_OPERATOR_TOKEN="+e2eOperatorToken,
		"PUBLIC_URL="+s.url,
		"SMTP_URL=",
		"PODIUM_DEBUG=",
	)
	s.env = append(s.env, env...)
	logPath := filepath.Join(dir, "podium.log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	cmd := exec.Command(bin, "serve")
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			if data, err := os.ReadFile(logPath); err == nil {
				t.Logf("podium log:\n%s", lastLines(string(data), 60))
			}
		}
	})

	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-exited:
			data, _ := os.ReadFile(logPath)
			t.Fatalf("podium serve exited before it was ready:\n%s", lastLines(string(data), 40))
		default:
		}
		resp, err := client.Get(s.url + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("podium serve was not ready within 30s (last error: %v)", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// createKey runs podium keys create against the server's database and returns the key, printed
// alone on the command's last line.
func (s *e2eServer) createKey(t *testing.T, org string) string {
	t.Helper()
	cmd := exec.Command(s.bin, "keys", "create", "--org", org)
	cmd.Env = s.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "podium keys create: %s", stderr.String())
	lines := strings.Fields(string(out))
	require.NotEmpty(t, lines, "podium keys create printed nothing")
	key := lines[len(lines)-1]
	require.True(t, strings.HasPrefix(key, "pdm_"), "podium keys create printed %q", out)
	return key
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// e2eAPI sends REST requests with an API key.
// createE2EEvent creates a three-day conference named name through the REST API and returns its id.
func createE2EEvent(t *testing.T, api e2eAPI, name string) string {
	t.Helper()
	event := api.must(t, http.StatusCreated, http.MethodPost, "/events", map[string]any{
		"name": name, "type": "conference", "timezone": "Europe/Berlin",
		"startsAt": "2027-06-10T09:00:00.000Z", "endsAt": "2027-06-12T18:00:00.000Z"})
	return event["id"].(string)
}

type e2eAPI struct {
	base string
	key  string
}

// do sends a request and returns the status and the body.
func (a e2eAPI) do(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+a.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	require.NoError(t, err, "%s %s", method, path)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, data
}

// must sends a request that has to answer want with an object, and returns the object.
func (a e2eAPI) must(t *testing.T, want int, method, path string, body any) map[string]any {
	t.Helper()
	status, data := a.do(t, method, path, body)
	require.Equal(t, want, status, "%s %s: %s", method, path, data)
	var obj map[string]any
	require.NoError(t, json.Unmarshal(data, &obj), "%s %s: %s", method, path, data)
	return obj
}

// waitEmailSent waits until the event has a sent email, which means its deliver_email job ran.
func (a e2eAPI) waitEmailSent(t *testing.T, eventID string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, data := a.do(t, http.MethodGet, "/events/"+eventID+"/emails?status=sent", nil)
		require.Equal(t, http.StatusOK, status, "list emails: %s", data)
		var sent []map[string]any
		require.NoError(t, json.Unmarshal(data, &sent), "list emails: %s", data)
		if len(sent) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the invitation email was not sent within 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// browser is one headless Chromium for the whole check, with a record of every request its pages
// made.
type browser struct {
	ctx context.Context
	// origins are the servers the pages may request from.
	origins []string

	mu       sync.Mutex
	requests []string
	failures []string
}

// removeProfile removes a browser profile directory, retrying while Chromium's last writes land.
func removeProfile(t *testing.T, dir string) {
	var err error
	for range 50 {
		if err = os.RemoveAll(dir); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("remove the browser profile %s: %v", dir, err)
}

// newBrowser starts Chromium with a fresh profile. The flags keep it from calling home (updates,
// sync, safe browsing lists): on a machine without a network those connections are refused by
// the dozen and slow every page down, and with one they are noise the check does not want.
func newBrowser(t *testing.T, origin string) *browser {
	t.Helper()
	_, err := os.Stat(chromiumPath)
	require.NoError(t, err, "the browser check needs Chromium at %s (.ci/e2e installs it)", chromiumPath)
	var chromeLog bytes.Buffer
	// Chromium's helper processes may still write to the profile for a moment after the browser
	// exits, so the profile is removed with retries rather than by t.TempDir's one attempt.
	profile, err := os.MkdirTemp("", "podium-e2e-chromium-")
	require.NoError(t, err)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1400, 900),
		chromedp.CombinedOutput(&chromeLog),
	)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		removeProfile(t, profile)
		if t.Failed() {
			// Without a system bus Chromium complains about D-Bus on every start; that is not news.
			var lines []string
			for line := range strings.Lines(chromeLog.String()) {
				if !strings.Contains(line, "dbus/") {
					lines = append(lines, line)
				}
			}
			t.Logf("chromium output:\n%s", lastLines(strings.Join(lines, ""), 30))
		}
	})
	// The first Run starts the browser, which lives as long as that Run's context: ctx, not one
	// with a deadline. chromedp bounds the start itself (20 s for Chromium to announce DevTools).
	require.NoError(t, chromedp.Run(ctx), "start chromium")
	return &browser{ctx: ctx, origins: []string{origin}}
}

// allow adds a server the pages may request from: the operator listener, for River UI.
func (b *browser) allow(origin string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.origins = append(b.origins, origin)
}

// tab opens a new tab, closed when t ends, whose requests the browser records.
func (b *browser) tab(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, ev.Request.URL)
		case *network.EventResponseReceived:
			if ev.Response.Status >= 400 {
				b.failures = append(b.failures, fmt.Sprintf("%d %s", ev.Response.Status, ev.Response.URL))
			}
		case *runtime.EventExceptionThrown:
			b.failures = append(b.failures, "exception: "+ev.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.failures = append(b.failures, "console error: "+strings.Join(args, " "))
			}
		case *network.EventLoadingFailed:
			b.failures = append(b.failures, fmt.Sprintf("%s %s", ev.ErrorText, ev.Type))
		}
	})
	require.NoError(t, chromedp.Run(ctx), "open a tab")
	t.Cleanup(func() {
		if t.Failed() {
			b.mu.Lock()
			defer b.mu.Unlock()
			var requests []string
			for _, r := range b.requests {
				if len(r) > 120 {
					r = r[:120] + "…" // inline fonts and images
				}
				requests = append(requests, r)
			}
			t.Logf("requests so far:\n%s\nfailures so far:\n%s", strings.Join(requests, "\n"), strings.Join(b.failures, "\n"))
		}
	})
	return ctx
}

// requireLocal fails t if a page requested anything but the server and inline data: the pages
// must work where the server's machine has no internet access.
func (b *browser) requireLocal(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var outside []string
	for _, raw := range b.requests {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		if u.Scheme == "data" || u.Scheme == "blob" || u.Scheme == "about" {
			continue
		}
		if !slices.Contains(b.origins, u.Scheme+"://"+u.Host) {
			outside = append(outside, raw)
		}
	}
	slices.Sort(outside)
	require.Empty(t, slices.Compact(outside), "the pages requested resources from outside the server")
}

// answerBasicAuth answers every HTTP authentication challenge in the tab with user and
// password, as a person does in the browser's sign-in dialog (headless Chromium has none). It
// has the tab's requests pass through the DevTools Fetch domain, which is where challenges can
// be answered; requests without a challenge continue untouched.
func answerBasicAuth(t *testing.T, ctx context.Context, user, password string) {
	t.Helper()
	target := cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Target)
	chromedp.ListenTarget(ctx, func(ev any) {
		// Listeners must not block the tab's event loop, so answers are sent from goroutines.
		switch ev := ev.(type) {
		case *fetch.EventRequestPaused:
			go func() { _ = fetch.ContinueRequest(ev.RequestID).Do(target) }()
		case *fetch.EventAuthRequired:
			go func() {
				_ = fetch.ContinueWithAuth(ev.RequestID, &fetch.AuthChallengeResponse{
					Response: fetch.AuthChallengeResponseResponseProvideCredentials,
					Username: user, Password: password,
				}).Do(target)
			}()
		}
	})
	run(t, ctx, "handle authentication challenges", fetch.Enable().WithHandleAuthRequests(true))
}

// run runs actions in the tab within 30 s, failing t with what it was doing.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Run(ctx, actions...), what)
}

// setEditor replaces the text of the CodeMirror editor matched by selector, as the editor's own
// API does for a paste, so that GraphiQL sees the change.
func setEditor(selector, text string) chromedp.Action {
	sel, _ := json.Marshal(selector)
	value, _ := json.Marshal(text)
	return chromedp.Evaluate(fmt.Sprintf(`(() => {
		const cm = document.querySelector(%s).CodeMirror;
		cm.setValue(%s);
		return cm.getValue();
	})()`, sel, value), nil)
}

// waitText waits up to 30 s until the element matched by selector shows want, and returns its
// text. On timeout t fails with the text the element showed instead.
func waitText(t *testing.T, ctx context.Context, selector, want string) string {
	t.Helper()
	sel, _ := json.Marshal(selector)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var text string
		err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(
			`(() => { const el = document.querySelector(%s); return el ? el.innerText : ""; })()`, sel), &text))
		require.NoError(t, err)
		if strings.Contains(text, want) {
			return text
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not show %q within 30s; it showed:\n%s", selector, want, text)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// screenshot saves the tab's viewport as NAME (a path under docs/, such as "screens/x.png") in
// the directory E2E_SCREENSHOTS names — `make screenshots` points it at docs/ to refresh the
// committed pictures — or in the test's temporary directory, so a plain run leaves the checkout
// as it was.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	run(t, ctx, "take a screenshot", chromedp.CaptureScreenshot(&png))
	dir := os.Getenv("E2E_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, png, 0o644))
}

// subscriptions is the server's podium_subscriptions gauge, read from its operator listener's
// metrics: the GraphQL subscriptions it holds.
func (s *e2eServer) subscriptions(t *testing.T) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.operatorURL+"/metrics", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+e2eOperatorToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "podium_subscriptions "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			require.NoError(t, err, line)
			return n
		}
	}
	t.Fatalf("no podium_subscriptions in the metrics")
	return 0
}
