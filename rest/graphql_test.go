package rest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/event"
)

// GraphQL runs the same operations as REST: these tests check the same rules answer with the same
// codes in extensions.code, and that what one transport writes the other reads back unchanged.

const eventFields = `id createdAt updatedAt organizationId name slug tagline description type websiteUrl
location timezone startsAt endsAt theme logoUrl logoKey backgroundUrl defaultSubmissionLimit
speakerConfirmationEnabled agendaPublishedAt publishedAgenda { id } publishedBlocks { id } agendaDirty replyToEmail`

func TestGraphQLReadsWhatRESTWrote(t *testing.T) {
	t.Parallel()
	b := setup(t)

	created := b.createEvent(b.acme, "Both Ways")
	b.must(http.StatusOK, http.MethodPatch, "/api/v1/events/"+str(created, "id"), b.acme, map[string]any{"tagline": "Hi"})
	viaREST := b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+str(created, "id"), b.acme, nil).Obj()

	data := b.gqlOK(b.acme, `query($id: ID!) { event(id: $id) { `+eventFields+` } }`, map[string]any{"id": created["id"]})
	viaGraphQL := data["event"].(map[string]any)
	require.Len(t, viaGraphQL, len(viaREST))
	for key, want := range viaREST {
		got := viaGraphQL[key]
		if n, ok := want.(json.Number); ok {
			require.Equal(t, n.String(), jsonString(got), key)
			continue
		}
		require.Equal(t, want, got, key)
	}
}

func jsonString(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

func TestGraphQLMutations(t *testing.T) {
	t.Parallel()
	b := setup(t)

	const create = `mutation($in: CreateEventInput!) { createEvent(input: $in) { id slug name type startsAt } }`
	input := func(change func(map[string]any)) map[string]any {
		in := map[string]any{"name": "Gophers", "type": "meetup", "timezone": "UTC",
			"startsAt": "2027-03-01T18:00:00Z", "endsAt": "2027-03-01T21:00:00Z"}
		if change != nil {
			change(in)
		}
		return map[string]any{"in": in}
	}

	ev := b.gqlOK(b.acme, create, input(nil))["createEvent"].(map[string]any)
	require.Equal(t, "gophers", ev["slug"])
	require.Equal(t, "meetup", ev["type"])
	require.Equal(t, "2027-03-01T18:00:00.000Z", ev["startsAt"])
	// REST sees it too.
	rest := b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+str(ev, "id"), b.acme, nil).Obj()
	require.Equal(t, "Gophers", rest["name"])
	// Slugs are unique across transports.
	require.Equal(t, "gophers-2", str(b.createEvent(b.acme, "Gophers"), "slug"))

	for name, tc := range map[string]struct {
		vars    map[string]any
		code    string
		message string
	}{
		"EndBeforeStart": {input(func(m map[string]any) { m["endsAt"] = "2027-03-01T17:00:00Z" }), "invalid_input", "Event end must be after start"},
		"BadDate":        {input(func(m map[string]any) { m["startsAt"] = "tomorrow" }), "invalid_input", "startsAt is not a valid ISO date"},
		"BadTimezone":    {input(func(m map[string]any) { m["timezone"] = "Nowhere/Land" }), "invalid_input", "timezone must be an IANA time zone such as Europe/Berlin"},
		"BadEnum":        {input(func(m map[string]any) { m["type"] = "party" }), "invalid_body", ""},
		"MissingKey":     {input(func(m map[string]any) { delete(m, "timezone") }), "invalid_body", ""},
		"WrongType":      {input(func(m map[string]any) { m["name"] = 42 }), "invalid_body", ""},
	} {
		r := b.gql(b.acme, create, tc.vars)
		require.Equal(t, []string{tc.code}, r.Codes(), "%s: %s", name, r.Raw)
		if tc.message != "" {
			require.Equal(t, tc.message, r.Errors[0].Message, name)
		}
	}

	t.Run("UpdateEvent", func(t *testing.T) {
		const update = `mutation($id: ID!, $in: UpdateEventInput!) { updateEvent(id: $id, input: $in) { name tagline location } }`
		got := b.gqlOK(b.acme, update, map[string]any{"id": ev["id"], "in": map[string]any{"tagline": "Go!", "location": "Oslo"}})
		require.Equal(t, map[string]any{"name": "Gophers", "tagline": "Go!", "location": "Oslo"}, got["updateEvent"])
		got = b.gqlOK(b.acme, update, map[string]any{"id": ev["id"], "in": map[string]any{"tagline": nil}})
		require.Equal(t, map[string]any{"name": "Gophers", "tagline": nil, "location": "Oslo"}, got["updateEvent"])

		r := b.gql(b.acme, update, map[string]any{"id": ev["id"], "in": map[string]any{"name": nil}})
		require.Equal(t, []string{"invalid_body"}, r.Codes(), r.Raw)
		require.Equal(t, "name must not be null", r.Errors[0].Message)
		r = b.gql(b.acme, update, map[string]any{"id": ev["id"], "in": map[string]any{"defaultSubmissionLimit": 0}})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
		r = b.gql(b.globex, update, map[string]any{"id": ev["id"], "in": map[string]any{"name": "Stolen"}})
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
		require.Equal(t, "You cannot access this event", r.Errors[0].Message)
	})

	t.Run("Library", func(t *testing.T) {
		const save = `mutation($e: ID!, $in: SaveLibraryItemInput!) { saveLibraryItem(eventId: $e, input: $in) {
			__typename id name position ... on Track { color } ... on Format { durationMinutes } } }`
		track := b.gqlOK(b.acme, save, map[string]any{"e": ev["id"], "in": map[string]any{"kind": "track", "name": "Web"}})["saveLibraryItem"].(map[string]any)
		require.Equal(t, "Track", track["__typename"])
		require.Equal(t, "#1d6b4c", track["color"])
		format := b.gqlOK(b.acme, save, map[string]any{"e": ev["id"], "in": map[string]any{"kind": "format", "name": "Lightning", "durationMinutes": 5}})["saveLibraryItem"].(map[string]any)
		require.Equal(t, float64(5), format["durationMinutes"])

		lib := b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+str(ev, "id")+"/library", b.acme, nil).Obj()
		require.Equal(t, track["id"], lib["tracks"].([]any)[0].(map[string]any)["id"])

		r := b.gql(b.acme, save, map[string]any{"e": ev["id"], "in": map[string]any{"kind": "tag", "id": track["id"], "name": "x"}})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
		require.Equal(t, "Tag not found", r.Errors[0].Message)
		r = b.gql(b.acme, save, map[string]any{"e": ev["id"], "in": map[string]any{"kind": "tag", "name": " "}})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)

		sub := b.newSubmission(str(ev, "id"), 1)
		_, err := sub.Update().AddTrackIDs(str(track, "id")).Save(b.sys())
		require.NoError(t, err)
		const del = `mutation($e: ID!, $k: LibraryKind!, $id: ID!) { deleteLibraryItem(eventId: $e, kind: $k, id: $id) }`
		r = b.gql(b.acme, del, map[string]any{"e": ev["id"], "k": "track", "id": track["id"]})
		require.Equal(t, []string{"resource_in_use"}, r.Codes(), r.Raw)
		require.Equal(t, "Track cannot be deleted because it is in use", r.Errors[0].Message)
		got := b.gqlOK(b.acme, del, map[string]any{"e": ev["id"], "k": "format", "id": format["id"]})
		require.Equal(t, format["id"], got["deleteLibraryItem"])

		data := b.gqlOK(b.acme, `query($id: ID!) { event(id: $id) { library { tracks { id } formats { id } admins { id } } } }`,
			map[string]any{"id": ev["id"]})
		lib2 := data["event"].(map[string]any)["library"].(map[string]any)
		require.Len(t, lib2["tracks"], 1)
		require.Equal(t, []any{}, lib2["formats"])
	})
}

// TestGraphQLMutationIsAtomic checks that a document whose second mutation fails writes nothing.
func TestGraphQLMutationIsAtomic(t *testing.T) {
	t.Parallel()
	b := setup(t)

	r := b.gql(b.acme, `mutation {
		first: createEvent(input: {name: "Kept?", type: summit, timezone: "UTC", startsAt: "2027-01-01T00:00:00Z", endsAt: "2027-01-02T00:00:00Z"}) { id }
		second: createEvent(input: {name: "Broken", type: summit, timezone: "UTC", startsAt: "2027-01-02T00:00:00Z", endsAt: "2027-01-01T00:00:00Z"}) { id }
	}`, nil)
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	require.Nil(t, r.Data)
	n, err := b.db.Ent.Event.Query().Where(event.Name("Kept?")).Count(b.sys())
	require.NoError(t, err)
	require.Zero(t, n)
}

func TestGraphQLQueries(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := b.createEvent(b.acme, "Queried")
	b.createEvent(b.globex, "Elsewhere")
	track := b.saveItem(b.acme, str(ev, "id"), map[string]any{"kind": "track", "name": "Cloud"})

	t.Run("EventsConnection", func(t *testing.T) {
		data := b.gqlOK(b.acme, `{ events(first: 10) { totalCount edges { node { id name } } pageInfo { hasNextPage } } }`, nil)
		conn := data["events"].(map[string]any)
		require.Equal(t, float64(1), conn["totalCount"])
		require.Equal(t, ev["id"], conn["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["id"])
	})

	t.Run("Organization", func(t *testing.T) {
		data := b.gqlOK(b.acme, `{ organization { id name slug viewerRole members { id } pendingInvitations { id } } }`, nil)
		require.Equal(t, map[string]any{"id": b.acmeOrg, "name": "Acme", "slug": "acme", "viewerRole": "admin",
			"members": []any{}, "pendingInvitations": []any{}}, data["organization"])
	})

	t.Run("Node", func(t *testing.T) {
		data := b.gqlOK(b.acme, `query($id: ID!) { node(id: $id) { __typename id ... on Track { name } } }`, map[string]any{"id": track["id"]})
		require.Equal(t, map[string]any{"__typename": "Track", "id": track["id"], "name": "Cloud"}, data["node"])
		data = b.gqlOK(b.acme, `query($id: ID!) { node(id: $id) { __typename ... on Event { slug } } }`, map[string]any{"id": ev["id"]})
		require.Equal(t, "queried", data["node"].(map[string]any)["slug"])

		// Another organization's ids, unknown ids and garbage all answer null with not_found.
		for _, id := range []any{track["id"], ev["id"], "trk_01doesnotexist000000000000", "garbage"} {
			r := b.gql(b.globex, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id})
			require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
			require.Nil(t, r.Data["node"])
		}

		data = b.gqlOK(b.acme, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": []any{ev["id"], track["id"]}})
		require.Len(t, data["nodes"], 2)
		r := b.gql(b.globex, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": []any{ev["id"]}})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
		require.Equal(t, []any{nil}, r.Data["nodes"])
	})

	t.Run("ForeignEvent", func(t *testing.T) {
		r := b.gql(b.globex, `query($id: ID!) { event(id: $id) { id name } }`, map[string]any{"id": ev["id"]})
		require.Equal(t, []string{"forbidden"}, r.Codes(), r.Raw)
		require.Nil(t, r.Data["event"])
	})

	t.Run("Authentication", func(t *testing.T) {
		r := b.gql("", `{ events { totalCount } }`, nil)
		require.Equal(t, http.StatusUnauthorized, r.Status)
		require.Equal(t, []string{"missing_api_key"}, r.Codes())
		r = b.gql("pdm_wrong", `{ events { totalCount } }`, nil)
		require.Equal(t, http.StatusUnauthorized, r.Status)
		require.Equal(t, []string{"invalid_api_key"}, r.Codes())
	})

	t.Run("DocumentErrors", func(t *testing.T) {
		r := b.gql(b.acme, `{ events { `, nil)
		require.Equal(t, []string{"graphql_parse_failed"}, r.Codes(), r.Raw)
		r = b.gql(b.acme, `{ events { nope } }`, nil)
		require.Equal(t, []string{"graphql_validation_failed"}, r.Codes(), r.Raw)
	})

	t.Run("Limits", func(t *testing.T) {
		r := b.gql(b.acme, tooDeepDocument(16), nil)
		require.Equal(t, []string{"complexity_limit_exceeded"}, r.Codes(), r.Raw)
		require.Contains(t, r.Errors[0].Message, "the limit is 15")
		b.gqlOK(b.acme, tooDeepDocument(15), nil)

		var aliases strings.Builder
		aliases.WriteString("{")
		for i := range 51 {
			aliases.WriteString(" a" + itoa(i) + ": organization { id }")
		}
		aliases.WriteString(" }")
		r = b.gql(b.acme, aliases.String(), nil)
		require.Equal(t, []string{"complexity_limit_exceeded"}, r.Codes(), r.Raw)
		require.Contains(t, r.Errors[0].Message, "aliases")
	})

	t.Run("GraphiQLForBrowsers", func(t *testing.T) {
		get := func(target, _ string) *httptest.ResponseRecorder {
			req, _ := http.NewRequest(http.MethodGet, target, nil)
			return b.sendRaw(req)
		}
		req, _ := http.NewRequest(http.MethodGet, "/graphql", nil)
		req.Header.Set("Accept", "text/html")
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Contains(t, rec.Body.String(), "graphiql")
		// The page loads its scripts and stylesheet from Podium itself, never from a CDN.
		require.NotContains(t, rec.Body.String(), "cdn.jsdelivr.net")
		require.Contains(t, rec.Body.String(), `src="/graphql?graphiql=graphiql.min.js"`)
		// A person signed in by email runs queries with their session: the page pre-fills no
		// header (a placeholder key made every query fail), keeps none, and says what a key is for.
		require.NotContains(t, rec.Body.String(), "your API key")
		require.NotContains(t, rec.Body.String(), "Every query needs an API key")
		require.Contains(t, rec.Body.String(), `<a href="/auth/signin?next=%2Fgraphql">Sign in</a>`)
		// No inline script or style, a policy that allows only this site's, and no framing.
		require.NotRegexp(t, `<script>|<style|style=`, rec.Body.String())
		csp := rec.Header().Get("Content-Security-Policy")
		require.Contains(t, csp, "script-src 'self';")
		require.Contains(t, csp, "frame-ancestors 'none'")
		require.NotContains(t, csp, "unsafe-eval")
		require.Equal(t, "DENY", rec.Header().Get("X-Frame-Options"))
		start := get("/graphql?graphiql=podium.js", "")
		require.Equal(t, http.StatusOK, start.Code)
		require.Contains(t, start.Body.String(), "shouldPersistHeaders: false")
		require.Contains(t, rec.Body.String(), `podium keys create --org NAME`)
	})

	t.Run("GraphiQLFiles", func(t *testing.T) {
		get := func(target, etag string) *httptest.ResponseRecorder {
			req, _ := http.NewRequest(http.MethodGet, target, nil)
			if etag != "" {
				req.Header.Set("If-None-Match", etag)
			}
			return b.sendRaw(req)
		}
		for name, contentType := range map[string]string{
			"graphiql.min.js": "text/javascript", "graphiql.min.css": "text/css",
			"react.production.min.js": "text/javascript", "react-dom.production.min.js": "text/javascript",
		} {
			rec := get("/graphql?graphiql="+name, "")
			require.Equal(t, http.StatusOK, rec.Code, name)
			require.Contains(t, rec.Header().Get("Content-Type"), contentType, name)
			require.Greater(t, rec.Body.Len(), 1000, name)
			etag := rec.Header().Get("ETag")
			require.True(t, strings.HasPrefix(etag, `"sha256-`), etag)
			require.Equal(t, http.StatusNotModified, get("/graphql?graphiql="+name, etag).Code, name)
		}
		// Any other name is not a file: without a key it is a GraphQL request like any other.
		rec := get("/graphql?graphiql=../../etc/passwd", "")
		require.Equal(t, http.StatusUnauthorized, rec.Code, rec.Body.String())
	})

	t.Run("GETQueries", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, "/graphql?query="+urlQueryEscape("{ organization { slug } }"), nil)
		req.Header.Set("Authorization", "Bearer "+b.acme)
		rec := b.sendRaw(req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.JSONEq(t, `{"data":{"organization":{"slug":"acme"}}}`, rec.Body.String())
	})
}

// tooDeepDocument nests introspection's ofType, the one recursive path of the schema, to the given
// depth of selections.
func tooDeepDocument(depth int) string {
	inner := "name"
	for range depth - 3 {
		inner = "ofType { " + inner + " }"
	}
	return "{ __schema { types { " + inner + " } } }"
}
