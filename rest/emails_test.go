package rest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/graph/email"
)

// queueEmails queues n portal invitations for eventID in one committed transaction.
func (b *testBundle) queueEmails(eventID string, n int, to string) {
	b.t.Helper()
	batch := make([]email.Email, n)
	for i := range batch {
		batch[i] = email.Email{EventID: eventID, Type: emaillog.TypeCustom, To: to, Template: email.PortalInvitation,
			Data: email.Data{EventName: "E", FirstName: "Ada", Path: "/portal"}}
	}
	require.NoError(b.t, b.db.InTx(b.scopeOf(eventID), func(ctx context.Context) error {
		_, err := b.res.Ops.Outbox.Queue(ctx, batch...)
		return err
	}))
}

func TestListEmails(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := b.sys()
	ev := b.createEvent(b.acme, "Mailing")
	id := str(ev, "id")
	path := "/api/v1/events/" + id + "/emails"

	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).JSON)

	b.queueEmails(id, 2, "first@example.test")
	b.queueEmails(id, 1, "last@example.test")
	failed, err := b.db.Ent.EmailLog.Query().Where(emaillog.Recipient("first@example.test")).First(ctx)
	require.NoError(t, err)
	require.NoError(t, failed.Update().SetStatus(emaillog.StatusFailed).SetError("550 no such user").Exec(ctx))

	list := b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).List()
	require.Len(t, list, 3)
	newest := list[0].(map[string]any)
	require.Equal(t, "last@example.test", newest["recipient"])
	require.Equal(t, "Your speaker portal for E", newest["subject"])
	require.Equal(t, "queued", newest["status"])
	require.Equal(t, "custom", newest["type"])
	require.Contains(t, newest["body"], "https://podium.example.test/auth/link?token=ONE-CLICK-SIGN-IN&next=%2Fportal")
	require.Contains(t, newest["htmlBody"], "<!DOCTYPE html>")
	for _, key := range []string{"contactId", "submissionId", "icsContent", "icsSequence", "provider", "providerId", "error", "sentAt"} {
		v, ok := newest[key]
		require.True(t, ok, key)
		require.Nil(t, v, key)
	}
	require.Equal(t, false, newest["icsAttached"])

	onlyFailed := b.must(http.StatusOK, http.MethodGet, path+"?status=failed", b.acme, nil).List()
	require.Len(t, onlyFailed, 1)
	require.Equal(t, "550 no such user", onlyFailed[0].(map[string]any)["error"])
	require.Empty(t, b.must(http.StatusOK, http.MethodGet, path+"?type=cancelled", b.acme, nil).List())
	require.Len(t, b.must(http.StatusOK, http.MethodGet, path+"?type=custom&status=queued", b.acme, nil).List(), 2)

	r := b.do(http.MethodGet, path+"?status=lost", b.acme, nil)
	b.requireError(r, http.StatusBadRequest, "invalid_input")
	require.Equal(t, "status must be one of queued, sending, sent, failed", r.ErrMessage())
	b.requireError(b.do(http.MethodGet, path, b.globex, nil), http.StatusForbidden, "forbidden")

	t.Run("GraphQL", func(t *testing.T) {
		data := b.gqlOK(b.acme, `query($id: ID!) { event(id: $id) {
			all: emails(first: 10) { totalCount edges { node { recipient status } } }
			failed: emails(where: {status: failed}) { totalCount edges { node { id error } } }
		} }`, map[string]any{"id": id})
		e := data["event"].(map[string]any)
		all := e["all"].(map[string]any)
		require.Equal(t, float64(3), all["totalCount"])
		require.Equal(t, "last@example.test", all["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["recipient"])
		f := e["failed"].(map[string]any)
		require.Equal(t, float64(1), f["totalCount"])
		require.Equal(t, failed.ID, f["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["id"])
	})
}
