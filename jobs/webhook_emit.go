package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
)

// WebhookPayloadVersion is the version of the envelope every webhook message carries
// (docs/webhooks.md): {"type", "version", "timestamp", "data"}.
const WebhookPayloadVersion = 1

// HookEmailFailed is the event type emitted when an email fails for good (see
// DeliverEmailWorker); the operation layer emits the others.
const HookEmailFailed = "email.failed"

// emitSQL writes a message when, and only when, one of the organization's enabled endpoints
// subscribes to its type: the check and the write are one statement, so an emitting write costs
// one round trip, and writes nothing when no endpoint is subscribed. Endpoints are read here, in the
// write's own transaction, never from a cache that another instance could make stale.
const emitSQL = `INSERT INTO webhook_messages (id, created_at, updated_at, organization_id, event_type, payload)
	SELECT $1::text, $2::timestamptz, $2::timestamptz, $3::text, $4::text, $5::text WHERE EXISTS (SELECT 1 FROM webhook_endpoints
		WHERE organization_id = $3::text AND enabled AND (event_types = '[]'::jsonb OR event_types ? $4::text))`

// EmitWebhook records an event of the organization org in tx — the transaction of the change it
// reports, so that the message commits or rolls back with it (the outbox). It writes the message
// alone, whatever the number of endpoints: a dispatch run (DispatchWebhooksWorker) takes it after
// the commit, so the change's transaction pays one statement for its webhooks, subscribed or not.
func EmitWebhook(ctx context.Context, tx pgx.Tx, org, eventType string, data any) error {
	now := time.Now().UTC()
	payload, err := json.Marshal(webhookPayload(ctx, eventType, now, data))
	if err != nil {
		return fmt.Errorf("jobs: webhook payload: %w", err)
	}
	if _, err := tx.Exec(ctx, emitSQL, pid.New("msg"), now, org, eventType, string(payload)); err != nil {
		return fmt.Errorf("jobs: webhook message: %w", err)
	}
	return nil
}

// webhookPayload is a message's body: its type, version, time and data, and, when an application
// acting for a person made the change (docs/agents.md), "actor": "<email> via <application>" and
// "clientId", the application's id.
func webhookPayload(ctx context.Context, eventType string, at time.Time, data any) map[string]any {
	out := map[string]any{"type": eventType, "version": WebhookPayloadVersion,
		"timestamp": at.Format(time.RFC3339Nano), "data": data}
	if a := withActor(ctx, nil); a["actor"] != "" {
		out["actor"], out["clientId"] = a["actor"], a["clientId"]
	}
	return out
}

// emitWithChangeSQL is emitSQL and emitChangeSQL in one statement: a change that webhooks and
// subscriptions both hear about costs its transaction one round trip.
const emitWithChangeSQL = `WITH m AS (` + emitSQL + `),
c AS (INSERT INTO event_changes (organization_id, event_id, type, data, created_at) VALUES ($3, $6, $4, $7, $2)
	RETURNING id, organization_id, event_id, type, data, created_at)
SELECT pg_notify('` + ChangesChannel + `', json_build_object('id', id, 'organizationId', organization_id,
	'eventId', event_id, 'type', type, 'data', data, 'at', created_at)::text) FROM c`

// EmitWebhookWithChange is EmitWebhook and EmitChange of the event eventID, with change's data,
// in one statement.
func EmitWebhookWithChange(ctx context.Context, tx pgx.Tx, org, eventType string, data any, eventID string, change map[string]string) error {
	now := time.Now().UTC()
	payload, err := json.Marshal(webhookPayload(ctx, eventType, now, data))
	if err != nil {
		return fmt.Errorf("jobs: webhook payload: %w", err)
	}
	raw, err := json.Marshal(withActor(ctx, change))
	if err != nil {
		return fmt.Errorf("jobs: change data: %w", err)
	}
	if _, err := tx.Exec(ctx, emitWithChangeSQL, pid.New("msg"), now, org, eventType, string(payload), eventID, raw); err != nil {
		return fmt.Errorf("jobs: webhook message and change: %w", err)
	}
	return nil
}

// MaxWebhookEndpoints bounds an organization's endpoints (the operation layer refuses more): each
// one multiplies the deliveries of every change.
const MaxWebhookEndpoints = 20

// DispatchInterval is how often River starts a dispatch run (DispatchWebhooksArgs): a message's
// first attempts start within about this long of its commit.
const DispatchInterval = time.Second

// webhookPeriodicJobs starts the dispatch runs.
func webhookPeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{every(DispatchInterval, DispatchWebhooksArgs{})}
}

// DispatchWebhooksArgs starts a dispatch run: the outbox's relay. River's leader inserts one every
// DispatchInterval (a periodic job), and any process's worker runs it.
type DispatchWebhooksArgs struct{}

// Kind names the job.
func (DispatchWebhooksArgs) Kind() string { return "dispatch_webhooks" }

// InsertOpts puts dispatch runs on the webhook queue. A run that fails is retried soon: messages
// wait for it only until the next run, which takes them instead.
func (DispatchWebhooksArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: WebhookQueue, MaxAttempts: 3}
}

// A run lasts about DispatchInterval, until the next one starts: it looks at the outbox every
// dispatchPoll and takes what has come, at most dispatchBatch messages at once, so that messages
// are delivered a few at a time as they come rather than in bursts, which would slow the API's
// requests running beside them. With a backlog, a run takes batch after batch for up to
// dispatchFor.
const (
	dispatchPoll  = 100 * time.Millisecond
	dispatchBatch = 200
	dispatchFor   = 20 * time.Second
)

// DispatchWebhooksWorker takes the messages not dispatched yet, oldest first, in batches, and
// delivers each to every endpoint of its organization subscribed to its type (see
// DeliverWebhookWorker.dispatch): it makes the first attempts itself and writes the deliveries
// that succeeded afterwards, already succeeded, in statements shared with the other deliveries
// finishing at the moment. Only a delivery that fails, or whose endpoint is busy, is written
// before its outcome is known, pending, with a job of its own (DeliverWebhookArgs) that retries
// it on WebhookBackoff's schedule. Per message, the common case — every receiver answers — thus
// costs a share of one claim and of one write, and no job: deliveries compete as little as they
// can with the API's writes for the database and the CPU.
//
// Runs in several processes share the outbox: a batch is taken with SKIP LOCKED, so each message
// goes to one run. A run that dies (its process killed) is rescued by River and run again; it
// then first attempts the deliveries of its messages not written yet or never attempted: a
// receiver may get a message twice, with the same webhook-id.
type DispatchWebhooksWorker struct {
	river.WorkerDefaults[DispatchWebhooksArgs]
	Pool *pgxpool.Pool
	// Deliver makes and records the attempts (its configuration, HTTP client and per-endpoint
	// limits are shared with the retries).
	Deliver *DeliverWebhookWorker

	// running is held by the run taking messages in this process (a semaphore of one, made on
	// first use). Runs start every DispatchInterval and last about as long, longer with a
	// backlog: a run beside another would find the endpoints' places taken by the other's lanes
	// and hand every delivery to a job of its own, several statements each where a run's
	// delivery costs a share of one. A run waits for the one before it to end, for at most
	// DispatchInterval — it then takes over without a gap — and otherwise leaves the messages to
	// it.
	running     chan struct{}
	runningOnce sync.Once
	// lookedForGivenUp is when the run holding running last looked for runs that gave up.
	lookedForGivenUp time.Time
}

// take waits up to wait for the process's run to end and takes its place; it reports whether it
// did (see running).
func (w *DispatchWebhooksWorker) take(ctx context.Context, wait time.Duration) bool {
	w.runningOnce.Do(func() { w.running = make(chan struct{}, 1) })
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case w.running <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// Timeout leaves room for the run's batches and the attempts' own timeout.
func (w *DispatchWebhooksWorker) Timeout(*river.Job[DispatchWebhooksArgs]) time.Duration {
	w.Deliver.once.Do(w.Deliver.init)
	return dispatchFor + w.Deliver.Config.Timeout + 30*time.Second
}

// Work runs one dispatch.
func (w *DispatchWebhooksWorker) Work(ctx context.Context, job *river.Job[DispatchWebhooksArgs]) error {
	w.Deliver.once.Do(w.Deliver.init)
	// The outbox holds every organization's messages; each delivery is written for its own.
	ctx = viewer.System(ctx, "webhook dispatch")
	// A rescued run must finish what it took: it waits for its place as long as its job may run
	// (longer than another run holds the place), and fails, to be tried again, only if it ran out.
	if job.Attempt > 1 {
		if !w.take(ctx, w.Timeout(job)) {
			return errors.New("jobs: webhook dispatch: another run held the outbox")
		}
	} else if !w.take(ctx, DispatchInterval) {
		return nil // the run still going takes the messages
	}
	defer func() { <-w.running }()
	if time.Since(w.lookedForGivenUp) >= w.Deliver.Config.RetryGivenUpEvery {
		w.lookedForGivenUp = time.Now()
		if err := retryGivenUp(ctx, w.Pool); err != nil {
			w.Deliver.Log.WarnContext(ctx, "webhook dispatch: retrying runs that gave up", "err", err)
		}
	}
	if job.Attempt > 1 {
		due, err := unfinishedDispatch(ctx, w.Pool, job.ID)
		if err != nil {
			return err
		}
		if err := w.Deliver.dispatch(ctx, due); err != nil {
			return err
		}
	}
	for start := time.Now(); ; {
		due, claimed, err := ClaimWebhookMessages(ctx, w.Pool, job.ID, dispatchBatch)
		if err != nil {
			return err
		}
		if err := w.Deliver.dispatch(ctx, due); err != nil {
			return err
		}
		switch {
		case claimed == dispatchBatch && time.Since(start) < dispatchFor:
			continue // a backlog: take more at once
		case time.Since(start) >= DispatchInterval:
			return nil // the next run goes on
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(dispatchPoll):
		}
	}
}

// givenUpSQL finds dispatch runs that River discarded (every attempt failed) or cancelled after
// they took messages. Their messages are marked dispatched, and no later run takes them: only
// the run itself finishes them (unfinishedSQL), when it runs again. River keeps such jobs for days;
// the index on their state finds them without reading the completed runs.
const givenUpSQL = `SELECT j.id FROM river_job j WHERE j.state IN ('discarded', 'cancelled') AND j.finalized_at IS NOT NULL
	AND j.kind = 'dispatch_webhooks' AND EXISTS (SELECT 1 FROM webhook_messages m WHERE m.dispatch_job_id = j.id)
	ORDER BY j.id LIMIT 100`

// retryGivenUp makes the dispatch runs that gave up available again (River's JobRetry adds an
// attempt): each then delivers what its messages still lack, as a rescued run does, so that a
// database outage longer than a run's attempts loses no message. A run that finishes completes,
// and is not found again.
func retryGivenUp(ctx context.Context, pool *pgxpool.Pool) error {
	rows, err := pool.Query(ctx, givenUpSQL)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	// One run that cannot be retried does not keep the others waiting.
	client := river.ClientFromContext[pgx.Tx](ctx)
	var errs []error
	// River's tables hold no organization's rows: its statements go to the application pool, in
	// whatever scope a connection has, not to the system pool this run's work uses.
	riverCtx := viewer.AnyScope(ctx)
	for _, id := range ids {
		if _, err := client.JobRetry(riverCtx, id); err != nil {
			errs = append(errs, fmt.Errorf("dispatch run %d: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// dispatchSQL takes up to $2 messages not dispatched yet, oldest first, for the run $1, and returns
// one row per delivery to make: per message, each endpoint of its organization enabled and
// subscribed to its type at this moment (an endpoint added or unsubscribed since the change counts
// as it is now), with how many messages were taken.
const dispatchSQL = `WITH c AS (
	UPDATE webhook_messages m SET dispatched_at = now(), dispatch_job_id = $1
	WHERE m.id IN (SELECT id FROM webhook_messages WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
	RETURNING m.id, m.organization_id, m.event_type, m.payload, m.created_at
), n AS (SELECT count(*) AS claimed FROM c)
SELECT n.claimed, '', e.id, e.url, e.enabled, e.secret, e.previous_secret, e.previous_secret_expires_at,
	c.id, c.payload, c.organization_id
FROM n LEFT JOIN (c JOIN webhook_endpoints e ON e.organization_id = c.organization_id AND e.enabled
	AND (e.event_types = '[]'::jsonb OR e.event_types ? c.event_type)) ON true
ORDER BY c.created_at, c.id, e.id`

// unfinishedSQL returns what a dispatch run $1 that died left to do: per message it took, each
// subscribed endpoint with no delivery of the message yet, and each delivery written and never
// attempted.
const unfinishedSQL = `SELECT 0, coalesce(d.id, ''), e.id, e.url, e.enabled, e.secret, e.previous_secret,
	e.previous_secret_expires_at, m.id, m.payload, m.organization_id
FROM webhook_messages m JOIN webhook_endpoints e ON e.organization_id = m.organization_id
LEFT JOIN webhook_deliveries d ON d.message_id = m.id AND d.endpoint_id = e.id
WHERE m.dispatch_job_id = $1 AND CASE WHEN d.id IS NULL THEN e.enabled AND (e.event_types = '[]'::jsonb OR e.event_types ? m.event_type)
	ELSE d.status = 'pending' AND d.attempts = 0 END
ORDER BY m.created_at, m.id, e.id`

// PendingDelivery is a delivery due for its first attempt: written already (pending and
// unattempted) or not yet, with a fresh id.
type PendingDelivery struct {
	id      string
	written bool
	t       webhookTarget
}

// ClaimWebhookMessages takes up to limit messages not dispatched yet for the dispatch run job (in
// the system scope of ctx), in one statement, and returns the deliveries to make and how many
// messages it took.
func ClaimWebhookMessages(ctx context.Context, pool *pgxpool.Pool, job int64, limit int) ([]PendingDelivery, int, error) {
	return scanDue(pool.Query(ctx, dispatchSQL, job, limit))
}

// unfinishedDispatch returns the deliveries a dispatch run left to do when it died.
func unfinishedDispatch(ctx context.Context, pool *pgxpool.Pool, job int64) ([]PendingDelivery, error) {
	due, _, err := scanDue(pool.Query(ctx, unfinishedSQL, job))
	return due, err
}

// scanDue reads dispatchSQL's and unfinishedSQL's rows.
func scanDue(rows pgx.Rows, err error) ([]PendingDelivery, int, error) {
	if err != nil {
		return nil, 0, fmt.Errorf("jobs: webhook dispatch: %w", err)
	}
	defer rows.Close()
	var due []PendingDelivery
	claimed := 0
	for rows.Next() {
		var p PendingDelivery
		var endpoint *string
		var t webhookTarget
		var enabled *bool
		var url, secret, message, payload, org *string
		if err := rows.Scan(&claimed, &p.id, &endpoint, &url, &enabled, &secret, &t.previous, &t.previousUntil,
			&message, &payload, &org); err != nil {
			return nil, 0, err
		}
		if endpoint == nil {
			continue // taken, but no endpoint subscribed any more
		}
		t.endpointID, t.url, t.enabled, t.secret, t.messageID, t.payload, t.org = *endpoint, *url, *enabled, *secret, *message, *payload, *org
		p.t = t
		if p.written = p.id != ""; !p.written {
			p.id = pid.New("whdl")
		}
		due = append(due, p)
	}
	return due, claimed, rows.Err()
}

// holdSQL writes deliveries pending and unattempted. The unique index on (message_id,
// endpoint_id) keeps a delivery from being written twice: a second writer waits for the first
// and writes nothing.
const holdSQL = `INSERT INTO webhook_deliveries (id, created_at, updated_at, organization_id, status, attempts, endpoint_id, message_id)
	SELECT o.id, now(), now(), o.org, 'pending', 0, o.endpoint_id, o.message_id
	FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS o(id, endpoint_id, message_id, org)
	ON CONFLICT (message_id, endpoint_id) DO NOTHING`

// HoldWebhookDeliveries writes the deliveries of due not written yet, pending and unattempted (in
// the scope of ctx, which must cover their organizations): a dispatch does so for those it hands
// to a job (their endpoint is busy, or the first attempt failed), before the job is queued.
func HoldWebhookDeliveries(ctx context.Context, pool *pgxpool.Pool, due []PendingDelivery) error {
	var ids, endpoints, messages, orgs []string
	for _, p := range due {
		if !p.written {
			ids, endpoints, messages = append(ids, p.id), append(endpoints, p.t.endpointID), append(messages, p.t.messageID)
			orgs = append(orgs, p.t.org)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if _, err := pool.Exec(ctx, holdSQL, ids, endpoints, messages, orgs); err != nil {
		return fmt.Errorf("jobs: webhook deliveries: %w", err)
	}
	return nil
}

// FanOutWebhookArgs is the job that fanned a message out before dispatch runs did. Jobs of this
// kind written before the change still run, and do nothing: their messages are dispatched.
type FanOutWebhookArgs struct {
	MessageID      string `json:"message_id"`
	OrganizationID string `json:"organization_id"`
}

// Kind names the job.
func (FanOutWebhookArgs) Kind() string { return "fan_out_webhook" }

// FanOutWebhookWorker completes the fan-out jobs left from before dispatch runs.
type FanOutWebhookWorker struct {
	river.WorkerDefaults[FanOutWebhookArgs]
}

// Work does nothing: the message is in the outbox, and a dispatch run delivers it.
func (*FanOutWebhookWorker) Work(context.Context, *river.Job[FanOutWebhookArgs]) error { return nil }

var (
	_ river.Worker[FanOutWebhookArgs]    = (*FanOutWebhookWorker)(nil)
	_ river.Worker[DispatchWebhooksArgs] = (*DispatchWebhooksWorker)(nil)
)
