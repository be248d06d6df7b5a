package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podium/podium/graph/model"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/rest"
)

// loopback lets tests' receivers on 127.0.0.1 through the SSRF checks, as an operator would
// allow an internal network.
var loopback = jobs.WebhookNetwork{AllowHTTP: true, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}

// receiver is a webhook receiver that checks every request's signature with the Standard Webhooks
// reference library, not with Podium's signing code.
type receiver struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	// secrets verify requests; a request must verify with each of them.
	secrets []string
	// answer is the status the receiver answers; 200 when zero.
	answer int
	got    []received
	bad    []string
}

// received is one verified request.
type received struct {
	ID, Type string
	Data     map[string]any
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{t: t}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.answer != 0 && rc.answer != http.StatusOK {
		w.WriteHeader(rc.answer)
		return
	}
	for _, s := range rc.secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err == nil {
			err = wh.Verify(body, r.Header)
		}
		if err != nil {
			rc.bad = append(rc.bad, err.Error())
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
	}
	var p struct {
		Type    string         `json:"type"`
		Version int            `json:"version"`
		Data    map[string]any `json:"data"`
	}
	if err := json.Unmarshal(body, &p); err != nil || p.Version != 1 {
		rc.bad = append(rc.bad, "payload: "+string(body))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rc.got = append(rc.got, received{ID: r.Header.Get("webhook-id"), Type: p.Type, Data: p.Data})
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) set(answer int, secrets ...string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.answer, rc.secrets = answer, secrets
}

// types returns the event types received so far.
func (rc *receiver) types() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := []string{}
	for _, g := range rc.got {
		out = append(out, g.Type)
	}
	return out
}

// webhookBundle is a bundle whose webhooks reach loopback, with the workers running and fast
// retries.
func webhookBundle(t *testing.T, cfg jobs.WebhookConfig) *testBundle {
	b := setup(t)
	b.startWorkers(jobs.Config{Webhooks: b.loopbackWebhooks(cfg)})
	return b
}

// loopbackWebhooks lets the bundle's webhooks reach loopback and gives cfg fast retries unless
// it has its own.
func (b *testBundle) loopbackWebhooks(cfg jobs.WebhookConfig) jobs.WebhookConfig {
	b.res.Ops.Webhooks = loopback
	cfg.Network = loopback
	if cfg.Backoff == nil {
		cfg.Backoff = func(int) time.Duration { return 50 * time.Millisecond }
	}
	return cfg
}

func (b *testBundle) createWebhook(key, url string, types ...string) (id, secret string) {
	b.t.Helper()
	body := map[string]any{"url": url, "description": "test"}
	if len(types) > 0 {
		body["eventTypes"] = types
	}
	r := b.must(http.StatusCreated, http.MethodPost, "/api/v1/webhooks", key, body).Obj()
	return str(r["webhook"].(map[string]any), "id"), str(r, "secret")
}

func (b *testBundle) deliveries(key, webhookID string) []map[string]any {
	b.t.Helper()
	var out []map[string]any
	for _, d := range b.must(http.StatusOK, http.MethodGet, "/api/v1/webhooks/"+webhookID+"/deliveries", key, nil).JSON.([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

func TestWebhookDeliveryVerifiesWithReferenceLibrary(t *testing.T) {
	t.Parallel()
	b := webhookBundle(t, jobs.WebhookConfig{})
	rc := newReceiver(t)
	id, secret := b.createWebhook(b.acme, rc.srv.URL+"/hooks")
	require.Regexp(t, `^whsec_[A-Za-z0-9+/=]{32}$`, secret)
	rc.set(0, secret)
	// Another organization's endpoint hears nothing of acme's changes.
	other := newReceiver(t)
	b.createWebhook(b.globex, other.srv.URL)

	w := b.world()
	s := b.createSession(w, "Keynote", w.ada)
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+str(s, "id")+"/cancel", b.acme,
		map[string]any{"cause": "organizer", "notifySpeakers": false})

	require.Eventually(t, func() bool { return len(rc.types()) == 2 }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, []string{"session.created", "session.cancelled"}, sortedByArrival(rc))
	rc.mu.Lock()
	require.Empty(t, rc.bad)
	require.Equal(t, str(s, "id"), rc.got[0].Data["sessionId"])
	require.Equal(t, w.event, rc.got[0].Data["eventId"])
	rc.mu.Unlock()
	require.Empty(t, other.types())

	var log []map[string]any
	require.Eventually(t, func() bool {
		log = b.deliveries(b.acme, id)
		return len(log) == 2 && log[0]["status"] == "succeeded" && log[1]["status"] == "succeeded"
	}, 10*time.Second, 20*time.Millisecond)
	for _, d := range log {
		require.Equal(t, "succeeded", d["status"])
		require.Equal(t, 1, toInt(d["attempts"]))
		require.Equal(t, 204, toInt(d["responseCode"]))
		require.NotNil(t, d["latencyMs"])
		require.NotNil(t, d["deliveredAt"])
	}
	// The delivery log and the endpoint are the organization's alone.
	b.requireError(b.do(http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries", b.globex, nil), 404, "not_found")
	b.requireError(b.do(http.MethodGet, "/api/v1/webhooks/"+id, b.globex, nil), 404, "not_found")
	require.Len(t, b.must(http.StatusOK, http.MethodGet, "/api/v1/webhooks", b.globex, nil).JSON.([]any), 1)
}

// sortedByArrival returns the received types in arrival order; deliveries run concurrently, so
// the two are compared as a set when they arrived otherwise.
func sortedByArrival(rc *receiver) []string {
	got := rc.types()
	if len(got) == 2 && got[0] == "session.cancelled" {
		got[0], got[1] = got[1], got[0]
	}
	return got
}

func TestWebhookOutboxRollsBackWithTheChange(t *testing.T) {
	t.Parallel()
	b := webhookBundle(t, jobs.WebhookConfig{})
	rc := newReceiver(t)
	b.createWebhook(b.acme, rc.srv.URL)
	w := b.world()

	ctx := b.scopeOf(w.event)
	boom := context.Canceled
	err := b.db.InTx(ctx, func(ctx context.Context) error {
		_, err := b.res.Ops.CreateSession(ctx, w.event, model.CreateSessionInput{Title: "Rolled back",
			FormatID: &w.format, SpeakerIds: []string{w.ada}})
		require.NoError(t, err)
		require.Equal(t, 1, countIn(t, ctx, "SELECT count(*) FROM webhook_messages"))
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Zero(t, b.count("SELECT count(*) FROM webhook_messages"))
	require.Zero(t, b.count("SELECT count(*) FROM webhook_deliveries"))
	require.Zero(t, b.count("SELECT count(*) FROM river_job WHERE kind IN ('fan_out_webhook', 'deliver_webhook')"))

	// A change that commits is delivered.
	b.createSession(w, "Committed", w.ada)
	require.Eventually(t, func() bool { return len(rc.types()) == 1 }, 10*time.Second, 20*time.Millisecond)
}

// countIn counts in the transaction of ctx.
func countIn(t *testing.T, ctx context.Context, sql string) int {
	var n int
	require.NoError(t, dbx.TxFromContext(ctx).PGX().QueryRow(ctx, sql).Scan(&n))
	return n
}

func TestWebhookFiltersEventTypes(t *testing.T) {
	t.Parallel()
	b := webhookBundle(t, jobs.WebhookConfig{})
	rc := newReceiver(t)
	id, _ := b.createWebhook(b.acme, rc.srv.URL, "session.cancelled")
	w := b.world()
	s := b.createSession(w, "Keynote", w.ada)
	b.must(http.StatusOK, http.MethodPost, w.base+"/sessions/"+str(s, "id")+"/cancel", b.acme,
		map[string]any{"cause": "organizer", "notifySpeakers": false})
	require.Eventually(t, func() bool { return len(rc.types()) == 1 }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, []string{"session.cancelled"}, rc.types())
	require.Equal(t, 1, b.count("SELECT count(*) FROM webhook_messages"))

	// The log shows each delivery's event type; deleting the endpoint deletes its log (the
	// deliveries have no foreign key to cascade from).
	require.Eventually(t, func() bool { return len(b.deliveries(b.acme, id)) == 1 }, 5*time.Second, 20*time.Millisecond)
	require.Equal(t, "session.cancelled", b.deliveries(b.acme, id)[0]["eventType"])
	b.must(http.StatusNoContent, http.MethodDelete, "/api/v1/webhooks/"+id, b.acme, nil)
	require.Zero(t, b.count("SELECT count(*) FROM webhook_deliveries"))
}

func TestWebhookRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	b := webhookBundle(t, jobs.WebhookConfig{})
	rc := newReceiver(t)
	id, secret := b.createWebhook(b.acme, rc.srv.URL)
	rc.set(http.StatusServiceUnavailable, secret)
	w := b.world()
	b.createSession(w, "Keynote", w.ada)
	require.Eventually(t, func() bool {
		d := b.deliveries(b.acme, id)
		return len(d) == 1 && toInt(d[0]["attempts"]) >= 2
	}, 10*time.Second, 20*time.Millisecond)
	d := b.deliveries(b.acme, id)[0]
	require.Equal(t, "pending", d["status"])
	require.Equal(t, 503, toInt(d["responseCode"]))
	require.Contains(t, d["error"], "503")

	rc.set(0, secret)
	require.Eventually(t, func() bool { return len(rc.types()) == 1 }, 10*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool { return b.deliveries(b.acme, id)[0]["status"] == "succeeded" }, 5*time.Second, 20*time.Millisecond)
}

// toInt reads a JSON number of a response.
func toInt(v any) int {
	n, _ := v.(json.Number).Int64()
	return int(n)
}

func TestWebhookDisabledAfterFailingTooLong(t *testing.T) {
	t.Parallel()
	b := webhookBundle(t, jobs.WebhookConfig{DisableAfter: time.Nanosecond})
	rc := newReceiver(t)
	id, _ := b.createWebhook(b.acme, rc.srv.URL)
	rc.set(http.StatusInternalServerError)
	w := b.world()
	b.createSession(w, "Keynote", w.ada)
	var hook map[string]any
	require.Eventually(t, func() bool {
		hook = b.must(http.StatusOK, http.MethodGet, "/api/v1/webhooks/"+id, b.acme, nil).Obj()
		return hook["enabled"] == false
	}, 10*time.Second, 20*time.Millisecond)
	require.Contains(t, hook["disabledReason"], "500")
	require.NotNil(t, hook["failingSince"])
	require.Eventually(t, func() bool { return b.deliveries(b.acme, id)[0]["status"] == "failed" }, 5*time.Second, 20*time.Millisecond)

	// A disabled endpoint gets no new messages; enabling it again clears its failures.
	b.createSession(w, "Another", w.ada)
	require.Len(t, b.deliveries(b.acme, id), 1)
	hook = b.must(http.StatusOK, http.MethodPatch, "/api/v1/webhooks/"+id, b.acme, map[string]any{"enabled": true}).Obj()
	require.Nil(t, hook["disabledReason"])
	require.Nil(t, hook["failingSince"])
}

func TestWebhookRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	b := webhookBundle(t, jobs.WebhookConfig{Backoff: func(int) time.Duration { return time.Hour }})
	target := newReceiver(t)
	redirect := httptest.NewServer(http.RedirectHandler(target.srv.URL, http.StatusTemporaryRedirect))
	t.Cleanup(redirect.Close)
	id, _ := b.createWebhook(b.acme, redirect.URL)
	w := b.world()
	b.createSession(w, "Keynote", w.ada)
	require.Eventually(t, func() bool {
		d := b.deliveries(b.acme, id)
		return len(d) == 1 && toInt(d[0]["attempts"]) == 1
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, 307, toInt(b.deliveries(b.acme, id)[0]["responseCode"]))
	require.Empty(t, target.types())
}

func TestWebhookSecretRotationAndRedelivery(t *testing.T) {
	t.Parallel()
	b := webhookBundle(t, jobs.WebhookConfig{})
	rc := newReceiver(t)
	id, old := b.createWebhook(b.acme, rc.srv.URL)
	rot := b.must(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+id+"/rotate-secret", b.acme,
		map[string]any{"graceHours": 2}).Obj()
	fresh := str(rot, "secret")
	require.NotEqual(t, old, fresh)
	require.NotNil(t, rot["webhook"].(map[string]any)["previousSecretExpiresAt"])
	// During the grace period every message verifies with the old secret and with the new one.
	rc.set(0, old, fresh)
	w := b.world()
	b.createSession(w, "Keynote", w.ada)
	require.Eventually(t, func() bool { return len(rc.types()) == 1 }, 10*time.Second, 20*time.Millisecond)

	// Redelivery sends the same message, with the same webhook-id. The delivery is in the log once
	// its answer is recorded, just after the receiver answered.
	var d map[string]any
	require.Eventually(t, func() bool {
		log := b.deliveries(b.acme, id)
		if len(log) == 1 {
			d = log[0]
		}
		return d != nil && d["status"] == "succeeded"
	}, 10*time.Second, 20*time.Millisecond)
	b.must(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+id+"/deliveries/"+str(d, "id")+"/redeliver", b.acme, nil)
	require.Eventually(t, func() bool { return len(rc.types()) == 2 }, 10*time.Second, 20*time.Millisecond)
	rc.mu.Lock()
	require.Equal(t, rc.got[0].ID, rc.got[1].ID)
	require.Equal(t, str(d, "messageId"), rc.got[0].ID)
	rc.mu.Unlock()

	// Everything since a time.
	n := b.must(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+id+"/redeliver", b.acme,
		map[string]any{"since": "2020-01-01T00:00:00.000Z"}).Obj()
	require.Equal(t, 1, toInt(n["count"]))
	require.Eventually(t, func() bool { return len(rc.types()) == 3 }, 10*time.Second, 20*time.Millisecond)

	// Without a grace period, the old secret stops signing at once.
	rot = b.must(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+id+"/rotate-secret", b.acme,
		map[string]any{"graceHours": 0}).Obj()
	newest := str(rot, "secret")
	rc.set(0, fresh)
	b.createSession(w, "Second", w.ada)
	require.Eventually(t, func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		return len(rc.bad) > 0
	}, 10*time.Second, 20*time.Millisecond)
	rc.set(0, newest)
	require.Eventually(t, func() bool { return len(rc.types()) == 4 }, 10*time.Second, 20*time.Millisecond)
}

func TestWebhookEndpointValidation(t *testing.T) {
	t.Parallel()
	b := setup(t) // the default network policy: public https only
	for _, url := range []string{
		"http://example.com/hooks",         // plain http
		"https://127.0.0.1/hooks",          // loopback
		"https://localhost/hooks",          // loopback by name
		"https://10.1.2.3/hooks",           // private
		"https://169.254.169.254/latest",   // link-local: cloud metadata
		"https://[::1]/hooks",              // IPv6 loopback
		"https://[fd00:ec2::254]/",         // IPv6 unique local: AWS metadata
		"https://[::ffff:127.0.0.1]/hooks", // IPv4-mapped loopback
		"https://100.100.100.200/",         // carrier-grade NAT: another cloud's metadata
		"https://user:pw@example.com/",     // credentials
		"/relative",
		"",
	} {
		b.requireError(b.do(http.MethodPost, "/api/v1/webhooks", b.acme, map[string]any{"url": url}), 400, "invalid_input")
	}
	b.requireError(b.do(http.MethodPost, "/api/v1/webhooks", b.acme,
		map[string]any{"url": "https://93.184.215.14/hooks", "eventTypes": []string{"session.exploded"}}), 400, "invalid_input")
	b.requireError(b.do(http.MethodPost, "/api/v1/webhooks", b.acme, map[string]any{}), 400, "invalid_body")
	require.Zero(t, b.count("SELECT count(*) FROM webhook_endpoints"))

	// A public address is accepted without resolving anything.
	r := b.must(http.StatusCreated, http.MethodPost, "/api/v1/webhooks", b.acme,
		map[string]any{"url": "https://93.184.215.14/hooks", "eventTypes": []string{"session.created", "session.created"}}).Obj()
	hook := r["webhook"].(map[string]any)
	require.Equal(t, []any{"session.created"}, hook["eventTypes"])
	id := str(hook, "id")
	b.requireError(b.do(http.MethodPatch, "/api/v1/webhooks/"+id, b.acme, map[string]any{"url": "https://192.168.1.1/"}), 400, "invalid_input")
	b.requireError(b.do(http.MethodPost, "/api/v1/webhooks/"+id+"/rotate-secret", b.acme, map[string]any{"graceHours": 1000}), 400, "invalid_input")
	b.requireError(b.do(http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries?limit=0", b.acme, nil), 400, "invalid_input")
	b.requireError(b.do(http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries?status=lost", b.acme, nil), 400, "invalid_input")
	// Another organization can neither change nor delete it.
	b.requireError(b.do(http.MethodPatch, "/api/v1/webhooks/"+id, b.globex, map[string]any{"enabled": false}), 404, "not_found")
	b.requireError(b.do(http.MethodDelete, "/api/v1/webhooks/"+id, b.globex, nil), 404, "not_found")
	b.must(http.StatusNoContent, http.MethodDelete, "/api/v1/webhooks/"+id, b.acme, nil)
	require.Zero(t, b.count("SELECT count(*) FROM webhook_endpoints"))

	types := b.must(http.StatusOK, http.MethodGet, "/api/v1/webhooks/event-types", b.acme, nil).JSON.([]any)
	require.Len(t, types, len(operation.WebhookEventTypes))
}

// Each operation that causes an event writes its message in its own transaction, whatever the
// transport: here, REST calls on the fixture, whose organization has an endpoint for every type.
func TestWebhookEventsOfEachOperation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	f := b.fixture()
	call := func(method, path string, body any) {
		t.Helper()
		r := b.do(method, f.path(path), b.acme, body)
		require.Less(t, r.Status, 300, "%s %s: %s", method, path, r.Raw)
	}
	call(http.MethodPut, "/events/{eventId}/agenda/schedule", f.bodies["scheduleSession"])
	call(http.MethodPost, "/events/{eventId}/agenda/publish", nil)
	call(http.MethodPost, "/events/{eventId}/agenda/unpublish", nil)
	call(http.MethodPatch, "/events/{eventId}/speakers/{contactId}/workflow", map[string]any{"status": "onboarding"})
	call(http.MethodPatch, "/events/{eventId}/speakers/{contactId}/workflow", map[string]any{"status": "confirmed"})
	call(http.MethodPost, "/events/{eventId}/review-assignments/{assignmentId}/answers", f.bodies["submitReviewAnswers"])
	call(http.MethodPost, "/events/{eventId}/submissions/decide", f.bodies["decideSubmissions"])
	call(http.MethodPost, "/events/{eventId}/sessions/{submissionId}/cancel", f.bodies["cancelSession"])
	call(http.MethodPost, "/events/{eventId}/sessions/{submissionId}/reinstate", f.bodies["reinstateSession"])
	call(http.MethodDelete, "/events/{eventId}/sessions/{submissionId}", nil)

	rows, err := b.db.System.Query(b.sys(), `SELECT DISTINCT event_type FROM webhook_messages`)
	require.NoError(t, err)
	var types []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		types = append(types, s)
	}
	require.NoError(t, rows.Err())
	require.ElementsMatch(t, []string{"session.created", "session.scheduled", "session.cancelled", "session.reinstated",
		"session.deleted", "agenda.published", "agenda.unpublished", "speaker.workflow_changed", "speaker.confirmed",
		"review.completed", "submission.submitted", "submission.decided", "resource.published"}, types)
	// The messages wait in the outbox, with no job each: a dispatch run takes them. Taken, each
	// has one delivery (the organization has one endpoint); taken again, none more.
	messages := b.count(`SELECT count(*) FROM webhook_messages`)
	require.Positive(t, b.count(`SELECT count(*) FROM webhook_messages WHERE dispatched_at IS NULL`))
	require.Zero(t, b.count(`SELECT count(*) FROM river_job WHERE kind LIKE '%webhook%'`))
	b.fanOutWebhooks()
	b.fanOutWebhooks()
	require.Equal(t, messages, b.count(`SELECT count(*) FROM webhook_deliveries`))
	require.Zero(t, b.count(`SELECT count(*) FROM webhook_messages WHERE dispatched_at IS NULL`))
}

// TestWebhookSecretsAreNotReplayed: an endpoint's signing secret is shown once and never stored to
// be replayed: Idempotency-Key is ignored on the routes that answer one (creating an endpoint,
// rotating its secret), so each call answers a fresh secret and no response is recorded.
func TestWebhookSecretsAreNotReplayed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rc := newReceiver(t)
	b.loopbackWebhooks(jobs.WebhookConfig{})
	post := func(path, body string) response {
		req := b.request(http.MethodPost, path, "Bearer "+b.acme)
		req.Body = io.NopCloser(strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(rest.IdempotencyHeader, "same-key-"+path)
		r := b.send(req)
		require.Contains(t, []int{http.StatusOK, http.StatusCreated}, r.Status, r.Raw)
		require.Empty(t, r.Header.Get(rest.ReplayedHeader))
		return r
	}
	body := `{"url":"` + rc.srv.URL + `","description":"once"}`
	first, second := post("/api/v1/webhooks", body), post("/api/v1/webhooks", body)
	require.NotEqual(t, str(first.Obj(), "secret"), str(second.Obj(), "secret"))
	id := str(first.Obj()["webhook"].(map[string]any), "id")
	r1, r2 := post("/api/v1/webhooks/"+id+"/rotate-secret", `{}`), post("/api/v1/webhooks/"+id+"/rotate-secret", `{}`)
	require.NotEqual(t, str(r1.Obj(), "secret"), str(r2.Obj(), "secret"))
	require.Zero(t, b.count(`SELECT count(*) FROM idempotency_records`))
}
