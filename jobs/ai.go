package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/ai"
)

// AIQueue is the queue AI reviews run on.
const AIQueue = "ai"

// DefaultAIWorkers is how many AI reviews one process runs at once: enough to get through a round
// of hundreds of proposals in minutes, few enough to stay under a provider's rate limits.
const DefaultAIWorkers = 4

// AIReviewArgs asks for one submission to be scored by the AI provider in one review round.
type AIReviewArgs struct {
	RoundID      string `json:"round_id"`
	SubmissionID string `json:"submission_id"`
	// OrganizationID is the round's organization: the review runs scoped to it
	// (docs/tenancy.md).
	OrganizationID string `json:"organization_id,omitempty"`
}

// Kind names the job.
func (AIReviewArgs) Kind() string { return "ai_review" }

// InsertOpts puts AI reviews on their queue. A (round, submission) already waiting or running is
// not queued again; once done it may be.
func (AIReviewArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: AIQueue, MaxAttempts: 5, UniqueOpts: river.UniqueOpts{
		ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled},
	}}
}

// Scorer scores a submission in a round and stores the result (graph.Resolver.ScoreSubmission).
type Scorer interface {
	ScoreSubmission(ctx context.Context, roundID, submissionID string) error
}

// AIReviewWorker runs AI reviews. Provider outages and rate limits are retried with backoff;
// answers that are not a review, and a server without a provider, end the job.
type AIReviewWorker struct {
	river.WorkerDefaults[AIReviewArgs]
	Scorer Scorer
}

// Timeout leaves room for the provider's slowest answer (the client gives up after two minutes);
// River's default of a minute would cut long reviews short.
func (w *AIReviewWorker) Timeout(*river.Job[AIReviewArgs]) time.Duration { return 3 * time.Minute }

// Work scores the submission.
func (w *AIReviewWorker) Work(ctx context.Context, job *river.Job[AIReviewArgs]) error {
	if w.Scorer == nil {
		return river.JobCancel(errors.New("jobs: no AI scorer in this process"))
	}
	if job.Args.OrganizationID == "" {
		return river.JobCancel(fmt.Errorf("jobs: ai review of round %s: no organization", job.Args.RoundID))
	}
	err := w.Scorer.ScoreSubmission(viewer.WithOrganization(ctx, job.Args.OrganizationID), job.Args.RoundID, job.Args.SubmissionID)
	var pe *ai.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ai.ErrNotConfigured), errors.As(err, &pe) && !pe.Retryable():
		return river.JobCancel(err)
	default:
		return fmt.Errorf("jobs: ai review: %w", err)
	}
}
