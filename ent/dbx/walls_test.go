package dbx_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/demo"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
)

// wallsBundle is a database holding the demo event in each of two organizations, so that most
// tenant tables have rows on both sides of the wall.
type wallsBundle struct {
	db       *dbx.DB
	owner    *pgxpool.Pool
	orgs     [2]string
	appLogin string // the application login role
}

func setupWalls(t *testing.T) *wallsBundle {
	t.Helper()
	ctx := context.Background()
	db := pgtest.New(t)
	river, err := jobs.NewClient(db, jobs.Config{})
	require.NoError(t, err)
	res := graph.NewResolver(db, &email.Outbox{Jobs: river, PublicURL: "https://podium.example.test"})
	b := &wallsBundle{db: db, owner: pgtest.OwnerPool(t, db)}
	require.NoError(t, b.owner.QueryRow(ctx, `SELECT "role" FROM podium_app_login`).Scan(&b.appLogin))
	for i, name := range []string{"Acme", "Globex"} {
		out, err := demo.Load(ctx, db, res, name)
		require.NoError(t, err)
		require.NoError(t, b.owner.QueryRow(ctx, `SELECT organization_id FROM events WHERE id = $1`, out.EventID).Scan(&b.orgs[i]))
	}
	return b
}

// tenantReference is a foreign key from a table with organization_id to another.
type tenantReference struct {
	constraint, child, column, parent, parentColumn string
	// partner is the composite (organization_id, column) key beside it, "" when there is none.
	partner string
}

// tenantReferences lists, from the catalog, every single-column foreign key between two tables
// that hold organization_id (organization_id itself aside), with its composite partner.
func tenantReferences(t *testing.T, ctx context.Context, pool *pgxpool.Pool) []tenantReference {
	t.Helper()
	rows, err := pool.Query(ctx, `
SELECT c.conname, c.conrelid::regclass::text, a.attname, c.confrelid::regclass::text, pa.attname,
       COALESCE((SELECT d.conname FROM pg_constraint d WHERE d.conrelid = c.conrelid AND d.contype = 'f'
                 AND d.confrelid = c.confrelid AND d.conkey = ARRAY[co.attnum, a.attnum]
                 AND d.confkey = ARRAY[po.attnum, pa.attnum]), '')
FROM pg_constraint c
JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
JOIN pg_attribute pa ON pa.attrelid = c.confrelid AND pa.attnum = c.confkey[1]
JOIN pg_attribute co ON co.attrelid = c.conrelid AND co.attname = 'organization_id' AND NOT co.attisdropped
JOIN pg_attribute po ON po.attrelid = c.confrelid AND po.attname = 'organization_id' AND NOT po.attisdropped
WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace AND cardinality(c.conkey) = 1
  AND a.attname <> 'organization_id' AND c.conname NOT LIKE 'podium\_org\_%'
ORDER BY 2, 3`)
	require.NoError(t, err)
	var out []tenantReference
	for rows.Next() {
		var r tenantReference
		require.NoError(t, rows.Scan(&r.constraint, &r.child, &r.column, &r.parent, &r.parentColumn, &r.partner))
		out = append(out, r)
	}
	require.NoError(t, rows.Err())
	return out
}

// TestTenantReferences: a row can only point at rows of its own organization. For every foreign
// key between tenant tables, found in the catalog, the application role scoped to the child row's
// organization moves the row under another organization's parent, as an UPDATE of the reference:
// PostgreSQL refuses it. Every such key has a composite partner, so a table added later without
// one fails here.
func TestTenantReferences(t *testing.T) {
	t.Parallel()
	b := setupWalls(t)
	ctx := context.Background()
	refs := tenantReferences(t, ctx, b.owner)
	require.GreaterOrEqual(t, len(refs), 60, "the schema's tenant references")

	attacked := 0
	for _, r := range refs {
		name := r.child + "." + r.column
		require.NotEmpty(t, r.partner, "%s → %s has no same-organization key: call podium_tenant_references() "+
			"in the migration that added it", name, r.parent)

		// A child row (by ctid: link tables have no id) and a parent row of another organization,
		// picked as the owner.
		child := pgx.Identifier{r.child}.Sanitize()
		var childID, childOrg, parentID string
		err := b.owner.QueryRow(ctx, fmt.Sprintf(`SELECT c.ctid::text, c.organization_id, p.%s FROM %s c, %s p
			WHERE p.organization_id <> c.organization_id LIMIT 1`,
			pgx.Identifier{r.parentColumn}.Sanitize(), child, pgx.Identifier{r.parent}.Sanitize())).Scan(&childID, &childOrg, &parentID)
		if errors.Is(err, pgx.ErrNoRows) {
			// The demo leaves a few tables empty; the partner checked above holds them.
			t.Logf("%s: no rows in the demo to attack with", name)
			continue
		}
		require.NoError(t, err, name)
		attacked++

		requireRefused(t, b.moveAcross(t, r, childID, childOrg, parentID), name)
	}
	t.Logf("%d of %d tenant references attacked", attacked, len(refs))
	require.GreaterOrEqual(t, attacked, 40)

	// The finding's own case: a submission moved under another organization's event, and a link
	// written between two organizations.
	var sub, subOrg, otherEvent, otherTrack string
	require.NoError(t, b.owner.QueryRow(ctx, `SELECT s.id, s.organization_id, e.id, tr.id FROM submissions s
		JOIN events e ON e.organization_id <> s.organization_id JOIN tracks tr ON tr.organization_id = e.organization_id
		LIMIT 1`).Scan(&sub, &subOrg, &otherEvent, &otherTrack))
	// Its number and code are made unique first, so that only the organization can refuse it.
	_, err := b.owner.Exec(ctx, `UPDATE submissions SET number = number + 100000, code = id WHERE id = $1`, sub)
	require.NoError(t, err)
	scoped := viewer.WithOrganization(ctx, subOrg)
	_, err = b.db.Pool.Exec(scoped, `UPDATE submissions SET event_id = $1 WHERE id = $2`, otherEvent, sub)
	requireRefused(t, err, "submission moved to another organization's event")
	_, err = b.db.Pool.Exec(scoped, `INSERT INTO submission_tracks (submission_id, track_id) VALUES ($1, $2)`, sub, otherTrack)
	requireRefused(t, err, "link to another organization's track")
}

// moveAcross points the child row (by ctid) of organization org at parentID, as the application
// login role scoped to org, in a transaction that is rolled back. The unique indexes of the child
// that hold the column are dropped first, as the owner, in the same transaction: the demo is
// loaded twice, and a twin row under the other parent would otherwise answer first.
func (b *wallsBundle) moveAcross(t *testing.T, r tenantReference, childID, org, parentID string) error {
	t.Helper()
	ctx := context.Background()
	tx, err := b.owner.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	rows, err := tx.Query(ctx, `SELECT i.indexrelid::regclass::text FROM pg_index i
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
		WHERE i.indrelid = $1::regclass AND i.indisunique AND NOT i.indisprimary AND a.attname = $2
		  AND NOT EXISTS (SELECT FROM pg_constraint c WHERE c.conindid = i.indexrelid)`, r.child, r.column)
	require.NoError(t, err)
	indexes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	for _, index := range indexes {
		_, err := tx.Exec(ctx, "DROP INDEX "+index)
		require.NoError(t, err)
	}
	_, err = tx.Exec(ctx, "SET LOCAL ROLE "+pgx.Identifier{b.appLogin}.Sanitize())
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT set_config('podium.org_id', $1, true)`, org)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, fmt.Sprintf(`UPDATE %s SET %s = $1 WHERE ctid = $2::tid`,
		pgx.Identifier{r.child}.Sanitize(), pgx.Identifier{r.column}.Sanitize()), parentID, childID)
	return err
}

// requireRefused requires err to be PostgreSQL refusing a write across organizations: a
// foreign key (23503) or a policy or trigger (42501).
func requireRefused(t *testing.T, err error, what string) {
	t.Helper()
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr, "%s was allowed", what)
	require.Contains(t, []string{"23503", "42501"}, pgErr.Code, "%s: %s", what, pgErr.Message)
}

// TestApplicationRoleCannotBecomeSystem: a session of the application pool — what an SQL injection
// would hold — cannot reach other organizations' rows: the old system setting admits nothing, and
// it can neither SET ROLE to the system role or the owner nor RESET ROLE out of its own.
func TestApplicationRoleCannotBecomeSystem(t *testing.T) {
	t.Parallel()
	b := setupTenants(t, dbx.Options{MaxConns: 1})
	acme := viewer.WithOrganization(context.Background(), b.acme)
	var owner string
	require.NoError(t, b.db.System.QueryRow(viewer.System(acme, "test: the login role"), `SELECT session_user`).Scan(&owner))

	conn, err := b.db.Pool.Acquire(acme)
	require.NoError(t, err)
	defer conn.Release()
	events := func() int {
		var n int
		require.NoError(t, conn.QueryRow(acme, `SELECT count(*) FROM events`).Scan(&n))
		return n
	}
	require.Equal(t, 1, events())

	_, err = conn.Exec(acme, `SELECT set_config('podium.system', 'on', false)`)
	require.NoError(t, err, "a setting anyone may set")
	require.Equal(t, 1, events(), "podium.system on admits no other organization's rows")

	for _, role := range []string{dbx.SystemRole, owner, "postgres"} {
		_, err = conn.Exec(acme, "SET ROLE "+pgx.Identifier{role}.Sanitize())
		requirePermissionDenied(t, err, "SET ROLE "+role)
	}
	_, err = conn.Exec(acme, "SET SESSION AUTHORIZATION "+pgx.Identifier{owner}.Sanitize())
	requirePermissionDenied(t, err, "SET SESSION AUTHORIZATION")

	// RESET ROLE returns to the login role, which is the application role itself.
	_, err = conn.Exec(acme, "RESET ROLE")
	require.NoError(t, err)
	var user string
	require.NoError(t, conn.QueryRow(acme, `SELECT current_user`).Scan(&user))
	require.NotEqual(t, owner, user)
	require.Equal(t, 1, events())
	_, err = conn.Exec(acme, "SET ROLE "+dbx.AppRole)
	require.NoError(t, err, "its own group role is allowed, and no wider")
	require.Equal(t, 1, events())
	_, err = conn.Exec(acme, "RESET ROLE")
	require.NoError(t, err)

	// The login role's password is not readable to it.
	_, err = conn.Exec(acme, `SELECT * FROM podium_app_login`)
	requirePermissionDenied(t, err, "reading podium_app_login")
}

func requirePermissionDenied(t *testing.T, err error, what string) {
	t.Helper()
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr, "%s was allowed", what)
	require.Equal(t, "42501", pgErr.Code, "%s: %s", what, pgErr.Message)
}

// TestPoliciesCostNoSubPlan: every table with row-level security is read, as the application role,
// without a subquery per row for its policy (issue #34: the link tables' EXISTS policies made the
// board's track lookup ten times slower). The plan may hold one init plan, which reads the
// session's organization once per statement, and must read no table in it. The list of tables is
// the catalog's, so a new table is covered.
func TestPoliciesCostNoSubPlan(t *testing.T) {
	t.Parallel()
	b := setupTenants(t, dbx.Options{})
	acme := viewer.WithOrganization(context.Background(), b.acme)
	for table := range tenantTables(t, b.db) {
		// The whole table, and the rows of some parents, as the board reads its links (by the first
		// text column: an id or a parent's).
		var column string
		require.NoError(t, b.db.Pool.QueryRow(acme, `SELECT attname FROM pg_attribute
			WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped
			AND atttypid IN ('text'::regtype, 'character varying'::regtype) ORDER BY attnum LIMIT 1`, table).Scan(&column))
		for _, q := range []string{
			fmt.Sprintf("SELECT * FROM %s", pgx.Identifier{table}.Sanitize()),
			fmt.Sprintf("SELECT * FROM %s WHERE %s = ANY($1::text[])", pgx.Identifier{table}.Sanitize(), pgx.Identifier{column}.Sanitize()),
		} {
			var args []any
			if strings.Contains(q, "$1") {
				args = append(args, []string{"x", "y"})
			}
			var raw []byte
			require.NoError(t, b.db.Pool.QueryRow(acme, "EXPLAIN (FORMAT JSON) "+q, args...).Scan(&raw), q)
			var plans []struct{ Plan planNode }
			require.NoError(t, json.Unmarshal(raw, &plans))
			requireNoPolicySubPlan(t, q, plans[0].Plan, false)
		}
	}
}

// planNode is a node of EXPLAIN's JSON output.
type planNode struct {
	NodeType           string     `json:"Node Type"`
	RelationName       string     `json:"Relation Name"`
	ParentRelationship string     `json:"Parent Relationship"`
	Plans              []planNode `json:"Plans"`
}

// requireNoPolicySubPlan fails on a SubPlan anywhere, and on an init plan that reads a table.
func requireNoPolicySubPlan(t *testing.T, table string, n planNode, inInit bool) {
	t.Helper()
	require.NotEqual(t, "SubPlan", n.ParentRelationship, "%s: a subquery per row", table)
	inInit = inInit || n.ParentRelationship == "InitPlan"
	if inInit {
		require.Empty(t, n.RelationName, "%s: an init plan reads %s", table, n.RelationName)
	}
	for _, c := range n.Plans {
		requireNoPolicySubPlan(t, table, c, inInit)
	}
}
