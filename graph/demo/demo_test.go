package demo_test

import (
	"context"
	"os"
	"testing"

	"github.com/podium/podium/graph/model"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/demo"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestLoad loads the demo and reads it back through the operations: every part a newcomer is
// promised is there.
func TestLoad(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	river, err := jobs.NewClient(db, jobs.Config{})
	require.NoError(t, err)
	res := graph.NewResolver(db, &email.Outbox{Jobs: river, PublicURL: "https://podium.example.test"})
	ctx := context.Background()
	out, err := demo.Load(ctx, db, res, "Demo Org")
	require.NoError(t, err)
	require.NotEmpty(t, out.Key)

	var orgID string
	require.NoError(t, db.System.QueryRow(viewer.System(ctx, "test: the demo's organization"),
		`SELECT organization_id FROM events WHERE id = $1`, out.EventID).Scan(&orgID))
	ctx = viewer.NewContext(ctx, &viewer.Viewer{OrganizationID: orgID})
	ev, err := res.Query().Event(ctx, out.EventID)
	require.NoError(t, err)
	require.Equal(t, "GopherCon Demo", ev.Name)
	require.Len(t, ev.PublishedAgenda, 9, "the keynote and eight accepted sessions, published before one was cancelled")
	require.True(t, ev.AgendaDirty)

	sessions, err := res.Event().Sessions(ctx, ev, nil, nil, nil, nil, nil)
	require.NoError(t, err)
	require.Equal(t, 9, sessions.TotalCount)
	cancelled, done := 0, 0
	for _, e := range sessions.Edges {
		if e.Node.CancelledAt != nil {
			cancelled++
		}
		done += e.Node.TasksDone
	}
	require.Equal(t, 1, cancelled)
	require.Positive(t, done)

	subs, err := res.Event().Submissions(ctx, ev, nil, nil)
	require.NoError(t, err)
	statuses := map[model.SubmissionStatus]int{}
	for _, s := range subs.Submissions {
		statuses[s.Status]++
	}
	require.Equal(t, map[model.SubmissionStatus]int{model.SubmissionStatusAccepted: 8, model.SubmissionStatusDeclined: 2,
		model.SubmissionStatusMaybe: 1, model.SubmissionStatusPending: 3}, statuses)

	ws, err := res.Event().Evaluation(ctx, ev)
	require.NoError(t, err)
	require.Len(t, ws.Rounds, 1)
	round := ws.Rounds[0]
	require.Len(t, round.Reviewers, 3)
	require.NotEmpty(t, round.Assignments)
	scored := 0
	for _, r := range round.Results {
		if r.WeightedAggregate != nil {
			scored++
		}
	}
	require.Positive(t, scored)

	resources, err := res.Event().Resources(ctx, ev)
	require.NoError(t, err)
	require.Len(t, resources, 4)
	var emails int
	require.NoError(t, db.Pool.QueryRow(ctx, `SELECT count(*) FROM email_log WHERE event_id = $1`, out.EventID).Scan(&emails))
	require.Positive(t, emails)
}
