package rest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCampaignToSegment: a campaign's audience may be a CRM segment, evaluated when it is sent:
// the event's speakers linked to the contacts it selects, once each, beside explicit ids; another
// organization's segment is not found.
func TestCampaignToSegment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	book := func(id, org, company string) {
		_, err := b.db.System.Exec(b.sys(), `INSERT INTO organization_contacts (id, created_at, updated_at, organization_id,
			first_name, last_name, email, company, custom) VALUES ($1::text, now(), now(), $2, 'F', 'L', $1::text || '@example.test', $3, '{}')`,
			id, org, company)
		require.NoError(t, err)
	}
	link := func(id, orgContact, contact string) {
		_, err := b.db.System.Exec(b.sys(), `INSERT INTO organization_contact_events (id, created_at, updated_at, organization_id,
			role, status, organization_contact_id, contact_id, event_id)
			SELECT $1, now(), now(), c.organization_id, 'speaker', 'invited', $2, c.id, c.event_id FROM contacts c WHERE c.id = $3`,
			id, orgContact, contact)
		require.NoError(t, err)
	}
	book("oc_ada", b.acmeOrg, "Analytical Engines")
	book("oc_grace", b.acmeOrg, "Navy")
	book("oc_out", b.acmeOrg, "analytical  engines!")
	link("ocl_ada", "oc_ada", w.ada)
	link("ocl_grace", "oc_grace", w.grace)
	// Selected by the segment, but a speaker of another event: not of this campaign.
	link("ocl_out", "oc_out", w.outsider)
	segment := str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/segments", b.acme,
		map[string]any{"name": "Engines", "filter": map[string]any{"company": "Analytical Engines"}}).Obj(), "id")

	send := func(key string, ids []any, segmentID string) response {
		return b.do(http.MethodPost, w.base+"/campaigns", key, map[string]any{"templateId": nil, "subject": "Hi",
			"body": "Hello {speaker_name}", "contactIds": ids, "audience": map[string]any{"segmentId": segmentID}})
	}
	r := send(b.acme, []any{}, segment)
	require.Equal(t, http.StatusCreated, r.Status, r.Raw)
	require.EqualValues(t, 1, num(t, r.Obj(), "sent"))
	require.Equal(t, map[string]any{"segmentId": segment}, r.Obj()["campaign"].(map[string]any)["recipientFilter"])
	r = send(b.acme, []any{w.ada, w.alan}, segment)
	require.Equal(t, http.StatusCreated, r.Status, r.Raw)
	require.EqualValues(t, 2, num(t, r.Obj(), "sent"), "ada named and selected is mailed once")
	require.Equal(t, 2, b.count(`SELECT count(*) FROM email_log WHERE recipient = 'ada@example.test' AND body LIKE 'Hello Ada Lovelace%'`))

	foreign := str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/segments", b.globex,
		map[string]any{"name": "Theirs", "filter": map[string]any{}}).Obj(), "id")
	b.requireError(send(b.acme, []any{w.ada}, foreign), http.StatusNotFound, "not_found")
	b.requireError(send(b.acme, []any{w.ada}, "seg_nope"), http.StatusNotFound, "not_found")
	require.Equal(t, 2, b.count(`SELECT count(*) FROM email_campaigns`))
}
