package migrations_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/migrate/migrations"
	"github.com/podium/podium/ent/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	pool, err := pgxpool.New(ctx, pgtest.NewEmpty(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	files, err := migrations.List()
	require.NoError(t, err)
	require.NotEmpty(t, files)

	first, err := migrations.Apply(ctx, pool)
	require.NoError(t, err)
	require.Len(t, first.Versions, len(files))
	require.Positive(t, first.River)

	var tables int
	require.NoError(t, pool.QueryRow(ctx,
		"SELECT count(*) FROM information_schema.tables WHERE table_name IN ('events', 'river_job')").Scan(&tables))
	require.Equal(t, 2, tables)

	// River's leader rebuilds its indexes as the application role; PostgreSQL lets only an
	// index's owner do that.
	t.Run("AppRoleMayReindexRiver", func(t *testing.T) {
		conn, err := pool.Acquire(ctx)
		require.NoError(t, err)
		defer conn.Release()
		_, err = conn.Exec(ctx, "SET ROLE "+dbx.AppRole)
		require.NoError(t, err)
		defer func() { _, _ = conn.Exec(ctx, "RESET ROLE") }()
		for _, index := range river.ReindexerIndexNamesDefault() {
			_, err := conn.Exec(ctx, "REINDEX INDEX CONCURRENTLY "+index)
			require.NoError(t, err, index)
		}
	})

	t.Run("SecondApplyIsNoOp", func(t *testing.T) {
		again, err := migrations.Apply(ctx, pool)
		require.NoError(t, err)
		require.Empty(t, again.Versions)
		require.Zero(t, again.River)
	})
}

// TestMigrationsMatchSchema fails when ent/schema changed without a migration: run
// `make migration NAME=…` and commit the file it writes.
func TestMigrationsMatchSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	dir := t.TempDir()
	require.NoError(t, fs.WalkDir(migrations.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := migrations.Files.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, path), body, 0o644)
	}))

	wrote, err := migrations.Diff(ctx, pgtest.NewEmpty(t), dir, "pending")
	require.NoError(t, err)
	if wrote {
		pending, _ := filepath.Glob(filepath.Join(dir, "*_pending.sql"))
		body, _ := os.ReadFile(pending[0])
		t.Fatalf("ent/schema has changes no migration holds; run `make migration NAME=…`:\n%s", body)
	}
}
