package rest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph"
	"github.com/podium/podium/rest"
)

func TestRateLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	log := b.quietLog()
	h := rest.NewHandler(rest.Options{DB: b.db, Resolver: b.res, Log: log, RateLimit: rest.RateLimit{PerSecond: 2, Burst: 3},
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
	_, err := b.db.Pool.Exec(b.sys(), `UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE key = 'create-1'`)
	require.NoError(t, err)
	fresh := send(b.acme, "create-1", other)
	require.Equal(t, http.StatusCreated, fresh.Status)
	require.Empty(t, fresh.Header.Get(rest.ReplayedHeader))
}
