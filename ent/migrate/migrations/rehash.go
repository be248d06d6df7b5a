//go:build ignore

// rehash.go rewrites atlas.sum for the migrations in this directory: `go run
// ./ent/migrate/migrations/rehash.go`. Two branches that each added a migration merge with a
// conflict in atlas.sum only; once the files are in their order, this gives the sum they make
// together. The migrations test then replays them all against ent/schema.
package main

import (
	"fmt"
	"os"

	atlasmigrate "ariga.io/atlas/sql/migrate"
)

func main() {
	const dir = "ent/migrate/migrations"
	local, err := atlasmigrate.NewLocalDir(dir)
	if err == nil {
		var sum atlasmigrate.HashFile
		if sum, err = local.Checksum(); err == nil {
			err = atlasmigrate.WriteSumFile(local, sum)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rehash:", err)
		os.Exit(1)
	}
}
