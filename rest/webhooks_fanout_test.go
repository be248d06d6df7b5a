package rest_test

import (
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
)

// fanOutWebhooks takes the messages waiting in the outbox as a dispatch run does
// (jobs.ClaimWebhookMessages) and writes their deliveries pending and unattempted, as a run does
// for those it hands to a job (jobs.HoldWebhookDeliveries), for bundles whose workers do not run.
func (b *testBundle) fanOutWebhooks() {
	b.t.Helper()
	for {
		due, claimed, err := jobs.ClaimWebhookMessages(b.sys(), b.db.System, 1, 100)
		require.NoError(b.t, err)
		require.NoError(b.t, jobs.HoldWebhookDeliveries(b.sys(), b.db.System, due))
		if claimed < 100 {
			return
		}
	}
}
