package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/emaillog"
)

// EmailQueue is the queue email deliveries run on.
const EmailQueue = "email"

// DeliverEmailArgs asks for one email of the email log to be delivered. It is inserted in the
// transaction that writes the email log row (see package graph/email), never on its own.
type DeliverEmailArgs struct {
	EmailID string `json:"email_id"`
}

// Kind names the job.
func (DeliverEmailArgs) Kind() string { return "deliver_email" }

// InsertOpts puts deliveries on their queue with enough attempts for a long outage: with River's
// backoff (attempt⁴ seconds), ten attempts span about four hours.
func (DeliverEmailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: EmailQueue, MaxAttempts: 10}
}

// DeliverEmailWorker sends an email and records the outcome on its email log row:
// queued → sending → sent, or failed after a permanent refusal or the last attempt. A row already
// sent is never sent again, however often its job runs.
type DeliverEmailWorker struct {
	river.WorkerDefaults[DeliverEmailArgs]
	// Pool records outcomes. Its sessions may commit asynchronously (see NewClient): River then
	// completes the job with a synchronous commit, and PostgreSQL's log is written in order, so
	// whenever the job's completion survives a crash, the outcome recorded before it does too.
	Pool   *pgxpool.Pool
	Sender Sender
	Log    *slog.Logger

	once     sync.Once
	claims   *batch[string, *Message]
	outcomes *batch[outcome, struct{}]
}

// outcome is what a delivery attempt records.
type outcome struct {
	id, status, provider string
	providerID, err      *string
}

// The worker's two statements, each serving every delivery running at the moment (see batch):
// claim the rows and read their messages; record the outcomes.
var (
	claimSQL = `UPDATE ` + emaillog.Table + ` SET status = 'sending', updated_at = now()
		WHERE id = ANY($1) AND status <> 'sent'
		RETURNING id, recipient, subject, body, html_body, ics_attached, ics_content`
	outcomeSQL = `UPDATE ` + emaillog.Table + ` AS e SET status = v.status, provider = v.provider,
		provider_id = COALESCE(v.provider_id, e.provider_id), error = v.error,
		sent_at = CASE WHEN v.status = 'sent' THEN now() ELSE e.sent_at END, updated_at = now()
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS v(id, status, provider, provider_id, error)
		WHERE e.id = v.id`
)

func (w *DeliverEmailWorker) init() {
	w.claims = &batch[string, *Message]{exec: w.claim}
	w.outcomes = &batch[outcome, struct{}]{exec: w.record}
}

// claim moves the rows not yet sent to sending and returns their messages; ids of rows already
// sent (or deleted with their event) get nil.
func (w *DeliverEmailWorker) claim(ctx context.Context, ids []string) ([]*Message, error) {
	rows, err := w.Pool.Query(ctx, claimSQL, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := make(map[string]*Message, len(ids))
	for rows.Next() {
		m := &Message{}
		var icsAttached bool
		var ics *string
		if err := rows.Scan(&m.ID, &m.To, &m.Subject, &m.Text, &m.HTML, &icsAttached, &ics); err != nil {
			return nil, err
		}
		if icsAttached && ics != nil {
			m.ICS, m.ICSMethod = *ics, icsMethod(*ics)
		}
		byID[m.ID] = m
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]*Message, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out, nil
}

// record writes outcomes.
func (w *DeliverEmailWorker) record(ctx context.Context, outs []outcome) ([]struct{}, error) {
	n := len(outs)
	ids, statuses, providers := make([]string, n), make([]string, n), make([]string, n)
	providerIDs, errs := make([]*string, n), make([]*string, n)
	for i, o := range outs {
		ids[i], statuses[i], providers[i], providerIDs[i], errs[i] = o.id, o.status, o.provider, o.providerID, o.err
	}
	_, err := w.Pool.Exec(ctx, outcomeSQL, ids, statuses, providers, providerIDs, errs)
	return make([]struct{}, n), err
}

// Timeout bounds one delivery attempt.
func (w *DeliverEmailWorker) Timeout(*river.Job[DeliverEmailArgs]) time.Duration { return time.Minute }

// Work delivers one email.
func (w *DeliverEmailWorker) Work(ctx context.Context, job *river.Job[DeliverEmailArgs]) error {
	w.once.Do(w.init)
	id := job.Args.EmailID
	msg, err := w.claims.do(ctx, id)
	if err != nil {
		return err
	}
	if msg == nil {
		return nil // sent already
	}

	providerID, sendErr := w.Sender.Send(ctx, *msg)
	// The outcome is recorded before the job completes, even if its context has run out: the
	// message may be gone.
	if sendErr == nil {
		_, err := w.outcomes.do(ctx, outcome{id: id, status: string(emaillog.StatusSent),
			provider: w.Sender.Provider(), providerID: &providerID})
		return err
	}

	permanent := errors.Is(sendErr, ErrPermanent)
	final := permanent || job.Attempt >= job.MaxAttempts
	status := emaillog.StatusQueued // waiting for the next attempt
	if final {
		status = emaillog.StatusFailed
	}
	reason := sendErr.Error()
	if _, err := w.outcomes.do(ctx, outcome{id: id, status: string(status), provider: w.Sender.Provider(), err: &reason}); err != nil {
		return errors.Join(sendErr, err)
	}
	w.Log.WarnContext(ctx, "email delivery failed", "email_id", id, "attempt", job.Attempt,
		"permanent", permanent, "final", final, "err", sendErr)
	if permanent {
		return river.JobCancel(fmt.Errorf("email %s refused: %w", id, sendErr))
	}
	return sendErr
}

// icsMethod reads the METHOD property of an iCalendar object (REQUEST or CANCEL).
func icsMethod(ics string) string {
	const key = "METHOD:"
	for i := 0; i+len(key) <= len(ics); i++ {
		if (i == 0 || ics[i-1] == '\n') && ics[i:i+len(key)] == key {
			end := i + len(key)
			for end < len(ics) && ics[end] != '\r' && ics[end] != '\n' {
				end++
			}
			return ics[i+len(key) : end]
		}
	}
	return "REQUEST"
}

var _ river.Worker[DeliverEmailArgs] = (*DeliverEmailWorker)(nil)
