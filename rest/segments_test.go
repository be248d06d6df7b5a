package rest_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/operation"
)

func (b *testBundle) saveSegment(key, name string, filter map[string]any) map[string]any {
	b.t.Helper()
	return b.must(http.StatusCreated, http.MethodPost, "/api/v1/segments", key, map[string]any{"name": name, "filter": filter}).Obj()
}

// segmentEmails reads every page of a segment's contacts, limit rows at a time, and returns the
// emails in order.
func (b *testBundle) segmentEmails(key, id string, limit int) []string {
	b.t.Helper()
	emails := []string{}
	after := ""
	for {
		path := "/api/v1/segments/" + id + "/contacts?limit=" + itoa(limit)
		if after != "" {
			path += "&after=" + url.QueryEscape(after)
		}
		page := b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Obj()
		for _, row := range page["rows"].([]any) {
			emails = append(emails, str(row.(map[string]any)["contact"].(map[string]any), "email"))
		}
		require.LessOrEqual(b.t, len(page["rows"].([]any)), limit)
		if page["nextCursor"] == nil {
			require.Equal(b.t, int64(len(emails)), num(b.t, page, "totalCount"))
			return emails
		}
		after = str(page, "nextCursor")
	}
}

func TestSegmentsSaveAndList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, "/api/v1/segments", b.acme, nil).JSON)

	first := b.saveSegment(b.acme, "Repeat speakers", map[string]any{"tagIds": []any{"otag_1"}, "owner": map[string]any{"x": 1}})
	require.Equal(t, "Repeat speakers", first["name"])
	require.Equal(t, b.acmeOrg, first["organizationId"])
	require.Equal(t, map[string]any{"tagIds": []any{"otag_1"}, "owner": map[string]any{"x": jsonNumber("1")}}, first["filter"])

	// Saving under the same name replaces the filter and keeps the id and createdAt.
	again := b.saveSegment(b.acme, " Repeat speakers ", map[string]any{"company": "Acme"})
	require.Equal(t, first["id"], again["id"])
	require.Equal(t, first["createdAt"], again["createdAt"])
	require.Equal(t, map[string]any{"company": "Acme"}, again["filter"])
	b.saveSegment(b.acme, "Andere", map[string]any{})
	b.saveSegment(b.globex, "Repeat speakers", map[string]any{"search": "globex"})

	list := b.must(http.StatusOK, http.MethodGet, "/api/v1/segments", b.acme, nil).List()
	require.Len(t, list, 2)
	require.Equal(t, "Andere", list[0].(map[string]any)["name"])
	require.Equal(t, again, list[1].(map[string]any))

	for _, c := range []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"FilterArray", map[string]any{"name": "X", "filter": []any{}}, http.StatusBadRequest, "invalid_body"},
		{"FilterNull", map[string]any{"name": "X", "filter": nil}, http.StatusBadRequest, "invalid_body"},
		{"FilterString", map[string]any{"name": "X", "filter": "{}"}, http.StatusBadRequest, "invalid_body"},
		{"FilterMissing", map[string]any{"name": "X"}, http.StatusBadRequest, "invalid_body"},
		{"NameMissing", map[string]any{"filter": map[string]any{}}, http.StatusBadRequest, "invalid_body"},
		{"NameBlank", map[string]any{"name": " ", "filter": map[string]any{}}, http.StatusBadRequest, "invalid_input"},
		{"NameTooLong", map[string]any{"name": strings.Repeat("n", 201), "filter": map[string]any{}}, http.StatusBadRequest, "invalid_input"},
		{"SearchTooLong", map[string]any{"name": "X", "filter": map[string]any{"search": strings.Repeat("s", 501)}}, http.StatusBadRequest, "invalid_input"},
		{"NULInFilter", map[string]any{"name": "X2", "filter": map[string]any{"other": "a\x00b"}}, http.StatusBadRequest, "invalid_input"},
		{"NotJSON", "{", http.StatusBadRequest, "invalid_json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b.requireError(b.do(http.MethodPost, "/api/v1/segments", b.acme, c.body), c.status, c.code)
		})
	}
	tags := make([]any, 501)
	for i := range tags {
		tags[i] = "otag_" + itoa(i)
	}
	b.requireError(b.do(http.MethodPost, "/api/v1/segments", b.acme, map[string]any{"name": "Many", "filter": map[string]any{"tagIds": tags}}),
		http.StatusBadRequest, "invalid_input")
}

// book is a contact of the evaluation test, with what the original product's matching reads.
type book struct {
	first, last, email, company, title string
	tags                               []string
}

// originalMatch is the original product's filter, written from its description: normalise,
// haystack of first, last, email, company, title and tag names (by name), containment for search,
// equality for company and title, any of tagIds, AND across them; an empty value is no
// constraint.
func originalMatch(c book, tagIDs map[string]string, f operation.SegmentFilter) bool {
	names := slices.Clone(c.tags)
	slices.Sort(names)
	hay := operation.NormalizeSegmentText(strings.Join(append([]string{c.first, c.last, c.email, c.company, c.title}, names...), " "))
	if s := operation.NormalizeSegmentText(f.Search); s != "" && !strings.Contains(hay, s) {
		return false
	}
	if s := operation.NormalizeSegmentText(f.Company); s != "" && operation.NormalizeSegmentText(c.company) != s {
		return false
	}
	if s := operation.NormalizeSegmentText(f.Title); s != "" && operation.NormalizeSegmentText(c.title) != s {
		return false
	}
	if len(f.TagIDs) > 0 && !slices.ContainsFunc(c.tags, func(name string) bool { return slices.Contains(f.TagIDs, tagIDs[name]) }) {
		return false
	}
	return true
}

func TestSegmentEvaluation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	contacts := []book{
		{"Ada", "Lovelace", "ada@example.test", "Analytical Engines, Ltd.", "Chief Scientist", []string{"VIP", "Speaker"}},
		{"Alan", "Turing", "alan@example.test", "analytical engines ltd", "Scientist", []string{"Speaker"}},
		{"Grace", "Hopper", "grace@navy.test", "U.S. Navy", "Rear Admiral", []string{"Repeat"}},
		{"Katherine", "Johnson", "kj@nasa.test", "NASA", "chief   scientist!", nil},
		{"Édouard", "Lucas", "edouard@example.test", "", "", []string{"VIP"}},
		{"Barbara", "Liskov", "barbara@mit.test", "MIT", "Professor", []string{"Repeat", "VIP"}},
		{"Dennis", "Ritchie", "dmr@bell.test", "Bell-Labs", "", []string{"speaker"}},
		{"Ken", "Thompson", "ken@bell.test", "bell labs", "Engineer", nil},
		{"Linus", "Torvalds", "linus@example.test", "", "Engineer", []string{"Repeat"}},
		{"Margaret", "Hamilton", "mh@mit.test", "M.I.T.", "Director", []string{"Speaker", "Repeat"}},
	}
	tagIDs := map[string]string{}
	byTag := map[string][]string{}
	idOf := map[string]string{} // email → contact id
	for _, c := range contacts {
		id := b.bookContact(b.acmeOrg, c.first, c.last, c.email, c.company, c.title)
		idOf[c.email] = id
		for _, tag := range c.tags {
			byTag[tag] = append(byTag[tag], id)
		}
	}
	for _, name := range []string{"VIP", "Speaker", "Repeat", "speaker"} {
		tagIDs[name] = b.bookTag(b.acmeOrg, name, byTag[name]...)
	}
	// Another organization's contacts match every filter below, and are never selected.
	rival := b.bookContact(b.globexOrg, "Ada", "Lovelace", "ada@globex.test", "Analytical Engines Ltd", "Chief Scientist")
	rivalTag := b.bookTag(b.globexOrg, "VIP", rival)

	filters := []map[string]any{
		{},
		{"search": "ada"},
		{"search": "  ADA   lovelace!! "},
		{"search": "lovelace ada"},
		{"search": "scientist speaker"}, // runs from the title into the first tag name
		{"search": "speaker vip"},       // tag names are joined by name
		{"search": "example test"},
		{"search": "!!!"},
		{"search": "douard"},
		{"search": "bell"},
		{"company": "analytical engines ltd"},
		{"company": "Analytical Engines"},
		{"company": "bell labs"},
		{"company": "mit"},
		{"title": "Chief Scientist"},
		{"title": "scientist"},
		{"tagIds": []any{tagIDs["VIP"]}},
		{"tagIds": []any{tagIDs["Repeat"], tagIDs["speaker"], 7, nil}},
		{"tagIds": []any{rivalTag}},
		{"tagIds": []any{}},
		{"tagIds": "not a list", "search": 42, "company": []any{"x"}, "title": nil},
		{"search": "engineer", "tagIds": []any{tagIDs["Repeat"]}},
		{"company": "MIT", "search": "professor", "tagIds": []any{tagIDs["VIP"], tagIDs["Speaker"]}},
		{"search": "e", "title": "engineer"},
		{"search": "zzz"},
	}
	for i, filter := range filters {
		seg := b.saveSegment(b.acme, "Segment "+itoa(i), filter)
		got := b.segmentEmails(b.acme, str(seg, "id"), 3)
		f := operation.ReadSegmentFilter(filter)
		want := []string{}
		for _, c := range contacts {
			if originalMatch(c, tagIDs, f) {
				want = append(want, c.email)
			}
		}
		require.ElementsMatch(t, want, got, "filter %v", filter)
		require.NotContains(t, got, "ada@globex.test")
		// The function campaigns use selects the same contacts, in the same order.
		ids, err := b.res.Ops.SegmentContactIDs(viewer.WithOrganization(context.Background(), b.acmeOrg), str(seg, "id"))
		require.NoError(t, err)
		wantIDs := []string{}
		for _, email := range got {
			wantIDs = append(wantIDs, idOf[email])
		}
		require.Equal(t, wantIDs, ids, "filter %v", filter)
	}
	all := b.segmentEmails(b.acme, str(b.saveSegment(b.acme, "All", map[string]any{}), "id"), 4)
	require.Equal(t, []string{"mh@mit.test", "grace@navy.test", "kj@nasa.test", "barbara@mit.test", "ada@example.test",
		"edouard@example.test", "dmr@bell.test", "ken@bell.test", "linus@example.test", "alan@example.test"}, all)

	// Rows are listContacts' rows: the contact, its tags by name, its event links.
	seg := b.saveSegment(b.acme, "Ada", map[string]any{"search": "ada lovelace"})
	page := b.must(http.StatusOK, http.MethodGet, "/api/v1/segments/"+str(seg, "id")+"/contacts", b.acme, nil).Obj()
	require.Equal(t, int64(1), num(t, page, "totalCount"))
	require.Nil(t, page["nextCursor"])
	row := page["rows"].([]any)[0].(map[string]any)
	contact := row["contact"].(map[string]any)
	require.Equal(t, "Analytical Engines, Ltd.", contact["company"])
	require.Equal(t, map[string]any{}, contact["custom"])
	require.Nil(t, contact["bio"])
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, contact["createdAt"])
	keys := []string{}
	for k := range contact {
		keys = append(keys, k)
	}
	require.ElementsMatch(t, []string{"id", "createdAt", "updatedAt", "organizationId", "firstName", "lastName", "email", "title",
		"company", "bio", "linkedinUrl", "twitterUrl", "facebookUrl", "websiteUrl", "headshotUrl", "custom"}, keys)
	tags := row["tags"].([]any)
	require.Len(t, tags, 2)
	require.Equal(t, "Speaker", tags[0].(map[string]any)["name"])
	require.Equal(t, "VIP", tags[1].(map[string]any)["name"])
	require.Equal(t, []any{}, row["events"])

	t.Run("Errors", func(t *testing.T) {
		id := str(seg, "id")
		b.requireError(b.do(http.MethodGet, "/api/v1/segments/"+id+"/contacts", b.globex, nil), http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodGet, "/api/v1/segments/seg_01doesnotexist00000000000/contacts", b.acme, nil), http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodGet, "/api/v1/segments/"+id+"/contacts?limit=1001", b.acme, nil), http.StatusBadRequest, "invalid_input")
		b.requireError(b.do(http.MethodGet, "/api/v1/segments/"+id+"/contacts?limit=-1", b.acme, nil), http.StatusBadRequest, "invalid_input")
		b.requireError(b.do(http.MethodGet, "/api/v1/segments/"+id+"/contacts?limit=x", b.acme, nil), http.StatusBadRequest, "invalid_input")
		b.requireError(b.do(http.MethodGet, "/api/v1/segments/"+id+"/contacts?after=nonsense", b.acme, nil), http.StatusBadRequest, "invalid_input")
		_, err := b.res.Ops.SegmentContactIDs(viewer.WithOrganization(context.Background(), b.globexOrg), id)
		e, ok := apperr.As(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, apperr.CodeNotFound, e.Code)
	})
}

func TestSegmentGraphQL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 5 {
		c := b.bookContact(b.acmeOrg, "Person", "P"+itoa(i), "p"+itoa(i)+"@example.test", "Acme", "")
		if i%2 == 0 {
			b.bookTag(b.acmeOrg, "Even "+itoa(i), c)
		}
	}
	saved := b.gqlOK(b.acme, `mutation($in: SaveSegmentInput!) { saveSegment(input: $in) { id name filter } }`,
		map[string]any{"in": map[string]any{"name": "People", "filter": map[string]any{"search": "person", "kept": true}}})["saveSegment"].(map[string]any)
	require.Equal(t, map[string]any{"search": "person", "kept": true}, saved["filter"])
	doc := `query($id: ID!, $after: Cursor) { segment(segmentId: $id) { name contacts(first: 2, after: $after) {
  totalCount pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { id contact { id email } tags { name } events { id } } } } } }`
	var emails []string
	var after any
	for range 3 {
		d := b.gqlOK(b.acme, doc, map[string]any{"id": saved["id"], "after": after})["segment"].(map[string]any)
		conn := d["contacts"].(map[string]any)
		require.Equal(t, float64(5), conn["totalCount"])
		for _, e := range conn["edges"].([]any) {
			node := e.(map[string]any)["node"].(map[string]any)
			contact := node["contact"].(map[string]any)
			require.Equal(t, str(contact, "id"), str(node, "id")) // the row's id is its contact's
			emails = append(emails, str(contact, "email"))
		}
		info := conn["pageInfo"].(map[string]any)
		after = info["endCursor"]
		if info["hasNextPage"] == false {
			break
		}
	}
	require.Equal(t, []string{"p0@example.test", "p1@example.test", "p2@example.test", "p3@example.test", "p4@example.test"}, emails)
	list := b.gqlOK(b.acme, `{ segments { id name } }`, nil)["segments"].([]any)
	require.Len(t, list, 1)
	require.Empty(t, b.gqlOK(b.globex, `{ segments { id } }`, nil)["segments"])
	r := b.gql(b.globex, `query($id: ID!) { segment(segmentId: $id) { id } }`, map[string]any{"id": saved["id"]})
	require.Equal(t, []string{"not_found"}, r.Codes())
	r = b.gql(b.acme, `query($id: ID!) { segment(segmentId: $id) { contacts(first: 5000) { totalCount } } }`, map[string]any{"id": saved["id"]})
	require.Equal(t, []string{"invalid_input"}, r.Codes())
	r = b.gql(b.acme, `mutation { saveSegment(input: {name: "", filter: {}}) { id } }`, nil)
	require.Equal(t, []string{"invalid_input"}, r.Codes())
}

// TestSegmentQueryCount proves a segment's page costs the same statements over 1 contact as
// over 200, whatever their tags.
func TestSegmentQueryCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tags := []string{b.bookTag(b.acmeOrg, "One"), b.bookTag(b.acmeOrg, "Two")}
	seg := str(b.saveSegment(b.acme, "Tagged people", map[string]any{"search": "person", "company": "acme", "title": "cto",
		"tagIds": []any{tags[0], tags[1]}}), "id")
	add := func(i int) {
		c := b.bookContact(b.acmeOrg, "Person", "P"+itoa(i), "p"+itoa(i)+"@example.test", "ACME", "CTO")
		_, err := b.db.System.Exec(b.sys(), `INSERT INTO organization_contact_tags (id, created_at, updated_at, organization_id, organization_contact_id, tag_id)
			VALUES ('octg_a' || $1, now(), now(), $2, $1, $3), ('octg_b' || $1, now(), now(), $2, $1, $4)`, c, b.acmeOrg, tags[0], tags[1])
		require.NoError(t, err)
	}
	count := func() int64 {
		rec := b.sendRaw(b.request(http.MethodGet, "/api/v1/segments/"+seg+"/contacts?limit=1000", "Bearer "+b.acme))
		require.Equal(t, http.StatusOK, rec.Code)
		return statements(t, rec)
	}
	add(0)
	one := count()
	for i := 1; i < 200; i++ {
		add(i)
	}
	many := count()
	require.Equal(t, one, many)
	require.LessOrEqual(t, many, int64(3))
	require.Len(t, b.segmentEmails(b.acme, seg, 1000), 200)
}

// TestSegmentMembersEmbeds uses graph.SegmentMembers as campaigns do: inside a statement of the
// caller's, with parameters of its own before the query's.
func TestSegmentMembersEmbeds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	vip := b.bookTag(b.acmeOrg, "VIP", b.bookContact(b.acmeOrg, "Ada", "Lovelace", "ada@example.test", "Acme", "CTO"))
	b.bookContact(b.acmeOrg, "Alan", "Turing", "alan@example.test", "Acme", "CTO")
	b.bookTag(b.globexOrg, "VIP", b.bookContact(b.globexOrg, "Ada", "Lovelace", "ada@globex.test", "Acme", "CTO"))
	q, args := operation.SegmentMembers(b.acmeOrg, map[string]any{"search": "ada", "company": "ACME", "title": "cto", "tagIds": []any{vip}},
		[]any{"Welcome"})
	require.Len(t, args, 6)
	var subject, email string
	require.NoError(t, b.db.Pool.QueryRow(viewer.WithOrganization(context.Background(), b.acmeOrg),
		`SELECT $1::text, c.email FROM organization_contacts c WHERE c.id IN (SELECT id FROM (`+q+`) m)`, args...).Scan(&subject, &email))
	require.Equal(t, "Welcome", subject)
	require.Equal(t, "ada@example.test", email)
}
