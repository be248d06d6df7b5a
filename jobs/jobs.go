// Package jobs holds Podium's background work on River: each kind of job is an …Args struct with
// a stable Kind and a …Worker that performs it. Jobs are inserted with InsertTx in the
// transaction of the change that causes them (see package dbx), so a rolled-back change queues
// nothing and a committed one loses nothing.
package jobs

import (
	"cmp"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/podium/podium/ent/dbx"
)

// Config configures NewClient.
type Config struct {
	// Work runs the workers in this process; false gives a client that only inserts jobs.
	Work bool
	// Sender delivers email; nil logs instead of sending (see LogSender).
	Sender Sender
	// EmailWorkers is how many emails are delivered at once; 0 means DefaultEmailWorkers.
	EmailWorkers int
	// Scorer runs AI reviews (the operation layer); AI jobs are cancelled without one.
	Scorer Scorer
	// Drafter makes agenda drafts (the operation layer); their jobs are cancelled without one.
	Drafter Drafter
	// Informer sends scheduled decision sends (the operation layer); without one their jobs fail
	// and are retried, so a process that lacks it never drops a send.
	Informer Informer
	// Chaser sends chasers (the operation layer); without one nothing chases.
	Chaser Chaser
	// AIWorkers is how many AI reviews run at once; 0 means DefaultAIWorkers.
	AIWorkers int
	// Webhooks configures webhook delivery (see DeliverWebhookWorker).
	Webhooks WebhookConfig
	// Notifier emails an organization's admins about its webhooks (the operation layer);
	// without one, a disabled endpoint is only logged.
	Notifier WebhookNotifier
	// RetryPolicy replaces River's backoff (attempt⁴ seconds); tests shorten it.
	RetryPolicy river.ClientRetryPolicy
	// Files is the file store the file jobs delete from (jobs/files.go); nil leaves the sweep out.
	Files FileObjects
	// Rescuer, when set, learns which jobs this process works, so that its Run can retry those
	// left running with nobody working them within seconds (see Rescuer).
	Rescuer *Rescuer
	// Unsubscribe makes the unsubscribe links campaign emails carry in their List-Unsubscribe
	// header (docs/deliverability.md); nil sends them without the header.
	Unsubscribe *Unsubscribe
	// Tune adjusts River's configuration last; tests use it to poll faster.
	Tune func(*river.Config)
	Log  *slog.Logger
}

// DefaultEmailWorkers is how many deliveries one process works at once (PODIUM_EMAIL_WORKERS
// changes it). A delivery mostly waits — for River's fetch and completion, for its own status
// writes, for the relay — so many more deliveries in flight than cores, and than connections,
// keep PostgreSQL and the relay busy while each one waits (docs/performance.md has the
// measurement). They share at most DefaultSMTPConnections connections to the relay.
const DefaultEmailWorkers = 128

// statusConns bounds the delivery worker's pool for status writes: they are batched (see batch),
// so at most one claim and one outcome statement run at a time.
const statusConns = 4

// fetchCooldown is the shortest pause between two fetches of jobs. River's default (100 ms) caps
// a queue at MaxWorkers jobs per 100 ms, well below what an SMTP relay on the same network
// takes; fetching again as soon as workers free up removes that ceiling.
// Fetches only happen this often while jobs keep completing.
const fetchCooldown = 2 * time.Millisecond

// rescueAfter is how long a job may stay running before River takes it for the job of a crashed
// process and runs it again. River's default is an hour; it must exceed the longest job timeout
// of the jobs it is for (AIReviewWorker's three minutes). Emails, and jobs stranded in a live
// process, are rescued sooner by the Rescuer.
const rescueAfter = 5 * time.Minute

// NewClient returns the River client of db's pool, with every worker registered.
func NewClient(db *dbx.DB, cfg Config) (*river.Client[pgx.Tx], error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Sender == nil {
		cfg.Sender = LogSender{Log: cfg.Log}
	}
	if cfg.EmailWorkers <= 0 {
		cfg.EmailWorkers = DefaultEmailWorkers
	}
	if cfg.AIWorkers <= 0 {
		cfg.AIWorkers = DefaultAIWorkers
	}
	// Email outcomes commit durably, email claims and webhook successes asynchronously (see
	// DeliverEmailWorker and DeliverWebhookWorker.Records).
	outcomePool, err := db.DurablePool(statusConns)
	if err != nil {
		return nil, fmt.Errorf("jobs: status pool: %w", err)
	}
	claimPool, err := db.AsyncPool(statusConns)
	if err != nil {
		return nil, fmt.Errorf("jobs: claim pool: %w", err)
	}
	// Webhook successes of several organizations share a statement: system work.
	successPool, err := db.SystemAsyncPool(statusConns)
	if err != nil {
		return nil, fmt.Errorf("jobs: webhook success pool: %w", err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &DeliverEmailWorker{Pool: outcomePool, ClaimPool: claimPool, Sender: cfg.Sender,
		Log: cfg.Log, Tokens: db.Pool, Unsubscribe: cfg.Unsubscribe})
	river.AddWorker(workers, &AIReviewWorker{Scorer: cfg.Scorer})
	river.AddWorker(workers, &AgendaDraftWorker{Drafter: cfg.Drafter})
	river.AddWorker(workers, &InformDecisionsWorker{Informer: cfg.Informer})
	river.AddWorker(workers, &SendChasersWorker{Chaser: cfg.Chaser})
	river.AddWorker(workers, &PruneIdempotencyWorker{Pool: db.System})
	river.AddWorker(workers, &PruneWebhooksWorker{Pool: db.System, Retention: cfg.Webhooks.Retention})
	river.AddWorker(workers, &PruneChangesWorker{Pool: db.System})
	deliverWebhooks := &DeliverWebhookWorker{Pool: db.Pool, Records: successPool, DB: db, Notifier: cfg.Notifier,
		Config: cfg.Webhooks, Log: cfg.Log}
	river.AddWorker(workers, deliverWebhooks)
	river.AddWorker(workers, &DispatchWebhooksWorker{Pool: db.System, Deliver: deliverWebhooks})
	river.AddWorker(workers, &FanOutWebhookWorker{})
	river.AddWorker(workers, &DeleteFileWorker{Pool: db.Pool, Files: cfg.Files})
	river.AddWorker(workers, &SweepFilesWorker{Pool: db.Pool, Files: cfg.Files})

	rc := &river.Config{Logger: cfg.Log, Workers: workers, RetryPolicy: cfg.RetryPolicy, FetchCooldown: fetchCooldown,
		RescueStuckJobsAfter: rescueAfter, Middleware: []rivertype.Middleware{&telemetry{}}}
	if cfg.Rescuer != nil {
		rc.Middleware = append(rc.Middleware, cfg.Rescuer.middleware())
	}
	if cfg.Work {
		rc.Queues = map[string]river.QueueConfig{
			EmailQueue:       {MaxWorkers: cfg.EmailWorkers},
			AIQueue:          {MaxWorkers: cfg.AIWorkers},
			MaintenanceQueue: {MaxWorkers: 1},
			WebhookQueue:     {MaxWorkers: cmp.Or(cfg.Webhooks.Workers, DefaultWebhookWorkers)},
		}
		rc.PeriodicJobs = append(periodicJobs(), webhookPeriodicJobs()...)
		if cfg.Chaser != nil {
			rc.PeriodicJobs = append(rc.PeriodicJobs, chaserPeriodicJobs()...)
		}
		if cfg.Files != nil {
			rc.PeriodicJobs = append(rc.PeriodicJobs, filePeriodicJobs()...)
		}
	}
	if cfg.Tune != nil {
		cfg.Tune(rc)
	}
	client, err := river.NewClient(riverpgxv5.New(db.Pool), rc)
	if err != nil {
		return nil, fmt.Errorf("jobs: river client: %w", err)
	}
	return client, nil
}
