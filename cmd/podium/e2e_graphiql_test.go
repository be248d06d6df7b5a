//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserGraphiQLBanner opens GraphiQL at a phone's size: the line above the editor is read
// whole (it wraps, nothing is cut off), says that organizers need no key and that a key is for
// integrators, and an Authorization header that an older page stored is neither shown in Headers
// nor kept. The line passes axe-core.
func TestBrowserGraphiQLBanner(t *testing.T) {
	t.Parallel()
	srv := startE2EServer(t)
	browser := newBrowser(t, srv.url)
	ctx := browser.tab(t)

	run(t, ctx, "open GraphiQL signed out on a phone", phone(), network.ClearBrowserCookies(),
		chromedp.Navigate(srv.url+"/graphql"), chromedp.WaitVisible(`.graphiql-query-editor .CodeMirror`, chromedp.ByQuery))
	hint := waitText(t, ctx, `#podium-hint`, "integrators only")
	require.Contains(t, hint, "no key")
	require.NotContains(t, hint, "Every query needs an API key")
	var cut bool
	run(t, ctx, "measure the line", chromedp.Evaluate(
		`(() => { const el = document.getElementById("podium-hint"); return el.scrollWidth > el.clientWidth + 1; })()`, &cut))
	require.False(t, cut, "the line above the editor is cut off on a phone")
	// GraphiQL's own editor is a vendored widget (graph/graphiql.go); Podium's line is checked.
	checkAccessibilityOf(t, ctx, "#podium-hint", "the line above GraphiQL on a phone")
	screen(t, ctx, "graphiql-phone.png")

	// A header an older page kept, under GraphiQL's own key and under Podium's prefix.
	var headers string
	run(t, ctx, "store a placeholder header as an older page did, and reload",
		chromedp.Evaluate(`localStorage.setItem("graphiql:headers", '{"Authorization": "Bearer <API key>"}');
			localStorage.setItem("podium:graphiql:headers", '{"Authorization": "Bearer <API key>"}'); true`, nil),
		chromedp.Reload(), chromedp.WaitVisible(`.graphiql-query-editor .CodeMirror`, chromedp.ByQuery),
		chromedp.Click(`//button[normalize-space(.)="Headers"]`, chromedp.BySearch),
		chromedp.WaitVisible(`.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector(".graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror").CodeMirror.getValue()`, &headers))
	require.NotContains(t, headers, "Authorization")
	var stored string
	run(t, ctx, "read what the page kept",
		chromedp.Evaluate(`JSON.stringify(Object.assign({}, localStorage, sessionStorage))`, &stored))
	require.NotContains(t, stored, "Bearer")

	browser.requireLocal(t)
}

// checkAccessibilityOf is checkAccessibility for the part of the page that selector matches.
func checkAccessibilityOf(t *testing.T, ctx context.Context, selector, page string) {
	t.Helper()
	sel, _ := json.Marshal(selector)
	var raw string
	await := func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }
	run(t, ctx, "run axe-core on "+page,
		chromedp.Evaluate(axeSource(t)+"\n;true", nil),
		chromedp.Evaluate(fmt.Sprintf(`axe.run(document.querySelector(%s), {resultTypes: ["violations"]}).then(r => JSON.stringify(
			r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help,
				targets: v.nodes.map(n => n.target.join(" "))}))))`, sel), &raw, await))
	var all []axeViolation
	require.NoError(t, json.Unmarshal([]byte(raw), &all), raw)
	var bad []string
	for _, v := range all {
		if v.Impact == "serious" || v.Impact == "critical" {
			bad = append(bad, fmt.Sprintf("%s (%s): %s at %s", v.ID, v.Impact, v.Help, strings.Join(v.Targets, ", ")))
		}
	}
	require.Empty(t, bad, "accessibility violations on %s", page)
}
