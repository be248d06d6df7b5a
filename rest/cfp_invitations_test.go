package rest_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/submissionparticipant"
	"github.com/podium/podium/graph/access/mailbudget"
)

const invitationsDoc = `query($f: ID!) { myCoSpeakerInvitations(formId: $f) { proposalId title invitedBy status } }`

const answerDoc = `mutation($f: ID!, $id: ID!, $accept: Boolean!) { answerCoSpeakerInvitation(formId: $f, id: $id, accept: $accept) { status } }`

// TestCFPCoSpeakers holds the rules of co-speakers (docs/cfp.md "Co-speakers are invited"): naming
// someone invites them and makes them nobody's speaker; accepting does; removing them revokes it;
// the email's subject carries no text the submitter typed; each invitation is charged to the
// submitter's daily email budget, and over it the save is refused whole.
func TestCFPCoSpeakers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(nil)
	ada := b.formSignIn("ada@example.test", fx.form)
	spam := "WIN A PRIZE at evil.example <b>now</b>"
	save := func(t *testing.T, id any, title string, cos ...string) gqlResponse {
		t.Helper()
		list := []any{}
		for _, addr := range cos {
			list = append(list, map[string]any{"name": "Named Person", "email": addr})
		}
		return b.gqlAs(ada, `mutation($f: ID!, $id: ID, $in: ProposalInput!) { saveProposal(formId: $f, id: $id, input: $in) {
		  id title speakers { email } invitations { email status } } }`, map[string]any{"f": fx.form, "id": id, "in": map[string]any{
			"title": title, "firstName": "Ada", "lastName": "Lovelace", "coSpeakers": list}})
	}
	speakersOf := func(t *testing.T, id string) int {
		t.Helper()
		n, err := b.db.Ent.SubmissionParticipant.Query().Where(submissionparticipant.SubmissionID(id)).Count(b.sys())
		require.NoError(t, err)
		return n
	}
	contactOf := func(t *testing.T, addr string) bool {
		t.Helper()
		ok, err := b.db.Ent.Contact.Query().Where(contact.EventID(fx.event), contact.Email(addr)).Exist(b.sys())
		require.NoError(t, err)
		return ok
	}

	r := save(t, nil, spam, "grace@example.test")
	require.Empty(t, r.Errors, r.Raw)
	p := r.Data["saveProposal"].(map[string]any)
	id := str(p, "id")

	t.Run("AnInvitationMakesNoSpeaker", func(t *testing.T) {
		require.Len(t, p["speakers"], 1)
		require.Equal(t, []any{map[string]any{"email": "grace@example.test", "status": "pending"}}, p["invitations"])
		require.Equal(t, 1, speakersOf(t, id))
		require.False(t, contactOf(t, "grace@example.test"), "no contact of the event before accepting")
	})
	t.Run("TheSubjectHoldsNoTypedText", func(t *testing.T) {
		m, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("grace@example.test")).Only(b.sys())
		require.NoError(t, err)
		require.Equal(t, "cfp_co_speaker", *m.Template)
		require.Equal(t, "An invitation to co-present at CFP Conf", m.Subject)
		require.NotContains(t, m.Subject, "WIN")
		require.Contains(t, m.Body, spam, "the title is in the text body")
		require.NotContains(t, m.HTMLBody, "<b>now</b>", "and escaped in the HTML")
		require.Contains(t, m.Body, "/auth/link?token=", "the link signs the person in")
		require.Contains(t, m.Body, url.QueryEscape("/cfp/"+fx.form+"/invitations/"+id))
		require.NotContains(t, m.Body, "Named Person", "the name the submitter typed is not in it")
	})
	t.Run("SavingAgainSendsNothingNew", func(t *testing.T) {
		r := save(t, id, "Renamed", "grace@example.test")
		require.Empty(t, r.Errors, r.Raw)
		n, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("grace@example.test")).Count(b.sys())
		require.NoError(t, err)
		require.Equal(t, 1, n)
	})
	grace := b.formSignIn("grace@example.test", fx.form)
	t.Run("AcceptingMakesASpeaker", func(t *testing.T) {
		r := b.gqlAs(grace, invitationsDoc, map[string]any{"f": fx.form})
		require.Empty(t, r.Errors, r.Raw)
		require.Equal(t, []any{map[string]any{"proposalId": id, "title": "Renamed", "invitedBy": "Ada Lovelace", "status": "pending"}},
			r.Data["myCoSpeakerInvitations"])
		mine := b.gqlAs(grace, `query($f: ID!) { myProposals(formId: $f) { id } }`, map[string]any{"f": fx.form})
		require.Empty(t, mine.Data["myProposals"], "an invitation shows no proposal")

		r = b.gqlAs(grace, answerDoc, map[string]any{"f": fx.form, "id": id, "accept": true})
		require.Empty(t, r.Errors, r.Raw)
		require.Equal(t, "accepted", r.Data["answerCoSpeakerInvitation"].(map[string]any)["status"])
		require.Equal(t, 2, speakersOf(t, id))
		require.True(t, contactOf(t, "grace@example.test"))
		mine = b.gqlAs(grace, `query($f: ID!) { myProposals(formId: $f) { id mine } }`, map[string]any{"f": fx.form})
		require.Equal(t, []any{map[string]any{"id": id, "mine": false}}, mine.Data["myProposals"])
	})
	t.Run("SomeoneElseCannotAnswer", func(t *testing.T) {
		eve := b.formSignIn("eve@example.test", fx.form)
		r := b.gqlAs(eve, answerDoc, map[string]any{"f": fx.form, "id": id, "accept": true})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
		require.Equal(t, 2, speakersOf(t, id))
	})
	t.Run("RemovalRevokes", func(t *testing.T) {
		r := save(t, id, "Renamed", "lin@example.test")
		require.Empty(t, r.Errors, r.Raw)
		require.Equal(t, 1, speakersOf(t, id))
		require.False(t, contactOf(t, "grace@example.test"), "the contact accepting made goes with it")
		mine := b.gqlAs(grace, `query($f: ID!) { myProposals(formId: $f) { id } }`, map[string]any{"f": fx.form})
		require.Empty(t, mine.Data["myProposals"])
		r = b.gqlAs(grace, answerDoc, map[string]any{"f": fx.form, "id": id, "accept": true})
		require.Equal(t, []string{"not_found"}, r.Codes(), "a removed co-speaker cannot accept again: "+r.Raw)

		// A pending invitation left out is withdrawn.
		lin := b.formSignIn("lin@example.test", fx.form)
		require.Len(t, b.gqlAs(lin, invitationsDoc, map[string]any{"f": fx.form}).Data["myCoSpeakerInvitations"], 1)
		r = save(t, id, "Renamed")
		require.Empty(t, r.Errors, r.Raw)
		require.Empty(t, b.gqlAs(lin, invitationsDoc, map[string]any{"f": fx.form}).Data["myCoSpeakerInvitations"])
		r = b.gqlAs(lin, answerDoc, map[string]any{"f": fx.form, "id": id, "accept": true})
		require.Equal(t, []string{"not_found"}, r.Codes(), r.Raw)
		require.Equal(t, 1, speakersOf(t, id))
	})
	t.Run("TheInvitationPage", func(t *testing.T) {
		r := save(t, id, "Renamed", "kim@example.test")
		require.Empty(t, r.Errors, r.Raw)
		path := "/cfp/" + fx.form + "/invitations/" + id
		rec := b.pageAs("", http.MethodGet, path, nil)
		require.Equal(t, http.StatusSeeOther, rec.Code)
		require.Equal(t, "/auth/signin?next="+url.QueryEscape(path), rec.Header().Get("Location"))
		kim := b.formSignIn("kim@example.test", fx.form)
		rec = b.pageAs(kim, http.MethodGet, path, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Contains(t, rec.Body.String(), `id="accept"`)
		require.Equal(t, http.StatusNotFound, b.pageAs(grace, http.MethodGet, path, nil).Code)
		rec = b.pageAs(kim, http.MethodPost, path, url.Values{"answer": {"decline"}})
		require.Equal(t, http.StatusSeeOther, rec.Code)
		require.Equal(t, 1, speakersOf(t, id))
		require.False(t, contactOf(t, "kim@example.test"))
	})
	t.Run("OverTheBudgetNothingIsSaved", func(t *testing.T) {
		budgets := mailbudget.New(b.db.Pool, mailbudget.Default)
		for range 60 {
			if budgets.ChargePerson(context.Background(), "ada@example.test", 1) != nil {
				break
			}
		}
		before, err := b.db.Ent.EmailLog.Query().Count(b.sys())
		require.NoError(t, err)
		r := save(t, id, "Changed while over", "kim@example.test", "new1@example.test", "new2@example.test")
		require.Equal(t, []string{"rate_limited"}, r.Codes(), r.Raw)
		require.Contains(t, r.Raw, "Nothing was saved")
		s, err := b.db.Ent.Submission.Get(b.sys(), id)
		require.NoError(t, err)
		require.Equal(t, "Renamed", s.Title)
		require.Len(t, s.CoSpeakerInvitations, 1)
		after, err := b.db.Ent.EmailLog.Query().Count(b.sys())
		require.NoError(t, err)
		require.Equal(t, before, after)
		// Naming only people already invited sends nothing and is not charged.
		r = save(t, id, "Changed while over", "kim@example.test")
		require.Empty(t, r.Errors, r.Raw)
	})
}
