package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/schema/viewer"
)

// AgendaDraftArgs asks for an agenda draft's proposal to be made (docs/agenda-drafts.md). It is
// queued with the draft, in the request's transaction, on the AI queue.
type AgendaDraftArgs struct {
	DraftID string `json:"draft_id"`
	// OrganizationID is the draft's organization: the generation runs scoped to it.
	OrganizationID string `json:"organization_id"`
}

// Kind names the job.
func (AgendaDraftArgs) Kind() string { return "agenda_draft" }

// InsertOpts puts generations on the AI queue, retried like AI reviews while the provider is
// down; a draft already waiting or running is not queued twice.
func (AgendaDraftArgs) InsertOpts() river.InsertOpts { return AIReviewArgs{}.InsertOpts() }

// Drafter makes a draft's proposal and stores it (graph.Resolver.GenerateAgendaDraft). On the
// last attempt it records a provider outage on the draft (failed) instead of returning it.
type Drafter interface {
	GenerateAgendaDraft(ctx context.Context, draftID string, lastAttempt bool) error
}

// AgendaDraftWorker generates agenda drafts. Provider outages are returned by the Drafter and
// retried with River's backoff; everything else ends on the draft (generated or failed).
type AgendaDraftWorker struct {
	river.WorkerDefaults[AgendaDraftArgs]
	Drafter Drafter
}

// Timeout leaves room for the provider's slowest answer, as AIReviewWorker does.
func (w *AgendaDraftWorker) Timeout(*river.Job[AgendaDraftArgs]) time.Duration {
	return 3 * time.Minute
}

// Work makes the proposal.
func (w *AgendaDraftWorker) Work(ctx context.Context, job *river.Job[AgendaDraftArgs]) error {
	if w.Drafter == nil {
		return river.JobCancel(errors.New("jobs: no agenda drafter in this process"))
	}
	if job.Args.OrganizationID == "" {
		return river.JobCancel(fmt.Errorf("jobs: agenda draft %s: no organization", job.Args.DraftID))
	}
	last := job.Attempt >= job.MaxAttempts
	if err := w.Drafter.GenerateAgendaDraft(viewer.WithOrganization(ctx, job.Args.OrganizationID), job.Args.DraftID, last); err != nil {
		return fmt.Errorf("jobs: agenda draft: %w", err)
	}
	return nil
}
