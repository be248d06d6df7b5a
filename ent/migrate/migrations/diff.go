package migrations

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	atlasmigrate "ariga.io/atlas/sql/migrate"
	atlasschema "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/schema"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/podium/podium/ent/migrate"
)

// Diff writes a new migration named name into dir for whatever ent/schema declares that the files
// already in dir do not. devURL must name an empty database: atlas replays the existing files
// there and compares the result with the schema. Diff reports whether it wrote a file.
func Diff(ctx context.Context, devURL, dir, name string) (bool, error) {
	before, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		return false, err
	}
	local, err := atlasmigrate.NewLocalDir(dir)
	if err != nil {
		return false, fmt.Errorf("migrations: open %s: %w", dir, err)
	}
	cfg, err := pgx.ParseConfig(devURL)
	if err != nil {
		return false, fmt.Errorf("migrations: dev database URL: %w", err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	err = migrate.NewSchema(entsql.OpenDB(dialect.Postgres, db)).NamedDiff(ctx, name,
		schema.WithDir(local),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dialect.Postgres),
		schema.WithFormatter(atlasmigrate.DefaultFormatter),
		schema.WithDropColumn(true),
		schema.WithDropIndex(true),
		schema.WithDiffHook(keepHandWritten),
	)
	if err != nil {
		return false, fmt.Errorf("migrations: diff: %w", err)
	}
	after, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		return false, err
	}
	return len(after) > len(before), nil
}

// handWritten prefixes the indexes and foreign keys that migrations add by hand and ent/schema
// cannot declare: the composite same-organization references (migration tenant_references).
const handWritten = "podium_org_"

// keepHandWritten hides from the diff what the migrations add beyond ent/schema, so that the next
// migration does not undo it: podium_org_* indexes and foreign keys, and organization_id on the
// link tables of many-to-many edges, which ent generates without it.
func keepHandWritten(next schema.Differ) schema.Differ {
	return schema.DiffFunc(func(current, desired *atlasschema.Schema) ([]atlasschema.Change, error) {
		for _, t := range current.Tables {
			t.ForeignKeys = slices.DeleteFunc(t.ForeignKeys, func(fk *atlasschema.ForeignKey) bool {
				return strings.HasPrefix(fk.Symbol, handWritten)
			})
			t.Indexes = slices.DeleteFunc(t.Indexes, func(i *atlasschema.Index) bool {
				return strings.HasPrefix(i.Name, handWritten)
			})
			if want, ok := desired.Table(t.Name); ok {
				if _, declared := want.Column("organization_id"); !declared {
					t.Columns = slices.DeleteFunc(t.Columns, func(c *atlasschema.Column) bool { return c.Name == "organization_id" })
				}
			}
		}
		return next.Diff(current, desired)
	})
}
