package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The packages' layers, as `go list` shows them: every transport (GraphQL, REST and the pages, the
// job workers) calls the operations, and none calls another. A package's imports (tests aside)
// must avoid what it is listed with here.
var forbiddenImports = map[string][]string{
	// The operations know no transport: they are called, they never call up.
	"graph/operation": {"graph", "rest", "rest/web", "cmd/podium"},
	// The read models are data: they depend on no operation and no transport.
	"graph/model": {"graph", "graph/operation", "rest", "rest/web", "jobs"},
	// REST and the pages call the operations, never GraphQL's generated executor and resolvers.
	"rest":     {"graph"},
	"rest/web": {"graph", "rest"},
	// Job workers reach the operations through the interfaces of jobs.Config, not GraphQL.
	"jobs": {"graph", "graph/model", "graph/operation", "rest", "rest/web"},
}

// TestLayers holds forbiddenImports true with `go list`.
func TestLayers(t *testing.T) {
	t.Parallel()
	const module = "github.com/podium/podium/"
	args := []string{"list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}
	for pkg := range forbiddenImports {
		args = append(args, module+pkg)
	}
	out, err := exec.Command("go", args...).Output()
	require.NoError(t, err, "go list")
	seen := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		imports := map[string]bool{}
		for _, imp := range fields[1:] {
			imports[strings.TrimPrefix(imp, module)] = true
		}
		for _, bad := range forbiddenImports[pkg] {
			require.False(t, imports[bad], "%s imports %s", pkg, bad)
		}
		seen++
	}
	require.Equal(t, len(forbiddenImports), seen, "go list answered for every package")
}
