package rest_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hookMessage is a webhook message as recorded for dispatch.
type hookMessage struct {
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

// hookMessages are the webhook messages recorded for org, oldest first.
func (b *testBundle) hookMessages(org string) []hookMessage {
	b.t.Helper()
	rows, err := b.db.System.Query(b.sys(), `SELECT payload FROM webhook_messages WHERE organization_id = $1 ORDER BY created_at, id`, org)
	require.NoError(b.t, err)
	defer rows.Close()
	var out []hookMessage
	for rows.Next() {
		var p string
		require.NoError(b.t, rows.Scan(&p))
		var m hookMessage
		require.NoError(b.t, json.Unmarshal([]byte(p), &m))
		out = append(out, m)
	}
	require.NoError(b.t, rows.Err())
	return out
}

// hookTypes are the types of the messages recorded for org since the first skip.
func (b *testBundle) hookTypesSince(org string, skip int) []string {
	b.t.Helper()
	var out []string
	for _, m := range b.hookMessages(org)[skip:] {
		out = append(out, m.Type)
	}
	return out
}

// TestDecisionAndMailWebhooks: each state change of decision sends, wordings, chasers and the
// suppression list emits its webhook (docs/webhooks.md), with the ids a receiver needs, in the
// change's transaction; a change that changes nothing emits nothing, and another organization's
// attempt emits nothing.
func TestDecisionAndMailWebhooks(t *testing.T) {
	t.Parallel()
	b := deliverBundle(t)
	w := b.world()
	b.createWebhook(b.acme, newReceiver(t).srv.URL)
	p1 := b.propose(w, "Generics", w.ada)
	p2 := b.propose(w, "Channels", w.alan)
	b.decide(w, "accept", p1["id"], p2["id"])
	org := b.acmeOrg

	t.Run("ScheduledThenCancelled", func(t *testing.T) {
		n := len(b.hookMessages(org))
		at := time.Now().Add(time.Hour).UTC()
		send := b.gqlOK(b.acme, informGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p1["id"], p2["id"]},
			"at": at.Format(time.RFC3339Nano)}})["informSubmissions"].(map[string]any)["send"].(map[string]any)
		require.Equal(t, []string{"decisions.scheduled"}, b.hookTypesSince(org, n))
		got := b.hookMessages(org)[n].Data
		require.Equal(t, w.event, got["eventId"])
		require.Equal(t, send["id"], got["decisionSendId"])
		require.Equal(t, float64(2), got["submissions"])
		scheduled, err := time.Parse(time.RFC3339Nano, got["scheduledAt"].(string))
		require.NoError(t, err)
		require.WithinDuration(t, at, scheduled, time.Millisecond)

		// Another organization cannot cancel it, and nothing is emitted.
		require.Equal(t, []string{"forbidden"}, b.gql(b.globex, cancelSendGQL, map[string]any{"e": w.event, "s": send["id"]}).Codes())
		require.Len(t, b.hookMessages(org), n+1)
		b.gqlOK(b.acme, cancelSendGQL, map[string]any{"e": w.event, "s": send["id"]})
		require.Equal(t, []string{"decisions.scheduled", "decisions.cancelled"}, b.hookTypesSince(org, n))
		require.Equal(t, send["id"], b.hookMessages(org)[n+1].Data["decisionSendId"])
		// Cancelling again is refused and emits nothing.
		require.Equal(t, []string{"conflict"}, b.gql(b.acme, cancelSendGQL, map[string]any{"e": w.event, "s": send["id"]}).Codes())
		require.Len(t, b.hookMessages(org), n+2)
	})

	t.Run("SentAtOnce", func(t *testing.T) {
		n := len(b.hookMessages(org))
		send := b.gqlOK(b.acme, informGQL, map[string]any{"e": w.event, "in": map[string]any{"submissionIds": []any{p1["id"], p2["id"]}}})["informSubmissions"].(map[string]any)["send"].(map[string]any)
		types := b.hookTypesSince(org, n)
		require.ElementsMatch(t, []string{"submission.informed", "submission.informed", "decisions.sent"}, types)
		for _, m := range b.hookMessages(org)[n:] {
			if m.Type == "decisions.sent" {
				require.Equal(t, map[string]any{"eventId": w.event, "decisionSendId": send["id"], "submissions": float64(2),
					"emails": float64(2)}, m.Data)
			}
		}
	})

	t.Run("AccessRevoked", func(t *testing.T) {
		// The decision email carries Ada's access link, minted at delivery.
		require.Eventually(t, func() bool {
			return b.count(`SELECT count(*) FROM contact_access_links WHERE contact_id = $1`, w.ada) == 1
		}, 15*time.Second, 20*time.Millisecond)
		n := len(b.hookMessages(org))
		require.Equal(t, []string{"not_found"}, b.gql(b.globex, revokeAccessDoc, map[string]any{"c": w.ada}).Codes())
		require.Equal(t, float64(1), b.gqlOK(b.acme, revokeAccessDoc, map[string]any{"c": w.ada})["revokeContactAccess"])
		// Revoking again revokes nothing and emits nothing.
		require.Equal(t, float64(0), b.gqlOK(b.acme, revokeAccessDoc, map[string]any{"c": w.ada})["revokeContactAccess"])
		require.Equal(t, []string{"contact.access_revoked"}, b.hookTypesSince(org, n))
		require.Equal(t, map[string]any{"eventId": w.event, "contactId": w.ada, "links": float64(1)}, b.hookMessages(org)[n].Data)
	})

	t.Run("Wordings", func(t *testing.T) {
		n := len(b.hookMessages(org))
		// Resetting a wording the event never changed emits nothing.
		b.gqlOK(b.acme, resetWordingDoc, map[string]any{"e": w.event, "t": "session_declined"})
		require.Empty(t, b.hookTypesSince(org, n))
		in := map[string]any{"template": "session_declined", "subject": "About {{sessionTitle}}", "body": "Dear {{firstName}}"}
		b.gqlOK(b.acme, saveWordingDoc, map[string]any{"e": w.event, "in": in})
		// A wording refused on save emits nothing.
		bad := map[string]any{"template": "session_declined", "subject": "About {{nope}}", "body": "Dear"}
		require.Equal(t, []string{"invalid_input"}, b.gql(b.acme, saveWordingDoc, map[string]any{"e": w.event, "in": bad}).Codes())
		b.gqlOK(b.acme, resetWordingDoc, map[string]any{"e": w.event, "t": "session_declined"})
		require.Equal(t, []string{"template.saved", "template.reset"}, b.hookTypesSince(org, n))
		for _, m := range b.hookMessages(org)[n:] {
			require.Equal(t, map[string]any{"eventId": w.event, "template": "session_declined"}, m.Data)
		}
	})

	t.Run("Chasers", func(t *testing.T) {
		n := len(b.hookMessages(org))
		in := map[string]any{"quietStart": 1320, "quietEnd": 480, "dailyCap": 1, "rules": []any{}}
		b.gqlOK(b.acme, saveChasersDoc, map[string]any{"e": w.event, "in": in})
		require.Equal(t, []string{"chasers.updated"}, b.hookTypesSince(org, n))
		require.Equal(t, map[string]any{"eventId": w.event}, b.hookMessages(org)[n].Data)
	})

	t.Run("Suppressions", func(t *testing.T) {
		n := len(b.hookMessages(org))
		const add = `mutation($a: String!) { addEmailSuppression(input: {address: $a}) { address } }`
		const remove = `mutation($a: String!) { removeEmailSuppression(address: $a) }`
		b.gqlOK(b.acme, add, map[string]any{"a": "Gone@Example.test"})
		require.Equal(t, false, b.gqlOK(b.acme, remove, map[string]any{"a": "nobody@example.test"})["removeEmailSuppression"])
		require.Equal(t, true, b.gqlOK(b.acme, remove, map[string]any{"a": " GONE@example.test"})["removeEmailSuppression"])
		require.Equal(t, []string{"email.suppressed", "email.unsuppressed"}, b.hookTypesSince(org, n))
		require.Equal(t, map[string]any{"address": "gone@example.test"}, b.hookMessages(org)[n+1].Data)
	})

	t.Run("OtherOrganizationHearsNothing", func(t *testing.T) {
		require.Empty(t, b.hookMessages(b.globexOrg))
	})
}
