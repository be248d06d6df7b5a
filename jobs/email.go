package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/schema/viewer"
)

// EmailQueue is the queue email deliveries run on.
const EmailQueue = "email"

// DeliverEmailArgs asks for one email of the email log to be delivered. It is inserted in the
// transaction that writes the email log row (see package graph/email), never on its own.
type DeliverEmailArgs struct {
	EmailID string `json:"email_id"`
	// OrganizationID is the email's organization: the worker runs scoped to it, so that it can
	// reach that organization's rows and no other's (docs/tenancy.md).
	OrganizationID string `json:"organization_id,omitempty"`
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
	// Pool records outcomes, durably: Work returns, and River completes the job, only once the
	// outcome would survive a crash of PostgreSQL itself. (Outcomes once committed asynchronously;
	// an immediate shutdown of PostgreSQL then lost the "sent" of emails whose jobs completed
	// after its restart, leaving them "sending", and sent again those whose jobs had not.)
	Pool *pgxpool.Pool
	// ClaimPool, when set, moves rows to sending; its sessions may commit asynchronously (see
	// dbx.AsyncPool): a lost claim leaves a row queued, and the durable outcome recorded after it
	// makes it durable too, PostgreSQL's log being written in order. Nil uses Pool.
	ClaimPool *pgxpool.Pool
	Sender    Sender
	Log       *slog.Logger
	// Tokens records the sign-in tokens minted for one-click links (see MintSignInLink), with
	// synchronous commits: a token must exist before the email carrying it can be followed.
	// Without it, and with the LogSender (whose log is no mailbox), no token is minted.
	Tokens *pgxpool.Pool
	// Unsubscribe makes the List-Unsubscribe links of campaign emails (jobs/suppression.go); nil
	// sends them without.
	Unsubscribe *Unsubscribe

	once sync.Once
	// mu guards byOrg: deliveries are batched per organization, since a statement runs scoped to
	// one (see batchesOf).
	mu    sync.Mutex
	byOrg map[string]*emailBatches
	// accepted holds a place for each email the relay may have accepted whose outcome has not
	// been committed yet (see acceptHold).
	accepted chan struct{}
	// stranded holds the places of sent emails whose outcome could not be recorded (PostgreSQL
	// was unreachable): they will be sent again, so they keep their places until PostgreSQL
	// answers again (see strand), and the emails sent meanwhile stay within MaxUnrecorded.
	stranded []*acceptHold
}

// outcome is what a delivery attempt records.
type outcome struct {
	id, status, provider string
	providerID, err      *string
	// hold is the delivery's place among the emails awaiting their record, given back once the
	// record is committed.
	hold *acceptHold
}

// acceptHold is one email's place among those the relay may have accepted and whose outcome has
// not reached PostgreSQL yet: there are at most MaxUnrecorded of them, so a crash can deliver at
// most that many emails twice, however busy the machine is. The place is taken just before the
// relay can accept the message (see Message.Committing) and given back once.
type acceptHold struct {
	places chan struct{}
	held   atomic.Bool
}

// take waits for a place.
func (h *acceptHold) take(ctx context.Context) error {
	select {
	case h.places <- struct{}{}:
		h.held.Store(true)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release gives the place back, if taken and not given back yet.
func (h *acceptHold) release() {
	if h.held.CompareAndSwap(true, false) {
		<-h.places
	}
}

// The worker's two statements, each serving every delivery running at the moment (see batch):
// claim the rows and read their messages; record the outcomes. Both run unprepared
// (pgx.QueryExecModeExec), so that PostgreSQL plans each run for its ids: a prepared statement
// settles after five runs on a generic plan costed for email_log as it was then, and one made
// while the table was small kept scanning all of it for every batch after it had grown (until
// an ANALYZE, which a server without autovacuum never runs). Planning costs far less.
var (
	claimSQL = `UPDATE ` + emaillog.Table + ` SET status = 'sending', updated_at = now()
		WHERE id = ANY($1) AND status <> 'sent'
		RETURNING id, recipient, subject, body, html_body, ics_attached, ics_content,
			COALESCE(reply_to, (SELECT v.reply_to_email FROM events v WHERE v.id = event_id), ''),
			event_id, COALESCE(contact_id, ''), COALESCE(template, ''),
			COALESCE(template = '` + CampaignTemplate + `', false) AND EXISTS (SELECT 1 FROM email_suppressions s
				WHERE s.organization_id = ` + emaillog.Table + `.organization_id AND s.address = lower(recipient))`
	// The outcomes sent record their email.status_changed change in the same statement (the
	// organization is $6): no statement more per batch.
	outcomeSQL = `WITH u AS (UPDATE ` + emaillog.Table + ` AS e SET status = v.status, provider = v.provider,
		provider_id = COALESCE(v.provider_id, e.provider_id), error = v.error,
		sent_at = CASE WHEN v.status = 'sent' THEN now() ELSE e.sent_at END, updated_at = now()
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS v(id, status, provider, provider_id, error)
		WHERE e.id = v.id
		RETURNING e.id, e.event_id, e.status)` + emailOutcomeChangesSQL
)

func (w *DeliverEmailWorker) init() {
	w.byOrg = make(map[string]*emailBatches)
	w.accepted = make(chan struct{}, MaxUnrecorded)
}

// emailBatches are the claim and outcome batches of one organization's deliveries.
type emailBatches struct {
	claims   *batch[string, *Message]
	outcomes *batch[outcome, struct{}]
}

// batchesOf returns the batches of the organization org. A batch runs with the context of the
// call that leads it, so all of its calls must share an organization.
func (w *DeliverEmailWorker) batchesOf(org string) *emailBatches {
	w.mu.Lock()
	defer w.mu.Unlock()
	b, ok := w.byOrg[org]
	if !ok {
		b = &emailBatches{
			claims:   &batch[string, *Message]{exec: w.claim},
			outcomes: &batch[outcome, struct{}]{exec: w.record},
		}
		w.byOrg[org] = b
	}
	return b
}

// MaxUnrecorded bounds the emails the relay may have accepted whose outcome has not been written
// to PostgreSQL (see acceptHold), and so the emails one crash can deliver twice. Normally an
// outcome is written a millisecond or two after the relay's reply and deliveries seldom wait
// here; when the machine stalls, deliveries wait before their last step instead of piling up
// accepted and unrecorded. 10 is small enough to keep a crash's duplicates rare and large enough
// that the wait almost never happens, so the bound costs no throughput the email benchmark can
// tell from noise; a much smaller bound makes deliveries queue behind the outcome writes and costs
// throughput (figures in docs/performance.md).
const MaxUnrecorded = 10

// claim moves the rows not yet sent to sending and returns their messages; ids of rows already
// sent (or deleted with their event) get nil.
func (w *DeliverEmailWorker) claim(ctx context.Context, ids []string) ([]*Message, error) {
	pool := w.ClaimPool
	if pool == nil {
		pool = w.Pool
	}
	rows, err := pool.Query(ctx, claimSQL, pgx.QueryExecModeExec, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := make(map[string]*Message, len(ids))
	for rows.Next() {
		m := &Message{}
		var icsAttached bool
		var ics *string
		if err := rows.Scan(&m.ID, &m.To, &m.Subject, &m.Text, &m.HTML, &icsAttached, &ics, &m.ReplyTo,
			&m.EventID, &m.ContactID, &m.Template, &m.suppressed); err != nil {
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
	w.releaseStranded()
	out := make([]*Message, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out, nil
}

// record writes outcomes, in one statement, and gives their holds
// back once it has committed: from then on neither a crash of this process nor one of PostgreSQL
// can send them again. Until then a crash of either may, which MaxUnrecorded bounds.
func (w *DeliverEmailWorker) record(ctx context.Context, outs []outcome) ([]struct{}, error) {
	n := len(outs)
	ids, statuses, providers := make([]string, n), make([]string, n), make([]string, n)
	providerIDs, errs := make([]*string, n), make([]*string, n)
	for i, o := range outs {
		ids[i], statuses[i], providers[i], providerIDs[i], errs[i] = o.id, o.status, o.provider, o.providerID, o.err
	}
	if _, err := w.Pool.Exec(ctx, outcomeSQL, pgx.QueryExecModeExec, ids, statuses, providers, providerIDs, errs,
		viewer.OrganizationID(ctx)); err != nil {
		return nil, err
	}
	for _, o := range outs {
		o.hold.release()
	}
	w.releaseStranded()
	return make([]struct{}, n), nil
}

// strand keeps the place of an email sent whose outcome could not be recorded. Giving it back
// at once would let the next delivery in flight take it, be accepted by the relay and fail its
// record too: during an outage of PostgreSQL every delivery past its claim would be sent twice,
// however many MaxUnrecorded allows.
func (w *DeliverEmailWorker) strand(h *acceptHold) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stranded = append(w.stranded, h)
}

// releaseStranded gives back the stranded places once a statement has succeeded: PostgreSQL
// answers again, and the stranded emails' jobs will send and record them again.
func (w *DeliverEmailWorker) releaseStranded() {
	w.mu.Lock()
	stranded := w.stranded
	w.stranded = nil
	w.mu.Unlock()
	for _, h := range stranded {
		h.release()
	}
}

// emailTimeout bounds one delivery attempt: the claim, the relay's answers (each SMTP command is
// bounded by SMTPOptions.Timeout) and the outcome's write. It also sets how soon a delivery left
// running by a dead process is retried (rescueQueues).
const emailTimeout = 30 * time.Second

// Timeout bounds one delivery attempt (emailTimeout).
func (w *DeliverEmailWorker) Timeout(*river.Job[DeliverEmailArgs]) time.Duration { return emailTimeout }

// Work delivers one email.
func (w *DeliverEmailWorker) Work(ctx context.Context, job *river.Job[DeliverEmailArgs]) error {
	w.once.Do(w.init)
	id, org := job.Args.EmailID, job.Args.OrganizationID
	if org == "" {
		return river.JobCancel(fmt.Errorf("jobs: email %s: no organization", id))
	}
	ctx = viewer.WithOrganization(ctx, org)
	b := w.batchesOf(org)
	msg, err := b.claims.do(ctx, id)
	if err != nil {
		return err
	}
	if msg == nil {
		return nil // sent already
	}
	if msg.suppressed {
		return w.skipSuppressed(ctx, job)
	}
	w.campaignHeaders(org, msg)

	if w.Tokens != nil && w.Sender.Provider() != (LogSender{}).Provider() {
		if err := MintSignInLink(ctx, w.Tokens, msg); err != nil {
			return err
		}
		if err := MintAccessLink(ctx, w.Tokens, msg); err != nil {
			return err
		}
	}

	hold := &acceptHold{places: w.accepted}
	defer func() { hold.release() }() // hold is replaced when stranded
	msg.Committing = hold.take
	providerID, sendErr := w.Sender.Send(ctx, *msg)
	// The outcome is recorded before the job completes, even if its context has run out: the
	// message may be gone.
	if sendErr == nil {
		err := w.recordSent(ctx, b, outcome{id: id, status: string(emaillog.StatusSent),
			provider: w.Sender.Provider(), providerID: &providerID, hold: hold})
		if err != nil {
			w.strand(hold)
			hold = &acceptHold{} // nothing for the deferred release to give back
		}
		return err
	}

	permanent := errors.Is(sendErr, ErrPermanent)
	final := permanent || job.Attempt >= job.MaxAttempts
	status := emaillog.StatusQueued // waiting for the next attempt
	if final {
		status = emaillog.StatusFailed
	}
	reason := sendErr.Error()
	if final {
		err = w.recordFailure(ctx, job, reason, hold, permanent && refusedByRelay(sendErr))
	} else {
		_, err = b.outcomes.do(ctx, outcome{id: id, status: string(status), provider: w.Sender.Provider(), err: &reason, hold: hold})
	}
	if err != nil {
		return errors.Join(sendErr, err)
	}
	w.Log.WarnContext(ctx, "email delivery failed", "email_id", id, "attempt", job.Attempt,
		"permanent", permanent, "final", final, "err", sendErr)
	if permanent {
		return river.JobCancel(fmt.Errorf("email %s refused: %w", id, sendErr))
	}
	return sendErr
}

// recordSent writes the outcome of an email the relay accepted, retrying while PostgreSQL cannot
// be reached, until the attempt's context ends. The job's next attempt would send the email again,
// so the mark is worth waiting for: an outage shorter than what is left of the attempt costs no
// duplicate, and the email's place among the unrecorded (MaxUnrecorded) stays taken meanwhile.
func (w *DeliverEmailWorker) recordSent(ctx context.Context, b *emailBatches, o outcome) error {
	wait := 50 * time.Millisecond
	for {
		_, err := b.outcomes.do(ctx, o)
		if err == nil || !unreachable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// unreachable tells whether err says PostgreSQL could not be reached or is not serving for the
// moment (restarting, shutting down, out of connections), rather than refusing the statement.
func unreachable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code[:2] {
		case "08", "53", "57", "58": // connection exception, insufficient resources, operator intervention, system error
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err)
}

// recordFailure marks an email failed for good and, in the same transaction, emits email.failed
// for the organization's webhooks and records its email.status_changed change: the event is sent
// if and only if the failure is recorded.
// A bounce (the relay refused the message for good) also suppresses the recipient for the
// organization's campaigns, in the same transaction (jobs/suppression.go).
// Final failures are rare, so they are not batched.
func (w *DeliverEmailWorker) recordFailure(ctx context.Context, job *river.Job[DeliverEmailArgs], reason string, hold *acceptHold, bounce bool) error {
	ctx = context.WithoutCancel(ctx)
	defer hold.release()
	tx, err := w.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var eventID, emailType, recipient string
	err = tx.QueryRow(ctx, `UPDATE `+emaillog.Table+` SET status = 'failed', provider = $2, error = $3, updated_at = now()
		WHERE id = $1 AND status <> 'sent' RETURNING event_id, type, recipient`,
		job.Args.EmailID, w.Sender.Provider(), reason).Scan(&eventID, &emailType, &recipient)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // sent meanwhile, or deleted with its event
	}
	if err != nil {
		return err
	}
	if err := EmitWebhook(ctx, tx, viewer.OrganizationID(ctx), HookEmailFailed, map[string]any{
		"eventId": eventID, "emailId": job.Args.EmailID, "type": emailType, "recipient": recipient,
		"error": reason, "attempts": job.Attempt}); err != nil {
		return err
	}
	if bounce {
		if _, err := Suppress(ctx, tx, viewer.OrganizationID(ctx), recipient, SuppressBounce, reason, job.Args.EmailID); err != nil {
			return err
		}
	}
	if err := EmitChange(ctx, tx, viewer.OrganizationID(ctx), eventID, ChangeEmailStatus, map[string]string{
		"emailId": job.Args.EmailID, "status": string(emaillog.StatusFailed), "count": "1"}); err != nil {
		return err
	}
	return tx.Commit(ctx)
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
