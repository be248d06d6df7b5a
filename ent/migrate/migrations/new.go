//go:build ignore

// new.go writes the next migration: `go run ./ent/migrate/migrations/new.go NAME` (or
// `make migration NAME=…`). It diffs ent/schema against the migrations already committed, using a
// throwaway database on the test server (see package pgtest) to replay them.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent/migrate/migrations"
	"github.com/podium/podium/ent/pgtest"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] == "" {
		fmt.Fprintln(os.Stderr, "usage: go run ./ent/migrate/migrations/new.go NAME")
		os.Exit(2)
	}
	ctx := context.Background()
	server, err := pgtest.ServerURL(ctx)
	if err != nil {
		fail(err)
	}
	const dev = "podium_migration_dev"
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		fail(err)
	}
	defer conn.Close(ctx)
	drop := func() { _, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+dev+" WITH (FORCE)") }
	drop()
	defer drop()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+dev); err != nil {
		fail(err)
	}
	wrote, err := migrations.Diff(ctx, pgtest.WithDatabase(server, dev), "ent/migrate/migrations", os.Args[1])
	if err != nil {
		fail(err)
	}
	if !wrote {
		fmt.Println("The migrations already match ent/schema; nothing written.")
		return
	}
	fmt.Println("Wrote a new migration in ent/migrate/migrations; review it, then commit it.")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "migration:", err)
	os.Exit(1)
}
