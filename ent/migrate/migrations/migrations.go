// Package migrations holds Podium's versioned schema migrations and applies them.
//
// The .sql files are written by `make migration NAME=…` (atlas, through ent's versioned
// migrations: it diffs ent/schema against the files already here) and committed; they are never
// edited after they land. Apply runs those not yet applied, each in its own transaction, then
// River's migrations, all under an advisory lock so that several servers starting at once take
// turns. Applying twice is a no-op.
package migrations

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// Files are the migration files, named <version>_<name>.sql; versions sort in application order.
//
//go:embed *.sql atlas.sum
var Files embed.FS

// lockKey is the advisory lock held while migrating (an arbitrary constant: "podium" in ASCII).
const lockKey = 0x706f6469756d

// Applied reports what Apply did.
type Applied struct {
	// Versions are Podium's migrations applied by this call, in order.
	Versions []string
	// River is the number of River migrations applied by this call.
	River int
}

// Apply brings the database behind pool up to date. The pool must log in as the role that owns
// the schema (dbx.Options.Owner), not act as the application role, which may create nothing.
func Apply(ctx context.Context, pool *pgxpool.Pool) (Applied, error) {
	var out Applied
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return out, fmt.Errorf("migrations: acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(lockKey)); err != nil {
		return out, fmt.Errorf("migrations: lock: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(lockKey))
	}()

	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS podium_schema_migrations (
		version text PRIMARY KEY,
		name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return out, fmt.Errorf("migrations: create version table: %w", err)
	}
	done := make(map[string]bool)
	rows, err := conn.Query(ctx, "SELECT version FROM podium_schema_migrations")
	if err != nil {
		return out, fmt.Errorf("migrations: read versions: %w", err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return out, fmt.Errorf("migrations: read versions: %w", err)
	}
	for _, v := range versions {
		done[v] = true
	}

	files, err := List()
	if err != nil {
		return out, err
	}
	for _, f := range files {
		if done[f.Version] {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			// Migrations span organizations: should the tables' owner be bound by row-level
			// security (it is when not a superuser), a migration still sees every row.
			if _, err := tx.Exec(ctx, "SELECT set_config('podium.system', 'on', true)"); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, f.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO podium_schema_migrations (version, name) VALUES ($1, $2)",
				f.Version, f.Name)
			return err
		})
		if err != nil {
			return out, fmt.Errorf("migrations: apply %s_%s: %w", f.Version, f.Name, err)
		}
		out.Versions = append(out.Versions, f.Version)
	}

	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return out, fmt.Errorf("migrations: river: %w", err)
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return out, fmt.Errorf("migrations: river: %w", err)
	}
	out.River = len(res.Versions)
	// River's tables belong to the role its client acts as: River's leader rebuilds their indexes
	// (REINDEX INDEX CONCURRENTLY, its reindexer), which PostgreSQL allows only to an index's
	// owner, and Podium's connections act as podium_app. They hold jobs, not tenant rows.
	_, err = pool.Exec(ctx, `DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT tablename FROM pg_tables
           WHERE schemaname = current_schema() AND tablename LIKE 'river\_%' AND tableowner <> 'podium_app'
  LOOP
    EXECUTE format('ALTER TABLE %I OWNER TO podium_app', t);
  END LOOP;
END $$`)
	if err != nil {
		return out, fmt.Errorf("migrations: give River's tables to podium_app: %w", err)
	}
	return out, nil
}

// File is one migration.
type File struct {
	Version, Name, SQL string
}

// List returns the migration files in application order.
func List() ([]File, error) {
	names, err := fs.Glob(Files, "*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	files := make([]File, 0, len(names))
	for _, n := range names {
		body, err := Files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		version, name, ok := strings.Cut(strings.TrimSuffix(n, ".sql"), "_")
		if !ok {
			return nil, fmt.Errorf("migrations: %s is not named <version>_<name>.sql", n)
		}
		files = append(files, File{Version: version, Name: name, SQL: string(body)})
	}
	return files, nil
}
