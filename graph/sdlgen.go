//go:build ignore

// sdlgen.go writes the whole GraphQL schema to docs/schema.graphql, for readers and client
// generators: `go run ./graph/sdlgen.go` (part of `make generate`).
package main

import (
	"fmt"
	"os"

	"github.com/podium/podium/graph"
)

func main() {
	if err := os.MkdirAll("docs", 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile("docs/schema.graphql", []byte(graph.SDL()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
