package dbx_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// probeArgs is a job kind for these tests only: they are about the transaction, not about any
// worker.
type probeArgs struct {
	Name string `json:"name"`
}

func (probeArgs) Kind() string { return "dbx_probe" }

type testBundle struct {
	db    *dbx.DB
	river *river.Client[pgx.Tx]
	org   *ent.Organization
	// ctx is scoped to org.
	ctx context.Context
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	db := pgtest.New(t)
	rc, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{})
	require.NoError(t, err)
	org, err := db.Ent.Organization.Create().SetName("Acme").SetSlug("acme").
		Save(viewer.System(context.Background(), "test: create an organization"))
	require.NoError(t, err)
	return &testBundle{db: db, river: rc, org: org, ctx: viewer.WithOrganization(context.Background(), org.ID)}
}

// writeBoth creates an event with ent and inserts a job with River, in the transaction of ctx.
func (b *testBundle) writeBoth(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	tx := dbx.TxFromContext(ctx)
	require.NotNil(t, tx)
	_, err := ent.FromContext(ctx).Event.Create().SetOrganizationID(b.org.ID).SetName(name).SetSlug(name).
		SetTimezone("UTC").SetStartsAt(time.Now()).SetEndsAt(time.Now().Add(time.Hour)).Save(ctx)
	require.NoError(t, err)
	_, err = b.river.InsertTx(ctx, tx.PGX(), probeArgs{Name: name}, nil)
	require.NoError(t, err)
}

func (b *testBundle) eventExists(t *testing.T, name string) bool {
	t.Helper()
	ok, err := b.db.Ent.Event.Query().Where(event.Name(name)).Exist(b.ctx)
	require.NoError(t, err)
	return ok
}

func TestInTx(t *testing.T) {
	t.Parallel()

	t.Run("CommitKeepsRowAndJob", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		ctx := b.ctx
		require.NoError(t, b.db.InTx(ctx, func(ctx context.Context) error {
			b.writeBoth(ctx, t, "kept")
			// Inside, the row is visible to the transaction but not to other connections.
			require.False(t, b.eventExists(t, "kept"))
			return nil
		}))
		require.True(t, b.eventExists(t, "kept"))
		rivertest.RequireInserted(ctx, t, riverpgxv5.New(b.db.Pool), &probeArgs{Name: "kept"}, nil)
	})

	t.Run("FailedSecondStepLeavesNothing", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		ctx := b.ctx
		err := b.db.InTx(ctx, func(ctx context.Context) error {
			b.writeBoth(ctx, t, "doomed")
			return errors.New("second step failed")
		})
		require.EqualError(t, err, "second step failed")
		require.False(t, b.eventExists(t, "doomed"))
		rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(b.db.Pool), &probeArgs{}, nil)
	})

	t.Run("PanicRollsBack", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		ctx := b.ctx
		require.Panics(t, func() {
			_ = b.db.InTx(ctx, func(ctx context.Context) error {
				b.writeBoth(ctx, t, "panicked")
				panic("boom")
			})
		})
		require.False(t, b.eventExists(t, "panicked"))
		rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(b.db.Pool), &probeArgs{}, nil)
	})

	t.Run("NestedCallsShareTheOuterTransaction", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		ctx := b.ctx
		err := b.db.InTx(ctx, func(ctx context.Context) error {
			outer := dbx.TxFromContext(ctx)
			require.NoError(t, b.db.InTx(ctx, func(ctx context.Context) error {
				require.Same(t, outer, dbx.TxFromContext(ctx))
				b.writeBoth(ctx, t, "nested")
				return nil
			}))
			return errors.New("outer fails after the inner step succeeded")
		})
		require.Error(t, err)
		require.False(t, b.eventExists(t, "nested"))
		rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(b.db.Pool), &probeArgs{}, nil)
	})

	t.Run("ConnectionReturnsToThePool", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		ctx := b.ctx
		for range 3 * int(b.db.Pool.Config().MaxConns) {
			require.NoError(t, b.db.InTx(ctx, func(ctx context.Context) error { return nil }))
			require.Error(t, b.db.InTx(ctx, func(ctx context.Context) error { return errors.New("x") }))
		}
		stat := b.db.Pool.Stat()
		require.Zero(t, stat.AcquiredConns())
	})
}

func TestQueryCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, count := dbx.WithQueryCount(b.ctx)
	before := b.db.Queries.Load()
	_, err := b.db.Ent.Event.Query().All(ctx)
	require.NoError(t, err)
	_, err = b.db.Ent.Organization.Query().All(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), count.Load())
	require.GreaterOrEqual(t, b.db.Queries.Load()-before, int64(2))
}

// TestStatementLimit: the statement over the cap is not sent, the context is canceled with
// ErrStatementLimit, and the connection serves the next statement.
func TestStatementLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := dbx.WithStatementLimit(b.ctx, 2)
	defer cancel()
	ctx, count := dbx.WithQueryCount(ctx)
	for range 2 {
		_, err := b.db.Ent.Event.Query().All(ctx)
		require.NoError(t, err)
	}
	_, err := b.db.Ent.Event.Query().All(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, context.Cause(ctx), dbx.ErrStatementLimit)
	require.Equal(t, int64(2), count.Load(), "the refused statement, never sent, is not counted")
	_, err = b.db.Ent.Event.Query().All(b.ctx)
	require.NoError(t, err)
	require.Zero(t, b.db.Pool.Stat().AcquiredConns())
}

// TestSidePoolsDurability: the async pool commits without waiting for the disk, the durable pool
// as durably as the main pool (delivery outcomes rely on it: docs/reliability.md).
func TestSidePoolsDurability(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := viewer.WithOrganization(context.Background(), "org_settings")
	setting := func(q interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}) string {
		var v string
		require.NoError(t, q.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&v))
		return v
	}
	async, err := db.AsyncPool(1)
	require.NoError(t, err)
	durable, err := db.DurablePool(1)
	require.NoError(t, err)
	require.Equal(t, "off", setting(async))
	require.NotEqual(t, "off", setting(durable))
	require.Equal(t, setting(db.Pool), setting(durable))
	again, err := db.DurablePool(4)
	require.NoError(t, err)
	require.Same(t, durable, again, "one durable pool per database")
}

// TestCancelledStatementKeepsItsConnection: a statement whose context ends (a time budget, a
// statement limit, a client gone) is cancelled by PostgreSQL and its connection stays usable. pgx's
// default cut the connection and closed it in the background, a close that could race the pool's
// own and panic the whole process (pgx's "slow write timer already active").
func TestCancelledStatementKeepsItsConnection(t *testing.T) {
	t.Parallel()
	b := setup(t)
	conn, err := b.db.Pool.Acquire(b.ctx)
	require.NoError(t, err)
	defer conn.Release()
	ctx, cancel := context.WithTimeout(b.ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = conn.Exec(ctx, `SELECT pg_sleep(5)`)
	require.Error(t, err)
	require.Less(t, time.Since(start), 2*time.Second, "the statement was stopped")
	require.False(t, conn.Conn().IsClosed(), "the connection was cut")
	var one int
	require.NoError(t, conn.QueryRow(b.ctx, `SELECT 1`).Scan(&one))
	require.Equal(t, 1, one)
}
