package jobs_test

import (
	"context"
	"errors"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/jobs"
)

// drafterFunc is a Drafter made of a function.
type drafterFunc func(ctx context.Context, draftID string, lastAttempt bool) error

func (f drafterFunc) GenerateAgendaDraft(ctx context.Context, draftID string, lastAttempt bool) error {
	return f(ctx, draftID, lastAttempt)
}

func draftJob(attempt int, args jobs.AgendaDraftArgs) *river.Job[jobs.AgendaDraftArgs] {
	return &river.Job[jobs.AgendaDraftArgs]{JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: 5}, Args: args}
}

func TestAgendaDraftWorker(t *testing.T) {
	t.Parallel()
	require.Equal(t, jobs.AIQueue, jobs.AgendaDraftArgs{}.InsertOpts().Queue)
	require.Equal(t, 5, jobs.AgendaDraftArgs{}.InsertOpts().MaxAttempts)

	type call struct {
		org, draft string
		last       bool
	}
	var calls []call
	outage := errors.New("provider down")
	w := &jobs.AgendaDraftWorker{Drafter: drafterFunc(func(ctx context.Context, id string, last bool) error {
		calls = append(calls, call{viewer.OrganizationID(ctx), id, last})
		if !last {
			return outage
		}
		return nil
	})}
	args := jobs.AgendaDraftArgs{DraftID: "adr_1", OrganizationID: "org_1"}
	// Before the last attempt an outage is returned, and River retries; on the last the Drafter
	// is told so (and records it on the draft).
	require.ErrorIs(t, w.Work(context.Background(), draftJob(1, args)), outage)
	require.NoError(t, w.Work(context.Background(), draftJob(5, args)))
	require.Equal(t, []call{{"org_1", "adr_1", false}, {"org_1", "adr_1", true}}, calls, "scoped to the draft's organization")

	// A job without an organization, or a process without a Drafter, is cancelled.
	var cancel *rivertype.JobCancelError
	require.ErrorAs(t, w.Work(context.Background(), draftJob(1, jobs.AgendaDraftArgs{DraftID: "adr_1"})), &cancel)
	require.ErrorAs(t, (&jobs.AgendaDraftWorker{}).Work(context.Background(), draftJob(1, args)), &cancel)
	require.Len(t, calls, 2)
}
