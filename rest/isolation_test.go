package rest_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCrossOrganization calls every operation with the second organization's key and the first
// organization's ids. Operations of an event answer 403; the others answer with the caller's own
// data only. The list comes from the served OpenAPI document, which TestOpenAPIMatchesRouter
// holds equal to the router, so a new route is covered the day it is added.
func TestCrossOrganization(t *testing.T) {
	t.Parallel()
	b := setup(t)

	ev := b.createEvent(b.acme, "Acme Secret Summit")
	track := b.saveItem(b.acme, str(ev, "id"), map[string]any{"kind": "track", "name": "Acme Secret Track"})
	ids := map[string]string{"eventId": str(ev, "id"), "itemId": str(track, "id"), "kind": "track"}
	secrets := []string{str(ev, "id"), str(track, "id"), b.acmeOrg, "Acme Secret", "acme-secret"}

	tested := 0
	for _, op := range b.operations(t) {
		if op.public {
			continue // published data, for anyone: see TestPublicAgenda
		}
		path := "/api/v1" + op.path
		for name, value := range ids {
			path = strings.ReplaceAll(path, "{"+name+"}", value)
		}
		path = pathParam.ReplaceAllString(path, "ses_01doesnotexist0000000000")
		var body any
		if op.body != nil {
			// A well-formed body, so that body checks (which come first) pass.
			body = sample(op.body)
		}
		r := b.do(op.method, path, b.globex, body)
		if strings.Contains(op.path, "{eventId}") {
			b.requireError(r, http.StatusForbidden, "forbidden")
		} else {
			require.Less(t, r.Status, 500, "%s %s: %s", op.method, op.path, r.Raw)
		}
		for _, secret := range secrets {
			require.NotContains(t, r.Raw, secret, "%s %s leaks acme's data", op.method, op.path)
		}
		tested++
	}
	require.Greater(t, tested, 20)

	// And acme's data is untouched.
	lib := b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+str(ev, "id")+"/library", b.acme, nil).Obj()
	require.Len(t, lib["tracks"], 1)
	require.Len(t, lib["tags"], 0)
	require.Equal(t, "Acme Secret Summit", b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+str(ev, "id"), b.acme, nil).Obj()["name"])
}

var pathParam = regexp.MustCompile(`\{[^}]+\}`)
