// Package pgtest gives tests real PostgreSQL databases, one fresh database per test.
//
// A test binary migrates one template database, once, and every test gets its own clone of it
// (CREATE DATABASE … TEMPLATE), dropped when the test ends. Tests therefore run in parallel,
// commit for real, and never see what another test or an earlier run left behind.
//
// The server is, in order: TEST_DATABASE_URL; the PostgreSQL answering on 127.0.0.1:5432 as user
// postgres; a throwaway private cluster started from the machine's PostgreSQL binaries. When none
// works the run fails and says why — data tests never skip.
//
// Packages using New call Main from their TestMain.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/migrate/migrations"
	"github.com/podium/podium/ent/pgcluster"
)

// DefaultServerURL is the machine's PostgreSQL as set up for development.
const DefaultServerURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// namePrefix marks databases made by pgtest, so that leftovers of crashed runs can be recognized
// and dropped.
const namePrefix = "podium_t_"

var (
	serverOnce sync.Once
	serverURL  string
	serverErr  error
	cluster    *pgcluster.Cluster

	templateMu   sync.Mutex
	templateName string
)

// Main runs a package's tests: it finds the server (failing the run loudly when there is none),
// runs the tests, and drops the template and any private cluster afterwards.
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
func Main(m *testing.M) int {
	ctx := context.Background()
	if _, err := ServerURL(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: pgtest:", err)
		return 1
	}
	dropStale(ctx)
	code := m.Run()
	templateMu.Lock()
	if templateName != "" {
		_ = dropDatabase(ctx, templateName)
	}
	templateMu.Unlock()
	if cluster != nil {
		_ = cluster.Remove(ctx)
	}
	return code
}

// ServerURL returns a URL of the maintenance database of the server tests use.
func ServerURL(ctx context.Context) (string, error) {
	serverOnce.Do(func() { serverURL, serverErr = findServer(ctx) })
	return serverURL, serverErr
}

func findServer(ctx context.Context) (string, error) {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		if err := ping(ctx, u); err != nil {
			return "", fmt.Errorf("TEST_DATABASE_URL does not answer: %w", err)
		}
		return u, nil
	}
	localErr := ping(ctx, DefaultServerURL)
	if localErr == nil {
		return DefaultServerURL, nil
	}
	dir, err := os.MkdirTemp("", "podium-pgtest-")
	if err == nil {
		cluster, err = pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Ephemeral: true})
	}
	if err != nil {
		return "", fmt.Errorf("no PostgreSQL for tests: TEST_DATABASE_URL is unset, %s does not answer (%v), "+
			"and a private cluster could not be started: %w", DefaultServerURL, localErr, err)
	}
	return cluster.URL("postgres"), nil
}

func ping(ctx context.Context, u string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.Ping(ctx)
}

// New returns a fresh, migrated database for t, closed and dropped when t ends. Its connections
// act as the application role, as Podium's do: row-level security applies.
func New(t testing.TB) *dbx.DB {
	t.Helper()
	return NewWith(t, dbx.Options{})
}

// NewWith is New with options; MaxConns defaults to 8. The isolation tests use it to switch one
// wall off (dbx.Options.UnsafeNoRLS, UnsafeNoTenantFilter); tests that must act as the tables'
// owner use dbx.Options.Owner.
func NewWith(t testing.TB, opts dbx.Options) *dbx.DB {
	t.Helper()
	ctx := context.Background()
	if opts.MaxConns == 0 {
		opts.MaxConns = 8
	}
	db, err := dbx.Open(ctx, NewURL(t), opts)
	if err != nil {
		t.Fatalf("pgtest: open: %v", err)
	}
	t.Cleanup(db.Close)
	return db
}

// OwnerPool returns a pool on db's database whose connections stay in the login role, which owns
// the schema and is not bound by row-level security: for tests that watch the server itself
// (pg_stat_activity shows an application role's sessions only their own statements). Closed when
// t ends.
func OwnerPool(t testing.TB, db *dbx.DB) *pgxpool.Pool {
	t.Helper()
	// System's connections log in as the login role (and enter the system role after).
	cfg := db.System.Config()
	cfg.AfterConnect, cfg.PrepareConn = nil, nil
	cfg.MaxConns, cfg.MinConns = 2, 0
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("pgtest: owner pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// NewURL returns the URL of a fresh, migrated database for t, dropped when t ends. Use it for
// tests that hand the database to another process.
func NewURL(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	tpl, err := template(ctx)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	name := newName()
	if err := admin(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, tpl)); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		if err := dropDatabase(ctx, name); err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
		}
	})
	return WithDatabase(serverURL, name)
}

// NewEmpty returns the URL of a fresh database with no schema at all, dropped when t ends.
func NewEmpty(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	if _, err := ServerURL(ctx); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	name := newName()
	if err := admin(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() { _ = dropDatabase(ctx, name) })
	return WithDatabase(serverURL, name)
}

// template returns the name of the migrated template database, making it on first use.
func template(ctx context.Context) (string, error) {
	templateMu.Lock()
	defer templateMu.Unlock()
	if templateName != "" {
		return templateName, nil
	}
	if _, err := ServerURL(ctx); err != nil {
		return "", err
	}
	name := newName()
	if err := admin(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("create template: %w", err)
	}
	db, err := dbx.Open(ctx, WithDatabase(serverURL, name), dbx.Options{Owner: true})
	if err != nil {
		_ = dropDatabase(ctx, name)
		return "", fmt.Errorf("open template: %w", err)
	}
	_, err = migrations.Apply(ctx, db.Pool)
	db.Close()
	if err != nil {
		_ = dropDatabase(ctx, name)
		return "", fmt.Errorf("migrate template: %w", err)
	}
	templateName = name
	return name, nil
}

// WithDatabase returns serverURL pointing at database name.
func WithDatabase(serverURL, name string) string {
	u, err := url.Parse(serverURL)
	if err != nil || u.Scheme == "" {
		// A keyword/value connection string.
		return serverURL + " dbname=" + name
	}
	u.Path = "/" + name
	return u.String()
}

// newName returns a database name that records when it was made, so dropStale can tell
// leftovers of crashed runs from databases in use.
func newName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return namePrefix + strconv.FormatInt(time.Now().Unix(), 10) + "_" + hex.EncodeToString(b[:])
}

// cloneMu serializes statements on the template: PostgreSQL refuses to clone a database while
// another session is connected to it, which a concurrent CREATE DATABASE counts as.
var cloneMu sync.Mutex

func admin(ctx context.Context, stmt string) error {
	cloneMu.Lock()
	defer cloneMu.Unlock()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

// dropDatabase drops the database name and the application login role its migrations made, if
// any (roles are the cluster's: a database cloned from it shares the role and is dropped first).
func dropDatabase(ctx context.Context, name string) error {
	var role string
	if db, err := pgx.Connect(ctx, WithDatabase(serverURL, name)); err == nil {
		_ = db.QueryRow(ctx, `SELECT "role" FROM "podium_app_login" WHERE "made_in" = current_database()`).Scan(&role)
		_ = db.Close(ctx)
	}
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil || role == "" {
		return err
	}
	_, err = conn.Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{role}.Sanitize())
	return err
}

// dropStale drops pgtest databases older than a day: leftovers of runs that were killed.
func dropStale(ctx context.Context) {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT datname FROM pg_database WHERE datname LIKE 'podium\\_t\\_%'")
	if err != nil {
		return
	}
	names, _ := pgx.CollectRows(rows, pgx.RowTo[string])
	cutoff := time.Now().Add(-24 * time.Hour).Unix()
	for _, n := range names {
		stamp, _, _ := strings.Cut(strings.TrimPrefix(n, namePrefix), "_")
		if ts, err := strconv.ParseInt(stamp, 10, 64); err == nil && ts < cutoff {
			_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)")
		}
	}
}
