//go:build bench

package rest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/seed"
)

// TestBoardCPU compares, in process, the CPU one request of the session board costs through REST
// and through GraphQL: the same 2,000 sessions of `podium seed bench`, served by the real router
// into a recorder. CPU time (user + system, of this process: the server's work, not
// PostgreSQL's) holds up on a busy machine far better than latency. Prints
//
//	BOARD rest_cpu_ms=… graphql_cpu_ms=… cpu_ratio=… rest_allocs=… graphql_allocs=…
//
//	go test -tags bench -run '^TestBoardCPU$' -v -count=1 ./rest/
//
// BOARD_N sets the requests per side (default 20); BOARD_PROFILE=dir writes a CPU profile of
// each side there.
func TestBoardCPU(t *testing.T) {
	b := newBundle(t, bundleOpts{DB: pgtest.New(t)})
	var res seed.BenchResult
	ctx := viewer.System(context.Background(), "bench: bulk inserts for the test's organization")
	require.NoError(t, b.db.InTx(ctx, func(ctx context.Context) error {
		var err error
		res, err = seed.Bench(ctx, dbx.TxFromContext(ctx).PGX(), seed.BenchOptions{OrganizationID: b.acmeOrg, Submissions: 10})
		return err
	}))
	n := 20
	if v, err := fmt.Sscan(os.Getenv("BOARD_N"), &n); err != nil || v != 1 {
		n = 20
	}
	restReq := func() *http.Request {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/events/"+res.SessionsEventID+"/sessions", nil)
		req.Header.Set("Authorization", "Bearer "+b.acme)
		return req
	}
	body := mustJSON(map[string]any{"query": sessionsDocument, "variables": map[string]any{"e": res.SessionsEventID}})
	gqlReq := func() *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+b.acme)
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	rest := measureBoard(t, b, "rest", restReq, n)
	gql := measureBoard(t, b, "graphql", gqlReq, n)
	line := fmt.Sprintf("BOARD rest_cpu_ms=%.1f graphql_cpu_ms=%.1f cpu_ratio=%.2f rest_allocs=%d graphql_allocs=%d rest_bytes=%d graphql_bytes=%d",
		rest.cpuMS, gql.cpuMS, gql.cpuMS/rest.cpuMS, rest.allocs, gql.allocs, rest.size, gql.size)
	t.Log(line)
	fmt.Println(line)
}

// boardCost is what one request costs on average.
type boardCost struct {
	cpuMS  float64
	allocs uint64
	size   int
}

func measureBoard(t *testing.T, b *testBundle, name string, req func() *http.Request, n int) boardCost {
	t.Helper()
	serve := func() int {
		rec := httptest.NewRecorder()
		b.handler.ServeHTTP(rec, req())
		require.Equal(t, http.StatusOK, rec.Code, "%.300s", rec.Body.String())
		require.NotContains(t, rec.Body.String()[:min(rec.Body.Len(), 200)], `"errors"`)
		return rec.Body.Len()
	}
	size := 0
	for range 3 {
		size = serve()
	}
	if dir := os.Getenv("BOARD_PROFILE"); dir != "" {
		f, err := os.Create(dir + "/" + name + ".pprof")
		require.NoError(t, err)
		require.NoError(t, pprof.StartCPUProfile(f))
		defer func() { pprof.StopCPUProfile(); _ = f.Close() }()
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := processCPU()
	for range n {
		serve()
	}
	runtime.GC() // the garbage of the requests is part of their cost
	spent := processCPU() - cpu
	runtime.ReadMemStats(&after)
	return boardCost{cpuMS: float64(spent.Microseconds()) / 1000 / float64(n),
		allocs: (after.Mallocs - before.Mallocs) / uint64(n), size: size}
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
