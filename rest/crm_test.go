package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/organizationcontact"
	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/ent/schema/viewer"
)

// contactBody is a createContact/updateContact body.
func contactBody(first, last, email string) map[string]any {
	return map[string]any{"firstName": first, "lastName": last, "email": email, "title": nil, "company": nil, "bio": nil}
}

// newContact creates a contact of acme and returns it.
func (b *testBundle) newContact(first, last, email string) map[string]any {
	b.t.Helper()
	return b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, contactBody(first, last, email)).Obj()
}

// crmScope is the context of fixtures written for the organization of key acme.
func (b *testBundle) crmScope() context.Context {
	return viewer.WithOrganization(context.Background(), b.acmeOrg)
}

func TestCrmCreateAndUpdateContact(t *testing.T) {
	t.Parallel()
	b := setup(t)

	body := contactBody("  Ada ", " Lovelace ", "  Ada@Example.TEST ")
	body["title"], body["linkedinUrl"] = "Countess", "https://linkedin.example/ada"
	ada := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, body).Obj()
	require.Equal(t, "ada@example.test", str(ada, "email"))
	require.Equal(t, "Ada", str(ada, "firstName"))
	require.Equal(t, "Lovelace", str(ada, "lastName"))
	require.Equal(t, b.acmeOrg, str(ada, "organizationId"))
	require.Equal(t, map[string]any{}, ada["custom"])
	require.Nil(t, ada["twitterUrl"])
	require.Contains(t, ada, "headshotUrl")

	t.Run("EmptyNamesAllowed", func(t *testing.T) {
		c := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, contactBody(" ", "", "nameless@example.test")).Obj()
		require.Equal(t, "", str(c, "firstName"))
	})
	t.Run("DuplicateEmailIsConflict", func(t *testing.T) {
		r := b.do(http.MethodPost, "/api/v1/contacts", b.acme, contactBody("A", "L", "ADA@example.test"))
		b.requireError(r, http.StatusConflict, "conflict")
		// Another organization may have the same address.
		b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.globex, contactBody("A", "L", "ada@example.test"))
	})
	t.Run("EmailNeedsAt", func(t *testing.T) {
		b.requireError(b.do(http.MethodPost, "/api/v1/contacts", b.acme, contactBody("A", "L", "nope")), http.StatusBadRequest, "invalid_input")
	})
	t.Run("TooLong", func(t *testing.T) {
		long := contactBody("A", "L", "long@example.test")
		long["title"] = strings.Repeat("x", 301)
		b.requireError(b.do(http.MethodPost, "/api/v1/contacts", b.acme, long), http.StatusBadRequest, "invalid_input")
		long = contactBody(strings.Repeat("y", 201), "L", "long@example.test")
		b.requireError(b.do(http.MethodPost, "/api/v1/contacts", b.acme, long), http.StatusBadRequest, "invalid_input")
	})
	t.Run("BodyShape", func(t *testing.T) {
		r := b.do(http.MethodPost, "/api/v1/contacts", b.acme, map[string]any{"firstName": "A", "lastName": "B", "email": "x@y.test"})
		b.requireError(r, http.StatusBadRequest, "invalid_body")
		b.requireError(b.do(http.MethodPost, "/api/v1/contacts", b.acme, "{"), http.StatusBadRequest, "invalid_json")
	})

	t.Run("Update", func(t *testing.T) {
		// Custom data survives an update (the original wiped it).
		_, err := b.db.Ent.OrganizationContact.Update().Where(organizationcontact.ID(str(ada, "id"))).
			SetCustom(map[string]any{"source": "sync"}).Save(b.crmScope())
		require.NoError(t, err)
		up := contactBody("Ada", "King", "ADA.KING@example.test ")
		up["company"] = "Updated CRM Labs"
		got := b.must(http.StatusOK, http.MethodPatch, "/api/v1/contacts/"+str(ada, "id"), b.acme, up).Obj()
		require.Equal(t, "ada.king@example.test", str(got, "email"))
		require.Equal(t, "Updated CRM Labs", str(got, "company"))
		require.Nil(t, got["title"], "null clears")
		require.Nil(t, got["linkedinUrl"], "a left-out social clears")
		require.Equal(t, map[string]any{"source": "sync"}, got["custom"])

		b.requireError(b.do(http.MethodPatch, "/api/v1/contacts/"+str(ada, "id"), b.acme, contactBody("A", "K", "no-at")),
			http.StatusBadRequest, "invalid_input")
		b.newContact("Grace", "Hopper", "grace@example.test")
		b.requireError(b.do(http.MethodPatch, "/api/v1/contacts/"+str(ada, "id"), b.acme, contactBody("A", "K", "grace@example.test")),
			http.StatusConflict, "conflict")
		// Its own address is no conflict.
		b.must(http.StatusOK, http.MethodPatch, "/api/v1/contacts/"+str(ada, "id"), b.acme, contactBody("A", "K", "ada.king@example.test"))
		b.requireError(b.do(http.MethodPatch, "/api/v1/contacts/crm_00000000000000000000000000", b.acme, contactBody("A", "K", "a@b.test")),
			http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodPatch, "/api/v1/contacts/"+str(ada, "id"), b.globex, contactBody("A", "K", "a@b.test")),
			http.StatusNotFound, "not_found")
	})
}

func TestCrmListContacts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts", b.acme, nil).List())

	ada := b.newContact("Ada", "Lovelace", "ada@api-e2e.test")
	grace := b.newContact("Grace", "Hopper", "grace@example.test")
	body := contactBody("Alan", "Hopper", "alan@example.test")
	body["company"] = "Bletchley Park"
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, body)
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.globex, contactBody("Eve", "Outsider", "eve@example.test"))
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+str(ada, "id")+"/tags", b.acme, map[string]any{"name": "VIP"})
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+str(ada, "id")+"/tags", b.acme, map[string]any{"name": "Speaker"})

	names := func(path string) []string {
		var out []string
		for _, row := range b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).List() {
			c := row.(map[string]any)["contact"].(map[string]any)
			out = append(out, str(c, "firstName")+" "+str(c, "lastName"))
		}
		return out
	}
	require.Equal(t, []string{"Alan Hopper", "Grace Hopper", "Ada Lovelace"}, names("/api/v1/contacts"))
	require.Equal(t, []string{"Alan Hopper", "Grace Hopper", "Ada Lovelace"}, names("/api/v1/contacts?q=%20%20"))
	require.Equal(t, []string{"Ada Lovelace"}, names("/api/v1/contacts?q=API-E2E"))
	require.Equal(t, []string{"Ada Lovelace"}, names("/api/v1/contacts?q=ada%20lovelace"), "a query spans fields")
	require.Equal(t, []string{"Alan Hopper"}, names("/api/v1/contacts?q=bletchley"), "company is searched")
	require.Empty(t, names("/api/v1/contacts?q=eve"), "another organization's contacts are not listed")

	rows := b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts?q=ada", b.acme, nil).List()
	row := rows[0].(map[string]any)
	tags := row["tags"].([]any)
	require.Len(t, tags, 2)
	require.Equal(t, "Speaker", str(tags[0].(map[string]any), "name"))
	require.Equal(t, []any{}, row["events"])
	require.Equal(t, str(ada, "createdAt"), str(row["contact"].(map[string]any), "createdAt"), "timestamps as the rest of the API")
	_ = grace
}

func TestCrmGetContact(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ada := b.newContact("Ada", "Lovelace", "ada@example.test")
	id := str(ada, "id")
	b.requireError(b.do(http.MethodGet, "/api/v1/contacts/crm_00000000000000000000000000", b.acme, nil), http.StatusNotFound, "not_found")
	b.requireError(b.do(http.MethodGet, "/api/v1/contacts/nope", b.acme, nil), http.StatusNotFound, "not_found")
	b.requireError(b.do(http.MethodGet, "/api/v1/contacts/"+id, b.globex, nil), http.StatusNotFound, "not_found")

	d := b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts/"+id, b.acme, nil).Obj()
	require.Equal(t, id, str(d["contact"].(map[string]any), "id"))
	require.Equal(t, []any{}, d["tags"])
	require.Equal(t, []any{}, d["events"])
	require.Equal(t, []any{}, d["notes"])
	require.Nil(t, d["card"])
	require.Equal(t, []any{}, d["stageHistory"])

	// One tag, one note, one event link, as the original's end-to-end test.
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+id+"/tags", b.acme, map[string]any{"name": "API E2E Tag"})
	note := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+id+"/notes", b.acme, map[string]any{"body": "Met at the conference"}).Obj()
	require.Nil(t, note["authorUserId"])
	require.Equal(t, b.keyID(b.acme), str(note, "authorApiKeyId"))
	require.Equal(t, id, str(note, "organizationContactId"))
	require.NotContains(t, note, "updatedAt")
	ev := b.createEvent(b.acme, "DevFlow 2027")
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+id+"/events", b.acme,
		map[string]any{"eventId": str(ev, "id"), "participation": "speaker"})

	d = b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts/"+id, b.acme, nil).Obj()
	require.Len(t, d["tags"], 1)
	require.Len(t, d["notes"], 1)
	require.Len(t, d["events"], 1)
	n := d["notes"].([]any)[0].(map[string]any)
	require.Equal(t, "API key: test", str(n, "authorName"))
	e := d["events"].([]any)[0].(map[string]any)
	require.Equal(t, "DevFlow 2027", str(e, "name"))
	require.Equal(t, str(ev, "slug"), str(e, "slug"))
	require.Equal(t, []any{}, e["sessions"])

	// The linked event contact's submissions show, of any status.
	link := e["link"].(map[string]any)
	sub := b.newSubmission(str(ev, "id"), 7)
	_, err := b.db.Ent.SubmissionParticipant.Create().SetOrganizationID(b.acmeOrg).SetSubmissionID(sub.ID).
		SetContactID(str(link, "contactId")).SetRole("speaker").SetPosition(1).Save(b.sys())
	require.NoError(t, err)
	d = b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts/"+id, b.acme, nil).Obj()
	sessions := d["events"].([]any)[0].(map[string]any)["sessions"].([]any)
	require.Equal(t, []any{map[string]any{"id": sub.ID, "code": "SESS-7", "title": "Proposal"}}, sessions)
}

func TestCrmTags(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := str(b.newContact("Ada", "Lovelace", "ada@example.test"), "id")
	path := "/api/v1/contacts/" + id + "/tags"
	tag := b.must(http.StatusCreated, http.MethodPost, path, b.acme, map[string]any{"name": "VIP"}).Obj()
	again := b.must(http.StatusCreated, http.MethodPost, path, b.acme, map[string]any{"name": "VIP"}).Obj()
	require.Equal(t, str(tag, "id"), str(again, "id"), "the same tag")
	require.Equal(t, b.acmeOrg, str(tag, "organizationId"))
	lower := b.must(http.StatusCreated, http.MethodPost, path, b.acme, map[string]any{"name": "vip"}).Obj()
	require.NotEqual(t, str(tag, "id"), str(lower, "id"), "names are case-sensitive")
	d := b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts/"+id, b.acme, nil).Obj()
	require.Len(t, d["tags"], 2)

	b.requireError(b.do(http.MethodPost, path, b.acme, map[string]any{"name": "  "}), http.StatusBadRequest, "invalid_input")
	b.requireError(b.do(http.MethodPost, path, b.acme, map[string]any{"name": strings.Repeat("t", 201)}), http.StatusBadRequest, "invalid_input")
	b.requireError(b.do(http.MethodPost, path, b.globex, map[string]any{"name": "Stolen"}), http.StatusNotFound, "not_found")
	b.requireError(b.do(http.MethodPost, "/api/v1/contacts/crm_00000000000000000000000000/tags", b.acme, map[string]any{"name": "X"}),
		http.StatusNotFound, "not_found")

	b.must(http.StatusNoContent, http.MethodDelete, path+"/"+str(tag, "id"), b.acme, nil)
	b.must(http.StatusNoContent, http.MethodDelete, path+"/"+str(tag, "id"), b.acme, nil) // again: no error
	b.requireError(b.do(http.MethodDelete, path+"/"+str(lower, "id"), b.globex, nil), http.StatusNotFound, "not_found")
	d = b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts/"+id, b.acme, nil).Obj()
	require.Len(t, d["tags"], 1)
	require.Equal(t, "vip", str(d["tags"].([]any)[0].(map[string]any), "name"))
	n, err := b.db.Ent.OrganizationTag.Query().Count(b.crmScope())
	require.NoError(t, err)
	require.Equal(t, 2, n, "removing a tag from a contact keeps the tag")
}

func TestCrmNotes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := str(b.newContact("Ada", "Lovelace", "ada@example.test"), "id")
	path := "/api/v1/contacts/" + id + "/notes"
	empty := b.must(http.StatusCreated, http.MethodPost, path, b.acme, map[string]any{"body": ""}).Obj()
	require.Equal(t, "", str(empty, "body"))
	b.requireError(b.do(http.MethodPost, path, b.acme, map[string]any{"body": strings.Repeat("n", 20001)}), http.StatusBadRequest, "invalid_input")
	b.requireError(b.do(http.MethodPost, path, b.globex, map[string]any{"body": "x"}), http.StatusNotFound, "not_found")
	b.requireError(b.do(http.MethodPost, path, b.acme, map[string]any{}), http.StatusBadRequest, "invalid_body")
}

func TestCrmAddContactToEvent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := contactBody("Ada", "Lovelace", "ada@example.test")
	body["company"], body["bio"], body["websiteUrl"] = "Analytical Engines", "First programmer", "https://ada.example"
	ada := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, body).Obj()
	id := str(ada, "id")
	_, err := b.db.Ent.OrganizationContact.Update().Where(organizationcontact.ID(id)).
		SetCustom(map[string]any{"badge": "gold", "blank": " "}).Save(b.crmScope())
	require.NoError(t, err)
	ev := str(b.createEvent(b.acme, "DevFlow"), "id")
	path := "/api/v1/contacts/" + id + "/events"

	t.Run("Creates", func(t *testing.T) {
		link := b.must(http.StatusCreated, http.MethodPost, path, b.acme, map[string]any{"eventId": ev, "participation": "organizer"}).Obj()
		require.Equal(t, "organizer", str(link, "role"))
		require.Equal(t, "invited", str(link, "status"))
		require.Equal(t, id, str(link, "organizationContactId"))
		c := b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+ev+"/speakers/"+str(link, "contactId"), b.acme, nil).Obj()
		require.Equal(t, "Analytical Engines", str(c, "company"))
		require.Equal(t, "organizer", str(c, "participation"))
		require.Equal(t, "invited", str(c, "workflowStatus"))

		again := b.must(http.StatusCreated, http.MethodPost, path, b.acme, map[string]any{"eventId": ev, "participation": "speaker"}).Obj()
		require.Equal(t, str(link, "id"), str(again, "id"), "one link per contact and event")
		require.Equal(t, "speaker", str(again, "role"))
		c = b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+ev+"/speakers/"+str(link, "contactId"), b.acme, nil).Obj()
		require.Equal(t, "speaker", str(c, "participation"))
	})

	t.Run("FillsBlanks", func(t *testing.T) {
		ev2 := str(b.createEvent(b.acme, "Second"), "id")
		sp := speakerBody("ada@example.test")
		sp["firstName"], sp["lastName"], sp["company"], sp["bio"] = "Augusta", "King", "Own Company", " "
		speaker := b.must(http.StatusCreated, http.MethodPost, "/api/v1/events/"+ev2+"/speakers", b.acme, sp).Obj()
		link := b.must(http.StatusCreated, http.MethodPost, path, b.acme, map[string]any{"eventId": ev2, "participation": "speaker"}).Obj()
		require.Equal(t, str(speaker, "id"), str(link, "contactId"))
		c := b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+ev2+"/speakers/"+str(speaker, "id"), b.acme, nil).Obj()
		require.Equal(t, "Augusta", str(c, "firstName"), "a filled field is kept")
		require.Equal(t, "Own Company", str(c, "company"))
		require.Equal(t, "First programmer", str(c, "bio"), "a blank field is filled")
		require.Equal(t, "https://ada.example", str(c, "websiteUrl"))
		custom := c["custom"].(map[string]any)
		require.Equal(t, "gold", custom["badge"])
		require.NotContains(t, custom, "blank", "blank custom values are not copied over")
	})

	t.Run("Errors", func(t *testing.T) {
		other := str(b.createEvent(b.globex, "Theirs"), "id")
		b.requireError(b.do(http.MethodPost, path, b.acme, map[string]any{"eventId": other, "participation": "speaker"}),
			http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodPost, path, b.acme, map[string]any{"eventId": "evt_00000000000000000000000000", "participation": "speaker"}),
			http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodPost, path, b.globex, map[string]any{"eventId": other, "participation": "speaker"}),
			http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodPost, path, b.acme, map[string]any{"eventId": ev, "participation": "guest"}),
			http.StatusBadRequest, "invalid_body")
		nameless := str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, contactBody("", "", "x@example.test")).Obj(), "id")
		b.requireError(b.do(http.MethodPost, "/api/v1/contacts/"+nameless+"/events", b.acme, map[string]any{"eventId": ev, "participation": "speaker"}),
			http.StatusBadRequest, "invalid_input")
		n, err := b.db.Ent.OrganizationContactEvent.Query().Count(b.crmScope())
		require.NoError(t, err)
		require.Equal(t, 2, n, "no link was made by a refused request")
	})
}

func TestCrmImportContacts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	existing := b.newContact("Ada", "Lovelace", "ada@example.test")
	_, err := b.db.Ent.OrganizationContact.Update().Where(organizationcontact.ID(str(existing, "id"))).
		SetLinkedinURL("https://linkedin.example/ada").Save(b.crmScope())
	require.NoError(t, err)
	row := func(first, last, email string, company any) map[string]any {
		return map[string]any{"firstName": first, "lastName": last, "email": email, "title": nil, "company": company, "bio": nil}
	}
	res := b.must(http.StatusOK, http.MethodPost, "/api/v1/contacts/import", b.acme, map[string]any{"behavior": "update",
		"rows": []any{row(" Augusta ", "King", " ADA@example.test", "Engines"), row("Grace", "Hopper", "grace@example.test", "Navy"),
			row("Grace", "Brewster", "Grace@Example.test", nil)}}).Obj()
	require.Equal(t, json.Number("1"), res["created"])
	require.Equal(t, json.Number("2"), res["updated"])
	require.Equal(t, json.Number("0"), res["skipped"])
	require.Equal(t, []any{
		map[string]any{"email": "ada@example.test", "action": "updated"},
		map[string]any{"email": "grace@example.test", "action": "created"},
		map[string]any{"email": "grace@example.test", "action": "updated"},
	}, res["outcomes"])
	ada, err := b.db.Ent.OrganizationContact.Get(b.crmScope(), str(existing, "id"))
	require.NoError(t, err)
	require.Equal(t, "Augusta", ada.FirstName)
	require.Equal(t, "Engines", *ada.Company)
	require.NotNil(t, ada.LinkedinURL, "an import leaves socials alone")
	grace, err := b.db.Ent.OrganizationContact.Query().Where(organizationcontact.Email("grace@example.test")).Only(b.crmScope())
	require.NoError(t, err)
	require.Equal(t, "Brewster", grace.LastName, "the last row of an email wins")
	require.Nil(t, grace.Company, "null overwrites")

	res = b.must(http.StatusOK, http.MethodPost, "/api/v1/contacts/import", b.acme, map[string]any{"behavior": "skip",
		"rows": []any{row("X", "Y", "ada@example.test", nil), row("New", "One", "new@example.test", nil), row("New", "Two", "new@example.test", "Z")}}).Obj()
	require.Equal(t, json.Number("1"), res["created"])
	require.Equal(t, json.Number("0"), res["updated"])
	require.Equal(t, json.Number("2"), res["skipped"])
	fresh, err := b.db.Ent.OrganizationContact.Query().Where(organizationcontact.Email("new@example.test")).Only(b.crmScope())
	require.NoError(t, err)
	require.Equal(t, "One", fresh.LastName, "with skip the first row of an email wins")

	count := func() int {
		n, err := b.db.Ent.OrganizationContact.Query().Count(b.crmScope())
		require.NoError(t, err)
		return n
	}
	before := count()
	for _, bad := range []map[string]any{
		{"behavior": "update", "rows": []any{}},
		{"behavior": "update", "rows": []any{row("A", "B", "fine@example.test", nil), row("A", "B", "no-at", nil)}},
		{"behavior": "update", "rows": []any{row("A", "B", "fine@example.test", nil), row("A", "B", "ada@example.test", strings.Repeat("c", 301))}},
		{"behavior": "update", "rows": []any{row("A", "B", "fine@example.test", nil), row(strings.Repeat("a", 201), "B", "z@example.test", nil)}},
	} {
		b.requireError(b.do(http.MethodPost, "/api/v1/contacts/import", b.acme, bad), http.StatusBadRequest, "invalid_input")
	}
	b.requireError(b.do(http.MethodPost, "/api/v1/contacts/import", b.acme, map[string]any{"behavior": "merge", "rows": []any{}}),
		http.StatusBadRequest, "invalid_body")
	require.Equal(t, before, count(), "a refused import writes nothing")

	t.Run("Bounded", func(t *testing.T) {
		rows := make([]any, 5001)
		for i := range rows {
			rows[i] = map[string]any{"firstName": "", "lastName": "", "email": "r" + itoa(i) + "@x.t", "title": nil, "company": nil, "bio": nil}
		}
		b.requireError(b.do(http.MethodPost, "/api/v1/contacts/import", b.acme, map[string]any{"behavior": "skip", "rows": rows}),
			http.StatusBadRequest, "invalid_input")
		rows = rows[:5000]
		rec := b.serveWith(http.MethodPost, "/api/v1/contacts/import", b.acme, string(mustMarshal(t, map[string]any{"behavior": "skip", "rows": rows})), nil)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.LessOrEqual(t, statements(t, rec), int64(12), "a fixed number of statements")
		require.Equal(t, before+5000, count())
	})
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}

func TestCrmMergeContacts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := b.crmScope()
	pBody := contactBody("Ada", "Lovelace", "crm-primary@example.test")
	pBody["title"], pBody["company"] = "", nil
	primary := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, pBody).Obj()
	dBody := contactBody("Augusta", "King", "crm-duplicate@example.test")
	dBody["title"], dBody["company"], dBody["bio"] = "Countess", "Engines", "Bio"
	dup := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, dBody).Obj()
	pID, dID := str(primary, "id"), str(dup, "id")
	_, err := b.db.Ent.OrganizationContact.UpdateOneID(pID).SetCustom(map[string]any{"a": "primary"}).Save(ctx)
	require.NoError(t, err)
	_, err = b.db.Ent.OrganizationContact.UpdateOneID(dID).SetCustom(map[string]any{"a": "dup", "b": "dup"}).Save(ctx)
	require.NoError(t, err)

	shared := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+pID+"/tags", b.acme, map[string]any{"name": "Shared"}).Obj()
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+dID+"/tags", b.acme, map[string]any{"name": "Shared"})
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+dID+"/tags", b.acme, map[string]any{"name": "Only dup"})
	note := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+dID+"/notes", b.acme, map[string]any{"body": "dup note"}).Obj()
	ev1, ev2 := str(b.createEvent(b.acme, "One"), "id"), str(b.createEvent(b.acme, "Two"), "id")
	pLink := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+pID+"/events", b.acme, map[string]any{"eventId": ev1, "participation": "speaker"}).Obj()
	b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+dID+"/events", b.acme, map[string]any{"eventId": ev1, "participation": "organizer"})
	dLink2 := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+dID+"/events", b.acme, map[string]any{"eventId": ev2, "participation": "organizer"}).Obj()

	// Both have cards: the duplicate's history moves to the primary's card.
	stage, err := b.db.Ent.PipelineStage.Create().SetName("Lead").SetSemanticStatus("open").SetPosition(1).Save(ctx)
	require.NoError(t, err)
	won, err := b.db.Ent.PipelineStage.Create().SetName("Won").SetSemanticStatus("won").SetPosition(2).Save(ctx)
	require.NoError(t, err)
	pCard, err := b.db.Ent.PipelineCard.Create().SetOrganizationContactID(pID).SetStageID(won.ID).SetNote("primary's").Save(ctx)
	require.NoError(t, err)
	dCard, err := b.db.Ent.PipelineCard.Create().SetOrganizationContactID(dID).SetStageID(stage.ID).Save(ctx)
	require.NoError(t, err)
	hist, err := b.db.Ent.StageHistory.Create().SetCardID(dCard.ID).SetToStageID(stage.ID).SetToStageName("Lead").
		SetActorName("API key: test").Save(ctx)
	require.NoError(t, err)

	b.requireError(b.do(http.MethodPost, "/api/v1/contacts/merge", b.acme, map[string]any{"primaryId": pID, "duplicateId": pID}),
		http.StatusConflict, "duplicate_merge")
	b.requireError(b.do(http.MethodPost, "/api/v1/contacts/merge", b.acme, map[string]any{"primaryId": pID, "duplicateId": "crm_00000000000000000000000000"}),
		http.StatusNotFound, "not_found")
	theirs := str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.globex, contactBody("E", "V", "eve@example.test")).Obj(), "id")
	b.requireError(b.do(http.MethodPost, "/api/v1/contacts/merge", b.acme, map[string]any{"primaryId": pID, "duplicateId": theirs}),
		http.StatusNotFound, "not_found")
	b.requireError(b.do(http.MethodPost, "/api/v1/contacts/merge", b.globex, map[string]any{"primaryId": theirs, "duplicateId": dID}),
		http.StatusNotFound, "not_found")

	merged := b.must(http.StatusOK, http.MethodPost, "/api/v1/contacts/merge", b.acme, map[string]any{"primaryId": pID, "duplicateId": dID}).Obj()
	require.Equal(t, pID, str(merged, "id"))
	require.Equal(t, "Ada", str(merged, "firstName"))
	require.Equal(t, "crm-primary@example.test", str(merged, "email"))
	require.Equal(t, "", str(merged, "title"), "an empty string is kept")
	require.Equal(t, "Engines", str(merged, "company"), "null takes the duplicate's")
	require.Equal(t, "Bio", str(merged, "bio"))
	require.Equal(t, map[string]any{"a": "primary", "b": "dup"}, merged["custom"])

	b.requireError(b.do(http.MethodGet, "/api/v1/contacts/"+dID, b.acme, nil), http.StatusNotFound, "not_found")
	d := b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts/"+pID, b.acme, nil).Obj()
	var tagNames []string
	for _, tg := range d["tags"].([]any) {
		tagNames = append(tagNames, str(tg.(map[string]any), "name"))
	}
	require.Equal(t, []string{"Only dup", "Shared"}, tagNames)
	_ = shared
	require.Len(t, d["notes"], 1)
	require.Equal(t, str(note, "id"), str(d["notes"].([]any)[0].(map[string]any)["note"].(map[string]any), "id"))
	events := map[string]map[string]any{}
	for _, e := range d["events"].([]any) {
		l := e.(map[string]any)["link"].(map[string]any)
		events[str(l, "eventId")] = l
	}
	require.Len(t, events, 2)
	require.Equal(t, str(pLink, "id"), str(events[ev1], "id"), "the primary's own link wins")
	require.Equal(t, "organizer", str(events[ev2], "role"))
	require.Equal(t, str(dLink2, "contactId"), str(events[ev2], "contactId"))
	card := d["card"].(map[string]any)
	require.Equal(t, pCard.ID, str(card, "id"))
	require.Equal(t, won.ID, str(card, "stageId"), "the primary's stage wins")
	hs := d["stageHistory"].([]any)
	require.Len(t, hs, 1)
	h := hs[0].(map[string]any)
	require.Equal(t, hist.ID, str(h["history"].(map[string]any), "id"))
	require.Equal(t, pCard.ID, str(h["history"].(map[string]any), "cardId"))
	require.Equal(t, "Lead", str(h, "toStageName"))
	require.Equal(t, "API key: test", str(h, "actorName"))
	require.Nil(t, h["fromStageName"])
	_, err = b.db.Ent.PipelineCard.Get(ctx, dCard.ID)
	require.Error(t, err, "the duplicate's card is gone")

	t.Run("OnlyDuplicateHasCard", func(t *testing.T) {
		p2 := str(b.newContact("P", "Two", "p2@example.test"), "id")
		d2 := str(b.newContact("D", "Two", "d2@example.test"), "id")
		c2, err := b.db.Ent.PipelineCard.Create().SetOrganizationContactID(d2).SetStageID(stage.ID).Save(ctx)
		require.NoError(t, err)
		b.must(http.StatusOK, http.MethodPost, "/api/v1/contacts/merge", b.acme, map[string]any{"primaryId": p2, "duplicateId": d2})
		d := b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts/"+p2, b.acme, nil).Obj()
		require.Equal(t, c2.ID, str(d["card"].(map[string]any), "id"), "the card is reassigned")
		require.Equal(t, stage.ID, str(d["card"].(map[string]any), "stageId"))
	})
}

// TestCrmListContactsQueryCount proves the directory costs the same number of statements for 1
// contact as for 200, each with tags and an event link.
func TestCrmListContactsQueryCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := str(b.createEvent(b.acme, "Linked"), "id")
	add := func(i int) {
		id := str(b.newContact("F"+itoa(i), "L"+itoa(i), "c"+itoa(i)+"@example.test"), "id")
		b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+id+"/tags", b.acme, map[string]any{"name": "T" + itoa(i%7)})
		b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+id+"/tags", b.acme, map[string]any{"name": "All"})
		if i%3 == 0 {
			b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts/"+id+"/events", b.acme, map[string]any{"eventId": ev, "participation": "speaker"})
		}
	}
	count := func(method, path string, body any) (int64, *httptest.ResponseRecorder) {
		raw := ""
		if body != nil {
			raw = string(mustMarshal(t, body))
		}
		rec := b.serveWith(method, path, b.acme, raw, nil)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return statements(t, rec), rec
	}
	const doc = `{ contacts(first: 500) { totalCount edges { cursor node { contact { id email } tags { name } events { eventId } } } } }`
	gql := map[string]any{"query": doc}
	add(0)
	rest1, _ := count(http.MethodGet, "/api/v1/contacts", nil)
	gql1, _ := count(http.MethodPost, "/graphql", gql)
	for i := 1; i < 200; i++ {
		add(i)
	}
	rest200, rec := count(http.MethodGet, "/api/v1/contacts", nil)
	gql200, _ := count(http.MethodPost, "/graphql", gql)
	require.Equal(t, rest1, rest200)
	require.Equal(t, gql1, gql200)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &rows))
	require.Len(t, rows, 200)
	t.Logf("listContacts: %d statements over REST, %d over GraphQL", rest200, gql200)
}

func TestCrmGraphQL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 5 {
		b.newContact("F", "Name"+itoa(i), "g"+itoa(i)+"@example.test")
	}
	const page = `query($after: Cursor) { contacts(first: 2, after: $after) { totalCount
		pageInfo { hasNextPage endCursor } edges { node { contact { lastName } tags { name } } } } }`
	var seen []string
	var after any
	for range 3 {
		data := b.gqlOK(b.acme, page, map[string]any{"after": after})
		conn := data["contacts"].(map[string]any)
		require.Equal(t, float64(5), conn["totalCount"])
		for _, e := range conn["edges"].([]any) {
			seen = append(seen, str(e.(map[string]any)["node"].(map[string]any)["contact"].(map[string]any), "lastName"))
		}
		info := conn["pageInfo"].(map[string]any)
		after = info["endCursor"]
		if info["hasNextPage"] == false {
			break
		}
	}
	require.Equal(t, []string{"Name0", "Name1", "Name2", "Name3", "Name4"}, seen)
	require.Equal(t, []string{"invalid_input"}, b.gql(b.acme, page, map[string]any{"after": "bm90IGEgY3Vyc29y"}).Codes())

	created := b.gqlOK(b.acme, `mutation { createContact(input: {firstName: "Q", lastName: "L", email: "Q@Example.test"}) { id email custom } }`, nil)
	c := created["createContact"].(map[string]any)
	require.Equal(t, "q@example.test", str(c, "email"))
	dup := b.gql(b.acme, `mutation { createContact(input: {firstName: "Q", lastName: "L", email: "q@example.test"}) { id } }`, nil)
	require.Equal(t, []string{"conflict"}, dup.Codes())
	note := b.gqlOK(b.acme, `mutation($id: ID!) { addContactNote(contactId: $id, input: {body: "hi"}) { authorApiKeyId } }`,
		map[string]any{"id": str(c, "id")})
	require.Equal(t, b.keyID(b.acme), str(note["addContactNote"].(map[string]any), "authorApiKeyId"))
	missing := b.gql(b.acme, `{ contact(contactId: "crm_00000000000000000000000000") { contact { id } } }`, nil)
	require.Equal(t, []string{"not_found"}, missing.Codes())
	merge := b.gql(b.acme, `mutation($id: ID!) { mergeContacts(input: {primaryId: $id, duplicateId: $id}) { id } }`, map[string]any{"id": str(c, "id")})
	require.Equal(t, []string{"duplicate_merge"}, merge.Codes())
	other := b.gql(b.globex, `mutation($id: ID!) { addContactTag(contactId: $id, input: {name: "x"}) { id } }`, map[string]any{"id": str(c, "id")})
	require.Equal(t, []string{"not_found"}, other.Codes())
	imp := b.gqlOK(b.acme, `mutation { importContacts(input: {behavior: skip, rows: [{firstName: "A", lastName: "B", email: "q@example.test"}]}) { skipped outcomes { email action } } }`, nil)
	require.Equal(t, float64(1), imp["importContacts"].(map[string]any)["skipped"])
}

// TestCrmNoteBySignedInAdmin records a person as a note's author: their user id, no key, and
// their name in the detail. A member of the organization may not read or write the book.
func TestCrmNoteBySignedInAdmin(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createEvent(b.acme, "Sign-in emails are logged under an event")
	userID := b.addMember(b.acmeOrg, "admin@example.test", organizationmember.RoleAdmin)
	b.addMember(b.acmeOrg, "member@example.test", organizationmember.RoleMember)
	id := str(b.newContact("Ada", "Lovelace", "ada@example.test"), "id")
	const add = `mutation { addContactNote(contactId: %q, input: {body: "Called"}) { authorUserId authorApiKeyId } }`
	r := b.gqlCookie(b.signIn("admin@example.test"), fmt.Sprintf(add, id), nil)
	require.Empty(t, r.Errors, r.Raw)
	note := r.Data["addContactNote"].(map[string]any)
	require.Equal(t, userID, str(note, "authorUserId"))
	require.Nil(t, note["authorApiKeyId"])
	d := b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts/"+id, b.acme, nil).Obj()
	require.Equal(t, "Member admin@example.test", str(d["notes"].([]any)[0].(map[string]any), "authorName"))

	member := b.signIn("member@example.test")
	require.Equal(t, []string{"forbidden"}, b.gqlCookie(member, fmt.Sprintf(add, id), nil).Codes())
	require.Equal(t, []string{"forbidden"}, b.gqlCookie(member, `{ contacts { totalCount } }`, nil).Codes())
}
