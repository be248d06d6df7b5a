package dbx

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent/schema/viewer"
)

// AppRole is the PostgreSQL role Podium's connections act as. It is created by the migrations
// (NOLOGIN, NOBYPASSRLS, not a superuser, owning nothing), so the row-level security policies of
// every tenant table apply to it; the login role only needs to be allowed to SET ROLE to it.
const AppRole = "podium_app"

// The settings row-level security policies read (see the migration tenant_rls).
const (
	// orgSetting holds the organization of the statement's context, "" for none.
	orgSetting = "podium.org_id"
	// systemSetting is "on" for system work (viewer.System): the policies then admit every row.
	systemSetting = "podium.system"
)

// enterAppRole switches a new connection to AppRole for its whole life.
func enterAppRole(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, "SET ROLE "+AppRole); err != nil {
		return fmt.Errorf("dbx: enter role %s (are the migrations applied? `podium migrate`): %w", AppRole, err)
	}
	return nil
}

// scopeKey is where a connection remembers the scope its session was last told, so that a
// connection taken again for the same organization costs no statement.
const scopeKey = "podium.scope"

// prepareScope runs every time a connection is taken from the pool: it tells the session the
// organization of ctx, or that ctx is system work, or neither — then the policies show it no
// tenant row. A ctx marked viewer.AnyScope takes the connection as it is: its statements set their
// own scope. The settings are session-wide and are set again whenever the next taker's scope
// differs, so a connection never carries one context's organization into another's work.
func prepareScope(ctx context.Context, conn *pgx.Conn) (bool, error) {
	if viewer.IsAnyScope(ctx) {
		return true, nil
	}
	org, system := viewer.OrganizationID(ctx), "off"
	if viewer.IsSystem(ctx) {
		org, system = "", "on"
	}
	want := org + "\x00" + system
	data := conn.PgConn().CustomData()
	if data[scopeKey] == want {
		return true, nil
	}
	// Outside a transaction, as a connection in the pool always is, the settings commit at once.
	// The statement goes around pgx's tracer: it is the pool's bookkeeping, not the work's, and
	// counting it would make the statements of a piece of work depend on which connection ran it.
	stmt := fmt.Sprintf("SELECT set_config('%s', %s, false), set_config('%s', %s, false)",
		orgSetting, quote(org), systemSetting, quote(system))
	if _, err := conn.PgConn().Exec(ctx, stmt).ReadAll(); err != nil {
		// The session's settings are unknown now: the connection is destroyed.
		return false, fmt.Errorf("dbx: set the organization of a connection: %w", err)
	}
	data[scopeKey] = want
	return true, nil
}

// quote returns s as an SQL string literal (standard_conforming_strings, PostgreSQL's default
// since 9.1, makes doubling quotes enough).
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
