package jobs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
)

// WebhookQueue is the queue webhook deliveries run on, apart from email: a slow receiver must not
// hold up mail, nor a slow relay webhooks.
const WebhookQueue = "webhook"

// Webhook delivery defaults (docs/webhooks.md). Each is a field of WebhookConfig.
const (
	// DefaultWebhookWorkers is how many deliveries one process makes at once.
	DefaultWebhookWorkers = 32
	// DefaultWebhookPerEndpoint is how many deliveries to one endpoint run at once in a process,
	// so that one slow receiver cannot take every worker and a receiver is not flooded after an
	// outage.
	DefaultWebhookPerEndpoint = 4
	// DefaultWebhookTimeout bounds one attempt, connection to last byte.
	DefaultWebhookTimeout = 15 * time.Second
	// DefaultWebhookDisableAfter is how long an endpoint may keep failing, with no success in
	// between, before Podium disables it.
	DefaultWebhookDisableAfter = 5 * 24 * time.Hour
	// DefaultRetryGivenUpEvery is how often a process looks for dispatch runs that gave up.
	DefaultRetryGivenUpEvery = time.Minute
	// WebhookMaxAttempts is the attempts of one delivery: with WebhookBackoff's schedule
	// (15 s, 45 s, 2¼ min, … tripling, at most a day) the last of 10 comes about 38 hours after the first.
	WebhookMaxAttempts = 10
	// webhookResponseCap is how much of a response is read: enough for an error message in the
	// delivery log, not enough for a hostile receiver to fill memory.
	webhookResponseCap = 4 << 10
	// successLinger is how long a success about to be written waits for the deliveries still
	// sending, to share their statement: a statement of 8 rows costs twice as much per row as one
	// of 32 (BenchmarkWebhookSuccessRows). Each waiting delivery keeps its endpoint's place, so the
	// wait adds to a delivery's time and not to the duplicates a crash can cause.
	successLinger = 5 * time.Millisecond
)

// WebhookBackoff is the wait before attempt+1 after attempt failed: 15 s, tripling each time, so
// that a receiver down for minutes is retried within minutes and one down for hours is retried for
// about a day and a half, without a storm when it comes back.
func WebhookBackoff(attempt int) time.Duration {
	d := 15 * time.Second
	for i := 1; i < attempt && d < 24*time.Hour; i++ {
		d *= 3
	}
	return min(d, 24*time.Hour)
}

// WebhookConfig configures webhook delivery.
type WebhookConfig struct {
	// Network says which URLs may be reached (SSRF protection).
	Network WebhookNetwork
	// Workers, PerEndpoint, Timeout and DisableAfter default to the Default… constants.
	Workers      int
	PerEndpoint  int
	Timeout      time.Duration
	DisableAfter time.Duration
	// Backoff replaces WebhookBackoff; the reliability tests shorten it.
	Backoff func(attempt int) time.Duration
	// Retention is how long messages and their delivery log are kept (PruneWebhooksWorker);
	// DefaultWebhookRetention when zero.
	Retention time.Duration
	// RetryGivenUpEvery is how often a process looks for dispatch runs that gave up
	// (retryGivenUp, in a dispatch run); DefaultRetryGivenUpEvery when zero.
	RetryGivenUpEvery time.Duration
}

// DeliverWebhookArgs asks for one delivery (a message to an endpoint) to be attempted: a retry of
// a first attempt that failed (FanOutWebhookWorker), or a redelivery an organization asked for.
type DeliverWebhookArgs struct {
	DeliveryID     string `json:"delivery_id"`
	OrganizationID string `json:"organization_id"`
	// PriorAttempts counts the attempts made before the job: its attempt n is the delivery's
	// attempt PriorAttempts+n, which sets the wait before the next (WebhookBackoff).
	PriorAttempts int `json:"prior_attempts,omitempty"`
}

// Kind names the job.
func (DeliverWebhookArgs) Kind() string { return "deliver_webhook" }

// InsertOpts puts deliveries on their queue with their schedule of attempts.
func (DeliverWebhookArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: WebhookQueue, MaxAttempts: WebhookMaxAttempts}
}

// DeliverWebhookWorker POSTs a message to an endpoint, signed per Standard Webhooks, and records
// the attempt in the delivery log. A delivery that succeeded is never sent again by its job;
// a crash between the receiver's answer and the record sends it again, with the same webhook-id,
// which receivers deduplicate on.
type DeliverWebhookWorker struct {
	river.WorkerDefaults[DeliverWebhookArgs]
	Pool *pgxpool.Pool
	// Records writes the deliveries that succeeded, system work (dbx.DB.SystemAsyncPool; DB.System
	// or Pool when nil): their commits need not wait for the disk. Losing the last of them in a crash of the database server only
	// repeats a delivery, with the same webhook-id: the job that made it completes in a later,
	// durable commit, which makes them durable too, or it runs again.
	Records *pgxpool.Pool
	// DB records attempts, in transactions the Notifier can queue email in.
	DB *dbx.DB
	// Notifier, when set, tells the organization's admins that an endpoint was disabled.
	Notifier WebhookNotifier
	Config   WebhookConfig
	Log      *slog.Logger

	once   sync.Once
	client *http.Client
	mu     sync.Mutex
	// busy counts the deliveries running per endpoint (Config.PerEndpoint), taken all of them.
	busy  map[string]int
	taken int
	// successes batches the writes of successful attempts.
	successes *batch[success, struct{}]
}

// success is an attempt that succeeded, as the delivery log records it.
type success struct {
	id, endpointID, messageID, org string
	code                           int
	latency                        time.Duration
}

func (w *DeliverWebhookWorker) init() {
	if w.Config.PerEndpoint <= 0 {
		w.Config.PerEndpoint = DefaultWebhookPerEndpoint
	}
	if w.Config.Timeout <= 0 {
		w.Config.Timeout = DefaultWebhookTimeout
	}
	if w.Config.DisableAfter <= 0 {
		w.Config.DisableAfter = DefaultWebhookDisableAfter
	}
	if w.Config.Backoff == nil {
		w.Config.Backoff = WebhookBackoff
	}
	if w.Config.RetryGivenUpEvery <= 0 {
		w.Config.RetryGivenUpEvery = DefaultRetryGivenUpEvery
	}
	if w.Log == nil {
		w.Log = slog.Default()
	}
	if w.Records == nil && w.DB != nil {
		w.Records = w.DB.System
	}
	if w.Records == nil {
		w.Records = w.Pool
	}
	w.client = w.Config.Network.Client(w.Config.Timeout)
	w.busy = make(map[string]int)
	w.successes = &batch[success, struct{}]{exec: w.recordSuccesses, expect: w.placesTaken, linger: successLinger}
}

// Timeout leaves room for the attempt's own timeout and the records around it.
func (w *DeliverWebhookWorker) Timeout(*river.Job[DeliverWebhookArgs]) time.Duration {
	w.once.Do(w.init)
	return w.Config.Timeout + 30*time.Second
}

// NextRetry schedules the next attempt by Config.Backoff.
func (w *DeliverWebhookWorker) NextRetry(job *river.Job[DeliverWebhookArgs]) time.Time {
	w.once.Do(w.init)
	return time.Now().Add(w.Config.Backoff(job.Args.PriorAttempts + job.Attempt))
}

// acquire takes one of the endpoint's places, or reports that all are taken.
func (w *DeliverWebhookWorker) acquire(endpoint string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.busy[endpoint] >= w.Config.PerEndpoint {
		return false
	}
	w.busy[endpoint]++
	w.taken++
	return true
}

func (w *DeliverWebhookWorker) release(endpoint string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.busy[endpoint]--; w.busy[endpoint] <= 0 {
		delete(w.busy, endpoint)
	}
	w.taken--
}

// placesTaken is how many deliveries hold an endpoint's place in this process: each is sending,
// or recording its outcome. Those that succeed will all want the same statement.
func (w *DeliverWebhookWorker) placesTaken() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.taken
}

// WebhookNotifier tells an organization about its webhooks (the operation layer implements it).
type WebhookNotifier interface {
	// WebhookDisabled queues, in the transaction of ctx (package dbx), the email telling the
	// organization's owners and admins that Podium disabled the endpoint, failing since
	// failingSince, for reason. It returns an error only when the transaction failed: the
	// endpoint is disabled whether or not someone could be told.
	WebhookDisabled(ctx context.Context, endpointID, reason string, failingSince time.Time) error
}

// webhookTarget is what one attempt needs.
type webhookTarget struct {
	status, endpointID, url, secret string
	enabled                         bool
	previous                        *string
	previousUntil                   *time.Time
	messageID, payload, org         string
}

const webhookTargetSQL = `SELECT d.status, e.id, e.url, e.enabled, e.secret, e.previous_secret,
	e.previous_secret_expires_at, m.id, m.payload
	FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
	JOIN webhook_messages m ON m.id = d.message_id WHERE d.id = $1`

// Work makes one attempt.
func (w *DeliverWebhookWorker) Work(ctx context.Context, job *river.Job[DeliverWebhookArgs]) error {
	w.once.Do(w.init)
	id := job.Args.DeliveryID
	ctx = viewer.WithOrganization(ctx, job.Args.OrganizationID)
	var t webhookTarget
	err := w.pool(ctx).QueryRow(ctx, webhookTargetSQL, id).Scan(&t.status, &t.endpointID, &t.url, &t.enabled,
		&t.secret, &t.previous, &t.previousUntil, &t.messageID, &t.payload)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // deleted with its endpoint
	}
	if err != nil {
		return err
	}
	if t.status == "succeeded" {
		return nil
	}
	t.org = job.Args.OrganizationID
	if !t.enabled {
		return w.failDisabled(ctx, id)
	}
	if !w.acquire(t.endpointID) {
		// River's snooze does not use up an attempt.
		return river.JobSnooze(time.Second)
	}
	defer w.release(t.endpointID)

	code, latency, sendErr := w.send(ctx, t)
	if sendErr == nil {
		return w.recordSuccess(ctx, success{id: id, endpointID: t.endpointID, messageID: t.messageID, org: t.org,
			code: code, latency: latency})
	}
	final, err := w.recordFailure(ctx, id, job.Attempt, t, code, latency, sendErr, job.Attempt >= job.MaxAttempts, nil)
	if err != nil {
		return errors.Join(sendErr, err)
	}
	if final {
		return river.JobCancel(sendErr)
	}
	return sendErr
}

// send makes the HTTP request and returns the response code (0 when there was none) and latency.
func (w *DeliverWebhookWorker) send(ctx context.Context, t webhookTarget) (int, time.Duration, error) {
	now := time.Now()
	secrets := []string{t.secret}
	if t.previous != nil && t.previousUntil != nil && now.Before(*t.previousUntil) {
		secrets = append(secrets, *t.previous)
	}
	sig, err := SignWebhook(secrets, t.messageID, now, []byte(t.payload))
	if err != nil {
		return 0, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, strings.NewReader(t.payload))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Podium-Webhooks/1")
	req.Header.Set("webhook-id", t.messageID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := w.client.Do(req)
	latency := time.Since(now)
	if err != nil {
		return 0, latency, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, webhookResponseCap))
	latency = time.Since(now)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := strings.TrimSpace(string(bytes.ToValidUTF8(body, nil)))
		if len(msg) > 500 {
			msg = msg[:500]
		}
		return resp.StatusCode, latency, fmt.Errorf("receiver answered %d %s", resp.StatusCode, msg)
	}
	return resp.StatusCode, latency, nil
}

// recordSuccess writes a successful attempt to the delivery log, together with those of the other
// deliveries finishing at the moment (see batch), whatever their organizations.
func (w *DeliverWebhookWorker) recordSuccess(ctx context.Context, s success) error {
	// The outcome is recorded even if the job's context ran out during the request.
	_, err := w.successes.do(context.WithoutCancel(viewer.System(ctx, "webhook delivery log")), s)
	return err
}

// successSQL writes successful attempts, one row per delivery — a first attempt's row is new, a
// retry's exists — and that their endpoints are not failing any more, in one statement however
// many there are.
const successSQL = `WITH d AS (INSERT INTO webhook_deliveries AS w (id, created_at, updated_at, organization_id,
		status, attempts, response_code, latency_ms, delivered_at, endpoint_id, message_id)
	SELECT o.id, now(), now(), o.org, 'succeeded', 1, o.code, o.ms, now(), o.endpoint_id, o.message_id
	FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[]) AS o(id, endpoint_id, message_id, org, code, ms)
	ON CONFLICT (message_id, endpoint_id) DO UPDATE SET status = 'succeeded', attempts = w.attempts + 1,
		response_code = excluded.response_code, latency_ms = excluded.latency_ms, error = NULL,
		delivered_at = now(), updated_at = now()
	RETURNING w.endpoint_id)
UPDATE webhook_endpoints e SET failing_since = NULL, updated_at = now()
FROM (SELECT DISTINCT endpoint_id FROM d) x WHERE e.id = x.endpoint_id AND e.failing_since IS NOT NULL`

// recordSuccesses runs successSQL, in the system scope: successes of several organizations share
// a statement.
func (w *DeliverWebhookWorker) recordSuccesses(ctx context.Context, ss []success) ([]struct{}, error) {
	var ids, endpoints, messages, orgs []string
	var codes, ms []int
	seen := make(map[[2]string]bool, len(ss))
	for _, s := range ss {
		// A statement may change a row once: a delivery made twice at once (a rescued run beside
		// the retry of one of its deliveries) is written once.
		if k := [2]string{s.messageID, s.endpointID}; !seen[k] {
			seen[k] = true
			ids, endpoints, messages, orgs = append(ids, s.id), append(endpoints, s.endpointID), append(messages, s.messageID), append(orgs, s.org)
			codes, ms = append(codes, s.code), append(ms, int(s.latency.Milliseconds()))
		}
	}
	if _, err := w.Records.Exec(ctx, successSQL, ids, endpoints, messages, orgs, codes, ms); err != nil {
		return nil, fmt.Errorf("jobs: webhook deliveries: %w", err)
	}
	return make([]struct{}, len(ss)), nil
}

// recordFailure writes a failed attempt (the attempt-th) to the delivery log and the endpoint's
// health, disabling an endpoint that has failed for Config.DisableAfter, all in one transaction;
// then, when set, runs in that transaction too (the first attempt queues its retry there). It
// reports whether the delivery is over: final, or its endpoint was disabled.
func (w *DeliverWebhookWorker) recordFailure(ctx context.Context, id string, attempt int, t webhookTarget,
	code int, latency time.Duration, sendErr error, final bool, then func(pgx.Tx) error) (bool, error) {
	ctx = context.WithoutCancel(ctx)
	status := "pending"
	if final {
		status = "failed"
	}
	errText := sendErr.Error()
	var codePtr *int
	if code != 0 {
		codePtr = &code
	}
	dtx, err := w.DB.Begin(ctx)
	if err != nil {
		return final, err
	}
	defer func() { _ = dtx.Rollback() }()
	tx := dtx.PGX()
	if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = $2::text, attempts = attempts + 1,
		response_code = $3, latency_ms = $4, error = $5, updated_at = now()
		WHERE id = $1`, id, status, codePtr, int(latency.Milliseconds()), errText); err != nil {
		return final, err
	}
	var failingSince time.Time
	if err := tx.QueryRow(ctx, `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now())
		WHERE id = $1 RETURNING failing_since`, t.endpointID).Scan(&failingSince); err != nil {
		return final, err
	}
	if time.Since(failingSince) >= w.Config.DisableAfter {
		reason := fmt.Sprintf("every delivery failed since %s; last error: %s",
			failingSince.UTC().Format(time.RFC3339), errText)
		tag, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2,
			updated_at = now() WHERE id = $1 AND enabled`, t.endpointID, reason)
		if err != nil {
			return final, err
		}
		if tag.RowsAffected() == 1 {
			w.Log.WarnContext(ctx, "webhook endpoint disabled", "endpoint_id", t.endpointID, "reason", reason)
			if w.Notifier != nil {
				// The email commits with the endpoint's disabling, and only then.
				if err := w.Notifier.WebhookDisabled(dbx.NewContext(ctx, dtx), t.endpointID, reason, failingSince); err != nil {
					return final, err
				}
			}
		}
		final = true
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, id); err != nil {
			return final, err
		}
	}
	if !final && then != nil {
		if err := then(tx); err != nil {
			return final, err
		}
	}
	if err := dtx.Commit(); err != nil {
		return final, err
	}
	w.Log.InfoContext(ctx, "webhook delivery failed", "delivery_id", id,
		"endpoint_id", t.endpointID, "attempt", attempt, "final", final, "err", sendErr)
	return final, nil
}

// dispatch makes the first attempt of each delivery in due and records it. Each endpoint's
// deliveries go in due's order (oldest message first) through at most Config.PerEndpoint lanes,
// each holding one of the endpoint's places in this process: a delivery finds no place when
// retries or another run hold them, and goes to a job instead. Once an attempt to an endpoint
// fails, its deliveries left in due go to jobs too, without an attempt: a receiver that is down or
// slow costs the run one timeout per lane, not one per message.
func (w *DeliverWebhookWorker) dispatch(ctx context.Context, due []PendingDelivery) error {
	byEndpoint := make(map[string][]PendingDelivery)
	var order []string
	for _, p := range due {
		if _, ok := byEndpoint[p.t.endpointID]; !ok {
			order = append(order, p.t.endpointID)
		}
		byEndpoint[p.t.endpointID] = append(byEndpoint[p.t.endpointID], p)
	}
	var (
		mu       sync.Mutex
		errs     []error
		handOver []PendingDelivery
		wg       sync.WaitGroup
	)
	for _, endpoint := range order {
		queue := byEndpoint[endpoint]
		var next int
		failed := false
		take := func() (PendingDelivery, bool, bool) {
			mu.Lock()
			defer mu.Unlock()
			if next == len(queue) {
				return PendingDelivery{}, false, false
			}
			p := queue[next]
			next++
			return p, true, failed
		}
		for range min(w.Config.PerEndpoint, len(queue)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					p, ok, skip := take()
					if !ok {
						return
					}
					var err error
					switch {
					case !p.t.enabled: // only a delivery written already has a disabled endpoint
						err = w.failDisabled(ctx, p.id)
					case skip || !w.acquire(endpoint):
						mu.Lock()
						handOver = append(handOver, p)
						mu.Unlock()
						continue
					default:
						var sent bool
						sent, err = w.firstAttempt(ctx, p)
						w.release(endpoint)
						if !sent {
							mu.Lock()
							failed = true
							mu.Unlock()
						}
					}
					if err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				}
			}()
		}
	}
	wg.Wait()
	if len(handOver) > 0 {
		errs = append(errs, w.handOver(ctx, handOver))
	}
	return errors.Join(errs...)
}

// pool is the pool for ctx's work: a dispatch run's statements are system work (dbx.DB.PoolFor).
func (w *DeliverWebhookWorker) pool(ctx context.Context) *pgxpool.Pool {
	if w.DB != nil {
		return w.DB.PoolFor(ctx)
	}
	return w.Pool
}

// handOver writes deliveries pending and gives each a job that makes its first attempt.
func (w *DeliverWebhookWorker) handOver(ctx context.Context, due []PendingDelivery) error {
	if err := HoldWebhookDeliveries(ctx, w.pool(ctx), due); err != nil {
		return err
	}
	params := make([]river.InsertManyParams, len(due))
	for i, p := range due {
		params[i] = river.InsertManyParams{Args: DeliverWebhookArgs{DeliveryID: p.id, OrganizationID: p.t.org}}
	}
	_, err := river.ClientFromContext[pgx.Tx](ctx).InsertMany(ctx, params)
	return err
}

// firstAttempt makes a delivery's first attempt and records it, and reports whether the receiver
// took it. A failure writes the delivery (when it was not) and records the failed attempt with
// the job that retries it.
func (w *DeliverWebhookWorker) firstAttempt(ctx context.Context, p PendingDelivery) (bool, error) {
	code, latency, sendErr := w.send(ctx, p.t)
	if sendErr == nil {
		return true, w.recordSuccess(ctx, success{id: p.id, endpointID: p.t.endpointID, messageID: p.t.messageID,
			org: p.t.org, code: code, latency: latency})
	}
	ctx = context.WithoutCancel(ctx)
	if err := HoldWebhookDeliveries(ctx, w.pool(ctx), []PendingDelivery{p}); err != nil {
		return false, errors.Join(sendErr, err)
	}
	jobs := river.ClientFromContext[pgx.Tx](ctx)
	retry := func(tx pgx.Tx) error {
		_, err := jobs.InsertTx(ctx, tx, DeliverWebhookArgs{DeliveryID: p.id, OrganizationID: p.t.org, PriorAttempts: 1},
			&river.InsertOpts{ScheduledAt: time.Now().Add(w.Config.Backoff(1)), MaxAttempts: max(WebhookMaxAttempts-1, 1)})
		return err
	}
	_, err := w.recordFailure(viewer.WithOrganization(ctx, p.t.org), p.id, 1, p.t, code, latency, sendErr,
		WebhookMaxAttempts <= 1, retry)
	return false, err
}

// errEndpointDisabled marks a delivery whose endpoint was disabled before it was attempted.
var errEndpointDisabled = errors.New("endpoint disabled")

// failDisabled ends a delivery whose endpoint was disabled before it was attempted.
func (w *DeliverWebhookWorker) failDisabled(ctx context.Context, id string) error {
	_, err := w.pool(ctx).Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed', error = $2,
		updated_at = now() WHERE id = $1`, id, errEndpointDisabled.Error())
	return err
}

// SignWebhook returns the webhook-signature header of a message per Standard Webhooks: for each
// secret ("whsec_" and base64 of the key), "v1," and the base64 HMAC-SHA256 of
// "id.timestamp.body", separated by spaces. Two secrets are used while a rotated one is in its
// grace period.
func SignWebhook(secrets []string, id string, at time.Time, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if err != nil {
			return "", fmt.Errorf("jobs: webhook secret: %w", err)
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}

// NewWebhookSecret returns a fresh signing secret: "whsec_" and the base64 of 24 random bytes,
// as Standard Webhooks recommends (between 24 and 64 bytes).
func NewWebhookSecret() string {
	key := make([]byte, 24)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	return "whsec_" + base64.StdEncoding.EncodeToString(key)
}
