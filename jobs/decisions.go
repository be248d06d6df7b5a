package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/schema/viewer"
)

// InformDecisionsArgs sends a scheduled decision send (docs/decisions.md): it is inserted,
// scheduled at the send's time, in the transaction that records the send. The send's row, not
// the job, says whether anything is still to go: the Informer locks it, sends only when neither
// sent nor cancelled and marks it sent in the same transaction, so a retried or duplicated job
// sends nothing twice.
type InformDecisionsArgs struct {
	SendID string `json:"send_id"`
	// OrganizationID is the send's organization: the inform runs scoped to it.
	OrganizationID string `json:"organization_id"`
}

// Kind names the job.
func (InformDecisionsArgs) Kind() string { return "inform_decisions" }

// InsertOpts runs sends on the email queue: what they do is queue emails, briefly.
func (InformDecisionsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: EmailQueue, MaxAttempts: 10}
}

// Informer sends a scheduled decision send (operation.Service.RunDecisionSend).
type Informer interface {
	RunDecisionSend(ctx context.Context, sendID string) error
}

// InformDecisionsWorker sends scheduled decision sends.
type InformDecisionsWorker struct {
	river.WorkerDefaults[InformDecisionsArgs]
	Informer Informer
}

// Work sends the decision send, unless it was sent or cancelled already.
func (w *InformDecisionsWorker) Work(ctx context.Context, job *river.Job[InformDecisionsArgs]) error {
	if w.Informer == nil {
		return errors.New("jobs: no decision informer in this process")
	}
	if job.Args.OrganizationID == "" {
		return river.JobCancel(fmt.Errorf("jobs: decision send %s: no organization", job.Args.SendID))
	}
	if err := w.Informer.RunDecisionSend(viewer.WithOrganization(ctx, job.Args.OrganizationID), job.Args.SendID); err != nil {
		return fmt.Errorf("jobs: decision send %s: %w", job.Args.SendID, err)
	}
	return nil
}
