package jobs

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/schema"
	"github.com/podium/podium/ent/schema/viewer"
)

// MaintenanceQueue is the queue of Podium's housekeeping jobs.
const MaintenanceQueue = "maintenance"

// pruneEvery is how often expired idempotency records are deleted.
const pruneEvery = time.Hour

// PruneIdempotencyArgs asks for the idempotency records older than a day to be deleted. REST
// honours an Idempotency-Key for 24 hours (rest/idempotency.go); after that its stored response is
// of no use, and without pruning the table would keep one row per key ever used.
type PruneIdempotencyArgs struct{}

// Kind names the job.
func (PruneIdempotencyArgs) Kind() string { return "prune_idempotency_records" }

// InsertOpts puts the job on the maintenance queue, once per period however many processes run.
func (PruneIdempotencyArgs) InsertOpts() river.InsertOpts { return maintenanceOnce(pruneEvery) }

// PruneIdempotencyWorker deletes expired idempotency records.
type PruneIdempotencyWorker struct {
	river.WorkerDefaults[PruneIdempotencyArgs]
	Pool *pgxpool.Pool
}

// pruneIdempotencySQL deletes by the expiry rest/idempotency.go applies when a key is used again.
const pruneIdempotencySQL = `DELETE FROM idempotency_records WHERE ` + schema.IdempotencyExpired

// Work deletes the expired records of every organization: one statement instead of one per
// organization, for a rule that is the same for all.
func (w *PruneIdempotencyWorker) Work(ctx context.Context, _ *river.Job[PruneIdempotencyArgs]) error {
	ctx = viewer.System(ctx, "prune: expired idempotency records of every organization")
	if _, err := w.Pool.Exec(ctx, pruneIdempotencySQL); err != nil {
		return fmt.Errorf("jobs: prune idempotency records: %w", err)
	}
	return nil
}

// periodicJobs are the housekeeping jobs the elected leader among working processes queues.
func periodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{every(pruneEvery, PruneIdempotencyArgs{}), every(pruneEvery, PruneWebhooksArgs{}),
		every(pruneEvery, PruneChangesArgs{})}
}

// maintenanceOnce puts a housekeeping job on the maintenance queue, once per period however many
// processes run.
func maintenanceOnce(period time.Duration) river.InsertOpts {
	return river.InsertOpts{Queue: MaintenanceQueue, MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: period}}
}

// every is a periodic job that the elected leader queues every period, and once when it starts.
func every(period time.Duration, args river.JobArgs) *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(period),
		func() (river.JobArgs, *river.InsertOpts) { return args, nil }, &river.PeriodicJobOpts{RunOnStart: true})
}

// DefaultWebhookRetention is how long webhook messages and their delivery log are kept
// (WebhookConfig.Retention, PODIUM_WEBHOOK_RETENTION): long enough to redeliver a month of
// events to a receiver that lost them, far longer than a delivery's retries (about 38 hours).
const DefaultWebhookRetention = 30 * 24 * time.Hour

// pruneWebhooksBatch is how many messages one statement deletes, with their deliveries: a
// backlog is deleted in several short transactions rather than in one that holds locks for long.
const pruneWebhooksBatch = 5000

// PruneWebhooksArgs asks for the webhook messages older than the retention, and their delivery
// log, to be deleted. Without it the outbox would keep every event ever emitted, and the log five
// rows or so for each.
type PruneWebhooksArgs struct{}

// Kind names the job.
func (PruneWebhooksArgs) Kind() string { return "prune_webhook_messages" }

// InsertOpts puts the job on the maintenance queue, once per period however many processes run.
func (PruneWebhooksArgs) InsertOpts() river.InsertOpts { return maintenanceOnce(pruneEvery) }

// PruneWebhooksWorker deletes the webhook messages older than Retention, with their deliveries.
type PruneWebhooksWorker struct {
	river.WorkerDefaults[PruneWebhooksArgs]
	Pool *pgxpool.Pool
	// Retention is DefaultWebhookRetention when zero.
	Retention time.Duration
}

// pruneWebhooksSQL deletes up to $2 messages created before $1, and their deliveries (which have
// no foreign key to cascade from). Each organization's messages are found by its index on
// (organization_id, created_at), so that the hourly run reads only what it deletes; the two
// deletes take arrays of ids, which PostgreSQL looks up by index (with IN or USING over the
// batch it chose to read both whole tables, at 200,000 messages). A message is kept while it
// waits for its dispatch, or while one of its deliveries is still being retried: what is pruned
// was delivered, or failed for good.
const pruneWebhooksSQL = `WITH m AS (
	DELETE FROM webhook_messages WHERE id = ANY(ARRAY(
		SELECT o.id FROM organizations g CROSS JOIN LATERAL (SELECT m.id FROM webhook_messages m
			WHERE m.organization_id = g.id AND m.created_at < $1 AND m.dispatched_at IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id AND d.status = 'pending')
			ORDER BY m.created_at LIMIT $2) o
		LIMIT $2))
	RETURNING id
), d AS (DELETE FROM webhook_deliveries WHERE message_id = ANY(ARRAY(SELECT id FROM m)))
SELECT count(*) FROM m`

// Work deletes the expired messages of every organization, a batch at a time.
func (w *PruneWebhooksWorker) Work(ctx context.Context, _ *river.Job[PruneWebhooksArgs]) error {
	ctx = viewer.System(ctx, "prune: expired webhook messages of every organization")
	cutoff := time.Now().Add(-cmp.Or(w.Retention, DefaultWebhookRetention))
	for {
		var deleted int
		if err := w.Pool.QueryRow(ctx, pruneWebhooksSQL, cutoff, pruneWebhooksBatch).Scan(&deleted); err != nil {
			return fmt.Errorf("jobs: prune webhook messages: %w", err)
		}
		if deleted < pruneWebhooksBatch {
			return nil
		}
	}
}
