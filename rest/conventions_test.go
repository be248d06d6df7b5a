package rest_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/rest"
)

// Tests of docs/rest-api.md §1 (conventions) and §2 (authentication), through the real router.

var isoMillis = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

func TestMetaDocument(t *testing.T) {
	t.Parallel()
	b := setup(t)

	r := b.must(http.StatusOK, http.MethodGet, "/api/v1/", "", nil)
	m := r.Obj()
	require.Equal(t, "v1", m["version"])
	require.Equal(t, "Podium API", m["name"])
	require.Equal(t, "http://example.com/api/v1/openapi.json", m["openapi"])
	require.Contains(t, m["authentication"], "Bearer pdm_")
	require.NotEmpty(t, m["documentation"])
	require.Equal(t, "application/json; charset=utf-8", r.Header.Get("Content-Type"))

	doc := b.must(http.StatusOK, http.MethodGet, "/api/v1/openapi.json", "", nil).Obj()
	operations := 0
	for _, item := range doc["paths"].(map[string]any) {
		operations += len(item.(map[string]any))
	}
	require.Equal(t, int64(operations), num(t, m, "endpoints"))

	// In another version, that version's operations.
	req := httptest.NewRequest(http.MethodGet, "/api/v1/", nil)
	req.Header.Set(rest.VersionHeader, rest.VersionCurrent)
	m = b.send(req).Obj()
	doc = b.must(http.StatusOK, http.MethodGet, "/api/v1/openapi.json?version="+rest.VersionCurrent, "", nil).Obj()
	operations = 0
	for _, item := range doc["paths"].(map[string]any) {
		operations += len(item.(map[string]any))
	}
	require.Equal(t, int64(operations), num(t, m, "endpoints"))
}

// TestOpenAPIMatchesRouter checks that the documents of the API versions together list exactly the
// (method, path) pairs the router serves under /api/v1, each with its responses and, for writes, a
// request body schema.
func TestOpenAPIMatchesRouter(t *testing.T) {
	t.Parallel()
	b := setup(t)

	var documented []string
	for _, v := range rest.Versions {
		doc := b.must(http.StatusOK, http.MethodGet, "/api/v1/openapi.json?version="+v, "", nil).Obj()
		require.Equal(t, "3.0.3", doc["openapi"])
		for path, item := range doc["paths"].(map[string]any) {
			for method, op := range item.(map[string]any) {
				if !slices.Contains(documented, strings.ToUpper(method)+" "+path) {
					documented = append(documented, strings.ToUpper(method)+" "+path)
				}
				o := op.(map[string]any)
				require.NotEmpty(t, o["operationId"])
				require.NotEmpty(t, o["responses"])
				if method == "post" || method == "patch" || method == "put" {
					if _, ok := o["requestBody"]; !ok {
						require.Contains(t, []string{"deleteLibraryItem", "publishAgenda", "unpublishAgenda", "redeliverWebhook"}, o["operationId"])
					}
				}
			}
		}
	}
	var served []string
	require.NoError(t, chi.Walk(b.handler.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.HasPrefix(route, "/api/v1/") && route != "/api/v1/" && route != "/api/v1/openapi.json" {
			served = append(served, method+" "+strings.TrimPrefix(route, "/api/v1"))
		}
		return nil
	}))
	sort.Strings(documented)
	sort.Strings(served)
	require.Equal(t, served, documented)
}

func TestCORS(t *testing.T) {
	t.Parallel()
	b := setup(t)

	for _, path := range []string{"/api/v1/events", "/api/v1/no/such/path", "/graphql", "/anything"} {
		r := b.do(http.MethodOptions, path, "", nil)
		require.Equal(t, http.StatusNoContent, r.Status, path)
		require.Empty(t, r.Raw)
		require.Equal(t, "*", r.Header.Get("Access-Control-Allow-Origin"))
		for _, h := range []string{"Authorization", "Podium-Version", "Podium-Organization", "Mcp-Protocol-Version"} {
			require.Contains(t, r.Header.Get("Access-Control-Allow-Headers"), h)
		}
		require.Contains(t, r.Header.Get("Access-Control-Allow-Methods"), "PATCH")
		require.Contains(t, r.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate")
	}
	// Every response carries the header: success, client error, meta.
	for _, r := range []response{
		b.do(http.MethodGet, "/api/v1/events", b.acme, nil),
		b.do(http.MethodGet, "/api/v1/events", "", nil),
		b.do(http.MethodGet, "/api/v1/", "", nil),
		b.do(http.MethodGet, "/api/v1/nope", "", nil),
	} {
		require.Equal(t, "*", r.Header.Get("Access-Control-Allow-Origin"), r.Raw)
	}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	b := setup(t)

	t.Run("UnknownEndpoint", func(t *testing.T) {
		r := b.do(http.MethodGet, "/api/v1/nope/nothing", b.acme, nil)
		b.requireError(r, http.StatusNotFound, "unknown_endpoint")
		require.Equal(t, "No endpoint matches GET /api/v1/nope/nothing", r.ErrMessage())
	})

	t.Run("UnknownEndpointBeforeKeyCheck", func(t *testing.T) {
		b.requireError(b.do(http.MethodPost, "/api/v1/nope", "", "{"), http.StatusNotFound, "unknown_endpoint")
	})

	t.Run("MethodNotAllowedListsAllowed", func(t *testing.T) {
		r := b.do(http.MethodDelete, "/api/v1/events", b.acme, nil)
		b.requireError(r, http.StatusMethodNotAllowed, "method_not_allowed")
		require.Equal(t, "GET, POST", r.Header.Get("Allow"))

		r = b.do(http.MethodPut, "/api/v1/events/evt_x", "", nil)
		b.requireError(r, http.StatusMethodNotAllowed, "method_not_allowed")
		require.Equal(t, "GET, PATCH", r.Header.Get("Allow"))
	})
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	b := setup(t)

	t.Run("Missing", func(t *testing.T) {
		for _, header := range []string{"", "Bearer", "Bearer   "} {
			req := b.do(http.MethodGet, "/api/v1/events", "", nil)
			if header != "" {
				req = b.doHeader(http.MethodGet, "/api/v1/events", header)
			}
			b.requireError(req, http.StatusUnauthorized, "missing_api_key")
		}
	})

	t.Run("Invalid", func(t *testing.T) {
		unknown, _, _ := access.NewKey() // well formed, never stored
		last := "x"
		if strings.HasSuffix(b.acme, last) {
			last = "y"
		}
		for _, header := range []string{
			"Bearer pdm_nonsense",
			"Bearer " + b.acme[:len(b.acme)-1] + last, // checksum fails
			"Bearer " + unknown,
			"Basic " + b.acme,
			"Bearer osk_" + b.acme[4:],
		} {
			b.requireError(b.doHeader(http.MethodGet, "/api/v1/events", header), http.StatusUnauthorized, "invalid_api_key")
		}
	})

	t.Run("KeyCheckBeforeBody", func(t *testing.T) {
		b.requireError(b.do(http.MethodPost, "/api/v1/events", "", "{not json"), http.StatusUnauthorized, "missing_api_key")
	})

	t.Run("RevocationIsImmediate", func(t *testing.T) {
		key, _ := b.newKey("Acme")
		b.must(http.StatusOK, http.MethodGet, "/api/v1/events", key, nil)
		_, err := access.RevokeKey(b.sys(), b.db.Ent, key[:12])
		require.NoError(t, err)
		b.requireError(b.do(http.MethodGet, "/api/v1/events", key, nil), http.StatusUnauthorized, "invalid_api_key")
		// The organization's other keys still work.
		b.must(http.StatusOK, http.MethodGet, "/api/v1/events", b.acme, nil)
	})

	// That keys are stored hashed and never logged: keys_test.go.

	t.Run("LastUsedAtWrittenAtMostOnceAMinute", func(t *testing.T) {
		key, _ := b.newKey("Initech")
		read := func() *string {
			var at *string
			require.NoError(t, b.db.System.QueryRow(b.sys(),
				"SELECT last_used_at::text FROM api_keys WHERE prefix = $1", key[:12]).Scan(&at))
			return at
		}
		require.Nil(t, read())
		b.must(http.StatusOK, http.MethodGet, "/api/v1/events", key, nil)
		first := read()
		require.NotNil(t, first)
		b.must(http.StatusOK, http.MethodGet, "/api/v1/events", key, nil)
		require.Equal(t, *first, *read())
	})
}

// doHeader sends a request with a raw Authorization header.
func (b *testBundle) doHeader(method, path, authorization string) response {
	b.t.Helper()
	req, err := http.NewRequest(method, path, nil)
	require.NoError(b.t, err)
	req.Header.Set("Authorization", authorization)
	return b.send(req)
}

func TestBodies(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := b.createEvent(b.acme, "Bodies")
	library := "/api/v1/events/" + str(ev, "id") + "/library"

	t.Run("InvalidJSON", func(t *testing.T) {
		for _, body := range []string{"{", "", "nul", `{"kind":"track"} trailing`, "\x00"} {
			r := b.do(http.MethodPost, library, b.acme, body)
			b.requireError(r, http.StatusBadRequest, "invalid_json")
			require.Equal(t, "The request body is not valid JSON", r.ErrMessage())
		}
	})

	t.Run("InvalidBody", func(t *testing.T) {
		for body, message := range map[string]string{
			`[]`:                                     "The request body must be a JSON object",
			`"track"`:                                "The request body must be a JSON object",
			`{"id":null,"name":"x"}`:                 "kind is required",
			`{"kind":"track","name":"x"}`:            "id is required",
			`{"kind":"track","id":null}`:             "name is required",
			`{"kind":"track","id":null,"name":null}`: "name must not be null",
			`{"kind":"track","id":null,"name":5}`:    "name must be a string",
			`{"kind":"stage","id":null,"name":"x"}`:  "kind must be one of track, format, room, tag, level",
			`{"kind":"track","id":7,"name":"x"}`:     "id must be a string",
			`{"kind":"format","id":null,"name":"x","durationMinutes":"30"}`: "durationMinutes must be a whole number between -2147483648 and 2147483647",
			`{"kind":"format","id":null,"name":"x","durationMinutes":2.5}`:  "durationMinutes must be a whole number between -2147483648 and 2147483647",
			`{"kind":"format","id":null,"name":"x","durationMinutes":1e40}`: "durationMinutes must be a whole number between -2147483648 and 2147483647",
		} {
			r := b.do(http.MethodPost, library, b.acme, body)
			b.requireError(r, http.StatusBadRequest, "invalid_body")
			require.Equal(t, message, r.ErrMessage(), body)
		}
	})

	t.Run("UnknownKeysIgnored", func(t *testing.T) {
		item := b.saveItem(b.acme, str(ev, "id"), map[string]any{"kind": "tag", "name": "Go", "surprise": true})
		require.Equal(t, "Go", item["name"])
	})

	t.Run("BodyShapeBeforeEventAccess", func(t *testing.T) {
		foreign := "/api/v1/events/" + str(ev, "id") + "/library"
		b.requireError(b.do(http.MethodPost, foreign, b.globex, `{"kind":"nope"}`), http.StatusBadRequest, "invalid_body")
		b.requireError(b.do(http.MethodPost, foreign, b.globex, map[string]any{"kind": "tag", "id": nil, "name": "x"}),
			http.StatusForbidden, "forbidden")
	})

	t.Run("TooLarge", func(t *testing.T) {
		big := `{"kind":"tag","id":null,"name":"` + strings.Repeat("a", 1<<20) + `"}`
		b.requireError(b.do(http.MethodPost, library, b.acme, big), http.StatusRequestEntityTooLarge, "payload_too_large")
	})
}

func TestEventAccess(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := b.createEvent(b.acme, "Private")

	for _, id := range []string{str(ev, "id"), "evt_01doesnotexist0000000000", "nonsense", "%00"} {
		r := b.do(http.MethodGet, "/api/v1/events/"+id, b.globex, nil)
		b.requireError(r, http.StatusForbidden, "forbidden")
		require.Equal(t, "You cannot access this event", r.ErrMessage())
	}
}

func TestResponseConventions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := b.createEvent(b.acme, "Shapes")

	// Nullable fields are present with null, never omitted.
	for _, key := range []string{"tagline", "description", "websiteUrl", "location", "theme", "logoUrl",
		"logoKey", "backgroundUrl", "agendaPublishedAt"} {
		v, ok := ev[key]
		require.True(t, ok, "%s missing", key)
		require.Nil(t, v, key)
	}
	for _, key := range []string{"createdAt", "updatedAt", "startsAt", "endsAt"} {
		require.Regexp(t, isoMillis, ev[key], key)
	}
	room := b.saveItem(b.acme, str(ev, "id"), map[string]any{"kind": "room", "name": "Hall A"})
	v, ok := room["capacity"]
	require.True(t, ok)
	require.Nil(t, v)

	// 204 responses have an empty body.
	r := b.do(http.MethodDelete, "/api/v1/events/"+str(ev, "id")+"/library/room/"+str(room, "id"), b.acme, nil)
	require.Equal(t, http.StatusNoContent, r.Status)
	require.Empty(t, r.Raw)

	// Ids are opaque strings.
	_, isString := ev["id"].(string)
	require.True(t, isString)
}
