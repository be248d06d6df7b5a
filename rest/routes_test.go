package rest_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/rest"
)

// TestRouterServesTheRouteTable walks the real router: under /api/v1 it serves the route table,
// every line once, and nothing else but the meta document and the OpenAPI document.
func TestRouterServesTheRouteTable(t *testing.T) {
	t.Parallel()
	b := setup(t)

	var served []string
	require.NoError(t, chi.Walk(b.handler.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if path, ok := strings.CutPrefix(route, "/api/v1"); ok {
			served = append(served, method+" "+path)
		}
		return nil
	}))
	table := []string{"GET /", "GET /openapi.json"}
	operations := map[string]bool{}
	for _, rt := range rest.RouteTable() {
		table = append(table, rt.Method+" "+rt.Path)
		require.False(t, operations[rt.OperationID], "operation id %s is used twice", rt.OperationID)
		operations[rt.OperationID] = true
	}
	sort.Strings(served)
	sort.Strings(table)
	require.Equal(t, table, served)
}

// TestHandlersAreNamedAfterTheirOperation keeps the table greppable: the handler of operation
// listEvents is (*API).listEvents.
func TestHandlersAreNamedAfterTheirOperation(t *testing.T) {
	t.Parallel()
	for _, rt := range rest.RouteTable() {
		require.Equal(t, rt.OperationID, rt.Handler, "%s %s", rt.Method, rt.Path)
	}
}
