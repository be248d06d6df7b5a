package rest_test

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
)

// fanOutWebhooks does the first half of the waiting fan-out jobs' work (jobs.FanOutWebhook), for
// bundles whose workers do not run: the messages' deliveries are written as the worker would,
// and left unattempted.
func (b *testBundle) fanOutWebhooks() {
	b.t.Helper()
	rows, err := b.db.Pool.Query(b.sys(), `SELECT args FROM river_job WHERE kind = 'fan_out_webhook' AND state = 'available'`)
	require.NoError(b.t, err)
	raw, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	require.NoError(b.t, err)
	for _, r := range raw {
		var args jobs.FanOutWebhookArgs
		require.NoError(b.t, json.Unmarshal(r, &args))
		_, err := jobs.FanOutWebhook(context.Background(), b.db.Pool, args)
		require.NoError(b.t, err)
	}
}
