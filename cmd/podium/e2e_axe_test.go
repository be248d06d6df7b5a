//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The accessibility check, for every page test: checkAccessibility runs axe-core in the tab, as
// it shows the page now, and fails on any violation axe rates serious or critical.
//
// axe-core comes from the npm registry at the exact version below, installed with npm on first
// use into the user's cache directory (never into the repository), and is reused from there.
// Without npm, or without the registry on first use, the check fails: pages not checked are not
// passed.

// axeVersion is the axe-core release the check runs.
const axeVersion = "4.10.2"

var axe struct {
	once   sync.Once
	source string
	err    error
}

// axeSource returns axe.min.js, installing axe-core into the cache on first use.
func axeSource(t *testing.T) string {
	t.Helper()
	axe.once.Do(func() {
		var file string
		if file, axe.err = npmFile("axe-core", axeVersion, "node_modules/axe-core/axe.min.js"); axe.err != nil {
			return
		}
		raw, err := os.ReadFile(file)
		axe.source, axe.err = string(raw), err
	})
	require.NoError(t, axe.err, "the accessibility check needs axe-core from the npm registry")
	return axe.source
}

// npmFile returns the path of file (relative to the install) of the npm package pkg at version,
// installed with npm from the registry into the user's cache directory on first use — never into
// the repository — without running its install scripts, and reused from there.
func npmFile(pkg, version, file string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "podium-e2e", strings.ReplaceAll(strings.TrimPrefix(pkg, "@"), "/", "-")+"-"+version)
	path := filepath.Join(dir, filepath.FromSlash(file))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("npm", "install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund",
		"--ignore-scripts", "--no-package-lock", pkg+"@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s@%s: %w\n%s", pkg, version, err, out)
	}
	return path, nil
}

// axeViolation is what the check reports of one violation.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// checkAccessibility runs axe-core on the tab's page and fails t on serious or critical
// violations, naming the page, the rule and the elements.
func checkAccessibility(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	all := axeViolations(t, ctx, page)
	var bad []string
	for _, v := range all {
		if v.Impact == "serious" || v.Impact == "critical" {
			bad = append(bad, fmt.Sprintf("%s (%s): %s at %s", v.ID, v.Impact, v.Help, strings.Join(v.Targets, ", ")))
		}
	}
	require.Empty(t, bad, "accessibility violations on %s", page)
	t.Logf("axe-core %s on %s: %d minor or moderate findings, none serious", axeVersion, page, len(all))
}

// TestAccessibilityCheckFails shows the check can fail: a page with an unlabelled input and an
// image without a text alternative has serious or critical violations.
func TestAccessibilityCheckFails(t *testing.T) {
	t.Parallel()
	browser := newBrowser(t, "data:")
	ctx := browser.tab(t)
	run(t, ctx, "open a page with violations", chromedp.Navigate(`data:text/html,<!doctype html><html lang="en">`+
		`<title>Bad</title><main><input name="x"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></html>`))
	var ids []string
	for _, v := range axeViolations(t, ctx, "a bad page") {
		if v.Impact == "serious" || v.Impact == "critical" {
			ids = append(ids, v.ID)
		}
	}
	require.Contains(t, ids, "label")
	require.Contains(t, ids, "image-alt")
}

// axeViolations runs axe-core on the tab's page and returns every violation.
func axeViolations(t *testing.T, ctx context.Context, page string) []axeViolation {
	t.Helper()
	var raw string
	await := func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }
	run(t, ctx, "run axe-core on "+page,
		chromedp.Evaluate(axeSource(t)+"\n;true", nil),
		chromedp.Evaluate(`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(
			r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help,
				targets: v.nodes.map(n => n.target.join(" "))}))))`, &raw, await))
	var all []axeViolation
	require.NoError(t, json.Unmarshal([]byte(raw), &all), raw)
	return all
}

// phone makes the tab the size of a phone, where the pages must work as well.
func phone() chromedp.Action { return chromedp.EmulateViewport(390, 844) }

// screen saves the tab's viewport as screens/NAME (docs/screens/NAME under make screenshots).
func screen(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	screenshot(t, ctx, "screens/"+name)
}
