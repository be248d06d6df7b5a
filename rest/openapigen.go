//go:build ignore

// openapigen.go writes the REST API's OpenAPI document to docs/openapi.json, indented, so that a
// change to the API shows in review as a diff of the document: `go run ./rest/openapigen.go`
// (part of `make generate`). TestOpenAPISnapshot fails when the served document differs from it.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/podium/podium/graph"
	"github.com/podium/podium/rest"
)

func main() {
	var b bytes.Buffer
	if err := json.Indent(&b, rest.OpenAPI(graph.Schema()), "", "  "); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	b.WriteByte('\n')
	if err := os.WriteFile("docs/openapi.json", b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
