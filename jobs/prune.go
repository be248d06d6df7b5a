package jobs

import (
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
func (PruneIdempotencyArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: MaintenanceQueue, MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: pruneEvery}}
}

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
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(pruneEvery),
			func() (river.JobArgs, *river.InsertOpts) { return PruneIdempotencyArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
