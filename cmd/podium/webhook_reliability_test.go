//go:build reliability

package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
)

// webhookEvents is how many events each webhook reliability test produces.
const webhookEvents = 1000

// webhookOutage is how long the receiver stays down in TestWebhooksSurviveReceiverOutage:
// PODIUM_RELIABILITY_WEBHOOK_OUTAGE (a Go duration, e.g. 10m for the ten minutes), 30 s
// by default so that make reliability stays short. The server's retry schedule is scaled with it
// (PODIUM_WEBHOOK_BACKOFF = outage/100), so the test covers the same number of attempts whatever
// the outage; only its length changes.
func webhookOutage(t *testing.T) time.Duration {
	v := os.Getenv("PODIUM_RELIABILITY_WEBHOOK_OUTAGE")
	if v == "" {
		return 30 * time.Second
	}
	d, err := time.ParseDuration(v)
	require.NoError(t, err, "PODIUM_RELIABILITY_WEBHOOK_OUTAGE")
	return d
}

// hookReceiver verifies every request with the Standard Webhooks reference library and counts
// each message id it acknowledged. While down, it refuses every request with 503.
type hookReceiver struct {
	srv   *httptest.Server
	wh    *standardwebhooks.Webhook
	down  atomic.Bool
	delay time.Duration
	// gate, while open (not closed), holds every request: deliveries pile up in flight.
	gate   chan struct{}
	mu     sync.Mutex
	counts map[string]int
	bad    int
	// abandoned counts requests whose sender had gone when they were answered.
	abandoned int
	downed    atomic.Int64
}

func newHookReceiver(t *testing.T, delay time.Duration) *hookReceiver {
	r := &hookReceiver{counts: map[string]int{}, delay: delay, gate: make(chan struct{})}
	close(r.gate)
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if r.down.Load() {
		r.downed.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	<-r.gate
	time.Sleep(r.delay)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.wh.Verify(body, req.Header); err != nil {
		r.bad++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if req.Context().Err() != nil {
		// The sender gave up (its timeout passed while the gate held the request): no answer
		// reaches it, so this is not an acknowledgement, and it will send the message again.
		r.abandoned++
		return
	}
	r.counts[req.Header.Get("webhook-id")]++
	w.WriteHeader(http.StatusNoContent)
}

// tally returns how many distinct messages were acknowledged, how many times beyond the first,
// and how many requests failed verification.
func (r *hookReceiver) tally() (distinct, extra, bad int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.counts {
		distinct++
		extra += n - 1
	}
	return distinct, extra, r.bad
}

// hookWorld is a server whose webhooks reach loopback, an endpoint on the receiver, and what
// creating sessions needs.
type hookWorld struct {
	srv     *server
	db      *pgxpool.Pool
	api     *apiClient
	event   string
	speaker string
	webhook string
}

func setupHooks(t *testing.T, rc *hookReceiver, backoff time.Duration) *hookWorld {
	t.Helper()
	srv := startServer(t, serverOpts{Env: []string{"PODIUM_WEBHOOK_ALLOW_HTTP=1",
		"PODIUM_WEBHOOK_ALLOW_NETWORKS=127.0.0.0/8", "PODIUM_WEBHOOK_BACKOFF=" + backoff.String()}})
	w := &hookWorld{srv: srv, db: srv.openDB()}
	w.api = newClient(srv, srv.createKey("Acme Hooks"), crashClients)
	w.event = w.api.createEvent(t, "Hook Conf")
	var err error
	w.speaker, err = w.api.mustCreate("/events/"+w.event+"/speakers", speakerBody("Ada", "ada@example.test"))
	require.NoError(t, err)
	hook := w.api.must(t, http.StatusCreated, http.MethodPost, "/webhooks",
		map[string]any{"url": rc.srv.URL + "/hooks", "eventTypes": []string{"session.created"}})
	w.webhook = hook["webhook"].(map[string]any)["id"].(string)
	wh, err := standardwebhooks.NewWebhook(hook["secret"].(string))
	require.NoError(t, err)
	rc.mu.Lock()
	rc.wh = wh
	rc.mu.Unlock()
	return w
}

// createSessions creates n sessions, each one a session.created event; it stops at the first
// failure (the server killed under it) and returns how many were created.
func (w *hookWorld) createSessions(n int) int {
	var created atomic.Int64
	var wg sync.WaitGroup
	next := make(chan int)
	var failed atomic.Bool
	for range crashClients {
		wg.Go(func() {
			for range next {
				if failed.Load() {
					continue
				}
				if _, err := w.api.mustCreate("/events/"+w.event+"/sessions", sessionBody("Talk", w.speaker)); err != nil {
					failed.Store(true)
					continue
				}
				created.Add(1)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return int(created.Load())
}

// messages counts the webhook messages the server committed.
func (w *hookWorld) messages(t *testing.T) int {
	var n int
	require.NoError(t, w.db.QueryRow(context.Background(), `SELECT count(*) FROM webhook_messages`).Scan(&n))
	return n
}

// waitReceived waits until the receiver acknowledged want distinct messages.
func waitReceived(t *testing.T, rc *hookReceiver, want int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got, _, _ := rc.tally()
		if got >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the receiver has %d of %d messages", timeout, got, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestWebhooksSurviveReceiverOutage: the receiver is down while 1,000 events happen and for the
// outage; once it is back, every message arrives, verified, and none is lost.
func TestWebhooksSurviveReceiverOutage(t *testing.T) {
	outage := webhookOutage(t)
	rc := newHookReceiver(t, 0)
	w := setupHooks(t, rc, outage/100)
	rc.down.Store(true)
	downAt := time.Now()
	require.Equal(t, webhookEvents, w.createSessions(webhookEvents))
	require.Equal(t, webhookEvents, w.messages(t))
	time.Sleep(time.Until(downAt.Add(outage)))
	refused := rc.downed.Load()
	rc.down.Store(false)
	backAt := time.Now()

	// With the schedule scaled to the outage, the attempt after it comes within about 2× the
	// outage; the rest is slack for a loaded machine.
	waitReceived(t, rc, webhookEvents, 3*outage+2*time.Minute)
	distinct, extra, bad := rc.tally()
	t.Logf("WEBHOOK outage=%s events=%d refused_during_outage=%d delivered=%d duplicates=%d after_back=%s",
		outage, webhookEvents, refused, distinct, extra, time.Since(backAt).Round(time.Second))
	require.Equal(t, webhookEvents, distinct)
	require.Zero(t, bad, "requests that failed verification")
	require.Positive(t, refused, "the receiver was never tried while down")
	// No crash, so no duplicate: a delivery that succeeded is recorded before its job completes.
	require.Zero(t, extra)
	require.Eventually(t, func() bool {
		var pending int
		require.NoError(t, w.db.QueryRow(context.Background(),
			`SELECT count(*) FROM webhook_deliveries WHERE status <> 'succeeded'`).Scan(&pending))
		return pending == 0
	}, time.Minute, 200*time.Millisecond)
}

// TestWebhooksSurviveSIGKILL: the server is killed while it delivers; after the restart every
// committed message arrives, and duplicates are bounded by the deliveries in flight at the kill.
func TestWebhooksSurviveSIGKILL(t *testing.T) {
	// The receiver holds requests while the events are created, then acknowledges each after
	// 20 ms: with 4 deliveries at once to an endpoint, 1,000 take about 5 s, and the kill falls in
	// the middle of them.
	rc := newHookReceiver(t, 20*time.Millisecond)
	rc.gate = make(chan struct{})
	w := setupHooks(t, rc, time.Second)
	created := w.createSessions(webhookEvents)
	require.Equal(t, webhookEvents, created)
	close(rc.gate)
	// Kill once the receiver has some but not all.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got, _, _ := rc.tally()
		if got >= webhookEvents/4 {
			break
		}
		require.True(t, time.Now().Before(deadline), "deliveries did not start")
		time.Sleep(10 * time.Millisecond)
	}
	w.srv.stop(syscall.SIGKILL)
	atKill, _, _ := rc.tally()
	ctx := context.Background()
	waitBackendsGone(t, w.db)
	// River rescues the webhook jobs of a dead process only after five minutes (jobs.Rescuer
	// leaves them to it); the test does what the rescuer will.
	_, err := w.db.Exec(ctx, `UPDATE river_job SET state = 'available', scheduled_at = now()
		WHERE kind IN ('dispatch_webhooks', 'deliver_webhook') AND state = 'running'`)
	require.NoError(t, err)
	w.srv.restart()

	waitReceived(t, rc, webhookEvents, 3*time.Minute)
	distinct, extra, bad := rc.tally()
	rc.mu.Lock()
	abandoned := rc.abandoned
	rc.mu.Unlock()
	t.Logf("WEBHOOK sigkill events=%d delivered_at_kill=%d delivered=%d duplicates=%d abandoned_by_sender=%d",
		webhookEvents, atKill, distinct, extra, abandoned)
	require.Equal(t, webhookEvents, distinct)
	require.Zero(t, bad)
	require.Less(t, atKill, webhookEvents, "the kill came after every delivery")
	// A message is sent twice only when the kill fell between the receiver's answer and the
	// record of it: at most one per delivery in flight to the endpoint.
	require.LessOrEqual(t, extra, jobs.DefaultWebhookPerEndpoint)
}
