package jobs

import (
	"context"
	"encoding/json"
	"fmt"
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
// subscribes to its type: the check and the write are one statement, so an emitting write with
// no endpoint subscribed costs one round trip and writes nothing. Endpoints are read here, in the
// write's own transaction, never from a cache that another instance could make stale.
const emitSQL = `INSERT INTO webhook_messages (id, created_at, updated_at, organization_id, event_type, payload)
	SELECT $1::text, $2::timestamptz, $2::timestamptz, $3::text, $4::text, $5::text WHERE EXISTS (SELECT 1 FROM webhook_endpoints
		WHERE organization_id = $3::text AND enabled AND (event_types = '[]'::jsonb OR event_types ? $4::text))`

// EmitWebhook records an event of the organization org in tx — the transaction of the change it
// reports, so that the message commits or rolls back with it (the outbox). When an endpoint is
// subscribed it writes the message and ONE fan-out job (FanOutWebhookArgs), whatever the number
// of endpoints: the per-endpoint deliveries are written and first attempted after the commit by
// FanOutWebhookWorker, so that the change's transaction stays as short with five endpoints as
// with one.
func EmitWebhook(ctx context.Context, tx pgx.Tx, jobs *river.Client[pgx.Tx], org, eventType string, data any) error {
	now := time.Now().UTC()
	payload, err := json.Marshal(map[string]any{"type": eventType, "version": WebhookPayloadVersion,
		"timestamp": now.Format(time.RFC3339Nano), "data": data})
	if err != nil {
		return fmt.Errorf("jobs: webhook payload: %w", err)
	}
	id := pid.New("msg")
	tag, err := tx.Exec(ctx, emitSQL, id, now, org, eventType, string(payload))
	if err != nil {
		return fmt.Errorf("jobs: webhook message: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	if _, err := jobs.InsertTx(ctx, tx, FanOutWebhookArgs{MessageID: id, OrganizationID: org}, nil); err != nil {
		return fmt.Errorf("jobs: queue webhook fan-out: %w", err)
	}
	return nil
}

// FanOutWebhookArgs asks for a message's deliveries to be written, one per endpoint subscribed to
// its type, and first attempted. It is inserted with the message.
type FanOutWebhookArgs struct {
	MessageID      string `json:"message_id"`
	OrganizationID string `json:"organization_id"`
}

// Kind names the job.
func (FanOutWebhookArgs) Kind() string { return "fan_out_webhook" }

// InsertOpts puts fan-outs on the webhook queue.
func (FanOutWebhookArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: WebhookQueue, MaxAttempts: WebhookMaxAttempts}
}

// MaxWebhookEndpoints bounds an organization's endpoints (the operation layer refuses more): each
// one multiplies the rows every change writes.
const MaxWebhookEndpoints = 20

// FanOutWebhookWorker writes a message's deliveries and makes each one's first attempt itself,
// all endpoints at once, recording every success in one statement. Only a delivery that fails
// (or whose endpoint is busy) gets a job of its own (DeliverWebhookArgs), which retries it on
// WebhookBackoff's schedule. The common case — every receiver answers — thus costs one job and
// two statements per message (FanOutWebhook's and the successes'), not a job and two statements
// per endpoint: deliveries compete less with the API's own writes for the database and the CPU.
//
// The job stays running until the attempts are recorded. If the process dies before, River
// rescues the job and the run after finds the deliveries written and still unattempted, and
// attempts them: a receiver may get a message twice, with the same webhook-id.
type FanOutWebhookWorker struct {
	river.WorkerDefaults[FanOutWebhookArgs]
	Pool *pgxpool.Pool
	// Deliver makes and records the attempts (its configuration, HTTP client and per-endpoint
	// limits are shared with the retries).
	Deliver *DeliverWebhookWorker
}

// Timeout leaves room for the attempts' own timeout and the records around them.
func (w *FanOutWebhookWorker) Timeout(*river.Job[FanOutWebhookArgs]) time.Duration {
	w.Deliver.once.Do(w.Deliver.init)
	return w.Deliver.Config.Timeout + 30*time.Second
}

// Work fans one message out and makes the first attempts.
func (w *FanOutWebhookWorker) Work(ctx context.Context, job *river.Job[FanOutWebhookArgs]) error {
	todo, err := FanOutWebhook(ctx, w.Pool, job.Args)
	if err != nil {
		return err
	}
	return w.Deliver.firstAttempts(ctx, job.Args, todo)
}

// fanOutSQL writes message $1's deliveries, one per endpoint of its organization enabled and
// subscribed to its type, with the ids $2 (one per endpoint, in endpoint order), and returns every
// delivery of the message still pending and unattempted with what its attempt needs. The unique
// index on (message_id, endpoint_id) makes a second run write nothing again: it waits for the
// first run's rows and skips them. Rows the first run wrote and left unattempted (it died
// before) are found by the second part, which sees what committed before the statement began.
const fanOutSQL = `WITH ins AS (
	INSERT INTO webhook_deliveries (id, created_at, updated_at, organization_id, status, attempts, endpoint_id, message_id)
	SELECT ($2::text[])[row_number() OVER (ORDER BY e.id)], now(), now(), m.organization_id, 'pending', 0, e.id, m.id
	FROM webhook_messages m JOIN webhook_endpoints e ON e.organization_id = m.organization_id AND e.enabled
		AND (e.event_types = '[]'::jsonb OR e.event_types ? m.event_type)
	WHERE m.id = $1
	ON CONFLICT (message_id, endpoint_id) DO NOTHING
	RETURNING id, endpoint_id, message_id
), todo AS (
	SELECT id, endpoint_id, message_id FROM ins
	UNION
	SELECT d.id, d.endpoint_id, d.message_id FROM webhook_deliveries d
	WHERE d.message_id = $1 AND d.status = 'pending' AND d.attempts = 0
)
SELECT t.id, e.id, e.url, e.enabled, e.secret, e.previous_secret, e.previous_secret_expires_at, m.id, m.payload
FROM todo t JOIN webhook_endpoints e ON e.id = t.endpoint_id JOIN webhook_messages m ON m.id = t.message_id
ORDER BY t.id`

// PendingDelivery is a delivery waiting for its first attempt, as FanOutWebhook returns it.
type PendingDelivery struct {
	id string
	t  webhookTarget
}

// FanOutWebhook does the first half of a fan-out job's work, in one statement: it writes the
// message's deliveries, one per endpoint of the organization subscribed to its type, once (a run
// that finds them written adds none), and returns those still unattempted, which the worker
// attempts next.
func FanOutWebhook(ctx context.Context, pool *pgxpool.Pool, args FanOutWebhookArgs) ([]PendingDelivery, error) {
	ctx = viewer.WithOrganization(ctx, args.OrganizationID)
	ids := make([]string, MaxWebhookEndpoints)
	for i := range ids {
		ids[i] = pid.New("whdl")
	}
	rows, err := pool.Query(ctx, fanOutSQL, args.MessageID, ids)
	if err != nil {
		return nil, fmt.Errorf("jobs: webhook deliveries: %w", err)
	}
	defer rows.Close()
	var todo []PendingDelivery
	for rows.Next() {
		var p PendingDelivery
		if err := rows.Scan(&p.id, &p.t.endpointID, &p.t.url, &p.t.enabled, &p.t.secret, &p.t.previous,
			&p.t.previousUntil, &p.t.messageID, &p.t.payload); err != nil {
			return nil, err
		}
		todo = append(todo, p)
	}
	return todo, rows.Err()
}

var _ river.Worker[FanOutWebhookArgs] = (*FanOutWebhookWorker)(nil)
