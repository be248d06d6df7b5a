//go:build bench

package rest_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGraphQLCostBySize prints how the cost of each hostile shape grows with the size of the
// request, for the figures of docs/reliability.md. It only runs when asked:
//
//	PODIUM_GRAPHQL_COST=1000,10000,100000 go test -tags bench ./rest/ -run '^TestGraphQLCostBySize$' -v
func TestGraphQLCostBySize(t *testing.T) {
	sizes := os.Getenv("PODIUM_GRAPHQL_COST")
	require.NotEmpty(t, sizes, "set PODIUM_GRAPHQL_COST to a list of body sizes in bytes")
	b := setup(t)
	for _, s := range strings.Split(sizes, ",") {
		size, err := strconv.Atoi(s)
		require.NoError(t, err)
		for _, doc := range hostileDocuments(size) {
			cpu, start := cpuTime(), time.Now()
			rec := postGraphQL(b.handler, b.acme, doc.body)
			cpu, wall := cpuTime()-cpu, time.Since(start)
			t.Logf("%-26s request %7d B  response %8d B  status %d  wall %8v  cpu %8v",
				doc.name, len(doc.body), rec.Body.Len(), rec.Code, wall.Round(time.Millisecond), cpu.Round(time.Millisecond))
		}
	}
}
