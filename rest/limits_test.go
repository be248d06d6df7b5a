package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/rest"
)

// The same bucket, headers and refusals whether the buckets live in PostgreSQL (shared by every
// instance) or in the process.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	for name, local := range map[string]bool{"Shared": false, "Local": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testRateLimit(t, local)
		})
	}
}

func testRateLimit(t *testing.T, local bool) {
	b := setup(t)
	log := b.quietLog()
	h := rest.NewHandler(rest.Options{DB: b.db, Ops: b.res.Ops, Log: log, RateLimit: rest.RateLimit{PerSecond: 2, Burst: 3, Local: local},
		GraphQL: graph.NewHandler(graph.HandlerOptions{DB: b.db, Resolver: b.res, Log: log})})
	send := func(key, path string, body string) *httptest.ResponseRecorder {
		method := http.MethodGet
		var req *http.Request
		if body != "" {
			method = http.MethodPost
			req = httptest.NewRequest(method, path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
		} else {
			req = httptest.NewRequest(method, path, nil)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	for i, remaining := range []string{"2", "1", "0"} {
		rec := send(b.acme, "/api/v1/events", "")
		require.Equal(t, http.StatusOK, rec.Code, "request %d", i)
		require.Equal(t, "3", rec.Header().Get("RateLimit-Limit"))
		require.Equal(t, remaining, rec.Header().Get("RateLimit-Remaining"))
	}
	rec := send(b.acme, "/api/v1/events", "")
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Equal(t, "1", rec.Header().Get("Retry-After"))
	require.Equal(t, "0", rec.Header().Get("RateLimit-Remaining"))
	// Less than one token is left, so refilling the bucket of 3 at 2/s takes more than 1 s.
	require.Equal(t, "2", rec.Header().Get("RateLimit-Reset"))
	var envelope struct {
		Error struct{ Code, Message string }
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &envelope))
	require.Equal(t, "rate_limited", envelope.Error.Code)
	require.NotEmpty(t, envelope.Error.Message)

	// GraphQL shares the key's bucket and answers the GraphQL way.
	rec = send(b.acme, "/graphql", `{"query":"{ events(first: 1) { totalCount } }"}`)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Contains(t, rec.Body.String(), `"code":"rate_limited"`)

	// Another key has its own bucket; a 401 spends nobody's.
	require.Equal(t, http.StatusOK, send(b.globex, "/api/v1/events", "").Code)
	require.Equal(t, http.StatusUnauthorized, send("pdm_wrong", "/api/v1/events", "").Code)

	// The bucket refills.
	time.Sleep(600 * time.Millisecond)
	require.Equal(t, http.StatusOK, send(b.acme, "/api/v1/events", "").Code)
}

// instances returns n routers on one database, each with its own pool, as n Podium processes
// behind a load balancer would be, and the bundle of the first (its keys, its helpers).
func instances(t *testing.T, n int, limit rest.RateLimit) (*testBundle, []http.Handler) {
	t.Helper()
	url := pgtest.NewURL(t)
	var b *testBundle
	var hs []http.Handler
	for i := range n {
		db, err := dbx.Open(context.Background(), url, dbx.Options{MaxConns: 4})
		require.NoError(t, err)
		t.Cleanup(db.Close)
		if i == 0 {
			b = newBundle(t, bundleOpts{DB: db})
		}
		log := b.quietLog()
		res := graph.NewResolver(db, &email.Outbox{Jobs: b.river, PublicURL: "https://podium.example.test"})
		hs = append(hs, rest.NewHandler(rest.Options{DB: db, Ops: res.Ops, Log: log, RateLimit: limit,
			GraphQL: graph.NewHandler(graph.HandlerOptions{DB: db, Resolver: res, Log: log})}))
	}
	return b, hs
}

// A key's limit holds across instances: three routers, each with its own pool, share one bucket
// per key, so round-robin over them admits Burst requests at once, not three times as many.
func TestRateLimitAcrossInstances(t *testing.T) {
	t.Parallel()
	b, hs := instances(t, 3, rest.RateLimit{PerSecond: 0.5, Burst: 5})
	statuses := map[int]int{}
	for i := range 15 {
		req := b.request(http.MethodGet, "/api/v1/events", "Bearer "+b.acme)
		rec := httptest.NewRecorder()
		hs[i%len(hs)].ServeHTTP(rec, req)
		statuses[rec.Code]++
	}
	require.Equal(t, map[int]int{http.StatusOK: 5, http.StatusTooManyRequests: 10}, statuses)

	// Concurrent requests of one key on every instance: still no more than the bucket holds.
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			req := b.request(http.MethodGet, "/api/v1/events", "Bearer "+b.globex)
			rec := httptest.NewRecorder()
			hs[i%len(hs)].ServeHTTP(rec, req)
			if rec.Code == http.StatusOK {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, 5, allowed.Load())
}

// An Idempotency-Key recorded by one instance replays on another: the records are in PostgreSQL.
func TestIdempotencyKeyAcrossInstances(t *testing.T) {
	t.Parallel()
	b, hs := instances(t, 2, rest.RateLimit{})
	body := `{"name":"Replayed elsewhere","type":"conference","timezone":"UTC","startsAt":"2027-01-01T09:00:00Z","endsAt":"2027-01-02T17:00:00Z"}`
	send := func(h http.Handler) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/events", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+b.acme)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(rest.IdempotencyHeader, "across-1")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	first := send(hs[0])
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	again := send(hs[1])
	require.Equal(t, http.StatusCreated, again.Code)
	require.Equal(t, "true", again.Header().Get(rest.ReplayedHeader))
	require.Equal(t, first.Body.String(), again.Body.String())
	require.Equal(t, 1, b.count(`SELECT count(*) FROM events WHERE name = 'Replayed elsewhere'`))
}

func TestIdempotencyKeys(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	send := func(key, idem string, body any) response {
		raw, _ := json.Marshal(body)
		req := httptest.NewRequest(http.MethodPost, "/api/v1/events", strings.NewReader(string(raw)))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		if idem != "" {
			req.Header.Set(rest.IdempotencyHeader, idem)
		}
		return b.send(req)
	}
	event := map[string]any{"name": "Replayed", "type": "conference", "timezone": "UTC",
		"startsAt": "2027-01-01T09:00:00Z", "endsAt": "2027-01-02T17:00:00Z"}
	count := func() int { return b.count(`SELECT count(*) FROM events WHERE name = 'Replayed'`) }

	first := send(b.acme, "create-1", event)
	require.Equal(t, http.StatusCreated, first.Status, first.Raw)
	require.Empty(t, first.Header.Get(rest.ReplayedHeader))
	again := send(b.acme, "create-1", event)
	require.Equal(t, http.StatusCreated, again.Status)
	require.Equal(t, first.Raw, again.Raw, "the recorded response, byte for byte")
	require.Equal(t, "true", again.Header.Get(rest.ReplayedHeader))
	require.Equal(t, 1, count())

	// The same key with another request is refused; another client's same key is its own.
	other := clone(event)
	other["name"] = "Something else"
	b.requireError(send(b.acme, "create-1", other), http.StatusUnprocessableEntity, "idempotency_key_reused")
	require.Equal(t, http.StatusCreated, send(b.globex, "create-1", event).Status)
	require.Equal(t, 2, count())

	// A refused request records nothing: its corrected retry goes through.
	bad := clone(event)
	bad["endsAt"] = "2026-01-01T00:00:00Z"
	b.requireError(send(b.acme, "create-2", bad), http.StatusBadRequest, "invalid_input")
	require.Equal(t, http.StatusCreated, send(b.acme, "create-2", event).Status)
	require.Equal(t, 3, count())

	// Without a key, every request writes.
	require.Equal(t, http.StatusCreated, send(b.acme, "", event).Status)
	require.Equal(t, 4, count())
	b.requireError(send(b.acme, strings.Repeat("k", 256), event), http.StatusBadRequest, "invalid_input")
	b.requireError(send(b.acme, "has space", event), http.StatusBadRequest, "invalid_input")

	// Concurrent retries with one key: one write, the same answer for all.
	var wg sync.WaitGroup
	answers := make([]response, 6)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = send(b.acme, "create-3", event)
		}()
	}
	wg.Wait()
	for _, a := range answers {
		require.Equal(t, http.StatusCreated, a.Status, a.Raw)
		require.Equal(t, answers[0].Raw, a.Raw)
	}
	require.Equal(t, 5, count())

	// A replayed write sends no second email.
	w := b.world()
	invite := func() response {
		req := httptest.NewRequest(http.MethodPost, w.base+"/speakers/invite", strings.NewReader(`{"contactIds":["`+w.ada+`"]}`))
		req.Header.Set("Authorization", "Bearer "+b.acme)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(rest.IdempotencyHeader, "invite-ada")
		return b.send(req)
	}
	require.Equal(t, http.StatusOK, invite().Status)
	require.Equal(t, "true", invite().Header.Get(rest.ReplayedHeader))
	require.Equal(t, 1, b.count(`SELECT count(*) FROM email_log WHERE recipient = 'ada@example.test'`))
	b.sink.Wait(t, 1, 10*time.Second)
	time.Sleep(200 * time.Millisecond)
	require.Len(t, b.sink.Messages(), 1)

	// After 24 hours a key is forgotten.
	_, err := b.db.System.Exec(b.sys(), `UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE key = 'create-1'`)
	require.NoError(t, err)
	fresh := send(b.acme, "create-1", other)
	require.Equal(t, http.StatusCreated, fresh.Status)
	require.Empty(t, fresh.Header.Get(rest.ReplayedHeader))
}
