package rest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/jobs"
)

// A backlog that takes a dispatch run longer than jobs.DispatchInterval stays with that run: the
// runs started meanwhile wait for it or leave the messages to it, rather than finding the
// endpoint's places taken and handing each delivery to a job of its own (a written row, a River
// job and its statements per delivery). Every delivery to a healthy receiver is then a run's
// first attempt, made once.
func TestWebhookBacklogStaysWithOneDispatchRun(t *testing.T) {
	t.Parallel()
	b := webhookBundle(t, jobs.WebhookConfig{})
	var mu sync.Mutex
	got := map[string]int{}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(10 * time.Millisecond) // 4 lanes: about 400 deliveries a second
		mu.Lock()
		got[r.Header.Get("webhook-id")]++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(slow.Close)
	b.createWebhook(b.acme, slow.URL)

	const messages = 800 // about two seconds of deliveries
	require.NoError(t, b.db.InTx(b.sys(), func(ctx context.Context) error {
		tx := dbx.TxFromContext(ctx).PGX()
		for range messages {
			if err := jobs.EmitWebhook(ctx, tx, b.acmeOrg, "session.created", map[string]any{"sessionId": "x"}); err != nil {
				return err
			}
		}
		return nil
	}))
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == messages
	}, time.Minute, 20*time.Millisecond)

	var handedOver int
	require.NoError(t, b.db.Pool.QueryRow(b.sys(), `SELECT count(*) FROM river_job WHERE kind = 'deliver_webhook'`).Scan(&handedOver))
	require.Zero(t, handedOver, "deliveries handed to jobs")
	mu.Lock()
	defer mu.Unlock()
	for id, n := range got {
		require.Equal(t, 1, n, "message %s delivered %d times", id, n)
	}
}
