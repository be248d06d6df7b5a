package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access/secret"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// fastRetry retries after 100 ms, so tests can watch an outage pass.
type fastRetry struct{}

func (fastRetry) NextRetry(*rivertype.JobRow) time.Time {
	return time.Now().Add(100 * time.Millisecond)
}

type testBundle struct {
	db     *dbx.DB
	sink   *mailtest.Sink
	river  *river.Client[pgx.Tx]
	outbox *email.Outbox
	event  *ent.Event
	// ctx is scoped to the event's organization, as the operations that queue emails are.
	ctx context.Context
}

type setupOpts struct {
	sink   mailtest.Options
	sender func(sink *mailtest.Sink) jobs.Sender
	// idle leaves the workers stopped.
	idle bool
	// rescuer, when set, is given the workers' jobs (jobs.Config.Rescuer).
	rescuer *jobs.Rescuer
}

func setup(t *testing.T, opts setupOpts) *testBundle {
	t.Helper()
	ctx := context.Background()
	db := pgtest.New(t)
	sink := mailtest.New(t, opts.sink)
	var sender jobs.Sender
	if opts.sender != nil {
		sender = opts.sender(sink)
	} else {
		s, err := jobs.NewSMTPSender(sink.URL(), "Podium <podium@example.test>", jobs.SMTPOptions{TLSConfig: sink.ClientTLS()})
		require.NoError(t, err)
		t.Cleanup(s.Close)
		sender = s
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rc, err := jobs.NewClient(db, jobs.Config{
		Work: true, Sender: sender, RetryPolicy: fastRetry{}, Log: quiet, Rescuer: opts.rescuer,
		Tune: func(c *river.Config) {
			c.FetchPollInterval = 20 * time.Millisecond
			c.FetchCooldown = 5 * time.Millisecond
		},
	})
	require.NoError(t, err)
	if !opts.idle {
		require.NoError(t, rc.Start(ctx))
		t.Cleanup(func() {
			stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			_ = rc.Stop(stopCtx)
		})
	}
	org, err := db.Ent.Organization.Create().SetName("Acme").SetSlug("acme").
		Save(viewer.System(ctx, "test: create an organization"))
	require.NoError(t, err)
	ctx = viewer.WithOrganization(ctx, org.ID)
	ev, err := db.Ent.Event.Create().SetOrganizationID(org.ID).SetName("GopherCon EU").SetSlug("gc").
		SetTimezone("UTC").SetStartsAt(time.Now()).SetEndsAt(time.Now().Add(time.Hour)).Save(ctx)
	require.NoError(t, err)
	return &testBundle{db: db, sink: sink, river: rc, event: ev, ctx: ctx,
		outbox: &email.Outbox{Jobs: rc, PublicURL: "https://podium.example.test"}}
}

// queue queues one portal invitation for to in a transaction that commits.
func (b *testBundle) queue(t *testing.T, to string) *ent.EmailLog {
	t.Helper()
	var row *ent.EmailLog
	require.NoError(t, b.db.InTx(b.ctx, func(ctx context.Context) error {
		rows, err := b.outbox.Queue(ctx, b.invitation(to))
		if err == nil {
			row = rows[0]
		}
		return err
	}))
	return row
}

func (b *testBundle) invitation(to string) email.Email {
	return email.Email{EventID: b.event.ID, Type: emaillog.TypeCustom, To: to, Template: email.PortalInvitation,
		Data: email.Data{EventName: b.event.Name, FirstName: "Ada", Path: "/portal"}}
}

// waitStatus waits until the email log row reaches status.
func (b *testBundle) waitStatus(t *testing.T, id string, status emaillog.Status) *ent.EmailLog {
	t.Helper()
	var row *ent.EmailLog
	require.Eventually(t, func() bool {
		var err error
		row, err = b.db.Ent.EmailLog.Get(b.ctx, id)
		return err == nil && row.Status == status
	}, 10*time.Second, 20*time.Millisecond, "email %s never reached %s", id, status)
	return row
}

func TestDelivery(t *testing.T) {
	t.Parallel()

	t.Run("CommittedChangeDeliversOnce", func(t *testing.T) {
		t.Parallel()
		b := setup(t, setupOpts{})
		row := b.queue(t, "ada@example.test")
		require.Equal(t, emaillog.StatusQueued, row.Status)

		got := b.waitStatus(t, row.ID, emaillog.StatusSent)
		require.Equal(t, "smtp", *got.Provider)
		require.Equal(t, "<"+row.ID+"@example.test>", *got.ProviderID)
		require.NotNil(t, got.SentAt)
		require.Nil(t, got.Error)

		b.sink.Wait(t, 1, 5*time.Second)
		time.Sleep(200 * time.Millisecond) // nothing more arrives
		msgs := b.sink.Messages()
		require.Len(t, msgs, 1)
		m := msgs[0]
		require.Equal(t, []string{"ada@example.test"}, m.To)
		require.Equal(t, "podium@example.test", m.From)
		require.Equal(t, "Your speaker portal for GopherCon EU", m.Header.Get("Subject"))
		require.Equal(t, "<"+row.ID+"@example.test>", m.Header.Get("Message-Id"))
		require.Contains(t, m.Text, "Hi Ada,")
		// A portal invitation signs in with one click: the message carries a fresh token where
		// the logged email has the placeholder (docs/people.md).
		token := regexp.MustCompile(`https://podium\.example\.test/auth/link\?token=([A-Za-z0-9_-]{43})&next=%2Fportal`).
			FindStringSubmatch(m.Text)
		require.NotNil(t, token, m.Text)
		require.Contains(t, m.HTML, `href="https://podium.example.test/auth/link?token=`+token[1]+`&amp;next=%2Fportal"`)
		require.Contains(t, m.HTML, "<strong>GopherCon EU</strong>")
		require.Equal(t, strings.ReplaceAll(row.Body, secret.Placeholder, token[1]), m.Text)
		require.NotContains(t, row.Body+row.HTMLBody, token[1])
	})

	t.Run("RolledBackChangeSendsNothing", func(t *testing.T) {
		t.Parallel()
		b := setup(t, setupOpts{})
		err := b.db.InTx(b.ctx, func(ctx context.Context) error {
			if _, err := b.outbox.Queue(ctx, b.invitation("ada@example.test")); err != nil {
				return err
			}
			return errors.New("the change fails after queueing")
		})
		require.Error(t, err)
		n, err := b.db.Ent.EmailLog.Query().Count(b.ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		rivertest.RequireNotInserted(b.ctx, t, riverpgxv5.New(b.db.Pool), &jobs.DeliverEmailArgs{}, nil)
		// A later committed email is delivered; the rolled-back one never is.
		b.queue(t, "grace@example.test")
		msgs := b.sink.Wait(t, 1, 5*time.Second)
		time.Sleep(200 * time.Millisecond)
		require.Len(t, b.sink.Messages(), 1)
		require.Equal(t, []string{"grace@example.test"}, msgs[0].To)
	})

	t.Run("QueueNeedsATransaction", func(t *testing.T) {
		t.Parallel()
		b := setup(t, setupOpts{idle: true})
		_, err := b.outbox.Queue(b.ctx, b.invitation("ada@example.test"))
		require.ErrorIs(t, err, email.ErrNoTransaction)
	})

	t.Run("TemporaryRefusalsAreRetried", func(t *testing.T) {
		t.Parallel()
		b := setup(t, setupOpts{})
		b.sink.FailNext(3, 451)
		row := b.queue(t, "ada@example.test")
		got := b.waitStatus(t, row.ID, emaillog.StatusSent)
		require.Nil(t, got.Error, "a later success clears the error")
		time.Sleep(300 * time.Millisecond)
		require.Len(t, b.sink.Messages(), 1, "delivered exactly once")
		// River records the job's completion after the worker returns, in batches: wait for it
		// rather than for a fixed time, which a loaded machine can outlast.
		var job *rivertype.JobRow
		require.Eventually(t, func() bool {
			job = onlyJob(t, b)
			return job.State == rivertype.JobStateCompleted
		}, 10*time.Second, 50*time.Millisecond, "the job completes")
		require.Equal(t, 4, job.Attempt)
		require.Len(t, job.Errors, 3)
	})

	t.Run("PermanentRefusalFailsWithoutRetry", func(t *testing.T) {
		t.Parallel()
		b := setup(t, setupOpts{})
		b.sink.FailNext(100, 550)
		row := b.queue(t, "nobody@example.test")
		got := b.waitStatus(t, row.ID, emaillog.StatusFailed)
		require.Contains(t, *got.Error, "550")
		require.Nil(t, got.SentAt)
		var job *rivertype.JobRow
		require.Eventually(t, func() bool {
			job = onlyJob(t, b)
			return job.State == rivertype.JobStateCancelled
		}, 10*time.Second, 50*time.Millisecond, "the job is cancelled")
		require.Equal(t, 1, job.Attempt, "no retry storm")
		require.Empty(t, b.sink.Messages())
	})

	t.Run("OutageLongerThanTheAttemptsFails", func(t *testing.T) {
		t.Parallel()
		b := setup(t, setupOpts{})
		b.sink.RefuseFor(time.Hour)
		var row *ent.EmailLog
		require.NoError(t, b.db.InTx(b.ctx, func(ctx context.Context) error {
			rows, err := b.outbox.Queue(ctx, b.invitation("ada@example.test"))
			if err != nil {
				return err
			}
			row = rows[0]
			// Two attempts only, so the test sees the last one fail.
			_, err = dbx.TxFromContext(ctx).PGX().Exec(ctx, "UPDATE river_job SET max_attempts = 2")
			return err
		}))
		got := b.waitStatus(t, row.ID, emaillog.StatusFailed)
		require.Contains(t, *got.Error, "451")
		require.Eventually(t, func() bool { return onlyJob(t, b).State == rivertype.JobStateDiscarded },
			5*time.Second, 20*time.Millisecond)
	})
}

func onlyJob(t *testing.T, b *testBundle) *rivertype.JobRow {
	t.Helper()
	res, err := b.river.JobList(context.Background(), river.NewJobListParams().Kinds("deliver_email"))
	require.NoError(t, err)
	require.Len(t, res.Jobs, 1)
	return res.Jobs[0]
}

// TestSentRowIsNeverSentAgain runs the job of a delivered email again: nothing is sent.
func TestSentRowIsNeverSentAgain(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{idle: true})
	ctx := b.ctx
	sender, err := jobs.NewSMTPSender(b.sink.URL(), "podium@example.test", jobs.SMTPOptions{})
	require.NoError(t, err)
	pool, err := b.db.AsyncPool(2)
	require.NoError(t, err)
	worker := &jobs.DeliverEmailWorker{Pool: pool, Sender: sender, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	row := b.queue(t, "ada@example.test")

	w := rivertest.NewWorker(t, riverpgxv5.New(b.db.Pool), &river.Config{}, worker)
	for range 3 {
		require.NoError(t, b.db.InTx(ctx, func(ctx context.Context) error {
			res, err := w.Work(ctx, t, dbx.TxFromContext(ctx).PGX(), jobs.DeliverEmailArgs{EmailID: row.ID, OrganizationID: row.OrganizationID}, nil)
			require.NoError(t, err)
			require.Equal(t, river.EventKindJobCompleted, res.EventKind)
			return nil
		}))
	}
	require.Len(t, b.sink.Messages(), 1)
	got, err := b.db.Ent.EmailLog.Get(ctx, row.ID)
	require.NoError(t, err)
	require.Equal(t, emaillog.StatusSent, got.Status)
}

func TestTransports(t *testing.T) {
	t.Parallel()

	for name, opts := range map[string]mailtest.Options{
		"ImplicitTLS": {TLS: true},
		"STARTTLS":    {StartTLS: true},
		"AuthPlain":   {StartTLS: true, Username: "podium", Password: "s3cret"},
		"PlainNoTLS":  {},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, setupOpts{sink: opts})
			row := b.queue(t, "ada@example.test")
			b.waitStatus(t, row.ID, emaillog.StatusSent)
			require.Len(t, b.sink.Wait(t, 1, 5*time.Second), 1)
		})
	}

	t.Run("WrongPasswordIsRetried", func(t *testing.T) {
		t.Parallel()
		b := setup(t, setupOpts{sink: mailtest.Options{StartTLS: true, Username: "podium", Password: "right"},
			sender: func(sink *mailtest.Sink) jobs.Sender {
				s, err := jobs.NewSMTPSender(strings.Replace(sink.URL(), "smtp://", "smtp://podium:wrong@", 1),
					"podium@example.test", jobs.SMTPOptions{TLSConfig: sink.ClientTLS()})
				require.NoError(t, err)
				return s
			}})
		row := b.queue(t, "ada@example.test")
		require.Eventually(t, func() bool {
			got, err := b.db.Ent.EmailLog.Get(b.ctx, row.ID)
			return err == nil && got.Error != nil
		}, 5*time.Second, 20*time.Millisecond)
		require.Empty(t, b.sink.Messages())
	})

	t.Run("CalendarAttachment", func(t *testing.T) {
		t.Parallel()
		b := setup(t, setupOpts{})
		seq := 2
		ics := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Podium//EN\r\nMETHOD:CANCEL\r\nBEGIN:VEVENT\r\nUID:x@podium\r\nSEQUENCE:2\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
		var row *ent.EmailLog
		require.NoError(t, b.db.InTx(b.ctx, func(ctx context.Context) error {
			e := b.invitation("ada@example.test")
			e.Type, e.Template, e.ICS, e.ICSSequence = emaillog.TypeCancelled, email.SessionCancelled, ics, &seq
			e.Data.SessionTitle, e.Data.Calendar = "Go at scale", true
			rows, err := b.outbox.Queue(ctx, e)
			if err == nil {
				row = rows[0]
			}
			return err
		}))
		require.True(t, row.IcsAttached)
		require.Equal(t, 2, *row.IcsSequence)
		m := b.sink.Wait(t, 1, 5*time.Second)[0]
		require.Equal(t, "CANCEL", m.CalendarMethod)
		require.Contains(t, m.Calendar, "UID:x@podium")
		require.Contains(t, m.Attachments, "invite.ics")
		require.Contains(t, m.Text, "Go at scale")
	})

	t.Run("WithoutSMTPTheLogSenderMarksSent", func(t *testing.T) {
		t.Parallel()
		b := setup(t, setupOpts{sender: func(*mailtest.Sink) jobs.Sender {
			return jobs.LogSender{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		}})
		row := b.queue(t, "ada@example.test")
		got := b.waitStatus(t, row.ID, emaillog.StatusSent)
		require.Equal(t, "log", *got.Provider)
		require.Empty(t, b.sink.Messages())
	})
}

// TestSMTPConnectionsAreBounded sends many messages at once through a sender allowed three
// connections: all arrive, over at most three connections open together, reused between messages.
func TestSMTPConnectionsAreBounded(t *testing.T) {
	t.Parallel()
	sink := mailtest.New(t, mailtest.Options{Delay: 5 * time.Millisecond})
	sender, err := jobs.NewSMTPSender(sink.URL(), "podium@example.test", jobs.SMTPOptions{Connections: 3})
	require.NoError(t, err)
	defer sender.Close()

	const n = 40
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := sender.Send(context.Background(), jobs.Message{ID: fmt.Sprintf("eml_%d", i),
				To: "ada@example.test", Subject: "Hello", Text: "Hi"})
			errs <- err
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	require.Len(t, sink.Wait(t, n, 5*time.Second), n)
	require.LessOrEqual(t, sink.MaxConnections(), int64(3))
	require.GreaterOrEqual(t, sink.MaxConnections(), int64(2), "sends should run in parallel")
}

// TestStopFinishesRunningDeliveries stops the workers while a slow server is receiving: the
// delivery finishes and is recorded before Stop returns.
func TestStopFinishesRunningDeliveries(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{sink: mailtest.Options{Delay: 700 * time.Millisecond}})
	row := b.queue(t, "ada@example.test")
	b.waitStatus(t, row.ID, emaillog.StatusSending)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, b.river.Stop(ctx))
	got, err := b.db.Ent.EmailLog.Get(b.ctx, row.ID)
	require.NoError(t, err)
	require.Equal(t, emaillog.StatusSent, got.Status)
	require.Len(t, b.sink.Messages(), 1)
}

// TestRetryFailedEmailWithSQL runs the README's SQL for retrying a failed email.
func TestRetryFailedEmailWithSQL(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	b.sink.FailNext(1, 550)
	row := b.queue(t, "ada@example.test")
	b.waitStatus(t, row.ID, emaillog.StatusFailed)
	require.Eventually(t, func() bool { return onlyJob(t, b).State == rivertype.JobStateCancelled }, 5*time.Second, 20*time.Millisecond)

	tag, err := b.db.Pool.Exec(b.ctx, `UPDATE river_job SET state = 'available', scheduled_at = now(), max_attempts = attempt + 5, finalized_at = NULL
 WHERE kind = 'deliver_email' AND args->>'email_id' = $1 AND state IN ('discarded', 'cancelled', 'retryable')`, row.ID)
	require.NoError(t, err)
	require.EqualValues(t, 1, tag.RowsAffected())
	got := b.waitStatus(t, row.ID, emaillog.StatusSent)
	require.Nil(t, got.Error)
	require.Len(t, b.sink.Wait(t, 1, 5*time.Second), 1)
}

// TestCrashWindowIsBounded stalls the recording of outcomes and checks that the relay is then
// given at most jobs.MaxUnrecorded messages whose outcome has not been committed: the most a
// crash of Podium or of PostgreSQL at that moment could deliver twice. A transaction of the test
// locks each email's row while it is being sent, so the first outcome statement waits in
// PostgreSQL (written, not committed: its email still holds a place) and the statements after
// it cannot run.
func TestCrashWindowIsBounded(t *testing.T) {
	t.Parallel()
	sender := &stallingSender{firstWritten: make(chan struct{})}
	b := setup(t, setupOpts{idle: true, sender: func(*mailtest.Sink) jobs.Sender { return sender }})
	ctx := b.ctx
	lockTx, err := b.db.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = lockTx.Rollback(ctx) }()
	sender.lock = lockTx

	const n = 40
	ids := make([]string, n)
	for i := range ids {
		ids[i] = b.queue(t, fmt.Sprintf("speaker%d@example.test", i)).ID
	}
	require.NoError(t, b.river.Start(ctx))
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = b.river.Stop(stopCtx)
	})

	// The first accepted email's outcome statement waits for the test's lock; then the others go.
	owner := pgtest.OwnerPool(t, b.db)
	require.Eventually(t, func() bool {
		var waiting int
		err := owner.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%unnest%'`).Scan(&waiting)
		return err == nil && waiting == 1
	}, 10*time.Second, 10*time.Millisecond, "the first outcome statement never waited for the lock")
	require.EqualValues(t, 1, sender.accepted.Load())
	close(sender.firstWritten)

	// Sending goes on until MaxUnrecorded emails, the first included, wait for their outcome to
	// commit, then stops.
	require.Eventually(t, func() bool { return sender.accepted.Load() >= jobs.MaxUnrecorded },
		10*time.Second, 10*time.Millisecond, "sending stopped before the bound")
	time.Sleep(300 * time.Millisecond)
	require.EqualValues(t, jobs.MaxUnrecorded, sender.accepted.Load(),
		"more emails accepted than the bound while outcomes could not be committed")

	// Once outcomes can be written again, everything is delivered, each email once.
	sender.mu.Lock()
	require.NoError(t, lockTx.Rollback(ctx))
	sender.mu.Unlock()
	for _, id := range ids {
		b.waitStatus(t, id, emaillog.StatusSent)
	}
	require.EqualValues(t, n, sender.accepted.Load())
}

// stallingSender accepts every message; before it does, it locks the message's row in the test's
// transaction. Only the first message goes through until firstWritten is closed.
type stallingSender struct {
	mu           sync.Mutex
	lock         pgx.Tx
	firstWritten chan struct{}
	started      atomic.Int64
	accepted     atomic.Int64
}

func (*stallingSender) Provider() string { return "stall" }

func (s *stallingSender) Send(ctx context.Context, m jobs.Message) (string, error) {
	if s.started.Add(1) > 1 {
		<-s.firstWritten
	}
	s.mu.Lock()
	// Once the test has rolled the transaction back, this fails with pgx.ErrTxClosed: nothing to lock.
	_, _ = s.lock.Exec(ctx, `SELECT 1 FROM email_log WHERE id = $1 FOR UPDATE`, m.ID)
	s.mu.Unlock()
	if err := m.Committing(ctx); err != nil {
		return "", err
	}
	s.accepted.Add(1)
	return "<" + m.ID + "@stall>", nil
}
