package dbx

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podium/podium/ent/schema/viewer"
)

// AppRole is the PostgreSQL role whose rights Podium's ordinary connections have. It is created by
// the migrations (NOLOGIN, NOBYPASSRLS, not a superuser), so the row-level security policies of
// every tenant table apply to it. Connections log in as the database's application login role, a
// member of AppRole named in podium_app_login (see appLogin), never as the owner: a session can
// then neither SET ROLE to anything but AppRole nor RESET ROLE out of it.
const AppRole = "podium_app"

// SystemRole is the role of system work (viewer.System): the policies admit every row to it and to
// no one else. Only the System pool enters it, from the login role, which the migrations make a
// member; AppRole and the application login roles are not members, so they cannot SET ROLE to it.
const SystemRole = "podium_system"

// orgSetting holds the organization of the statement's context, "" for none; the policies compare
// it with each row's organization_id (see the migration tenant_references).
const orgSetting = "podium.org_id"

// errSystemOnAppPool is the error of system work sent to the application pool, whose role sees one
// organization at most: it would silently see nothing. DB.PoolFor picks the right pool.
var errSystemOnAppPool = errors.New("dbx: system work on the application pool (use DB.System or DB.PoolFor)")

// errScopedOnSystemPool is the error of organization work sent to the System pool, which would
// see every organization.
var errScopedOnSystemPool = errors.New("dbx: work that is not system work on the system pool (use DB.Pool or DB.PoolFor)")

// appLogin reads the application login role of the database and its password from
// podium_app_login, which only the owner can read, on a connection of the login role of cfg.
func appLogin(ctx context.Context, cfg *pgx.ConnConfig) (role, password string, err error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "", "", fmt.Errorf("dbx: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = conn.QueryRow(ctx, `SELECT "role", "password" FROM "podium_app_login" LIMIT 1`).Scan(&role, &password)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
		return "", "", fmt.Errorf("dbx: the application login role is unknown: the migrations are not applied (`podium migrate`): %w", err)
	}
	if err != nil {
		return "", "", fmt.Errorf("dbx: read the application login role (DATABASE_URL must log in as the role that ran the migrations): %w", err)
	}
	return role, password, nil
}

// enterSystemRole switches a new connection of the System pool to SystemRole for its whole life.
func enterSystemRole(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, "SET ROLE "+SystemRole); err != nil {
		return fmt.Errorf("dbx: enter role %s (are the migrations applied? `podium migrate`): %w", SystemRole, err)
	}
	return nil
}

// requireSystem keeps the System pool for system work.
func requireSystem(ctx context.Context, _ *pgx.Conn) (bool, error) {
	if !viewer.IsSystem(ctx) {
		return true, errScopedOnSystemPool
	}
	return true, nil
}

// scopeKey is where a connection remembers the organization its session was last told, so that a
// connection taken again for the same organization costs no statement.
const scopeKey = "podium.scope"

// prepareScope runs every time a connection of the application pool is taken: it tells the session
// the organization of ctx, or none — then the policies show it no tenant row. A ctx marked
// viewer.AnyScope takes the connection as it is: its statements set their own scope. System work is
// refused: it belongs on the System pool. The setting is session-wide and is set again whenever
// the next taker's organization differs, so a connection never carries one context's organization
// into another's work.
func prepareScope(ctx context.Context, conn *pgx.Conn) (bool, error) {
	if viewer.IsAnyScope(ctx) {
		return true, nil
	}
	if viewer.IsSystem(ctx) {
		return true, errSystemOnAppPool
	}
	return setScope(ctx, conn, viewer.OrganizationID(ctx))
}

// prepareOwnerScope is prepareScope for connections of the login role (Options.Owner,
// Options.UnsafeNoRLS), which serve system work too: the owner is a member of SystemRole, or a
// superuser, and sees every row whatever its setting.
func prepareOwnerScope(ctx context.Context, conn *pgx.Conn) (bool, error) {
	if viewer.IsAnyScope(ctx) {
		return true, nil
	}
	return setScope(ctx, conn, viewer.OrganizationID(ctx))
}

// setScope sets the session's organization to org unless it already holds it.
func setScope(ctx context.Context, conn *pgx.Conn, org string) (bool, error) {
	data := conn.PgConn().CustomData()
	if v, ok := data[scopeKey]; ok && v == org {
		return true, nil
	}
	// Outside a transaction, as a connection in the pool always is, the setting commits at once.
	// The statement goes around pgx's tracer: it is the pool's bookkeeping, not the work's, and
	// counting it would make the statements of a piece of work depend on which connection ran it.
	stmt := fmt.Sprintf("SELECT set_config('%s', %s, false)", orgSetting, quote(org))
	if _, err := conn.PgConn().Exec(ctx, stmt).ReadAll(); err != nil {
		// The session's settings are unknown now: the connection is destroyed.
		return false, fmt.Errorf("dbx: set the organization of a connection: %w", err)
	}
	data[scopeKey] = org
	return true, nil
}

// quote returns s as an SQL string literal (standard_conforming_strings, PostgreSQL's default
// since 9.1, makes doubling quotes enough).
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// PoolFor returns the pool for ctx's work: System for system work, Pool otherwise. Hand-written
// statements that may run in either scope take their pool from it.
func (db *DB) PoolFor(ctx context.Context) *pgxpool.Pool {
	if viewer.IsSystem(ctx) {
		return db.System
	}
	return db.Pool
}
