package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
)

// TestUnrecordedOutcomesKeepTheirPlaces: while outcomes cannot be recorded (PostgreSQL is down
// for them), the relay is given at most jobs.MaxUnrecorded messages, however many deliveries are
// past their claim: each will be sent again, so a crash of PostgreSQL duplicates at most that
// many. Once a statement succeeds again, the places are given back.
func TestUnrecordedOutcomesKeepTheirPlaces(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{idle: true})
	claims, err := b.db.AsyncPool(2)
	require.NoError(t, err)
	// Outcomes go to a server that refuses connections.
	down, err := pgxpool.New(b.ctx, "postgres://podium@127.0.0.1:1/podium?connect_timeout=1")
	require.NoError(t, err)
	t.Cleanup(down.Close)
	const n = 3 * jobs.MaxUnrecorded
	// Every delivery is claimed before any reaches the relay, as when PostgreSQL goes down with
	// deliveries in flight.
	sender := &countingSender{barrier: n, claimed: make(chan struct{})}
	worker := &jobs.DeliverEmailWorker{Pool: down, ClaimPool: claims, Sender: sender,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	work := func(id string) error {
		ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
		defer cancel()
		return worker.Work(ctx, &river.Job[jobs.DeliverEmailArgs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 10},
			Args: jobs.DeliverEmailArgs{EmailID: id, OrganizationID: b.event.OrganizationID}})
	}

	ids := make([]string, n)
	for i := range ids {
		ids[i] = b.queue(t, "speaker@example.test").ID
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() { require.Error(t, work(id)) })
	}
	wg.Wait()
	require.EqualValues(t, jobs.MaxUnrecorded, sender.accepted.Load(),
		"the relay got more messages than the bound while no outcome could be recorded")

	// A claim succeeds: PostgreSQL answers again, the places are given back, and the next
	// delivery reaches the relay (its outcome fails again here, and keeps its place).
	require.Error(t, work(ids[0]))
	require.EqualValues(t, jobs.MaxUnrecorded+1, sender.accepted.Load())
}

// countingSender accepts every message, counting those it was allowed to commit. The first
// barrier messages wait until all of them have arrived.
type countingSender struct {
	barrier           int64
	claimed           chan struct{}
	started, accepted atomic.Int64
}

func (*countingSender) Provider() string { return "count" }

func (s *countingSender) Send(ctx context.Context, m jobs.Message) (string, error) {
	switch k := s.started.Add(1); {
	case k == s.barrier:
		close(s.claimed)
	case k < s.barrier:
		<-s.claimed
	}
	if err := m.Committing(ctx); err != nil {
		return "", err
	}
	s.accepted.Add(1)
	return "<" + m.ID + "@count>", nil
}
