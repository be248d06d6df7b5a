//go:build bench

package rest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
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
// them. The target is W5h's p99 within 10% of W5off's. W5h also reports exchangeFloor,
// the least CPU its deliveries could cost this machine.
func w5Webhooks(t *testing.T, client *http.Client, srv server, pool *pgxpool.Pool, key, eventID string,
	speakers []string, d time.Duration) (benchResult, benchResult) {
	var received atomic.Int64
	var receivers []string
	for range webhookEndpoints {
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			received.Add(1)
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(rc.Close)
		receivers = append(receivers, rc.URL)
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
	var lag, offCPU, onCPU, offServer, onServer time.Duration
	duringSlices, onDeliveries := int64(0), int64(0)
	runOff := func() {
		enable(false)
		cpu, server := machineCPU(t), srv.serverCPU(t)
		off.run(client, 8, d/w5Slices, writes)
		offCPU += machineCPU(t) - cpu
		offServer += srv.serverCPU(t) - server
	}
	runOn := func() {
		enable(true)
		before := received.Load()
		cpu, server := machineCPU(t), srv.serverCPU(t)
		on.run(client, 8, d/w5Slices, writes)
		onCPU += machineCPU(t) - cpu
		duringSlices += received.Load() - before
		// Endpoints count as they are when a message is delivered: disabled before, they would
		// receive nothing more.
		lag = max(lag, drained())
		// The server's CPU counts until the slice's messages are delivered.
		onServer += srv.serverCPU(t) - server
		onDeliveries += received.Load() - before
	}
	// A slice that counts for neither side warms the writes first, and the pairs alternate which
	// side goes first. With both sides alike (endpoints disabled in both), the side always run
	// second, after the slowest slice, looked 2–9% faster at p99: a bias as large as the margin
	// measured.
	var warm phase
	enable(false)
	warm.run(client, 8, d/w5Slices, writes)
	for i := range w5Slices {
		if i%2 == 0 {
			runOff()
			runOn()
		} else {
			runOn()
			runOff()
		}
	}
	w5off, w5h := off.result(t, "W5off", srv, 8), on.result(t, "W5h", srv, 8)
	w5h.ratios = map[string]float64{"ratio_p50": w5h.p50 / w5off.p50, "ratio_p99": w5h.p99 / w5off.p99}
	w5h.ratioNames = []string{"ratio_p50", "ratio_p99"}
	// The machine's CPU per request, every process counted (server, database, receivers, clients):
	// what the webhooks add to a write when the two cores are saturated (both sides make the same
	// requests, a create and a cancel per loop).
	perRequest := func(cpu time.Duration, r benchResult) float64 {
		return float64(cpu.Microseconds()) / 1000 / float64(r.requests)
	}
	deliveries := received.Load()
	floor := exchangeFloor(t, receivers[0])
	w5off.extra = fmt.Sprintf("machine_cpu_ms=%.2f", perRequest(offCPU, w5off))
	// Webhooks' cost to the server: its CPU in the W5h slices (through their deliveries) beyond
	// what the same writes cost it without webhooks, per delivery — against the bare exchange.
	perDelivery := (float64(onServer.Microseconds()) - float64(offServer.Microseconds())*float64(w5h.requests)/float64(w5off.requests)) /
		float64(max(onDeliveries, 1))
	w5h.extra = fmt.Sprintf("machine_cpu_ms=%.2f deliveries=%d during_slices=%d max_drain_ms=%d exchange_floor_us=%.0f "+
		"floor_share=%.3f server_cpu_per_delivery_us=%.0f", perRequest(onCPU, w5h), deliveries, duringSlices, lag.Milliseconds(), floor,
		webhookEndpoints*floor/1000/perRequest(offCPU, w5off), perDelivery)
	w5h.ratios["delivery_floor_ratio"] = perDelivery / floor
	w5h.ratioNames = append(w5h.ratioNames, "delivery_floor_ratio")
	t.Logf("W5h: %d bare HTTP exchanges, one per endpoint, take %.2f ms of CPU per write: %.0f%% of W5off's CPU per write, "+
		"before Podium reads, signs or records anything", webhookEndpoints, webhookEndpoints*floor/1000,
		100*webhookEndpoints*floor/1000/perRequest(offCPU, w5off))
	// Information only: the receivers share the machine's cores, so the p99 cannot separate
	// Podium's cost from theirs; delivery_floor_ratio is the goal.
	t.Logf("W5h (%d webhook endpoints) p99 %.1f ms vs W5off %.1f ms: ratio %.2f (information); %d deliveries, %d of them "+
		"during the W5h slices; the last delivery of a slice came at most %s after it",
		webhookEndpoints, w5h.p99, w5off.p99, w5h.p99/w5off.p99, deliveries, duringSlices, lag.Round(time.Millisecond))
	return w5off, w5h
}

// exchangeFloor is the machine's CPU, in µs, for one bare HTTP exchange of a webhook's size with
// Go's net/http at both ends: a POST of a message's body and headers, answered 204 on a kept-alive
// connection, four at a time as a dispatch's lanes make them, from a process of its own to a
// receiver in this one, as W5h's deliveries go from the server to its receivers. It is the least
// a delivery costs this machine while the receivers share its cores: a floor measured in the same
// run as W5h.
func exchangeFloor(t *testing.T, url string) float64 {
	t.Helper()
	const n = 10_000
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchExchangeClient$")
	cmd.Env = append(os.Environ(), "BENCH_EXCHANGE_URL="+url, fmt.Sprintf("BENCH_EXCHANGE_N=%d", n))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(stdout)
	waitFor := func(want string) {
		for lines.Scan() {
			if lines.Text() == want {
				return
			}
		}
		require.FailNow(t, "the exchange client stopped before saying "+want)
	}
	// The client starts and connects first; only its exchanges are measured.
	waitFor("ready")
	cpu := machineCPU(t)
	_, err = io.WriteString(stdin, "go\n")
	require.NoError(t, err)
	waitFor("done")
	used := machineCPU(t) - cpu
	_ = stdin.Close()
	_, _ = io.Copy(io.Discard, stdout)
	require.NoError(t, cmd.Wait())
	return float64(used.Microseconds()) / n
}

// TestBenchExchangeClient is exchangeFloor's client. It does nothing unless exchangeFloor started
// it, with the receiver's URL.
func TestBenchExchangeClient(t *testing.T) {
	url := os.Getenv("BENCH_EXCHANGE_URL")
	if url == "" {
		return
	}
	n, err := strconv.Atoi(os.Getenv("BENCH_EXCHANGE_N"))
	require.NoError(t, err)
	const lanes = 4
	body := `{"data":{"eventId":"evt_01jd3k2m9q8r7s6t5v4w3x2y1z","sessionId":"sub_01jd3k2m9q8r7s6t5v4w3x2y1z",` +
		`"title":"Bench hooked session 1234"},"timestamp":"2026-11-24T06:00:00.123456789Z","type":"session.created","version":1}`
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: lanes}}
	defer client.CloseIdleConnections()
	exchange := func() error {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("webhook-id", "msg_01jd3k2m9q8r7s6t5v4w3x2y1z")
		req.Header.Set("webhook-timestamp", "1795500000")
		req.Header.Set("webhook-signature", "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=")
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		return res.Body.Close()
	}
	// Each lane opens its connection before the measurement starts.
	run := func(count int) {
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make([]error, lanes)
		for i := range lanes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for errs[i] == nil && next.Add(1) <= int64(count) {
					errs[i] = exchange()
				}
			}()
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...))
	}
	run(4 * lanes)
	fmt.Println("ready")
	_, err = bufio.NewReader(os.Stdin).ReadString('\n')
	require.NoError(t, err)
	run(n)
	fmt.Println("done")
}
