package rest

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestRoutesInRESTAPIDoc holds docs/rest-api.md to the route table: every METHOD `path` it
// mentions (E standing for /events/{eventId}, placeholders by any name) is a route. The document
// lists operations and their answers in brief; their descriptions are the OpenAPI document's.
func TestRoutesInRESTAPIDoc(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile("../docs/rest-api.md")
	if err != nil {
		t.Fatal(err)
	}
	placeholder := regexp.MustCompile(`\{[^}]*\}`)
	norm := func(method, path string) string {
		return method + " " + placeholder.ReplaceAllString(path, "{}")
	}
	table := map[string]bool{}
	for _, rt := range routes {
		table[norm(rt.method, rt.path)] = true
	}
	mention := regexp.MustCompile("\\b(GET|POST|PUT|PATCH|DELETE) `([^`]+)`")
	checked := 0
	for _, m := range mention.FindAllStringSubmatch(string(md), -1) {
		path, _, _ := strings.Cut(m[2], "?")
		if strings.HasPrefix(path, "…") {
			continue // relative to the mention before it
		}
		if path == "E" || strings.HasPrefix(path, "E/") {
			path = "/events/{eventId}" + strings.TrimPrefix(path, "E")
		}
		path = strings.TrimPrefix(path, "/api/v1")
		checked++
		if !table[norm(m[1], path)] {
			t.Errorf("docs/rest-api.md mentions %s %s, which is not a route of rest.routes", m[1], m[2])
		}
	}
	if checked < 50 {
		t.Errorf("only %d operations found in docs/rest-api.md; is the pattern broken?", checked)
	}
	t.Logf("%d operations mentioned in docs/rest-api.md checked", checked)
}
