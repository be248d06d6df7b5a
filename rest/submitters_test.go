package rest_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/submission"
)

// TestSubmittersAreNotSpeakers: a person who sends a proposal through a form is a submitter, not a
// speaker — absent from the speaker directory, Event.speakers, the communications view, campaign
// audiences and portal invitations — until a submission they take part in is accepted; mail waits
// until they have been told. Event.submitters lists them all. REST v1 still reads their
// participation as speaker (its enum has no submitter).
func TestSubmittersAreNotSpeakers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(3)
	base := "/api/v1/events/" + fx.event
	invited := b.speaker(base, "Invited", "Speaker", "invited@example.test")

	propose := func(addr, first, title string) (contactID, submissionID string) {
		t.Helper()
		cookie := b.formSignIn(addr, fx.form)
		r := b.gqlAs(cookie, saveProposalDoc, map[string]any{"f": fx.form, "submit": true, "in": map[string]any{
			"title": title, "formatId": fx.format, "levelId": fx.level, "trackIds": []any{fx.track},
			"answers": map[string]any{"audience": "Gophers"}, "firstName": first, "lastName": "Submitter"}})
		require.Empty(t, r.Errors, r.Raw)
		ct, err := b.db.Ent.Contact.Query().Where(contact.EventID(fx.event), contact.Email(addr)).Only(b.sys())
		require.NoError(t, err)
		return ct.ID, str(r.Data["saveProposal"].(map[string]any), "id")
	}
	ada, adaTalk := propose("ada@example.test", "Ada", "Accepted and told")
	bob, bobTalk := propose("bob@example.test", "Bob", "Declined")
	cyd, cydTalk := propose("cyd@example.test", "Cyd", "Accepted, not told")
	dee, _ := propose("dee@example.test", "Dee", "Still pending")

	speakersDoc := `query($e: ID!) { node(id: $e) { ... on Event {
  speakers { totalCount edges { node { id participation } } }
  submitters { totalCount edges { node { id participation } } }
  speakerDirectory { rows { contact { id } } } } } }`
	type view struct{ speakers, submitters, directory, mailable []string }
	read := func() view {
		t.Helper()
		ev := b.gqlOK(b.acme, speakersDoc, map[string]any{"e": fx.event})["node"].(map[string]any)
		ids := func(conn any) []string {
			var out []string
			for _, e := range conn.(map[string]any)["edges"].([]any) {
				out = append(out, str(e.(map[string]any)["node"].(map[string]any), "id"))
			}
			slices.Sort(out)
			return out
		}
		var v view
		v.speakers, v.submitters = ids(ev["speakers"]), ids(ev["submitters"])
		for _, row := range ev["speakerDirectory"].(map[string]any)["rows"].([]any) {
			v.directory = append(v.directory, str(row.(map[string]any)["contact"].(map[string]any), "id"))
		}
		slices.Sort(v.directory)
		comms := b.must(http.StatusOK, http.MethodGet, base+"/communications", b.acme, nil).Obj()
		for _, c := range comms["contacts"].([]any) {
			v.mailable = append(v.mailable, str(c.(map[string]any), "id"))
		}
		slices.Sort(v.mailable)
		return v
	}
	sorted := func(ids ...string) []string { slices.Sort(ids); return ids }

	t.Run("proposals make submitters, listed apart from the speakers", func(t *testing.T) {
		v := read()
		require.Equal(t, []string{invited}, v.speakers)
		require.Equal(t, sorted(ada, bob, cyd, dee), v.submitters)
		require.Equal(t, []string{invited}, v.directory)
		require.Equal(t, []string{invited}, v.mailable)
		rest := b.must(http.StatusOK, http.MethodGet, base+"/speakers", b.acme, nil).Obj()
		require.Len(t, rest["rows"], 1, "the REST directory lists speakers only")
		one := b.must(http.StatusOK, http.MethodGet, base+"/speakers/"+ada, b.acme, nil).Obj()
		require.Equal(t, "speaker", one["participation"], "REST v1 knows no submitter")
		g := b.gqlOK(b.acme, `query($id: ID!) { node(id: $id) { ... on Contact { participation } } }`, map[string]any{"id": ada})
		require.Equal(t, "submitter", g["node"].(map[string]any)["participation"])
	})

	t.Run("an accepted submission makes a speaker; mail waits until they are told", func(t *testing.T) {
		b.must(http.StatusOK, http.MethodPost, base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{adaTalk}, "decision": "accept", "feedback": ""})
		b.must(http.StatusOK, http.MethodPost, base+"/submissions/decide", b.acme, map[string]any{
			"submissionIds": []any{bobTalk}, "decision": "decline", "feedback": ""})
		// A decision recorded but not yet told (notified_at null), as deciding without informing
		// leaves it.
		require.NoError(t, b.db.Ent.Submission.UpdateOneID(cydTalk).SetStatus(submission.StatusAccepted).Exec(b.sys()))

		v := read()
		require.Equal(t, sorted(invited, ada, cyd), v.speakers)
		require.Equal(t, sorted(ada, bob, cyd, dee), v.submitters)
		require.Equal(t, sorted(invited, ada, cyd), v.directory)
		require.Equal(t, sorted(invited, ada), v.mailable, "cyd has not been told")

		// A campaign to every workflow status reaches the speakers mail may treat as speakers;
		// a submitter named explicitly is reached too.
		every := []any{"invited", "onboarding", "confirmed", "ready", "declined"}
		r := b.must(http.StatusCreated, http.MethodPost, base+"/campaigns", b.acme, map[string]any{
			"templateId": nil, "subject": "News", "body": "Hello", "contactIds": []any{}, "audience": map[string]any{"workflowStatuses": every}}).Obj()
		require.EqualValues(t, 2, num(t, r, "sent"), "invited and ada; not cyd, bob or dee")
		r = b.must(http.StatusCreated, http.MethodPost, base+"/campaigns", b.acme, map[string]any{
			"templateId": nil, "subject": "Your proposal", "body": "Hello", "contactIds": []any{dee, bob}}).Obj()
		require.EqualValues(t, 2, num(t, r, "sent"), "named submitters are reached")

		// Portal invitations go to speakers who know they are speakers.
		inv := b.must(http.StatusOK, http.MethodPost, base+"/speakers/invite", b.acme, map[string]any{
			"contactIds": []any{ada, cyd, dee}}).Obj()
		require.EqualValues(t, 1, num(t, inv, "sent"), "only ada: cyd is untold, dee a submitter")
	})

	t.Run("the pipeline follows what happened", func(t *testing.T) {
		doc := `query($e: ID!) { node(id: $e) { ... on Event { submitters { edges { node { id pipeline } } }
  speakers { edges { node { id pipeline } } } } } }`
		ev := b.gqlOK(b.acme, doc, map[string]any{"e": fx.event})["node"].(map[string]any)
		got := map[string]any{}
		for _, conn := range []string{"submitters", "speakers"} {
			for _, e := range ev[conn].(map[string]any)["edges"].([]any) {
				n := e.(map[string]any)["node"].(map[string]any)
				got[str(n, "id")] = n["pipeline"]
			}
		}
		require.Equal(t, map[string]any{
			invited: "ADDED",   // added by organizers, never invited
			ada:     "INVITED", // told of the acceptance, and invited to the portal
			cyd:     "ADDED",   // accepted but not told
			bob:     nil,       // declined: no speaker
			dee:     nil,       // pending: no speaker
		}, got)
		// Confirming moves ada on to onboarding (tasks or profile incomplete).
		require.NoError(t, b.db.Ent.Contact.UpdateOneID(ada).SetConfirmedAt(time.Now()).Exec(b.sys()))
		ev = b.gqlOK(b.acme, `query($id: ID!) { node(id: $id) { ... on Contact { pipeline } } }`, map[string]any{"id": ada})
		require.Equal(t, "ONBOARDING", ev["node"].(map[string]any)["pipeline"])
	})

	t.Run("organizers add speakers or organizers, never submitters", func(t *testing.T) {
		cc := b.must(http.StatusCreated, http.MethodPost, "/api/v1/contacts", b.acme, contactBody("Crm", "Person", "crm@example.test")).Obj()
		r := b.gql(b.acme, `mutation($c: ID!, $e: ID!) { addContactToEvent(contactId: $c, input: {eventId: $e, participation: submitter}) { id } }`,
			map[string]any{"c": str(cc, "id"), "e": fx.event})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	})
}
