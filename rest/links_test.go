package rest_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// scriptLinks are links a browser would run, or that lead nowhere a person expects, in the forms
// they take: every write path refuses each of them.
var scriptLinks = []string{
	"javascript:alert(1)", "JAVASCRIPT:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
	"javascript://%0aalert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)",
	"file:///etc/passwd", "ftp://example.test/", "//evil.test/", "https:evil.test", "https://",
	"mailto:a@example.test",
}

// TestLinksOneRuleEveryTransport: the rule for a link a person may open — an http or https
// address with a host — holds on every write path: REST, GraphQL and the portal's pages (whose
// refusal rest/profile_review_test.go checks), for speakers, CRM contacts and events. The rule
// is the schema's, so a path that forgets it cannot store a javascript: link.
func TestLinksOneRuleEveryTransport(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "Links"), "id")
	base := "/api/v1/events/" + ev
	ada := b.speaker(base, "Ada", "Lovelace", "ada@example.test")
	// A file's link may be a path on Podium; a web link may not.
	links := append(slices.Clone(scriptLinks), "/relative/path")

	for _, link := range links {
		{ // REST
			for _, field := range []string{"linkedinUrl", "twitterUrl", "websiteUrl"} {
				body := speakerBody("grace@example.test")
				body[field] = link
				b.requireError(b.do(http.MethodPost, base+"/speakers", b.acme, body), http.StatusBadRequest, "invalid_input")
				body = speakerBody("ada@example.test")
				body["id"], body[field] = ada, link
				b.requireError(b.do(http.MethodPost, base+"/speakers", b.acme, body), http.StatusBadRequest, "invalid_input")
			}
			for _, field := range []string{"linkedin", "twitter", "facebook", "website"} {
				row := map[string]any{"firstName": "Grace", "lastName": "Hopper", "email": "grace@example.test", "title": nil,
					"company": nil, "bio": nil, "dietary": nil, "tshirt": nil, "linkedin": nil, "twitter": nil,
					"facebook": nil, "website": nil, "phone": nil, "action": "create"}
				row[field] = link
				b.requireError(b.do(http.MethodPost, base+"/speakers/import", b.acme, map[string]any{"rows": []any{row}}),
					http.StatusBadRequest, "invalid_input")
			}
			b.requireError(b.do(http.MethodPatch, base, b.acme, map[string]any{"websiteUrl": link}), http.StatusBadRequest, "invalid_input")
			for _, field := range []string{"linkedinUrl", "twitterUrl", "facebookUrl", "websiteUrl", "headshotUrl"} {
				if field == "headshotUrl" && link == "/relative/path" {
					continue
				}
				body := map[string]any{"firstName": "Grace", "lastName": "Hopper", "email": "grace@example.test",
					"title": nil, "company": nil, "bio": nil, field: link}
				b.requireError(b.do(http.MethodPost, "/api/v1/contacts", b.acme, body), http.StatusBadRequest, "invalid_input")
			}
		}
		{ // GraphQL
			in := speakerBody("ada@example.test")
			in["id"], in["websiteUrl"] = ada, link
			r := b.gql(b.acme, `mutation($e: ID!, $in: SaveSpeakerInput!) { saveSpeaker(eventId: $e, input: $in) { id } }`,
				map[string]any{"e": ev, "in": in})
			require.Equal(t, []string{"invalid_input"}, r.Codes(), "%q: %s", link, r.Raw)
			r = b.gql(b.acme, `mutation($e: ID!, $in: UpdateEventInput!) { updateEvent(id: $e, input: $in) { id } }`,
				map[string]any{"e": ev, "in": map[string]any{"websiteUrl": link}})
			require.Equal(t, []string{"invalid_input"}, r.Codes(), "%q: %s", link, r.Raw)
		}
	}

	var stored int
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT
		(SELECT count(*) FROM contacts WHERE concat(linkedin_url, twitter_url, facebook_url, website_url) <> '')
		+ (SELECT count(*) FROM organization_contacts WHERE concat(linkedin_url, twitter_url, facebook_url, website_url, headshot_url) <> '')
		+ (SELECT count(*) FROM events WHERE website_url IS NOT NULL)`).Scan(&stored))
	require.Zero(t, stored, "a refused link was stored")

	// Web addresses are kept as given.
	body := speakerBody("ada@example.test")
	body["id"], body["websiteUrl"], body["linkedinUrl"] = ada, "https://ada.example/about?x=1", "http://linkedin.example/in/ada"
	got := b.must(http.StatusCreated, http.MethodPost, base+"/speakers", b.acme, body).Obj()
	require.Equal(t, "https://ada.example/about?x=1", got["websiteUrl"])
	require.Equal(t, "http://linkedin.example/in/ada", got["linkedinUrl"])
	require.Equal(t, "https://links.example", str(b.must(http.StatusOK, http.MethodPatch, base, b.acme,
		map[string]any{"websiteUrl": "https://links.example"}).Obj(), "websiteUrl"))
}
