package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
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
		_, err := b.db.Pool.Exec(ctx, `INSERT INTO idempotency_records
			(id, created_at, updated_at, key, request_hash, status, response, api_key_id)
			VALUES ($1, now() - $2::interval, now(), $1, 'h', 201, '\x7b7d', $3)`, id, age, key.ID)
		require.NoError(t, err)
	}

	require.NoError(t, b.river.Start(ctx))
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = b.river.Stop(stopCtx)
	})
	remaining := func() []string {
		rows, err := b.db.Pool.Query(ctx, `SELECT id FROM idempotency_records ORDER BY id`)
		require.NoError(t, err)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		return ids
	}
	require.Eventually(t, func() bool { return len(remaining()) == 1 }, 15*time.Second, 50*time.Millisecond,
		"the day-old record was never pruned")
	require.Equal(t, []string{"idm_new"}, remaining())

	var state string
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT state FROM river_job WHERE kind = 'prune_idempotency_records'`).Scan(&state))
	require.Contains(t, []string{"running", "completed"}, state)
}
