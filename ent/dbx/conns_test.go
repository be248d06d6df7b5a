package dbx_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
)

// Contexts of the connection share tests: organizations need no rows for a transaction or a
// statement that reads no tenant table.
func orgCtx(org string) context.Context {
	return viewer.WithOrganization(context.Background(), org)
}

func personCtx(org, user string) context.Context {
	return viewer.NewContext(context.Background(), &viewer.Viewer{OrganizationID: org, Role: "admin",
		Person: &viewer.Person{UserID: user}})
}

// begin opens n transactions in ctx and rolls them back when t ends.
func begin(t *testing.T, db *dbx.DB, ctx context.Context, n int) []*dbx.Tx {
	t.Helper()
	txs := make([]*dbx.Tx, n)
	for i := range txs {
		tx, err := db.Begin(ctx)
		require.NoError(t, err, "transaction %d", i)
		t.Cleanup(func() { _ = tx.Rollback() })
		txs[i] = tx
	}
	return txs
}

// requireQuick begins and commits a transaction in ctx, and reads with the root client, at once.
func requireQuick(t *testing.T, db *dbx.DB, ctx context.Context) {
	t.Helper()
	start := time.Now()
	tx, err := db.Begin(ctx)
	require.NoError(t, err)
	require.NoError(t, tx.Commit())
	var one int
	require.NoError(t, db.SQL.QueryRowContext(ctx, `SELECT 1`).Scan(&one))
	require.Less(t, time.Since(start), 200*time.Millisecond)
}

// requireShareRefused checks that a transaction in ctx waits for the acquire timeout and fails with its
// error, the one the transports answer 503 unavailable; a root client statement too.
func requireShareRefused(t *testing.T, db *dbx.DB, ctx context.Context, timeout time.Duration) {
	t.Helper()
	start := time.Now()
	_, err := db.Begin(ctx)
	require.ErrorIs(t, err, dbx.ErrAcquireTimeout)
	require.True(t, dbx.Unavailable(err))
	require.NotErrorIs(t, err, context.DeadlineExceeded, "read as the request's own time running out")
	require.GreaterOrEqual(t, time.Since(start), timeout)
	_, err = db.SQL.ExecContext(ctx, `SELECT 1`)
	require.ErrorIs(t, err, dbx.ErrAcquireTimeout)
}

// TestOrganizationConnsAttack: one organization runs many slow transactions at once on a pool of
// four. It holds two connections, the default half of the pool, and the rest of its work waits its
// turn; another organization's transaction and read are served at once meanwhile. Without the
// bound, the first organization held all four and the other waited behind its queue.
func TestOrganizationConnsAttack(t *testing.T) {
	t.Parallel()
	db := pgtest.NewWith(t, dbx.Options{MaxConns: 4, AcquireTimeout: 5 * time.Second})
	a, b := orgCtx("org_a"), orgCtx("org_b")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			errs <- db.InTx(a, func(ctx context.Context) error {
				_, err := dbx.TxFromContext(ctx).PGX().Exec(ctx, `SELECT pg_sleep(0.3)`)
				return err
			})
		})
	}
	// Organization A's work fills its share of the pool, and waits for it.
	require.Eventually(t, func() bool { return db.Pool.Stat().AcquiredConns() >= 2 }, 2*time.Second, 5*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	for range 3 {
		requireQuick(t, db, b)
		require.LessOrEqual(t, db.Pool.Stat().AcquiredConns(), int32(2), "organization A holds half the pool at most")
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err, "organization A's work waits its turn, within the acquire timeout")
	}
	require.Zero(t, db.Pool.Stat().AcquiredConns())
}

// TestOrganizationConns: an organization holding all its connections waits for the next one and
// is refused after the acquire timeout, with the pool's own error, while another organization, the
// system pool and AnyScope lookups are served; its connections come back on Commit and Rollback.
func TestOrganizationConns(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	db := pgtest.NewWith(t, dbx.Options{MaxConns: 4, AcquireTimeout: timeout})
	a, b := orgCtx("org_a"), orgCtx("org_b")
	held := begin(t, db, a, 2)
	requireShareRefused(t, db, a, timeout)
	require.Equal(t, int32(2), db.Pool.Stat().AcquiredConns(), "a refused wait held no connection")
	requireQuick(t, db, b)
	requireQuick(t, db, viewer.System(a, "test: system work takes no share"))
	var one int
	require.NoError(t, db.SQL.QueryRowContext(viewer.AnyScope(a), `SELECT 1`).Scan(&one), "AnyScope takes no share")

	require.NoError(t, held[0].Commit())
	held[0] = begin(t, db, a, 1)[0]
	requireShareRefused(t, db, a, timeout)
	require.NoError(t, held[1].Rollback())
	held[1] = begin(t, db, a, 1)[0]
	requireShareRefused(t, db, a, timeout)

	// A waiter takes the connection given back, within its wait.
	done := make(chan error, 1)
	go func() {
		tx, err := db.Begin(a)
		if err == nil {
			err = tx.Rollback()
		}
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, held[0].Rollback())
	require.NoError(t, <-done)
}

// TestPersonConns: one person holds at most PerPersonConns connections, in whichever organization
// they act; another person of the same organization is served.
func TestPersonConns(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	db := pgtest.NewWith(t, dbx.Options{MaxConns: 8, AcquireTimeout: timeout, PerPersonConns: 2})
	begin(t, db, personCtx("org_a", "usr_ada"), 2)
	requireShareRefused(t, db, personCtx("org_a", "usr_ada"), timeout)
	requireShareRefused(t, db, personCtx("org_c", "usr_ada"), timeout)
	requireShareRefused(t, db, personCtx("", "usr_ada"), timeout)
	requireQuick(t, db, personCtx("org_a", "usr_bob"))
	requireQuick(t, db, orgCtx("org_a"))
	require.Equal(t, int32(2), db.Pool.Stat().AcquiredConns())
}

// TestConnsWithinATransaction: work inside a transaction takes no second share of its organization
// or person — nested InTx shares the transaction, and a statement of the root client or a detached
// transaction of the same organization or person does not wait for the share the transaction
// holds itself.
func TestConnsWithinATransaction(t *testing.T) {
	t.Parallel()
	db := pgtest.NewWith(t, dbx.Options{MaxConns: 4, AcquireTimeout: 300 * time.Millisecond,
		PerOrganizationConns: 1, PerPersonConns: 1})
	for _, ctx := range []context.Context{orgCtx("org_a"), personCtx("org_a", "usr_ada")} {
		err := db.InTx(ctx, func(ctx context.Context) error {
			outer := dbx.TxFromContext(ctx)
			require.NoError(t, db.InTx(ctx, func(ctx context.Context) error {
				require.Same(t, outer, dbx.TxFromContext(ctx))
				return nil
			}))
			var one int
			require.NoError(t, db.SQL.QueryRowContext(ctx, `SELECT 1`).Scan(&one))
			require.NoError(t, db.InTx(dbx.Detach(ctx), func(ctx context.Context) error {
				require.NotSame(t, outer, dbx.TxFromContext(ctx))
				return nil
			}))
			require.Equal(t, int32(1), db.Pool.Stat().AcquiredConns())
			return nil
		})
		require.NoError(t, err)
		requireQuick(t, db, ctx)
	}
	// After its transaction, a context carrying it takes a share again.
	var finished *dbx.Tx
	require.NoError(t, db.InTx(orgCtx("org_a"), func(ctx context.Context) error { finished = dbx.TxFromContext(ctx); return nil }))
	after := dbx.NewContext(orgCtx("org_a"), finished)
	begin(t, db, orgCtx("org_a"), 1)
	_, err := db.SQL.ExecContext(after, `SELECT 1`)
	require.ErrorIs(t, err, dbx.ErrAcquireTimeout)
}

// TestConnsReleasedOnFailedBegin: a Begin that fails after taking its share — no connection in
// time, or its BEGIN refused — gives the share back.
func TestConnsReleasedOnFailedBegin(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	db := pgtest.NewWith(t, dbx.Options{MaxConns: 2, AcquireTimeout: timeout})
	a := orgCtx("org_a")
	// The pool is full with two other organizations: A takes its share, then waits for the pool.
	others := append(begin(t, db, orgCtx("org_b"), 1), begin(t, db, orgCtx("org_c"), 1)...)
	_, err := db.Begin(a)
	require.ErrorIs(t, err, dbx.ErrAcquireTimeout)
	require.NoError(t, others[0].Rollback())
	requireQuick(t, db, a)

	// BEGIN itself refused: the statement limit stops it before it is sent.
	limited, cancel := dbx.WithStatementLimit(a, 0)
	defer cancel()
	_, err = db.Begin(limited)
	require.Error(t, err)
	require.ErrorIs(t, context.Cause(limited), dbx.ErrStatementLimit)
	requireQuick(t, db, a)

	// A caller whose context ends while it waits gets its own context's error, not the timeout.
	held := begin(t, db, a, 1)
	short, cancelShort := context.WithTimeout(a, 50*time.Millisecond)
	defer cancelShort()
	_, err = db.Begin(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotErrorIs(t, err, dbx.ErrAcquireTimeout)
	require.NoError(t, held[0].Rollback())
	requireQuick(t, db, a)
}

// TestConnsOff: a negative bound turns it off; an organization may then take the whole pool.
func TestConnsOff(t *testing.T) {
	t.Parallel()
	db := pgtest.NewWith(t, dbx.Options{MaxConns: 4, AcquireTimeout: 300 * time.Millisecond,
		PerOrganizationConns: -1, PerPersonConns: -1})
	begin(t, db, personCtx("org_a", "usr_ada"), 4)
	require.Equal(t, int32(4), db.Pool.Stat().AcquiredConns())
}

// TestConnsUnderChurn: many short transactions and reads of a few organizations and people at
// once leave every share free afterwards.
func TestConnsUnderChurn(t *testing.T) {
	t.Parallel()
	db := pgtest.NewWith(t, dbx.Options{MaxConns: 6, AcquireTimeout: 5 * time.Second, PerPersonConns: 2})
	ctxs := []context.Context{orgCtx("org_a"), orgCtx("org_b"), personCtx("org_a", "usr_ada"),
		personCtx("org_b", "usr_ada"), personCtx("org_a", "usr_bob")}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		ctx := ctxs[i%len(ctxs)]
		wg.Go(func() {
			for j := range 10 {
				var err error
				switch j % 3 {
				case 0:
					err = db.InTx(ctx, func(context.Context) error { return nil })
				case 1:
					err = db.InTx(ctx, func(context.Context) error { return errors.New("rolled back") })
					if err.Error() == "rolled back" {
						err = nil
					}
				default:
					_, err = db.SQL.ExecContext(ctx, `SELECT 1`)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Zero(t, db.Pool.Stat().AcquiredConns())
	require.Zero(t, dbx.SharesInUse(db))
	begin(t, db, personCtx("org_a", "usr_ada"), 2)
	begin(t, db, orgCtx("org_a"), 1)
}

// TestConnsRefusalNamesTheShare: the refusal says whose share was full, for the logs.
func TestConnsRefusalNamesTheShare(t *testing.T) {
	t.Parallel()
	db := pgtest.NewWith(t, dbx.Options{MaxConns: 4, AcquireTimeout: 100 * time.Millisecond, PerPersonConns: 1})
	begin(t, db, personCtx("org_a", "usr_ada"), 1)
	_, err := db.Begin(personCtx("org_a", "usr_ada"))
	require.ErrorIs(t, err, dbx.ErrAcquireTimeout)
	require.ErrorContains(t, err, "the 1 database connections of person usr_ada are all in use")
	begin(t, db, orgCtx("org_a"), 1)
	_, err = db.Begin(orgCtx("org_a"))
	require.ErrorContains(t, err, "the 2 database connections of organization org_a are all in use")
}
