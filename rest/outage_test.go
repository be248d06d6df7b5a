package rest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
)

// While PostgreSQL is away, every request answers quickly, 503 unavailable with Retry-After over
// REST and extensions.code unavailable over GraphQL, and /readyz says not ready; once it is back,
// requests succeed again without anything being restarted, and what was acknowledged before is
// still there.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	proxy, proxied := pgtest.NewProxy(t, pgtest.NewURL(t))
	db, err := dbx.Open(context.Background(), proxied, dbx.Options{MaxConns: 4,
		ConnectTimeout: 500 * time.Millisecond, AcquireTimeout: 2 * time.Second, StatementTimeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(db.Close)
	b := newBundle(t, bundleOpts{DB: db})
	created := b.do(http.MethodPost, "/api/v1/events", b.acme, map[string]any{"name": "Before the outage",
		"type": "conference", "timezone": "UTC", "startsAt": "2027-01-01T09:00:00Z", "endsAt": "2027-01-02T17:00:00Z"})
	require.Equal(t, http.StatusCreated, created.Status, created.Raw)

	requireUnavailable := func(t *testing.T) {
		t.Helper()
		for _, req := range []struct{ method, path, body string }{
			{http.MethodGet, "/api/v1/events", ""},
			{http.MethodPost, "/api/v1/events", `{"name":"During","type":"conference","timezone":"UTC","startsAt":"2027-01-01T09:00:00Z","endsAt":"2027-01-02T17:00:00Z"}`},
		} {
			start := time.Now()
			r := httptest.NewRequest(req.method, req.path, strings.NewReader(req.body))
			r.Header.Set("Authorization", "Bearer "+b.acme)
			r.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			b.handler.ServeHTTP(rec, r)
			require.Less(t, time.Since(start), 3*time.Second, "%s %s took too long", req.method, req.path)
			require.Equal(t, http.StatusServiceUnavailable, rec.Code, "%s %s: %s", req.method, req.path, rec.Body)
			require.JSONEq(t, `{"error":{"code":"unavailable","message":"The service is temporarily unavailable; retry the request shortly"}}`, rec.Body.String())
			require.Equal(t, "2", rec.Header().Get("Retry-After"))
		}
		r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ events(first: 1) { totalCount } }"}`))
		r.Header.Set("Authorization", "Bearer "+b.acme)
		r.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		b.handler.ServeHTTP(rec, r)
		require.Contains(t, rec.Body.String(), `"code":"unavailable"`)
		rec = httptest.NewRecorder()
		b.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	}
	requireBack := func(t *testing.T) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			r := b.do(http.MethodGet, "/api/v1/events", b.acme, nil)
			if r.Status == http.StatusOK {
				require.Contains(t, r.Raw, "Before the outage")
				break
			}
			require.Equal(t, http.StatusServiceUnavailable, r.Status, r.Raw)
			require.True(t, time.Now().Before(deadline), "not serving 5 s after the database came back")
			time.Sleep(100 * time.Millisecond)
		}
		rec := httptest.NewRecorder()
		b.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		require.Equal(t, http.StatusOK, rec.Code)
	}

	t.Run("Down", func(t *testing.T) {
		proxy.Down()
		requireUnavailable(t)
		proxy.Up()
		requireBack(t)
	})
	t.Run("Unreachable", func(t *testing.T) {
		// Connections that never answer are bounded by the connect timeout, not by the request.
		proxy.Blackhole()
		requireUnavailable(t)
		proxy.Down()
		proxy.Up()
		requireBack(t)
	})
}
