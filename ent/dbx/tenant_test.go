package dbx_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema"
	"github.com/podium/podium/ent/schema/viewer"
)

// tenantBundle is a database holding an event and a track in each of two organizations.
type tenantBundle struct {
	db                   *dbx.DB
	acme, globex         string // organization ids
	acmeEvent, acmeTrack string
	globexEvent          string
}

func setupTenants(t *testing.T, opts dbx.Options) *tenantBundle {
	t.Helper()
	db := pgtest.NewWith(t, opts)
	sys := viewer.System(context.Background(), "test: create organizations")
	b := &tenantBundle{db: db}
	for _, name := range []string{"Acme", "Globex"} {
		org, err := db.Ent.Organization.Create().SetName(name).SetSlug(name).Save(sys)
		require.NoError(t, err)
		ctx := viewer.WithOrganization(context.Background(), org.ID)
		ev, err := db.Ent.Event.Create().SetOrganizationID(org.ID).SetName(name + " Conf").SetSlug("conf").
			SetTimezone("UTC").SetStartsAt(time.Now()).SetEndsAt(time.Now().Add(time.Hour)).Save(ctx)
		require.NoError(t, err)
		tr, err := db.Ent.Track.Create().SetEventID(ev.ID).SetName(name + " Track").Save(ctx)
		require.NoError(t, err)
		require.Equal(t, org.ID, tr.OrganizationID, "the tenant hook sets organization_id from the context")
		if name == "Acme" {
			b.acme, b.acmeEvent, b.acmeTrack = org.ID, ev.ID, tr.ID
		} else {
			b.globex, b.globexEvent = org.ID, ev.ID
		}
	}
	return b
}

// count counts the rows of table that ctx's statements see, with hand-written SQL on the pool.
func (b *tenantBundle) count(t *testing.T, ctx context.Context, table string) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.PoolFor(ctx).QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()).Scan(&n))
	return n
}

// TestContextWithoutOrganization shows that a context that lost its viewer reaches no tenant data:
// ent fails, hand-written SQL sees nothing and writes nothing.
func TestContextWithoutOrganization(t *testing.T) {
	t.Parallel()
	b := setupTenants(t, dbx.Options{})
	lost := context.Background()

	t.Run("EntQueryFails", func(t *testing.T) {
		t.Parallel()
		_, err := b.db.Ent.Event.Query().All(lost)
		require.ErrorIs(t, err, viewer.ErrNoScope)
		_, err = b.db.Ent.Track.Get(lost, b.acmeTrack)
		require.ErrorIs(t, err, viewer.ErrNoScope)
	})

	t.Run("EntWriteFails", func(t *testing.T) {
		t.Parallel()
		_, err := b.db.Ent.Track.Update().SetName("Renamed").Save(lost)
		require.ErrorIs(t, err, viewer.ErrNoScope)
		_, err = b.db.Ent.Track.Delete().Exec(lost)
		require.ErrorIs(t, err, viewer.ErrNoScope)
		_, err = b.db.Ent.Track.Create().SetEventID(b.acmeEvent).SetName("Stray").Save(lost)
		require.ErrorIs(t, err, viewer.ErrNoScope)
	})

	t.Run("RawQuerySeesNoTenantRow", func(t *testing.T) {
		t.Parallel()
		for table := range tenantTables(t, b.db) {
			require.Zero(t, b.count(t, lost, table), "%s: rows visible without an organization", table)
		}
		// The same statements see the data once scoped, so the zeros above are the policy's doing.
		require.Equal(t, 1, b.count(t, viewer.WithOrganization(lost, b.acme), "tracks"))
		require.Equal(t, 2, b.count(t, viewer.System(lost, "test: every organization"), "tracks"))
	})

	t.Run("RawWriteChangesNothing", func(t *testing.T) {
		t.Parallel()
		tag, err := b.db.Pool.Exec(lost, "UPDATE tracks SET name = 'Renamed'")
		require.NoError(t, err)
		require.Zero(t, tag.RowsAffected())
		_, err = b.db.Pool.Exec(lost, "INSERT INTO tracks (id, created_at, updated_at, name, position, event_id) "+
			"VALUES ('trk_stray', now(), now(), 'Stray', 0, $1)", b.acmeEvent)
		requireRLSRefusal(t, err)
	})
}

// TestScopeFollowsTheContext runs each organization's statements on the one connection of the
// pool, alternately: each sees its own rows only, whatever ran on the connection before.
func TestScopeFollowsTheContext(t *testing.T) {
	t.Parallel()
	b := setupTenants(t, dbx.Options{MaxConns: 1})
	acme := viewer.WithOrganization(context.Background(), b.acme)
	globex := viewer.WithOrganization(context.Background(), b.globex)
	for range 3 {
		for _, c := range []struct {
			ctx context.Context
			org string
		}{{acme, b.acme}, {globex, b.globex}, {context.Background(), ""}} {
			var orgs []string
			rows, err := b.db.Pool.Query(c.ctx, "SELECT organization_id FROM events")
			require.NoError(t, err)
			orgs, err = pgx.CollectRows(rows, pgx.RowTo[string])
			require.NoError(t, err)
			if c.org == "" {
				require.Empty(t, orgs)
			} else {
				require.Equal(t, []string{c.org}, orgs)
			}
			// ent's root client goes through database/sql, on the same pool.
			n, err := b.db.Ent.Track.Query().Count(viewer.System(c.ctx, "test: count through ent"))
			require.NoError(t, err)
			require.Equal(t, 2, n)
		}
	}
}

// TestRowLevelSecurityAlone reads and writes across organizations with the tenant filter off:
// PostgreSQL alone keeps organizations apart.
func TestRowLevelSecurityAlone(t *testing.T) {
	t.Parallel()
	b := setupTenants(t, dbx.Options{UnsafeNoTenantFilter: true})
	globex := viewer.WithOrganization(context.Background(), b.globex)

	_, err := b.db.Ent.Track.Get(globex, b.acmeTrack)
	require.True(t, ent.IsNotFound(err), "globex reads acme's track: %v", err)
	n, err := b.db.Ent.Event.Query().Count(globex)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	// Another organization's rows cannot be changed, nor rows written into it.
	affected, err := b.db.Ent.Track.Update().SetName("Taken").Save(globex)
	require.NoError(t, err)
	require.Equal(t, 1, affected, "only globex's own track")
	_, err = b.db.Ent.Track.Create().SetEventID(b.acmeEvent).SetName("Planted").SetOrganizationID(b.globex).Save(globex)
	requireRLSRefusal(t, err)
	_, err = b.db.Pool.Exec(globex, "INSERT INTO tracks (id, created_at, updated_at, name, position, event_id) "+
		"VALUES ('trk_planted', now(), now(), 'Planted', 0, $1)", b.acmeEvent)
	requireRLSRefusal(t, err)

	acme := viewer.WithOrganization(context.Background(), b.acme)
	tr, err := b.db.Ent.Track.Get(acme, b.acmeTrack)
	require.NoError(t, err)
	require.Equal(t, "Acme Track", tr.Name)
}

// TestHandWrittenInsertGetsItsOrganization inserts without organization_id, as the read models'
// hand-written SQL does: the trigger copies the parent's.
func TestHandWrittenInsertGetsItsOrganization(t *testing.T) {
	t.Parallel()
	b := setupTenants(t, dbx.Options{})
	acme := viewer.WithOrganization(context.Background(), b.acme)
	_, err := b.db.Pool.Exec(acme, "INSERT INTO tracks (id, created_at, updated_at, name, position, event_id) "+
		"VALUES ('trk_raw', now(), now(), 'Raw', 0, $1)", b.acmeEvent)
	require.NoError(t, err)
	tr, err := b.db.Ent.Track.Get(acme, "trk_raw")
	require.NoError(t, err)
	require.Equal(t, b.acme, tr.OrganizationID)

	// A parent that does not exist is still the foreign key's to report.
	_, err = b.db.Pool.Exec(acme, "INSERT INTO tracks (id, created_at, updated_at, name, position, event_id) "+
		"VALUES ('trk_orphan', now(), now(), 'Orphan', 0, 'evt_missing')")
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "23503", pgErr.Code, pgErr.Message)
}

// TestApplicationRole checks what an operator would: Podium's statements run as the database's
// application login role, a member of podium_app that cannot bypass row-level security, and every
// tenant table has its policies, forced.
func TestApplicationRole(t *testing.T) {
	t.Parallel()
	b := setupTenants(t, dbx.Options{})
	ctx := viewer.WithOrganization(context.Background(), b.acme)
	var user, session string
	var super, bypass, member bool
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT current_user, session_user, rolsuper, rolbypassrls,
		pg_has_role(current_user, $1, 'MEMBER') FROM pg_roles WHERE rolname = current_user`, dbx.AppRole).
		Scan(&user, &session, &super, &bypass, &member))
	require.Equal(t, session, user, "logged in as the application role, not switched into it")
	require.True(t, member, "%s is not a member of %s", user, dbx.AppRole)
	require.False(t, super)
	require.False(t, bypass)

	var systemUser string
	require.NoError(t, b.db.System.QueryRow(viewer.System(ctx, "test: the system pool's role"), `SELECT current_user`).Scan(&systemUser))
	require.Equal(t, dbx.SystemRole, systemUser)

	tables := tenantTables(t, b.db)
	// Every tenant type of the schema has a table with policies, and so do the link tables.
	require.GreaterOrEqual(t, len(tables), len(schema.TenantColumns()))
	for table, forced := range tables {
		require.True(t, forced, "%s: row-level security is not forced", table)
		var policies int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_policies WHERE tablename = $1`, table).Scan(&policies))
		require.Positive(t, policies, "%s has no policy", table)
	}
	// The tables without row-level security are exactly those holding no organization's data
	// (rate_limit_buckets: a key id and a timestamp; email_budgets: hashed addresses or ids
	// and a timestamp; server_keys: the server's own secrets; see docs/tenancy.md).
	rows, err := b.db.Pool.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind = 'r' AND NOT c.relrowsecurity AND c.relname NOT LIKE 'river\_%'
		ORDER BY 1`)
	require.NoError(t, err)
	open, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"browser_sessions", "email_budgets", "oauth_clients", "oauth_grants", "oauth_requests", "oauth_tokens",
		"podium_app_login", "podium_schema_migrations", "rate_limit_buckets",
		"server_keys", "sign_in_tokens", "users"}, open)
}

// tenantTables returns the tables with row-level security enabled, each with whether it is forced.
func tenantTables(t *testing.T, db *dbx.DB) map[string]bool {
	t.Helper()
	ctx := viewer.WithOrganization(context.Background(), "org_catalog")
	rows, err := db.Pool.Query(ctx, `SELECT c.relname, c.relforcerowsecurity FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relrowsecurity`)
	require.NoError(t, err)
	out := map[string]bool{}
	for rows.Next() {
		var name string
		var forced bool
		require.NoError(t, rows.Scan(&name, &forced))
		out[name] = forced
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, out)
	return out
}

// requireRLSRefusal requires err to be PostgreSQL refusing a row: a policy's WITH CHECK, or the
// organization trigger, both insufficient_privilege.
func requireRLSRefusal(t *testing.T, err error) {
	t.Helper()
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "42501", pgErr.Code, pgErr.Message)
}

// TestAnyScopeKeepsTheConnectionsScope takes the one connection of the pool for an organization,
// then under viewer.AnyScope: the session is not told anything new, so a plain read still sees
// that organization only, while podium_api_key, which sets its own scope, finds a key of the other
// organization.
func TestAnyScopeKeepsTheConnectionsScope(t *testing.T) {
	t.Parallel()
	b := setupTenants(t, dbx.Options{MaxConns: 1})
	globex := viewer.WithOrganization(context.Background(), b.globex)
	key, err := b.db.Ent.APIKey.Create().SetOrganizationID(b.globex).SetName("CI").SetPrefix("pdm_test").
		SetHash("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef").Save(globex)
	require.NoError(t, err)

	acme := viewer.WithOrganization(context.Background(), b.acme)
	require.Equal(t, 1, b.count(t, acme, "events"))
	anyScope := viewer.AnyScope(context.Background())
	var orgs []string
	rows, err := b.db.Pool.Query(anyScope, "SELECT organization_id FROM events")
	require.NoError(t, err)
	orgs, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{b.acme}, orgs, "the session still holds acme's scope")

	var id, org string
	require.NoError(t, b.db.Pool.QueryRow(anyScope, "SELECT id, organization_id FROM podium_api_key($1)", key.Hash).
		Scan(&id, &org))
	require.Equal(t, key.ID, id)
	require.Equal(t, b.globex, org)
	require.Equal(t, 0, b.count(t, anyScope, "api_keys"), "outside the function, acme's scope still holds")
}

// TestAPIKeyLookupIsQualified: podium_api_key, SECURITY DEFINER, carries no setting (which would
// cost every request a save and restore) and names what its body uses by schema: a caller who puts
// a table of their making first on the search_path (a temporary api_keys holding a key of theirs)
// does not lead it there, and the function still finds the real key.
func TestAPIKeyLookupIsQualified(t *testing.T) {
	t.Parallel()
	b := setupTenants(t, dbx.Options{MaxConns: 1})
	var definer bool
	var config []string
	require.NoError(t, b.db.System.QueryRow(viewer.System(context.Background(), "test: read the function"),
		`SELECT prosecdef, coalesce(proconfig, '{}') FROM pg_proc WHERE proname = 'podium_api_key'`).Scan(&definer, &config))
	require.True(t, definer)
	require.Empty(t, config)

	globex := viewer.WithOrganization(context.Background(), b.globex)
	const genuine = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	key, err := b.db.Ent.APIKey.Create().SetOrganizationID(b.globex).SetName("CI").SetPrefix("pdm_test").
		SetHash(genuine).Save(globex)
	require.NoError(t, err)
	anyScope := viewer.AnyScope(context.Background())
	conn, err := b.db.Pool.Acquire(anyScope)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(anyScope, `CREATE TEMPORARY TABLE api_keys (id varchar, organization_id varchar, name varchar,
		scopes jsonb, event_id varchar, hash varchar, revoked_at timestamptz, expires_at timestamptz)`)
	require.NoError(t, err)
	_, err = conn.Exec(anyScope, `INSERT INTO pg_temp.api_keys VALUES ('key_forged', $1, 'forged', '["read","write","send_mail"]', NULL,
		'feedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedface', NULL, NULL)`, b.acme)
	require.NoError(t, err)
	_, err = conn.Exec(anyScope, `SET search_path = pg_temp, public`)
	require.NoError(t, err)
	defer func() { _, _ = conn.Exec(anyScope, `RESET search_path; DROP TABLE pg_temp.api_keys`) }()
	var n int
	require.NoError(t, conn.QueryRow(anyScope, `SELECT count(*) FROM podium_api_key('feedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedface')`).Scan(&n))
	require.Zero(t, n, "the forged key in the caller's table is not found")
	var id string
	require.NoError(t, conn.QueryRow(anyScope, `SELECT id FROM podium_api_key($1)`, genuine).Scan(&id))
	require.Equal(t, key.ID, id)
}
