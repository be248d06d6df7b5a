package schema_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/submission"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// These tests call the ent client directly, as the command line, seeds and jobs do: no operation
// stands between them and the hook.

type submissionBundle struct {
	// ctx is scoped to the bundle's organization, as every tenant query must be.
	ctx   context.Context
	db    *dbx.DB
	event *ent.Event
	form  *ent.Form
	n     int
}

func setupSubmissions(t *testing.T) *submissionBundle {
	t.Helper()
	db := pgtest.New(t)
	org, err := db.Ent.Organization.Create().SetName("Acme").SetSlug("acme").
		Save(viewer.System(context.Background(), "test fixture: a new organization"))
	require.NoError(t, err)
	ctx := viewer.WithOrganization(context.Background(), org.ID)
	ev, err := db.Ent.Event.Create().SetOrganizationID(org.ID).SetName("Conf").SetSlug("conf").
		SetTimezone("UTC").SetStartsAt(time.Now()).SetEndsAt(time.Now().Add(time.Hour)).Save(ctx)
	require.NoError(t, err)
	form, err := db.Ent.Form.Create().SetEventID(ev.ID).SetInternalName("CFP").SetExternalTitle("CFP").Save(ctx)
	require.NoError(t, err)
	return &submissionBundle{ctx: ctx, db: db, event: ev, form: form}
}

// submissionOpts says what kind of submission newSubmission makes.
type submissionOpts struct {
	status submission.Status
	// manual leaves out the source form: a session created directly.
	manual bool
}

func (b *submissionBundle) newSubmission(t *testing.T, opts submissionOpts) *ent.Submission {
	t.Helper()
	b.n++
	create := b.db.Ent.Submission.Create().SetEventID(b.event.ID).SetNumber(b.n).
		SetCode(fmt.Sprintf("SESS-%d", b.n)).SetStatus(opts.status).SetTitle("Talk")
	if !opts.manual {
		create.SetSourceFormID(b.form.ID)
	}
	s, err := create.Save(b.ctx)
	require.NoError(t, err)
	return s
}

func (b *submissionBundle) exists(t *testing.T, id string) bool {
	t.Helper()
	ok, err := b.db.Ent.Submission.Query().Where(submission.ID(id)).Exist(b.ctx)
	require.NoError(t, err)
	return ok
}

func TestSubmissionDeleteKeepsCFPSessions(t *testing.T) {
	t.Parallel()

	t.Run("DeleteOneRefused", func(t *testing.T) {
		t.Parallel()
		b := setupSubmissions(t)
		cfp := b.newSubmission(t, submissionOpts{status: submission.StatusAccepted})

		err := b.db.Ent.Submission.DeleteOne(cfp).Exec(b.ctx)
		require.ErrorIs(t, err, schema.ErrSessionKeepsHistory)
		err = b.db.Ent.Submission.DeleteOneID(cfp.ID).Exec(b.ctx)
		require.ErrorIs(t, err, schema.ErrSessionKeepsHistory)
		require.True(t, b.exists(t, cfp.ID))
	})

	t.Run("BulkDeleteRefusedWhole", func(t *testing.T) {
		t.Parallel()
		b := setupSubmissions(t)
		cfp := b.newSubmission(t, submissionOpts{status: submission.StatusAccepted})
		draft := b.newSubmission(t, submissionOpts{status: submission.StatusDraft})

		_, err := b.db.Ent.Submission.Delete().Where(submission.EventID(b.event.ID)).Exec(b.ctx)
		require.ErrorIs(t, err, schema.ErrSessionKeepsHistory)
		require.True(t, b.exists(t, cfp.ID))
		require.True(t, b.exists(t, draft.ID), "a refused delete deletes nothing")
	})

	t.Run("InTransactionRefused", func(t *testing.T) {
		t.Parallel()
		b := setupSubmissions(t)
		cfp := b.newSubmission(t, submissionOpts{status: submission.StatusAccepted})

		err := b.db.InTx(b.ctx, func(ctx context.Context) error {
			return ent.FromContext(ctx).Submission.DeleteOneID(cfp.ID).Exec(ctx)
		})
		require.ErrorIs(t, err, schema.ErrSessionKeepsHistory)
		require.True(t, b.exists(t, cfp.ID))
	})

	t.Run("OthersDeleted", func(t *testing.T) {
		t.Parallel()
		b := setupSubmissions(t)
		manual := b.newSubmission(t, submissionOpts{status: submission.StatusAccepted, manual: true})
		draft := b.newSubmission(t, submissionOpts{status: submission.StatusDraft})
		declined := b.newSubmission(t, submissionOpts{status: submission.StatusDeclined})
		pending := b.newSubmission(t, submissionOpts{status: submission.StatusPending})

		require.NoError(t, b.db.Ent.Submission.DeleteOne(manual).Exec(b.ctx))
		require.NoError(t, b.db.Ent.Submission.DeleteOneID(draft.ID).Exec(b.ctx))
		n, err := b.db.Ent.Submission.Delete().Where(submission.IDIn(declined.ID, pending.ID)).Exec(b.ctx)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		for _, id := range []string{manual.ID, draft.ID, declined.ID, pending.ID} {
			require.False(t, b.exists(t, id))
		}
	})

	t.Run("EventDeleteTakesItsSessions", func(t *testing.T) {
		t.Parallel()
		b := setupSubmissions(t)
		cfp := b.newSubmission(t, submissionOpts{status: submission.StatusAccepted})

		require.NoError(t, b.db.Ent.Event.DeleteOneID(b.event.ID).Exec(b.ctx))
		require.False(t, b.exists(t, cfp.ID))
	})
}
