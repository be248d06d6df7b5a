package rest_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/ent/timelineentry"
)

// TestOrganizersAreTold: a speaker who declines from the portal, or withdraws a submitted
// proposal, is on the session's timeline and in an email to each owner and admin of the
// organization (not to plain members, nor to another organization's admins); withdrawing a draft
// tells nobody.
func TestOrganizersAreTold(t *testing.T) {
	t.Parallel()
	w := setupPortal(t, 0)
	b := w.testBundle
	b.addMember(b.acmeOrg, "owner@example.test", organizationmember.RoleOwner)
	b.addMember(b.acmeOrg, "admin@example.test", organizationmember.RoleAdmin)
	b.addMember(b.acmeOrg, "member@example.test", organizationmember.RoleMember)
	b.addMember(b.globexOrg, "stranger@example.test", organizationmember.RoleAdmin)
	told := func(template string) []string {
		t.Helper()
		rows, err := b.db.Ent.EmailLog.Query().Where(emaillog.Template(template)).All(b.sys())
		require.NoError(t, err)
		var to []string
		for _, r := range rows {
			to = append(to, r.Recipient)
		}
		return to
	}

	t.Run("Decline", func(t *testing.T) {
		rec := b.pageAs(w.ada, http.MethodPost, "/portal/decline", url.Values{"contact": {w.contact}})
		require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
		require.ElementsMatch(t, []string{"owner@example.test", "admin@example.test"}, told("speaker_declined"))
		line, err := b.db.Ent.TimelineEntry.Query().Where(timelineentry.SubmissionID(w.sessID),
			timelineentry.KindEQ(timelineentry.KindSpeakerDeclined)).Only(b.sys())
		require.NoError(t, err)
		require.Equal(t, "ada@example.test", line.ActorName)
		timeline := b.must(http.StatusOK, http.MethodGet, w.base+"/sessions/"+w.sessID+"/timeline", b.acme, nil).Raw
		require.Contains(t, timeline, "Speaker declined taking part")
		// Declining again changes nothing and tells nobody twice.
		require.Equal(t, http.StatusSeeOther, b.pageAs(w.ada, http.MethodPost, "/portal/decline", url.Values{"contact": {w.contact}}).Code)
		require.Len(t, told("speaker_declined"), 2)
	})

	t.Run("Withdraw", func(t *testing.T) {
		fx := b.cfpFixture(nil)
		grace := b.formSignIn("grace@example.test", fx.form)
		in := map[string]any{"title": "Compilers", "answers": map[string]any{"audience": "Everyone"},
			"firstName": "Grace", "lastName": "Hopper"}
		draft := b.gqlAs(grace, saveProposalDoc, map[string]any{"f": fx.form, "in": in})
		require.Empty(t, draft.Errors, draft.Raw)
		withdraw := `mutation($f: ID!, $id: ID!) { withdrawProposal(formId: $f, id: $id) { status } }`
		r := b.gqlAs(grace, withdraw, map[string]any{"f": fx.form, "id": draft.Data["saveProposal"].(map[string]any)["id"]})
		require.Empty(t, r.Errors, r.Raw)
		require.Empty(t, told("proposal_withdrawn"), "a draft was never the organizers' to read")

		sent := b.gqlAs(grace, saveProposalDoc, map[string]any{"f": fx.form, "in": in, "submit": true})
		require.Empty(t, sent.Errors, sent.Raw)
		r = b.gqlAs(grace, withdraw, map[string]any{"f": fx.form, "id": sent.Data["saveProposal"].(map[string]any)["id"]})
		require.Empty(t, r.Errors, r.Raw)
		require.ElementsMatch(t, []string{"owner@example.test", "admin@example.test"}, told("proposal_withdrawn"))
	})
}
