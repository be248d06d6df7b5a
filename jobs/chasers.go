package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/schema/viewer"
)

// chaseEvery is how often the chasers of every event are looked at: a chaser leaves within this
// long of its time.
const chaseEvery = 15 * time.Minute

// SendChasersArgs asks for the chasers due now to be sent, in every event that has one enabled
// (docs/chasers.md). The elected leader queues it every chaseEvery.
type SendChasersArgs struct{}

// Kind names the job.
func (SendChasersArgs) Kind() string { return "send_chasers" }

// InsertOpts runs it on the maintenance queue, once per period however many processes run.
func (SendChasersArgs) InsertOpts() river.InsertOpts { return maintenanceOnce(chaseEvery) }

// Chaser sends chasers (the operation layer): ChaseEvents lists the events with a rule enabled
// and their organizations (system work); SendChasers sends one event's chasers due at now, in
// its organization, once however often it is called.
type Chaser interface {
	ChaseEvents(ctx context.Context) (events, organizations []string, err error)
	SendChasers(ctx context.Context, eventID string, now time.Time) (int, error)
}

// SendChasersWorker sends the chasers due.
type SendChasersWorker struct {
	river.WorkerDefaults[SendChasersArgs]
	Chaser Chaser
}

// Work sends each event's chasers; one event's failure does not keep the others from theirs,
// and the job is retried for it (events already done send nothing twice).
func (w *SendChasersWorker) Work(ctx context.Context, _ *river.Job[SendChasersArgs]) error {
	if w.Chaser == nil {
		return nil
	}
	events, orgs, err := w.Chaser.ChaseEvents(viewer.System(ctx, "chasers: events with a chaser enabled"))
	if err != nil {
		return fmt.Errorf("jobs: chasers: %w", err)
	}
	now := time.Now()
	var errs []error
	for i, ev := range events {
		if _, err := w.Chaser.SendChasers(viewer.WithOrganization(ctx, orgs[i]), ev, now); err != nil {
			errs = append(errs, fmt.Errorf("event %s: %w", ev, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("jobs: chasers: %w", err)
	}
	return nil
}

// chaserPeriodicJobs is the chasers' run, queued by the elected leader.
func chaserPeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{every(chaseEvery, SendChasersArgs{})}
}
