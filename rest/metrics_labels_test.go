package rest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMetricsLabelsAreBounded checks that label values a client chooses — GraphQL operation
// names, HTTP methods — cannot add series without bound: 5,000 random operation names and odd
// methods add at most a fixed few, while a named operation the server has seen first keeps its
// own series.
func TestMetricsLabelsAreBounded(t *testing.T) {
	t.Parallel()
	b := setup(t)
	op := b.operator(operatorToken)
	bearer := func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+operatorToken) }
	series := func() int {
		rec := serveTo(op, opRequest(http.MethodGet, "/metrics", "", bearer))
		require.Equal(t, http.StatusOK, rec.Code)
		n := 0
		for _, l := range strings.Split(rec.Body.String(), "\n") {
			if strings.HasPrefix(l, "podium_graphql_operations_total{") || strings.HasPrefix(l, "podium_graphql_errors_total{") ||
				strings.HasPrefix(l, "podium_http_requests_total{") {
				n++
			}
		}
		return n
	}
	b.gqlOK(b.acme, `query EventCount { events(first: 1) { totalCount } }`, nil)
	before := series()
	ctx := context.Background()
	for range 5000 {
		name := fmt.Sprintf("Op%016x", rand.Uint64())
		b.metrics.ObserveGraphQL(ctx, name, "query", []string{"not_found"})
	}
	for i := range 50 {
		r := b.do(fmt.Sprintf("M%03d", i), "/api/v1/events", b.acme, nil)
		require.NotEqual(t, http.StatusInternalServerError, r.Status)
	}
	after := series()
	require.LessOrEqual(t, after-before, 2*120, "series added by 5,000 operation names and 50 methods")
	rec := serveTo(op, opRequest(http.MethodGet, "/metrics", "", bearer))
	require.Contains(t, rec.Body.String(), `podium_graphql_operations_total{operation="EventCount",type="query"} 1`)
	require.Contains(t, rec.Body.String(), `operation="other"`)
}
