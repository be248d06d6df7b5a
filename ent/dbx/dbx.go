// Package dbx is Podium's database: a pgx pool shared by ent (through database/sql) and River,
// a small pool for system work beside it, and transactions that ent and River use at once.
//
// It is also where tenant isolation meets PostgreSQL (docs/tenancy.md). Pool's connections log in
// as the database's application login role (a member of AppRole), which row-level security
// applies to, and every time one is taken — for a statement of the root ent client, a
// hand-written query, a transaction or River — it is told the organization of the context taking
// it (podium.org_id). System work (viewer.System) runs on System, whose connections log in as the
// login role and enter SystemRole, the only role the policies show every row. The root ent client
// and Begin pick the pool from the context; hand-written statements use PoolFor. Every ent client
// made here also carries the schema's tenant filter. Both walls can be switched off for the
// isolation tests only (Options.UnsafeNoRLS, Options.UnsafeNoTenantFilter), to prove that each
// alone holds.
//
// River inserts jobs with InsertTx, which needs a pgx.Tx; ent runs on database/sql. A pgx.Tx cannot
// be had from a *sql.Tx, so dbx reverses the roles: it pins one pooled connection, begins the
// transaction with pgx, and runs an ent client on that same connection. A row written by ent and a
// job inserted by River then commit or roll back together — the outbox guarantee emails rely on.
package dbx

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/viewer"
	// Registers the schema's hooks, interceptors and defaults.
	_ "github.com/podium/podium/ent/runtime"
)

// DB is an open database.
type DB struct {
	// Pool is the application's connection pool, scoped to one organization per use; River uses
	// it directly.
	Pool *pgxpool.Pool
	// System is the pool of system work (viewer.System), in SystemRole; it refuses any other
	// context. With Options.Owner or Options.UnsafeNoRLS it is Pool.
	System *pgxpool.Pool
	// SQL is database/sql over Pool, for ent.
	SQL *sql.DB
	// Ent is the root ent client, for work outside a transaction.
	Ent *ent.Client
	// Queries counts every statement sent through Pool, for metrics and benchmarks.
	Queries *atomic.Int64

	tenantFilter bool
	share        *connShare
	async        sidePool
	durable      sidePool
	systemAsync  sidePool
}

// sidePool is a small pool beside Pool, made on first use with Pool's configuration.
type sidePool struct {
	once sync.Once
	pool *pgxpool.Pool
	err  error
}

// get makes the pool once, with maxConns connections and the session parameters params.
func (s *sidePool) get(base *pgxpool.Pool, maxConns int32, params map[string]string) (*pgxpool.Pool, error) {
	s.once.Do(func() {
		cfg := base.Config()
		for k, v := range params {
			cfg.ConnConfig.RuntimeParams[k] = v
		}
		cfg.MaxConns, cfg.MinConns = maxConns, 0
		s.pool, s.err = pgxpool.NewWithConfig(context.Background(), cfg)
	})
	return s.pool, s.err
}

// close closes the pool if it was made, and keeps it from being made after.
func (s *sidePool) close() {
	s.once.Do(func() {})
	if s.pool != nil {
		s.pool.Close()
	}
}

// Options tune Open.
type Options struct {
	// MaxConns caps the pool; 0 keeps pgxpool's default (the larger of 4 and the CPU count).
	MaxConns int32
	// Debug logs every statement ent sends.
	Debug bool
	// Owner keeps the connections in the role they logged in as, which owns the tables. Only
	// migrations use it: they create and alter what the application role may not. Owner
	// connections are still told each context's organization, but a superuser or the tables'
	// owner is not bound by row-level security, so nothing else may use them.
	Owner bool
	// UnsafeNoRLS is Owner for tests: the isolation tests run the server without row-level
	// security to prove that the code alone keeps organizations apart.
	UnsafeNoRLS bool
	// StatementTimeout is the session's statement_timeout: a statement running longer is
	// cancelled by PostgreSQL, so one slow query cannot hold a pooled connection indefinitely
	// while requests queue behind it. 0 leaves the server's setting.
	StatementTimeout time.Duration
	// AcquireTimeout bounds the wait for a pooled connection (see ErrAcquireTimeout); 0 waits as
	// long as the caller's context. It covers ent and transactions; hand-written queries on Pool
	// bound their own contexts.
	AcquireTimeout time.Duration
	// ConnectTimeout bounds opening one connection when the URL sets no connect_timeout;
	// 0 means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// SystemConns caps the System pool; 0 means DefaultSystemConns.
	SystemConns int32
	// PerOrganizationConns bounds the pooled connections that one organization's work holds at
	// once — transactions and statements of the root ent client alike — so that one
	// organization's burst of requests leaves the rest of the pool to the others: its excess waits
	// for its own connections, within AcquireTimeout, and is refused with ErrAcquireTimeout as an
	// empty pool's would be. 0 means half of the pool (at least 1), so that whatever one
	// organization does, the others find half the pool; negative means no bound.
	PerOrganizationConns int32
	// PerPersonConns bounds the pooled connections one signed-in person (viewer.Person) holds at
	// once, whichever organization they act in, the same way; 0 means DefaultPersonConns,
	// negative no bound. API keys are bound by their organization's share and the rate limit.
	PerPersonConns int32
	// UnsafeNoTenantFilter leaves the schema's tenant filter off the ent clients: the isolation
	// tests run the server without it to prove that row-level security alone keeps
	// organizations apart.
	UnsafeNoTenantFilter bool
}

// DefaultConnectTimeout bounds opening a connection: long enough for a TLS handshake to a remote
// server, short enough that a request arriving while PostgreSQL is unreachable fails in seconds
// rather than waiting for the operating system to give up on the connection.
const DefaultConnectTimeout = 5 * time.Second

// DefaultSystemConns caps the System pool: system work is rare (sign-in, public pages, the
// webhook outbox, housekeeping) and short.
const DefaultSystemConns = 4

// Open connects to the database at url, which logs in as the role that ran the migrations. Unless
// opts.Owner or opts.UnsafeNoRLS is set, Pool then logs in as the database's application login role
// (read from podium_app_login), and System as url's role in SystemRole.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("dbx: parse database URL: %w", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = cmp.Or(opts.ConnectTimeout, DefaultConnectTimeout)
	}
	if opts.StatementTimeout > 0 {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10)
	}
	queries := new(atomic.Int64)
	cfg.ConnConfig.Tracer = counter{total: queries}
	cfg.ConnConfig.BuildContextWatcherHandler = cancelOnServer
	var pool, system *pgxpool.Pool
	if opts.Owner || opts.UnsafeNoRLS {
		cfg.PrepareConn = prepareOwnerScope
		if pool, err = connect(ctx, cfg); err != nil {
			return nil, err
		}
		system = pool
	} else {
		role, password, err := appLogin(ctx, cfg.ConnConfig)
		if err != nil {
			return nil, err
		}
		sysCfg := cfg.Copy()
		sysCfg.MaxConns, sysCfg.MinConns = cmp.Or(opts.SystemConns, DefaultSystemConns), 0
		sysCfg.AfterConnect, sysCfg.PrepareConn = enterSystemRole, requireSystem
		cfg.ConnConfig.User, cfg.ConnConfig.Password = role, password
		cfg.PrepareConn = prepareScope
		if pool, err = connect(ctx, cfg); err != nil {
			return nil, fmt.Errorf("%w (as the application login role %s: the server must let it log in with its "+
				"password, or trust it, from where Podium connects; docs/tenancy.md)", err, role)
		}
		if system, err = connect(viewer.System(ctx, "dbx: check the system pool"), sysCfg); err != nil {
			pool.Close()
			return nil, err
		}
	}
	// database/sql keeps no idle connections of its own here (as OpenDBFromPool would): each
	// statement of the root client takes a connection from pgxpool with its own context, which
	// is what lets prepareScope tell PostgreSQL the statement's organization.
	share := newConnShare(cfg.MaxConns, opts.PerOrganizationConns, opts.PerPersonConns)
	var connector driver.Connector = systemConnector{app: stdlib.GetPoolConnector(pool), system: stdlib.GetPoolConnector(system),
		share: share}
	if opts.AcquireTimeout > 0 {
		connector = acquireConnector{Connector: connector, timeout: opts.AcquireTimeout}
	}
	sqlDB := sql.OpenDB(connector)
	sqlDB.SetMaxIdleConns(0)
	entOpts := []ent.Option{ent.Driver(entsql.OpenDB(dialect.Postgres, sqlDB))}
	if opts.Debug {
		entOpts = append(entOpts, ent.Debug())
	}
	db := &DB{Pool: pool, System: system, SQL: sqlDB, Queries: queries, tenantFilter: !opts.UnsafeNoTenantFilter,
		share: share}
	db.Ent = db.newClient(entOpts...)
	return db, nil
}

// cancelOnServer is how a statement whose context ends (a request's time budget or statement
// limit, a client gone) is stopped: PostgreSQL is asked to cancel it, the statement ends with an
// error and the connection goes back to the pool, as it was. pgx's default instead cuts the
// connection at once and closes it in the background, and that close can race the pool's own
// (pgx's "slow write timer already active" panic, which ends the process: jackc/pgx#2332). The
// connection is cut only when PostgreSQL has not answered the cancel within a second.
func cancelOnServer(conn *pgconn.PgConn) ctxwatch.Handler {
	return &pgconn.CancelRequestContextWatcherHandler{Conn: conn, DeadlineDelay: time.Second}
}

// connect opens a pool with cfg and checks that it answers.
func connect(ctx context.Context, cfg *pgxpool.Config) (*pgxpool.Pool, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("dbx: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("dbx: connect: %w", err)
	}
	return pool, nil
}

// systemConnector hands database/sql a connection of the pool that the context's work belongs on,
// so that the root ent client and Begin serve system work from System, and bounds what each
// organization and person holds of Pool (share). Every connection of database/sql passes here:
// the root client's statements, Begin's transactions, and the loaders, which use either.
type systemConnector struct {
	app, system driver.Connector
	share       *connShare
}

// Connect acquires from System for system work; from Pool otherwise, once the context's
// organization and person have a slot of their share.
func (c systemConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if viewer.IsSystem(ctx) {
		return c.system.Connect(ctx)
	}
	l, err := c.share.take(ctx)
	if err != nil {
		return nil, err
	}
	if l == (lease{}) {
		return c.app.Connect(ctx)
	}
	conn, err := c.app.Connect(ctx)
	if err != nil {
		c.share.release(l)
		return nil, err
	}
	sc, err := pgxConn(conn)
	if err != nil {
		_ = conn.Close()
		c.share.release(l)
		return nil, err
	}
	return &sharedConn{Conn: sc, share: c.share, lease: l}, nil
}

// Driver is the application pool's driver.
func (c systemConnector) Driver() driver.Driver { return c.app.Driver() }

// newClient returns an ent client with the schema's tenant filter, unless the DB was opened
// without it. Either way, creates get the organization of their context.
func (db *DB) newClient(opts ...ent.Option) *ent.Client {
	c := ent.NewClient(opts...)
	if db.tenantFilter {
		c.Intercept(tenantInterceptor())
		c.Use(tenantHook())
	}
	// Hooks run in the order added: the filter checks a create before the context's organization
	// is filled in.
	c.Use(organizationOnCreate())
	return c
}

// Close closes the pools.
func (db *DB) Close() {
	_ = db.SQL.Close()
	db.Pool.Close()
	if db.System != db.Pool {
		db.System.Close()
	}
	db.async.close()
	db.durable.close()
	db.systemAsync.close()
}

// AsyncPool returns a second, smaller pool whose sessions commit without waiting for the disk
// (synchronous_commit off). It is for bookkeeping whose durability rides on a later synchronous
// commit made before anything relies on it: PostgreSQL writes its log in order, so once a later
// commit is durable, every earlier one is too. A crash of the database server may lose the last
// fraction of a second of these writes, never their order. Nothing whose loss would repeat an
// action (an email marked sent) may be written here: a later commit can come after a crash, in
// a log that no longer holds the lost write.
func (db *DB) AsyncPool(maxConns int32) (*pgxpool.Pool, error) {
	return db.async.get(db.Pool, maxConns, map[string]string{"synchronous_commit": "off"})
}

// SystemAsyncPool is AsyncPool for system work: its connections are System's.
func (db *DB) SystemAsyncPool(maxConns int32) (*pgxpool.Pool, error) {
	return db.systemAsync.get(db.System, maxConns, map[string]string{"synchronous_commit": "off"})
}

// DurablePool returns a small pool beside Pool whose commits are as durable as Pool's (the
// server's synchronous_commit), for writes that must survive a crash of the database server and
// must not queue behind requests for a connection: delivery outcomes.
func (db *DB) DurablePool(maxConns int32) (*pgxpool.Pool, error) {
	return db.durable.get(db.Pool, maxConns, nil)
}

// Tx is one PostgreSQL transaction, used by ent (Ent) and River (PGX) together. It implements
// database/sql/driver.Tx, so gqlgen's transactioner can drive it.
type Tx struct {
	conn *sql.Conn
	pgx  pgx.Tx
	ent  *ent.Client
	done atomic.Bool
	// held is the organization and person whose share covers work done inside the transaction
	// (see covered): taken by its connection, or by the transaction it was begun inside.
	held covered
}

// Begin opens a transaction on a pinned connection. Its connection takes a slot of the context's
// organization and person (Options.PerOrganizationConns), which it holds until Commit or
// Rollback; a transaction begun inside another, of the same organization or person, takes none.
func (db *DB) Begin(ctx context.Context) (*Tx, error) {
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("dbx: acquire connection: %w", err)
	}
	var tx pgx.Tx
	err = conn.Raw(func(dc any) error {
		c, err := pgxConn(dc)
		if err != nil {
			return err
		}
		tx, err = c.Conn().Begin(ctx)
		return err
	})
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("dbx: begin: %w", err)
	}
	drv := pinnedDriver{entsql.NewDriver(dialect.Postgres, entsql.Conn{ExecQuerier: conn})}
	t := &Tx{conn: conn, pgx: tx, ent: db.newClient(ent.Driver(drv))}
	if db.share != nil && !viewer.IsAnyScope(ctx) && !viewer.IsSystem(ctx) {
		if v := viewer.FromContext(ctx); v != nil {
			t.held.org = v.OrganizationID
			if v.Person != nil {
				t.held.person = v.Person.UserID
			}
		}
	}
	return t, nil
}

// Ent is the ent client bound to the transaction. Entities it returns are bound to the
// transaction's connection too: load the edges you need before Commit.
func (t *Tx) Ent() *ent.Client { return t.ent }

// PGX is the transaction for River's InsertTx and for hand-written SQL.
func (t *Tx) PGX() pgx.Tx { return t.pgx }

// Commit commits and releases the connection.
func (t *Tx) Commit() error { return t.finish(true) }

// Rollback rolls back and releases the connection; after Commit it does nothing.
func (t *Tx) Rollback() error { return t.finish(false) }

func (t *Tx) finish(commit bool) error {
	if t.done.Swap(true) {
		return nil
	}
	// The statement must finish even if the request's context is cancelled: an abandoned
	// COMMIT would leave the outcome unknown.
	ctx := context.Background()
	// Through Raw, which holds database/sql's lock on the connection: when a statement of the
	// transaction came back as a broken connection (driver.ErrBadConn, as after a cancelled
	// statement), database/sql has already closed the pinned connection and pgxpool destroys it in
	// a goroutine of its own. A COMMIT or ROLLBACK sent on it then would write on the connection
	// while that goroutine closes it, and pgx panics ("slow write timer already active"), ending
	// the process. Raw answers sql.ErrConnDone instead: the server rolls the transaction back
	// with its connection.
	err := t.conn.Raw(func(any) error {
		if commit {
			return t.pgx.Commit(ctx)
		}
		return t.pgx.Rollback(ctx)
	})
	if errors.Is(err, sql.ErrConnDone) {
		if !commit {
			err = nil
		} else {
			err = fmt.Errorf("dbx: commit: the connection broke during the transaction, which the server rolled back: %w", err)
		}
	}
	// database/sql hands the connection back to pgxpool, which discards it if the transaction
	// is somehow still open.
	if cerr := t.conn.Close(); err == nil && cerr != nil && !errors.Is(cerr, sql.ErrConnDone) {
		err = cerr
	}
	return err
}

// pinnedDriver runs ent on one pinned connection. ent's generated code asks its driver for a
// transaction in a few places (creates with edges); here the whole client already is one, so
// those calls get a no-op transaction instead of the *sql.DB that entsql.Driver would demand.
type pinnedDriver struct{ *entsql.Driver }

// Tx returns a no-op transaction on the pinned connection.
func (d pinnedDriver) Tx(context.Context) (dialect.Tx, error) { return dialect.NopTx(d), nil }

// Close does nothing: Tx owns the connection.
func (pinnedDriver) Close() error { return nil }

type txKey struct{}

// NewContext returns ctx carrying tx; ent.FromContext(ctx) then returns the transaction's client,
// which is what resolvers use. Connections taken with ctx while tx is open take no second share of
// its organization and person (covered).
func NewContext(ctx context.Context, tx *Tx) context.Context {
	ctx = context.WithValue(ctx, txKey{}, tx)
	ctx = context.WithValue(ctx, coveredKey{}, tx)
	return ent.NewContext(ctx, tx.ent)
}

// Detach returns ctx without its transaction: work that must run under another organization than
// the caller's opens a transaction of its own (a speaker's proposal runs in the organization of
// the form's event). The detached work stays covered by the transaction's share, so that it never
// waits for a slot its own caller holds.
func Detach(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, txKey{}, (*Tx)(nil))
	return ent.NewContext(ctx, nil)
}

// TxFromContext returns the transaction in ctx, or nil.
func TxFromContext(ctx context.Context) *Tx {
	tx, _ := ctx.Value(txKey{}).(*Tx)
	return tx
}

// InTx runs fn in the transaction found in ctx, or in a new one that it commits when fn succeeds
// and rolls back when fn fails or panics. Nested calls share the outer transaction, so an
// operation can be called alone or as a step of a larger one.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context) error) (err error) {
	if TxFromContext(ctx) != nil {
		return fn(ctx)
	}
	tx, err := db.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			_ = tx.Rollback()
			panic(r)
		}
	}()
	if err := fn(NewContext(ctx, tx)); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
