package rest_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/graph/email"
)

const saveChasersDoc = `mutation($e: ID!, $in: ChaserSettingsInput!) { saveChasers(eventId: $e, input: $in) {
  quietStart quietEnd dailyCap rules { kind enabled offsetHours everyHours maxSends } } }`

// TestChasers: a speaker told of an acceptance who does not confirm is chased by the rule's
// timing — once however many runs race, again only everyHours later, never beyond maxSends —
// and no more once they confirm. Organizers see the chaser before it leaves; another
// organization sees nothing. The clock is moved by moving the stored times back.
func TestChasers(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()
	talk := b.proposeIn(w, "Analytical Engines", "About engines", nil, w.ada)
	b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
		"submissionIds": []any{talk}, "decision": "accept", "feedback": ""})
	b.sink.Wait(t, 1, 10*time.Second) // the acceptance
	ctx := b.crmScope()

	sends := func() int {
		t.Helper()
		n, err := b.res.Ops.SendChasers(ctx, w.event, time.Now())
		require.NoError(t, err)
		return n
	}
	chasers := func() int {
		t.Helper()
		n, err := b.db.Ent.EmailLog.Query().Where(emaillog.EventID(w.event), emaillog.Template(email.ChaserConfirmation)).Count(b.sys())
		require.NoError(t, err)
		return n
	}
	back := func(hours int) {
		t.Helper()
		_, err := b.db.System.Exec(b.sys(), `UPDATE submissions SET notified_at = notified_at - make_interval(hours => $2) WHERE id = $1`, talk, hours)
		require.NoError(t, err)
		_, err = b.db.System.Exec(b.sys(), `UPDATE email_log SET created_at = created_at - make_interval(hours => $2) WHERE event_id = $1`, w.event, hours)
		require.NoError(t, err)
	}

	t.Run("off until organizers turn it on", func(t *testing.T) {
		back(100)
		require.Zero(t, sends())
		doc := `query($e: ID!) { node(id: $e) { ... on Event { chasers { dailyCap rules { kind enabled } } } } }`
		ev := b.gqlOK(b.acme, doc, map[string]any{"e": w.event})["node"].(map[string]any)
		rules := ev["chasers"].(map[string]any)["rules"].([]any)
		require.Len(t, rules, 3)
		require.Equal(t, false, rules[0].(map[string]any)["enabled"])
	})

	in := map[string]any{"quietStart": 0, "quietEnd": 0, "dailyCap": 2, "rules": []any{
		map[string]any{"kind": "confirmation", "enabled": true, "offsetHours": 72, "everyHours": 48, "maxSends": 2}}}
	t.Run("bad settings are refused, another organization cannot reach them", func(t *testing.T) {
		bad := map[string]any{"quietStart": 0, "quietEnd": 0, "dailyCap": 2, "rules": []any{
			map[string]any{"kind": "confirmation", "enabled": true, "offsetHours": 72, "everyHours": 1, "maxSends": 2}}}
		r := b.gql(b.acme, saveChasersDoc, map[string]any{"e": w.event, "in": bad})
		require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
		r = b.gql(b.globex, saveChasersDoc, map[string]any{"e": w.event, "in": in})
		require.NotEmpty(t, r.Codes(), r.Raw)
		require.NotContains(t, []string{"internal_error"}, r.Codes()[0])
		r = b.gql(b.globex, `query($e: ID!) { node(id: $e) { ... on Event { chaserPreview { to } } } }`, map[string]any{"e": w.event})
		require.NotContains(t, r.Raw, "ada@example.test")
		require.Zero(t, sends(), "nothing was turned on")
	})

	t.Run("organizers see the chaser before it leaves", func(t *testing.T) {
		got := b.gqlOK(b.acme, saveChasersDoc, map[string]any{"e": w.event, "in": in})["saveChasers"].(map[string]any)
		require.Equal(t, true, got["rules"].([]any)[0].(map[string]any)["enabled"])
		doc := `query($e: ID!) { node(id: $e) { ... on Event { chaserPreview(hours: 24) { kind to contactId count at } } } }`
		p := b.gqlOK(b.acme, doc, map[string]any{"e": w.event})["node"].(map[string]any)["chaserPreview"].([]any)
		require.Len(t, p, 1)
		c := p[0].(map[string]any)
		require.Equal(t, "confirmation", c["kind"])
		require.Equal(t, "ada@example.test", c["to"])
		require.Equal(t, w.ada, c["contactId"])
	})

	t.Run("runs racing send it once; the next waits everyHours; maxSends ends it", func(t *testing.T) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		total := 0
		for range 4 {
			wg.Go(func() {
				n, err := b.res.Ops.SendChasers(ctx, w.event, time.Now())
				require.NoError(t, err)
				mu.Lock()
				total += n
				mu.Unlock()
			})
		}
		wg.Wait()
		require.Equal(t, 1, total)
		m := b.sink.Wait(t, 2, 10*time.Second)[1]
		require.Equal(t, "ada@example.test", m.To[0])
		require.Contains(t, m.Header.Get("Subject"), "Please confirm your participation in World")
		require.Contains(t, m.Text, "/auth/link?token=", "the link signs the speaker in")

		require.Zero(t, sends(), "everyHours (48) have not passed")
		back(47)
		require.Zero(t, sends())
		back(2)
		require.Equal(t, 1, sends())
		back(49)
		require.Zero(t, sends(), "maxSends (2) reached")
		require.Equal(t, 2, chasers())
	})

	t.Run("acting stops it", func(t *testing.T) {
		// Forget the chasers sent, so that the rule chases again.
		_, err := b.db.System.Exec(b.sys(), `DELETE FROM email_log WHERE event_id = $1 AND template = $2`, w.event, email.ChaserConfirmation)
		require.NoError(t, err)
		require.Equal(t, 1, sends(), "chased again without history")
		back(49)
		require.NoError(t, b.db.Ent.Contact.UpdateOneID(w.ada).SetConfirmedAt(time.Now()).Exec(b.sys()))
		require.Zero(t, sends(), "confirmed: nothing more")
		doc := `query($e: ID!) { node(id: $e) { ... on Event { chaserPreview(hours: 744) { to } } } }`
		require.Empty(t, b.gqlOK(b.acme, doc, map[string]any{"e": w.event})["node"].(map[string]any)["chaserPreview"])
	})
}
