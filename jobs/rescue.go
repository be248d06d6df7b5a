package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// River marks a job running when a process fetches it, and only the recorded outcome of its
// attempt, or River's rescuer after RescueStuckJobsAfter, changes that. Two things leave a job
// running with nobody working it:
//
//   - the process that fetched it died;
//   - the fetch committed but its answer never arrived: PostgreSQL restarting in the middle of a
//     fetch does that, and the process never learns it holds the job. Nothing is lost, but the
//     job waits for River's rescuer — five minutes here (rescueAfter), for an email whose outage
//     lasted three seconds.
//
// The Rescuer bounds both, without waiting for River's rescuer:
//
//   - a job this process fetched, whose attempt it never started (or started and finished more
//     than rescueGrace ago, so River's completer is not still writing the outcome), is retried
//     at once, whatever its queue: no worker here has it, and the process is alive to know;
//   - a job of a queue listed in rescueQueues, running for longer than the queue's bound, is
//     retried by any process: its attempt's timeout has run out (River cancels the attempt's
//     context then), so the process that ran it is gone or cannot reach PostgreSQL.
//
// Retrying a job that was in fact finishing is harmless for the queues listed, whose work checks
// its own record first: an email's delivery claims its log row only if the row is not sent, and a
// second outcome write for a job River already rescued changes nothing (River writes outcomes only
// to running jobs). It may deliver an email twice only if the relay accepted it and its sent mark
// was not written, which MaxUnrecorded bounds as before.
type Rescuer struct {
	// Pool runs the rescue statements.
	Pool *pgxpool.Pool
	// Log receives the rescued jobs.
	Log *slog.Logger
	// Every is the pause between sweeps; zero means rescueEvery.
	Every time.Duration

	mu sync.Mutex
	// started holds the jobs whose attempt runs in this process; finished, those whose attempt
	// ended less than rescueGrace ago (River's completer may still be recording the outcome).
	started  map[int64]struct{}
	finished map[int64]time.Time
}

// rescueEvery is how often a process sweeps for stranded jobs: one indexed statement on
// river_job (its state index), cheap enough to run this often.
const rescueEvery = 5 * time.Second

// rescueGrace is how long a fetched job may go without an attempt here before it counts as
// stranded, and how long after an attempt ends River's completer is given to record it: the
// completer retries a failed write after 1, 2 and 4 s, then requeues it for its next batch.
const rescueGrace = 15 * time.Second

// rescueQueues are the queues whose stranded jobs any process retries once they have run this
// long: the attempt's timeout and the completer's grace. Other queues wait for River's rescuer
// (rescueAfter): their jobs may run for minutes (AI reviews and drafts, file sweeps, webhook
// dispatch runs), and a webhook delivery retried while it was in fact finishing would reach its
// receiver twice.
var rescueQueues = map[string]time.Duration{
	EmailQueue: emailTimeout + rescueGrace,
}

// NewRescuer returns a Rescuer of pool's jobs.
func NewRescuer(pool *pgxpool.Pool, log *slog.Logger) *Rescuer {
	return &Rescuer{Pool: pool, Log: log, started: map[int64]struct{}{}, finished: map[int64]time.Time{}}
}

// middleware notes which jobs run in this process (see Rescuer).
func (r *Rescuer) middleware() rivertype.WorkerMiddleware { return &rescueMiddleware{r: r} }

type rescueMiddleware struct {
	river.MiddlewareDefaults
	r *Rescuer
}

// Work notes the attempt from its start to a little after its end.
func (m *rescueMiddleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	m.r.mu.Lock()
	m.r.started[job.ID] = struct{}{}
	m.r.mu.Unlock()
	defer func() {
		m.r.mu.Lock()
		delete(m.r.started, job.ID)
		m.r.finished[job.ID] = time.Now()
		m.r.mu.Unlock()
	}()
	return doInner(ctx)
}

// busy returns the jobs this process is working or has just finished, forgetting those finished
// longer than rescueGrace ago.
func (r *Rescuer) busy() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]int64, 0, len(r.started)+len(r.finished))
	for id := range r.started {
		ids = append(ids, id)
	}
	for id, at := range r.finished {
		if time.Since(at) > rescueGrace {
			delete(r.finished, id)
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// rescueSQL makes stranded jobs retryable now, with an error saying why, as River's rescuer
// does. $1 is this process's River client, $2 the jobs it is busy with, $3 and $4 the queues with
// their bounds in seconds. A job at its last attempt is retried too: its worker then fails it
// for good in its own way (an email is marked failed), which a discarded job would never do.
const rescueSQL = `
UPDATE river_job SET state = 'retryable', scheduled_at = now(),
	errors = array_append(errors, jsonb_build_object('at', now(), 'attempt', attempt,
		'error', 'podium: rescued: ' || CASE WHEN attempted_by[cardinality(attempted_by)] = $1
			THEN 'fetched by this process, which never ran it' ELSE 'running past its timeout' END,
		'trace', ''))
WHERE state = 'running' AND NOT (id = ANY($2)) AND (
	(attempted_by[cardinality(attempted_by)] = $1 AND attempted_at < now() - make_interval(secs => $5))
	OR attempted_at < now() - make_interval(secs => (
		SELECT q.bound FROM unnest($3::text[], $4::float8[]) AS q(queue, bound) WHERE q.queue = river_job.queue)))
RETURNING id, kind, attempt`

// Run sweeps every Every until ctx ends, as client, which must run its workers with the
// Rescuer's middleware (Config.Rescuer).
func (r *Rescuer) Run(ctx context.Context, client *river.Client[pgx.Tx]) {
	t := time.NewTicker(r.every())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-client.Stopped():
			return
		case <-t.C:
		}
		if _, err := r.Sweep(ctx, client.ID()); err != nil && ctx.Err() == nil {
			r.Log.WarnContext(ctx, "jobs: rescue stranded jobs", "err", err)
		}
	}
}

// Sweep rescues the stranded jobs once, as the River client clientID, and returns how many.
func (r *Rescuer) Sweep(ctx context.Context, clientID string) (int, error) {
	queues, bounds := make([]string, 0, len(rescueQueues)), make([]float64, 0, len(rescueQueues))
	for q, b := range rescueQueues {
		queues, bounds = append(queues, q), append(bounds, b.Seconds())
	}
	ctx, cancel := context.WithTimeout(ctx, r.every())
	defer cancel()
	rows, err := r.Pool.Query(ctx, rescueSQL, clientID, r.busy(), queues, bounds, rescueGrace.Seconds())
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		var id int64
		var kind string
		var attempt int
		if err := rows.Scan(&id, &kind, &attempt); err != nil {
			rows.Close()
			return n, err
		}
		n++
		r.Log.WarnContext(ctx, "jobs: rescued a stranded job", "job_id", id, "kind", kind, "attempt", attempt)
	}
	return n, rows.Err()
}

// every is the pause between sweeps.
func (r *Rescuer) every() time.Duration {
	if r.Every <= 0 {
		return rescueEvery
	}
	return r.Every
}
