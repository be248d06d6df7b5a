//go:build bench

package rest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// w5Webhooks runs W5 again with five webhook endpoints subscribed to every event type, each a
// receiver in this process that acknowledges at once. Every write of W5 then also writes its
// message, five deliveries and five jobs, and the deliveries run while the writes go on: the
// issue's target is the write's p99 within 10% of W5's.
func w5Webhooks(t *testing.T, client *http.Client, srv server, key, eventID string, speakers []string, w5 benchResult) benchResult {
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
	res := concurrent(t, "W5h", client, srv, 8, 8*time.Second, func(i int) []request {
		return []request{{method: http.MethodPost, url: srv.url + "/api/v1/events/" + eventID + "/sessions", key: key,
			body: mustJSON(map[string]any{"title": fmt.Sprintf("Bench hooked session %d", i), "description": nil, "formatId": nil,
				"speakerIds": []any{speakers[i%len(speakers)]}}),
			then: func(created map[string]any) request {
				return request{method: http.MethodPost, key: key,
					url:  srv.url + "/api/v1/events/" + eventID + "/sessions/" + created["id"].(string) + "/cancel",
					body: []byte(`{"cause":"organizer","message":"Benchmark"}`)}
			}}}
	})
	verdict := "MISSED"
	if res.p99 <= 1.1*w5.p99 {
		verdict = "met"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "W5h (%d webhook endpoints) p99 %.1f ms vs W5 %.1f ms: ratio %.2f ≤ 1.10 %s; %d deliveries acknowledged during the run",
		webhookEndpoints, res.p99, w5.p99, res.p99/w5.p99, verdict, received.Load())
	t.Log(b.String())
	return res
}
