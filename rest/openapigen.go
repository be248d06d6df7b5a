//go:build ignore

// openapigen.go writes the OpenAPI document of each REST API version to docs (rest.OpenAPIFile),
// indented, so that a change to the API shows in review as a diff of the documents:
// `go run ./rest/openapigen.go` (part of `make generate`). TestOpenAPISnapshot fails when a served
// document differs from its file.
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
	for _, v := range rest.Versions {
		var b bytes.Buffer
		if err := json.Indent(&b, rest.OpenAPI(graph.Schema(), v), "", "  "); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		b.WriteByte('\n')
		if err := os.WriteFile(rest.OpenAPIFile(v), b.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
