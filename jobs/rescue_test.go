package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/jobs"
)

// strand marks the job of the email id running, attempted by client at attempted, as a fetch
// whose answer never arrived leaves it (or a process that died while working it).
func strand(t *testing.T, b *testBundle, id, client string, ago time.Duration) int64 {
	t.Helper()
	var job int64
	require.NoError(t, b.db.Pool.QueryRow(b.ctx, `UPDATE river_job SET state = 'running', attempt = attempt + 1,
		attempted_at = now() - make_interval(secs => $3), attempted_by = array_append(attempted_by, $2)
		WHERE kind = 'deliver_email' AND args->>'email_id' = $1 RETURNING id`, id, client, ago.Seconds()).Scan(&job))
	return job
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestRescuerRetriesJobsFetchedButNeverRun: a fetch that committed while its answer was lost (a
// PostgreSQL restart does that) leaves a job running that no worker has. River's rescuer would
// retry it after five minutes; the process that fetched it retries it within seconds, and the
// email is delivered once.
func TestRescuerRetriesJobsFetchedButNeverRun(t *testing.T) {
	t.Parallel()
	rescuer := jobs.NewRescuer(nil, quietLog())
	b := setup(t, setupOpts{idle: true, rescuer: rescuer})
	rescuer.Pool, rescuer.Every = b.db.Pool, 50*time.Millisecond
	stale, fresh := b.queue(t, "ada@example.test"), b.queue(t, "grace@example.test")
	strand(t, b, stale.ID, b.river.ID(), 20*time.Second)
	freshJob := strand(t, b, fresh.ID, b.river.ID(), 0)

	// A job fetched a moment ago may not have started yet: it is left alone.
	n, err := rescuer.Sweep(b.ctx, b.river.ID())
	require.NoError(t, err)
	require.Equal(t, 1, n, "only the job stranded for longer than the grace is rescued")

	require.NoError(t, b.river.Start(b.ctx))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = b.river.Stop(ctx)
	})
	runCtx, stop := context.WithCancel(b.ctx)
	t.Cleanup(stop)
	go rescuer.Run(runCtx, b.river)
	b.waitStatus(t, stale.ID, emaillog.StatusSent)

	// The fresh one, once its grace has passed (made so here rather than waited for).
	_, err = b.db.Pool.Exec(b.ctx, `UPDATE river_job SET attempted_at = now() - interval '1 minute' WHERE id = $1`, freshJob)
	require.NoError(t, err)
	b.waitStatus(t, fresh.ID, emaillog.StatusSent)
	require.Eventually(t, func() bool { return len(b.sink.Messages()) == 2 }, 5*time.Second, 20*time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	require.Len(t, b.sink.Messages(), 2, "each email delivered once")
}

// TestRescuerBounds: what a sweep retries and what it leaves. An email job of another process is
// retried once it has run past the email timeout and the grace (the process is gone, or cannot
// reach PostgreSQL), not before; a job of another queue is left to River's rescuer; a job this
// process is working is never touched, however long it runs.
func TestRescuerBounds(t *testing.T) {
	t.Parallel()
	rescuer := jobs.NewRescuer(nil, quietLog())
	b := setup(t, setupOpts{idle: true, rescuer: rescuer})
	rescuer.Pool = b.db.Pool
	me := b.river.ID()

	dead := strand(t, b, b.queue(t, "a@example.test").ID, "dead-process", 46*time.Second)
	young := strand(t, b, b.queue(t, "b@example.test").ID, "dead-process", 30*time.Second)
	var otherQueue int64
	require.NoError(t, b.db.Pool.QueryRow(b.ctx, `INSERT INTO river_job (args, kind, max_attempts, queue, state, attempt,
		attempted_at, attempted_by) VALUES ('{}', 'long_job', 3, 'ai', 'running', 1, now() - interval '1 hour',
		ARRAY['dead-process']) RETURNING id`).Scan(&otherQueue))

	// A job this process is working, for an hour by now.
	working := b.queue(t, "c@example.test")
	workingJob := strand(t, b, working.ID, me, time.Hour)
	release, entered := make(chan struct{}), make(chan struct{})
	var ran atomic.Bool
	go func() {
		_ = jobs.RescuerWork(rescuer, &rivertype.JobRow{ID: workingJob, Kind: "deliver_email"}, func(context.Context) error {
			ran.Store(true)
			close(entered)
			<-release
			return nil
		})
	}()
	<-entered
	t.Cleanup(func() { close(release) })

	n, err := rescuer.Sweep(b.ctx, me)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	states := map[int64]string{}
	rows, err := b.db.Pool.Query(b.ctx, `SELECT id, state::text FROM river_job WHERE id = ANY($1)`,
		[]int64{dead, young, otherQueue, workingJob})
	require.NoError(t, err)
	for rows.Next() {
		var id int64
		var state string
		require.NoError(t, rows.Scan(&id, &state))
		states[id] = state
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[int64]string{dead: "retryable", young: "running", otherQueue: "running", workingJob: "running"}, states)
	require.True(t, ran.Load())
}

// TestSentMarkWaitsForPostgreSQL: when the sent mark of an email the relay accepted cannot be
// written because PostgreSQL is away, the delivery keeps it and writes it once PostgreSQL answers,
// within the attempt's time: no second attempt, no second copy.
func TestSentMarkWaitsForPostgreSQL(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{idle: true})
	proxy, url := pgtest.NewProxy(t, b.db.Pool.Config().ConnString())
	through, err := dbx.Open(b.ctx, url, dbx.Options{})
	require.NoError(t, err)
	t.Cleanup(through.Close)
	outcomes := through.Pool
	sink := b.sink
	sender, err := jobs.NewSMTPSender(sink.URL(), "Podium <podium@example.test>", jobs.SMTPOptions{TLSConfig: sink.ClientTLS()})
	require.NoError(t, err)
	t.Cleanup(sender.Close)
	// PostgreSQL goes away for the outcome as the relay accepts the message, and comes back a
	// second later.
	worker := &jobs.DeliverEmailWorker{Pool: outcomes, ClaimPool: b.db.Pool, Log: quietLog(),
		Sender: notify{Sender: sender, accepted: func() {
			proxy.Down()
			time.AfterFunc(time.Second, proxy.Up)
		}}}
	row := b.queue(t, "ada@example.test")
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	err = worker.Work(ctx, &river.Job[jobs.DeliverEmailArgs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 10},
		Args: jobs.DeliverEmailArgs{EmailID: row.ID, OrganizationID: b.event.OrganizationID}})
	require.NoError(t, err, "the attempt gave up on its sent mark")
	require.Equal(t, emaillog.StatusSent, b.waitStatus(t, row.ID, emaillog.StatusSent).Status)
	require.Len(t, sink.Messages(), 1)
}

// notify is a Sender that calls accepted when the relay has accepted a message.
type notify struct {
	jobs.Sender
	accepted func()
}

func (n notify) Send(ctx context.Context, m jobs.Message) (string, error) {
	id, err := n.Sender.Send(ctx, m)
	if err == nil {
		n.accepted()
	}
	return id, err
}
