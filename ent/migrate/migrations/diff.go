package migrations

import (
	"context"
	"fmt"
	"path/filepath"

	atlasmigrate "ariga.io/atlas/sql/migrate"
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
