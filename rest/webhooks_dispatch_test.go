package rest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT count(*) FROM river_job WHERE kind = 'deliver_webhook'`).Scan(&handedOver))
	require.Zero(t, handedOver, "deliveries handed to jobs")
	mu.Lock()
	defer mu.Unlock()
	for id, n := range got {
		require.Equal(t, 1, n, "message %s delivered %d times", id, n)
	}
}

// A dispatch run that gave up — every attempt failed, a database outage longer than its retries,
// say — leaves its messages marked dispatched, and no other run takes them. Runs look for such
// runs and have River try them again, so the messages they had not finished are delivered, and
// only those.
func TestWebhookDispatchRunThatGaveUpIsRetried(t *testing.T) {
	t.Parallel()
	b := webhookBundle(t, jobs.WebhookConfig{RetryGivenUpEvery: 50 * time.Millisecond})
	var mu sync.Mutex
	got := map[string]int{}
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Header.Get("webhook-id")]++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	endpoint, _ := b.createWebhook(b.acme, rc.URL)

	// The state such a run leaves: River discarded it; it had taken two messages and delivered
	// the first.
	var job int64
	var messages []string
	require.NoError(t, b.db.InTx(b.sys(), func(ctx context.Context) error {
		tx := dbx.TxFromContext(ctx).PGX()
		if err := tx.QueryRow(ctx, `INSERT INTO river_job (args, attempt, attempted_at, finalized_at, kind, max_attempts,
			queue, state, scheduled_at) VALUES ('{}', 3, now(), now(), 'dispatch_webhooks', 3, $1, 'discarded', now())
			RETURNING id`, jobs.WebhookQueue).Scan(&job); err != nil {
			return err
		}
		for range 2 {
			if err := jobs.EmitWebhook(ctx, tx, b.acmeOrg, "session.created", map[string]any{"sessionId": "x"}); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, `UPDATE webhook_messages SET dispatched_at = now(), dispatch_job_id = $1
			RETURNING id`, job)
		if err != nil {
			return err
		}
		if messages, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		sort.Strings(messages)
		_, err = tx.Exec(ctx, `INSERT INTO webhook_deliveries (id, created_at, updated_at, organization_id, status,
			attempts, response_code, endpoint_id, message_id) VALUES ('whdl_done', now(), now(), $1, 'succeeded', 1, 204, $2, $3)`,
			b.acmeOrg, endpoint, messages[0])
		return err
	}))

	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return got[messages[1]] == 1
	}, 20*time.Second, 20*time.Millisecond)
	var state string
	require.Eventually(t, func() bool {
		require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT state FROM river_job WHERE id = $1`, job).Scan(&state))
		return state == "completed"
	}, 10*time.Second, 20*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, map[string]int{messages[1]: 1}, got, "only the message the run had not delivered")
}
