package rest_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/jobs"
)

const updateFormDatesDoc = `mutation($e: ID!, $f: ID!, $in: CfpFormInput!) { updateForm(eventId: $e, formId: $f, input: $in) { id } }`

// TestPeoplesPagesWriteEventTime: the call for proposals' pages write the form's opening and
// closing and a proposal's submission in the event's time zone, as the portal does, and the
// webhook endpoint's page (an organization's, in no one event) writes its times in the zone of
// the organization's newest event, the one its emails are sent under. None says UTC.
func TestPeoplesPagesWriteEventTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(nil)
	b.must(http.StatusOK, http.MethodPatch, "/api/v1/events/"+fx.event, b.acme, map[string]any{"timezone": "Asia/Tokyo"})
	page := "/cfp/" + fx.form
	sam := b.formSignIn("sam@example.test", fx.form)

	// Not open yet: the date it opens, at the top and in the refusal of a new proposal.
	b.gqlOK(b.acme, updateFormDatesDoc, map[string]any{"e": fx.event, "f": fx.form,
		"in": map[string]any{"opensAt": "2099-01-01T00:00:00Z"}})
	rec := b.pageAs(sam, http.MethodGet, page, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), "Opens Thu 1 Jan 2099, 09:00 JST.")
	require.Contains(t, rec.Body.String(), "it opens on Thu 1 Jan 2099, 09:00 JST.")
	require.NotContains(t, rec.Body.String(), "UTC")
	r := b.gqlAs(sam, saveProposalDoc, map[string]any{"f": fx.form, "in": map[string]any{"title": "Early"}})
	require.Equal(t, []string{"form_closed"}, r.Codes(), r.Raw)
	require.Contains(t, r.Errors[0].Message, "Thu 1 Jan 2099, 09:00 JST")

	// Open with a closing date; a submitted proposal says when it was submitted.
	b.gqlOK(b.acme, updateFormDatesDoc, map[string]any{"e": fx.event, "f": fx.form,
		"in": map[string]any{"opensAt": nil, "closesAt": "2099-01-01T00:00:00Z"}})
	r = b.gqlAs(sam, saveProposalDoc, map[string]any{"f": fx.form, "in": map[string]any{"title": "On time",
		"description": "D", "formatId": fx.format, "levelId": fx.level, "trackIds": []any{fx.track}, "language": "en",
		"answers": map[string]any{"audience": "Everyone"}, "firstName": "Sam", "lastName": "Speaker"}, "submit": true})
	require.Empty(t, r.Errors, r.Raw)
	rec = b.pageAs(sam, http.MethodGet, page, nil)
	require.Contains(t, rec.Body.String(), "Closes Thu 1 Jan 2099, 09:00 JST.")
	require.Regexp(t, `Submitted \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} JST`, rec.Body.String())
	require.NotContains(t, rec.Body.String(), "UTC")

	// The webhook endpoint's page.
	b.addMember(b.acmeOrg, "admin@acme.test", organizationmember.RoleAdmin)
	b.loopbackWebhooks(jobs.WebhookConfig{}) // the receiver is on loopback
	id, _ := b.createWebhook(b.acme, newReceiver(t).srv.URL, "session.created")
	_, err := b.db.System.Exec(b.sys(), `UPDATE webhook_endpoints SET failing_since = '2027-01-01T00:00:00Z' WHERE id = $1`, id)
	require.NoError(t, err)
	code, body := b.openPage("/webhooks/"+id+"?"+url.Values{"organization": {b.acmeOrg}}.Encode(), b.signIn("admin@acme.test"))
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "Fri 1 Jan 2027, 09:00 JST")
	require.NotContains(t, body, "UTC")
}
