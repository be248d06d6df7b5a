package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// crmOperations are the contact book's REST operations, with the fixture's {contactId} standing
// for its contact of the book (the shared fixture's contactId is an event speaker, which the
// contact routes rightly do not find).
func (b *testBundle) crmOperations(t *testing.T) (fixture, []apiOperation) {
	f := b.fixture()
	f.ids["contactId"] = f.ids["crmContactId"]
	var ops []apiOperation
	for _, op := range b.operations(t) {
		if strings.HasPrefix(op.path, "/contacts") {
			ops = append(ops, op)
		}
	}
	require.Len(t, ops, 10)
	return f, ops
}

// TestCrmHostileValues is TestHostileValues for the contact book, on a contact that exists: every
// hostile value reaches every field of every contact write, and whole hostile bodies each write.
// Each answer is a success or a 4xx envelope, and a refused request changes no row.
func TestCrmHostileValues(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f, ops := b.crmOperations(t)
	second := str(b.newContact("Dup", "Licate", "dup@example.test"), "id")
	f.bodies["mergeContacts"] = map[string]any{"primaryId": f.ids["crmContactId"], "duplicateId": second}
	b.countWrites()
	written := b.writeCount()
	send := func(op apiOperation, body []byte, what string) {
		r := b.do(op.method, f.path(op.path), b.acme, body)
		require.True(t, r.Status < 300 || (r.Status >= 400 && r.Status < 500),
			"%s %s with %s answered %d: %.300s", op.method, op.path, what, r.Status, r.Raw)
		now := b.writeCount()
		if r.Status >= 400 {
			requireEnvelope(t, r)
			require.Equal(t, written, now, "%s %s with %s changed rows though refused: %s", op.method, op.path, what, r.Raw)
		}
		written = now
	}
	writes := writeOperations(ops)
	require.Len(t, writes, 7)
	for _, op := range writes {
		valid := f.bodies[op.id]
		require.NotNil(t, valid, op.id)
		fields := bodyFields(op.body, valid)
		for j, value := range hostileValues {
			for k, field := range fields {
				if (j+k)%3 == 0 { // a third of the pairs: every value reaches every operation
					send(op, withRaw(t, valid, field, value), fmt.Sprintf("%s = %.120q", field, value))
				}
			}
		}
		for _, body := range hostileBodies {
			send(op, []byte(body), fmt.Sprintf("the body %.120q", body))
		}
	}
	// The contact is still there (a merge into it may have happened, never of it).
	b.must(http.StatusOK, http.MethodGet, f.path("/contacts/{contactId}"), b.acme, nil)
}

// TestCrmCrossOrganization calls every contact operation with the second organization's key and
// the first one's ids (its contact, tag and event): nothing of the first shows in an answer or
// changes in the database, and ids of the first are not found.
func TestCrmCrossOrganization(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f, ops := b.crmOperations(t)
	// Two of acme's contacts, so that the merge gets past its own check to the lookups.
	second := str(b.newContact("Dup", "Licate", "dup@example.test"), "id")
	f.bodies["mergeContacts"] = map[string]any{"primaryId": f.ids["crmContactId"], "duplicateId": second}
	ids := f.replacer()
	before := acmeRows(t, b)
	secrets := []string{b.acmeOrg, f.ids["crmContactId"], f.ids["tagId"], second}
	for _, op := range ops {
		var body any
		if op.body != nil {
			body = f.bodies[op.id]
		}
		r := b.do(op.method, ids.Replace("/api/v1"+op.path), b.globex, body)
		what := op.method + " " + op.path
		for _, s := range secrets {
			require.NotContains(t, r.Raw, s, "%s leaks acme's data", what)
		}
		switch op.id {
		case "listContacts":
			require.Equal(t, http.StatusOK, r.Status)
		case "createContact", "importContacts":
			require.Less(t, r.Status, 300, "%s: %s", what, r.Raw) // globex's own contact
		default:
			b.requireError(r, http.StatusNotFound, "not_found")
		}
	}
	require.Equal(t, before, acmeRows(t, b))

	detail := b.gql(b.globex, `query($id: ID!) { contact(contactId: $id) { contact { id } } }`, map[string]any{"id": f.ids["crmContactId"]})
	require.Equal(t, []string{"not_found"}, detail.Codes())
	list := b.gqlOK(b.globex, `{ contacts { totalCount edges { node { contact { id } } } } }`, nil)
	require.NotContains(t, fmt.Sprint(list), f.ids["crmContactId"])
}
