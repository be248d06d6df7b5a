package jobs

import (
	"context"
	"encoding/json"
	"errors"
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

// FanOutWebhookWorker writes a message's deliveries (FanOutWebhook), then makes each one's first
// attempt itself, all endpoints at once, and records every success in one statement. Only a
// delivery that fails (or whose endpoint is busy) gets a job of its own (DeliverWebhookArgs),
// which retries it on WebhookBackoff's schedule. The common case — every receiver answers — thus
// costs one job and a handful of statements per message, not a job and two statements per
// endpoint: deliveries compete less with the API's own writes for the database and the CPU.
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
	if err := FanOutWebhook(ctx, w.Pool, job.Args); err != nil {
		return err
	}
	return w.Deliver.firstAttempts(ctx, job.Args)
}

// FanOutWebhook does the first half of a fan-out job's work: it writes the message's deliveries,
// one per endpoint of the organization subscribed to its type, in one transaction, once (a run
// that finds deliveries written adds none). The deliveries are pending and unattempted; the
// worker attempts them next.
func FanOutWebhook(ctx context.Context, pool *pgxpool.Pool, args FanOutWebhookArgs) error {
	ctx = viewer.WithOrganization(ctx, args.OrganizationID)
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	// The row lock serializes two runs of the same job (a rescued one and its original); the
	// deliveries are looked for in the same statement, after the lock is taken (FOR UPDATE
	// re-reads the row, and the subquery runs per locked row).
	var eventType string
	var fanned bool
	err = tx.QueryRow(ctx, `SELECT m.event_type, EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id)
		FROM webhook_messages m WHERE m.id = $1 FOR UPDATE`, args.MessageID).Scan(&eventType, &fanned)
	if errors.Is(err, pgx.ErrNoRows) || fanned {
		return nil // pruned, or fanned out already
	}
	if err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT id FROM webhook_endpoints WHERE organization_id = $1 AND enabled
		AND (event_types = '[]'::jsonb OR event_types ? $2) ORDER BY id`, args.OrganizationID, eventType)
	if err != nil {
		return err
	}
	endpoints, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	if len(endpoints) == 0 {
		return nil // every subscribed endpoint was disabled or deleted meanwhile
	}
	ids := make([]string, len(endpoints))
	for i := range endpoints {
		ids[i] = pid.New("whdl")
	}
	if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (id, created_at, updated_at, organization_id, status,
		attempts, endpoint_id, message_id)
		SELECT d.id, now(), now(), $1, 'pending', 0, d.endpoint_id, $2 FROM unnest($3::text[], $4::text[]) AS d(id, endpoint_id)`,
		args.OrganizationID, args.MessageID, ids, endpoints); err != nil {
		return fmt.Errorf("jobs: webhook deliveries: %w", err)
	}
	return tx.Commit(ctx)
}

var _ river.Worker[FanOutWebhookArgs] = (*FanOutWebhookWorker)(nil)
