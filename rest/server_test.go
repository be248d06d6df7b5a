package rest_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"
)

func TestHealth(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.Equal(t, map[string]any{"status": "ok"}, b.must(http.StatusOK, http.MethodGet, "/healthz", "", nil).JSON)
	require.Equal(t, map[string]any{"status": "ok"}, b.must(http.StatusOK, http.MethodGet, "/readyz", "", nil).JSON)

	b.db.Close()
	require.Equal(t, map[string]any{"status": "ok"}, b.must(http.StatusOK, http.MethodGet, "/healthz", "", nil).JSON)
	require.Equal(t, map[string]any{"status": "unavailable"}, b.must(http.StatusServiceUnavailable, http.MethodGet, "/readyz", "", nil).JSON)
}

// TestInternalErrorsDoNotLeak checks that failures outside the error vocabulary — here a closed
// database and a panicking handler — answer internal_error without detail, and log the detail.
func TestInternalErrorsDoNotLeak(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(_ *testBundle, r chi.Router) {
		r.Get("/boom", func(http.ResponseWriter, *http.Request) { panic("secret detail 42") })
	})
	key, db, logs := b.acme, b.db, b.logs

	r := b.do(http.MethodGet, "/boom", "", nil)
	b.requireError(r, http.StatusInternalServerError, "internal_error")
	require.Equal(t, "Something went wrong handling this request", r.ErrMessage())
	require.NotContains(t, r.Raw, "secret detail")

	db.Close()
	r = b.do(http.MethodGet, "/api/v1/events", key, nil)
	b.requireError(r, http.StatusInternalServerError, "internal_error")
	require.NotContains(t, r.Raw, "closed")
	g := b.gql(key, `{ organization { id } }`, nil)
	require.Equal(t, []string{"internal_error"}, g.Codes(), g.Raw)

	logMu.Lock()
	defer logMu.Unlock()
	require.Contains(t, logs.String(), "secret detail 42")
	require.Contains(t, logs.String(), "access: look up key: closed pool")
}
