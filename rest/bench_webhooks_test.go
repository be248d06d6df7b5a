//go:build bench

package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// benchWebhookEnv lets the benchmark's server deliver webhooks to receivers in this process
// (loopback, plain http). It changes nothing until an endpoint is registered (w5Webhooks).
func benchWebhookEnv(t *testing.T) {
	t.Setenv("PODIUM_WEBHOOK_ALLOW_HTTP", "1")
	t.Setenv("PODIUM_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8")
}

// webhookEndpoints is how many endpoints W5h fans every event out to.
const webhookEndpoints = 5

// w5Slices is how many slices of each side W5h alternates; each lasts an eighth of W5's length.
const w5Slices = 8

// w5Webhooks compares W5's writes with and without webhooks. Five endpoints subscribe to every
// event type, each a receiver in this process that acknowledges at once; every write then emits a
// message, which the server delivers five times while the writes go on. The writes run in slices
// that alternate between the endpoints enabled (W5h) and disabled (W5off, where no write emits
// anything), so that both sides see the same machine and the same database, as W4 and W4L do.
// After each W5h slice its deliveries are waited for, so the W5off slice after it pays for none of
// them. The target is W5h's p99 within 10% of W5off's.
func w5Webhooks(t *testing.T, client *http.Client, srv server, pool *pgxpool.Pool, key, eventID string,
	speakers []string, d time.Duration) (benchResult, benchResult) {
	var received atomic.Int64
	for range webhookEndpoints {
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			received.Add(1)
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(rc.Close)
		// do fails on any status but 2xx.
		_, _, _, err := request{method: http.MethodPost, url: srv.url + "/api/v1/webhooks", key: key,
			body: mustJSON(map[string]any{"url": rc.URL})}.do(client)
		require.NoError(t, err)
	}
	rows, err := pool.Query(context.Background(), `SELECT id FROM webhook_endpoints`)
	require.NoError(t, err)
	endpoints, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Len(t, endpoints, webhookEndpoints)
	enable := func(on bool) {
		for _, id := range endpoints {
			_, _, _, err := request{method: http.MethodPatch, url: srv.url + "/api/v1/webhooks/" + id, key: key,
				body: mustJSON(map[string]any{"enabled": on})}.do(client)
			require.NoError(t, err)
		}
	}
	// drained waits until every message has reached every endpoint, and returns how long that took.
	drained := func() time.Duration {
		start := time.Now()
		for {
			var messages int64
			require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_messages`).Scan(&messages))
			if received.Load() >= messages*webhookEndpoints {
				return time.Since(start)
			}
			require.Less(t, time.Since(start), time.Minute, "the deliveries did not finish")
			time.Sleep(10 * time.Millisecond)
		}
	}
	writes := func(i int) []request {
		return []request{{method: http.MethodPost, url: srv.url + "/api/v1/events/" + eventID + "/sessions", key: key,
			body: mustJSON(map[string]any{"title": fmt.Sprintf("Bench hooked session %d", i), "description": nil, "formatId": nil,
				"speakerIds": []any{speakers[i%len(speakers)]}}),
			then: func(created map[string]any) request {
				return request{method: http.MethodPost, key: key,
					url:  srv.url + "/api/v1/events/" + eventID + "/sessions/" + created["id"].(string) + "/cancel",
					body: []byte(`{"cause":"organizer","message":"Benchmark"}`)}
			}}}
	}
	var off, on phase
	var lag, offCPU, onCPU time.Duration
	duringSlices := int64(0)
	for range w5Slices {
		enable(false)
		cpu := machineCPU(t)
		off.run(client, 8, d/w5Slices, writes)
		offCPU += machineCPU(t) - cpu
		enable(true)
		before := received.Load()
		cpu = machineCPU(t)
		on.run(client, 8, d/w5Slices, writes)
		onCPU += machineCPU(t) - cpu
		duringSlices += received.Load() - before
		// Endpoints count as they are when a message is delivered: disabled before, they would
		// receive nothing more.
		lag = max(lag, drained())
	}
	w5off, w5h := off.result(t, "W5off", srv, 8), on.result(t, "W5h", srv, 8)
	w5h.ratios = map[string]float64{"ratio_p50": w5h.p50 / w5off.p50, "ratio_p99": w5h.p99 / w5off.p99}
	w5h.ratioNames = []string{"ratio_p50", "ratio_p99"}
	verdict := "MISSED"
	if w5h.p99 <= 1.1*w5off.p99 {
		verdict = "met"
	}
	// The machine's CPU per request, every process counted (server, database, receivers, clients):
	// what the webhooks add to a write when the two cores are saturated (both sides make the same
	// requests, a create and a cancel per loop).
	perRequest := func(cpu time.Duration, r benchResult) float64 {
		return float64(cpu.Microseconds()) / 1000 / float64(r.requests)
	}
	w5off.extra = fmt.Sprintf("machine_cpu_ms=%.2f", perRequest(offCPU, w5off))
	w5h.extra = fmt.Sprintf("machine_cpu_ms=%.2f deliveries=%d during_slices=%d max_drain_ms=%d", perRequest(onCPU, w5h),
		received.Load(), duringSlices, lag.Milliseconds())
	t.Logf("W5h (%d webhook endpoints) p99 %.1f ms vs W5off %.1f ms: ratio %.2f ≤ 1.10 %s; %d deliveries, %d of them "+
		"during the W5h slices; the last delivery of a slice came at most %s after it",
		webhookEndpoints, w5h.p99, w5off.p99, w5h.p99/w5off.p99, verdict, received.Load(), duringSlices, lag.Round(time.Millisecond))
	return w5off, w5h
}
