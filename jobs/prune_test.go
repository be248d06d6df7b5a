package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/jobs"
)

// TestIdempotencyRecordsArePruned starts the workers over a day-old and a fresh idempotency
// record: the leader queues the pruning job at start, which deletes the old record only.
func TestIdempotencyRecordsArePruned(t *testing.T) {
	t.Parallel()
	// The records are written and counted the way the job deletes them: across organizations.
	ctx := viewer.System(context.Background(), "test: idempotency records of any organization")
	b := setup(t, setupOpts{idle: true})
	_, key, err := access.CreateKey(ctx, b.db.Ent, "Acme", "integration")
	require.NoError(t, err)
	for id, age := range map[string]string{"idm_old": "25 hours", "idm_new": "1 hour"} {
		_, err := b.db.System.Exec(ctx, `INSERT INTO idempotency_records
			(id, created_at, updated_at, key, request_hash, status, response, api_key_id)
			VALUES ($1, now() - $2::interval, now(), $1, 'h', 201, '\x7b7d', $3)`, id, age, key.ID)
		require.NoError(t, err)
	}

	require.NoError(t, b.river.Start(context.Background()))
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = b.river.Stop(stopCtx)
	})
	remaining := func() []string {
		rows, err := b.db.System.Query(ctx, `SELECT id FROM idempotency_records ORDER BY id`)
		require.NoError(t, err)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		return ids
	}
	require.Eventually(t, func() bool { return len(remaining()) == 1 }, 15*time.Second, 50*time.Millisecond,
		"the day-old record was never pruned")
	require.Equal(t, []string{"idm_new"}, remaining())

	var state string
	require.NoError(t, b.db.System.QueryRow(ctx, `SELECT state FROM river_job WHERE kind = 'prune_idempotency_records'`).Scan(&state))
	require.Contains(t, []string{"running", "completed"}, state)
}

// TestWebhookMessagesArePruned starts the workers over messages of two organizations, some older
// than the retention: the pruning job deletes the old messages that are done with, and their
// delivery log, and keeps a message still being retried or not yet dispatched, whatever its age.
func TestWebhookMessagesArePruned(t *testing.T) {
	t.Parallel()
	ctx := viewer.System(context.Background(), "test: webhook messages of any organization")
	b := setup(t, setupOpts{idle: true})
	orgs := map[string]string{}
	for _, name := range []string{"Acme", "Beta"} {
		_, key, err := access.CreateKey(ctx, b.db.Ent, name, "integration")
		require.NoError(t, err)
		orgs[name] = key.OrganizationID
	}
	// id: organization, age, dispatched, and its deliveries' statuses.
	messages := []struct {
		id, org, age string
		dispatched   bool
		deliveries   []string
	}{
		{"msg_old_done", "Acme", "31 days", true, []string{"succeeded", "failed"}},
		{"msg_old_retrying", "Acme", "31 days", true, []string{"succeeded", "pending"}},
		{"msg_old_waiting", "Beta", "31 days", false, nil},
		{"msg_old_done_too", "Beta", "40 days", true, []string{"succeeded"}},
		{"msg_new", "Beta", "29 days", true, []string{"succeeded"}},
	}
	for _, m := range messages {
		_, err := b.db.System.Exec(ctx, `INSERT INTO webhook_messages (id, created_at, updated_at, organization_id,
			event_type, payload, dispatched_at) VALUES ($1, now() - $2::interval, now(), $3, 'session.created', '{}',
			CASE WHEN $4 THEN now() - $2::interval END)`, m.id, m.age, orgs[m.org], m.dispatched)
		require.NoError(t, err)
		for i, status := range m.deliveries {
			_, err := b.db.System.Exec(ctx, `INSERT INTO webhook_deliveries (id, created_at, updated_at, organization_id,
				status, attempts, endpoint_id, message_id) VALUES ($1, now(), now(), $2, $3, 1, $4, $5)`,
				fmt.Sprintf("whdl_%s_%d", m.id, i), orgs[m.org], status, fmt.Sprintf("whe_%d", i), m.id)
			require.NoError(t, err)
		}
	}

	// The job's statement, before any dispatch run could take the waiting message.
	require.NoError(t, (&jobs.PruneWebhooksWorker{Pool: b.db.System}).Work(ctx, nil))
	ids := func(sql string) []string {
		rows, err := b.db.System.Query(ctx, sql)
		require.NoError(t, err)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		return ids
	}
	require.Equal(t, []string{"msg_new", "msg_old_retrying", "msg_old_waiting"},
		ids(`SELECT id FROM webhook_messages ORDER BY id`))
	require.Equal(t, []string{"whdl_msg_new_0", "whdl_msg_old_retrying_0", "whdl_msg_old_retrying_1"},
		ids(`SELECT id FROM webhook_deliveries ORDER BY id`))

	// The leader queues the job when the workers start.
	require.NoError(t, b.river.Start(context.Background()))
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = b.river.Stop(stopCtx)
	})
	require.Eventually(t, func() bool {
		var state string
		err := b.db.System.QueryRow(ctx, `SELECT state FROM river_job WHERE kind = 'prune_webhook_messages'`).Scan(&state)
		return err == nil && state == "completed"
	}, 15*time.Second, 50*time.Millisecond, "the webhook pruning job was never queued, or never completed")
}
