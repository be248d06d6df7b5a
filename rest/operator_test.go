package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
	"github.com/podium/podium/rest"
)

// operatorToken is the operator credential of the tests' operator listeners.
const operatorToken = "op-token-0123456789abcdef"

// operator returns an operator listener's handler for the bundle's database, metrics and River
// client, with River UI; token "" admits loopback hosts only.
func (b *testBundle) operator(token string) http.Handler {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.t.Cleanup(cancel)
	ui, err := jobs.NewUI(ctx, b.river, b.quietLog())
	require.NoError(b.t, err)
	return rest.NewOperatorHandler(rest.OperatorOptions{DB: b.db, Log: b.quietLog(), Metrics: b.metrics,
		UI: ui, UIPrefix: jobs.UIPrefix, Token: token})
}

// opRequest is a request to an operator listener, authenticated by configure.
func opRequest(method, path, body string, configure func(*http.Request)) *http.Request {
	var req *http.Request
	if body == "" {
		req = httptest.NewRequest(method, path, nil)
	} else {
		req = httptest.NewRequest(method, path, strings.NewReader(body))
	}
	if configure != nil {
		configure(req)
	}
	return req
}

func serveTo(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// requireOpError checks an error answer of the operator listener.
func requireOpError(t *testing.T, rec *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	require.Equal(t, status, rec.Code, rec.Body.String())
	var env struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env), rec.Body.String())
	require.Equal(t, code, env.Error.Code, rec.Body.String())
}

// TestOperatorListener is the wall between tenants and operators: River UI (every
// organization's jobs, with pause, cancel and delete), the metrics and the health details are
// served on the operator listener only, to the operator token; an organization's API key or a
// person's session opens none of it, on either listener, and a write from another site is
// refused before River UI sees it.
func TestOperatorListener(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fx := b.cfpFixture(nil)
	b.queueEmails(fx.event, 2, "ops@example.test")
	cookie := b.formSignIn("speaker@example.test", fx.form)
	op := b.operator(operatorToken)

	var jobID int64
	require.NoError(t, b.db.System.QueryRow(b.sys(),
		`SELECT id FROM river_job WHERE kind = 'deliver_email' ORDER BY id LIMIT 1`).Scan(&jobID))
	jobExists := func() bool {
		var n int
		require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT count(*) FROM river_job WHERE id = $1`, jobID).Scan(&n))
		return n == 1
	}
	deleteBody := `{"ids":["` + strconv.FormatInt(jobID, 10) + `"]}`
	basic := func(password string) func(*http.Request) {
		return func(r *http.Request) { r.SetBasicAuth("operator", password) }
	}
	bearer := func(token string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	}

	t.Run("PublicListenerHasNone", func(t *testing.T) {
		b.requireError(b.do(http.MethodGet, "/metrics", "", nil), http.StatusNotFound, "unknown_endpoint")
		for _, key := range []string{b.acme, b.globex} {
			for _, path := range []string{"/riverui", "/riverui/", "/riverui/api/jobs?state=available", "/riverui/api/queues"} {
				b.requireError(b.send(opRequest(http.MethodGet, path, "", basic(key))), http.StatusNotFound, "unknown_endpoint")
			}
			b.requireError(b.send(opRequest(http.MethodPost, "/riverui/api/jobs/delete", deleteBody, basic(key))),
				http.StatusNotFound, "unknown_endpoint")
			b.requireError(b.send(opRequest(http.MethodPut, "/riverui/api/queues/email/pause", "", bearer(key))),
				http.StatusNotFound, "unknown_endpoint")
		}
		require.True(t, jobExists())
		require.Equal(t, map[string]any{"status": "ok"}, b.must(http.StatusOK, http.MethodGet, "/healthz", "", nil).JSON)
		require.Equal(t, map[string]any{"status": "ok"}, b.must(http.StatusOK, http.MethodGet, "/readyz", "", nil).JSON)
	})

	t.Run("TenantsRefused", func(t *testing.T) {
		session := func(r *http.Request) { r.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie}) }
		for _, path := range []string{"/riverui/", "/riverui/api/jobs", "/metrics", "/healthz"} {
			rec := serveTo(op, opRequest(http.MethodGet, path, "", nil))
			requireOpError(t, rec, http.StatusUnauthorized, "missing_api_key")
			require.Contains(t, rec.Header().Get("WWW-Authenticate"), "Basic")
			requireOpError(t, serveTo(op, opRequest(http.MethodGet, path, "", session)), http.StatusUnauthorized, "missing_api_key")
			for _, key := range []string{b.acme, b.globex} {
				requireOpError(t, serveTo(op, opRequest(http.MethodGet, path, "", basic(key))), http.StatusUnauthorized, "invalid_api_key")
				requireOpError(t, serveTo(op, opRequest(http.MethodGet, path, "", bearer(key))), http.StatusUnauthorized, "invalid_api_key")
			}
		}
		for _, key := range []string{b.acme, b.globex} {
			req := opRequest(http.MethodPost, "/riverui/api/jobs/delete", deleteBody, basic(key))
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			requireOpError(t, serveTo(op, req), http.StatusUnauthorized, "invalid_api_key")
		}
		require.True(t, jobExists())
	})

	t.Run("CrossSiteWritesRefused", func(t *testing.T) {
		for _, headers := range []map[string]string{
			{"Sec-Fetch-Site": "cross-site", "Origin": "https://attacker.example"},
			{"Sec-Fetch-Site": "same-site", "Origin": "https://other.example.com"},
			{"Origin": "https://attacker.example"}, // a browser without Sec-Fetch-Site
		} {
			for _, target := range [][2]string{
				{http.MethodPost, "/riverui/api/jobs/delete"}, {http.MethodPost, "/riverui/api/jobs/cancel"},
				{http.MethodPut, "/riverui/api/queues/email/pause"},
			} {
				req := opRequest(target[0], target[1], deleteBody, basic(operatorToken))
				req.Header.Set("Content-Type", "text/plain")
				for k, v := range headers {
					req.Header.Set(k, v)
				}
				requireOpError(t, serveTo(op, req), http.StatusForbidden, "forbidden")
			}
		}
		require.True(t, jobExists(), "a refused write deleted nothing")
	})

	t.Run("OperatorSignsIn", func(t *testing.T) {
		page := serveTo(op, opRequest(http.MethodGet, "/riverui/", "", basic(operatorToken)))
		require.Equal(t, http.StatusOK, page.Code)
		require.Contains(t, page.Body.String(), "<html")
		list := serveTo(op, opRequest(http.MethodGet, "/riverui/api/jobs?state=available&kinds=deliver_email&limit=10", "", basic(operatorToken)))
		require.Equal(t, http.StatusOK, list.Code, list.Body.String())
		require.Contains(t, list.Body.String(), "deliver_email")

		metrics := serveTo(op, opRequest(http.MethodGet, "/metrics", "", bearer(operatorToken)))
		require.Equal(t, http.StatusOK, metrics.Code)
		// Compared line by line: a failure shows the missing line, not the whole exposition.
		lines := strings.Split(metrics.Body.String(), "\n")
		for _, want := range []string{`podium_emails{status="queued"} `, `podium_http_requests_total{method="POST",route="/api/v1/events",status="201"} `} {
			require.NotEqual(t, -1, slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }), want)
		}

		health := serveTo(op, opRequest(http.MethodGet, "/healthz", "", bearer(operatorToken)))
		require.Equal(t, http.StatusOK, health.Code)
		var h struct {
			Status   string
			Database struct{ Status string }
			Pool     struct{ Max int }
		}
		require.NoError(t, json.Unmarshal(health.Body.Bytes(), &h), health.Body.String())
		require.Equal(t, "ok", h.Status)
		require.Equal(t, "ok", h.Database.Status)
		require.Positive(t, h.Pool.Max)

		// River UI's own writes come from its page: same origin.
		del := opRequest(http.MethodPost, "/riverui/api/jobs/delete", deleteBody, basic(operatorToken))
		del.Header.Set("Content-Type", "application/json")
		del.Header.Set("Sec-Fetch-Site", "same-origin")
		del.Header.Set("Origin", "http://"+del.Host)
		rec := serveTo(op, del)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.False(t, jobExists())
	})

	t.Run("LoopbackWithoutToken", func(t *testing.T) {
		local := b.operator("")
		at := func(host string) func(*http.Request) { return func(r *http.Request) { r.Host = host } }
		for _, host := range []string{"127.0.0.1:9090", "localhost:9090", "[::1]:9090"} {
			rec := serveTo(local, opRequest(http.MethodGet, "/metrics", "", at(host)))
			require.Equal(t, http.StatusOK, rec.Code, host)
		}
		// A name that resolves to 127.0.0.1 (DNS rebinding) makes the browser send its own Host.
		for _, host := range []string{"rebound.example:9090", "example.com", "10.0.0.1:9090"} {
			requireOpError(t, serveTo(local, opRequest(http.MethodGet, "/riverui/api/jobs", "", at(host))), http.StatusForbidden, "forbidden")
		}
		req := opRequest(http.MethodPut, "/riverui/api/queues/email/pause", "{}", at("127.0.0.1:9090"))
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		requireOpError(t, serveTo(local, req), http.StatusForbidden, "forbidden")
	})
}

// TestCheckOperatorAddr: an operator listener reachable from other machines needs a token.
func TestCheckOperatorAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:9090", "", true},
		{"localhost:9090", "", true},
		{"[::1]:9090", "", true},
		{":9090", "", false},
		{"0.0.0.0:9090", "", false},
		{"[::]:9090", "", false},
		{"10.1.2.3:9090", "", false},
		{"9090", "", false},
		{"0.0.0.0:9090", "short", false},
		{"0.0.0.0:9090", operatorToken, true},
	} {
		err := rest.CheckOperatorAddr(tc.addr, tc.token)
		require.Equal(t, tc.ok, err == nil, "%s with token %q: %v", tc.addr, tc.token, err)
	}
}
