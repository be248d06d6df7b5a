package rest_test

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/rest"
)

// keySecrets are the strings that must never be seen outside the request that carries key: the
// key, the part after "pdm_", and every 10 characters of what its display prefix does not show,
// so that a key cut short in a log line is caught too. The display prefix (pdm_ and 8
// characters) identifies a key in listings and may be seen.
func keySecrets(key string) []string {
	secrets := []string{key, key[len(access.KeyPrefix):]}
	hidden := key[12:] // after the display prefix
	for i := 0; i+10 <= len(hidden); i++ {
		secrets = append(secrets, hidden[i:i+10])
	}
	return secrets
}

// mistype changes the last character of key, so that its checksum fails.
func mistype(key string) string {
	if strings.HasSuffix(key, "a") {
		return key[:len(key)-1] + "b"
	}
	return key[:len(key)-1] + "a"
}

// keyID is the id of key's record.
func (b *testBundle) keyID(key string) string {
	b.t.Helper()
	var id string
	require.NoError(b.t, b.db.System.QueryRow(b.sys(),
		`SELECT id FROM api_keys WHERE prefix = $1`, key[:12]).Scan(&id))
	return id
}

// TestKeysNeverLogged makes authenticated requests of every kind — REST and GraphQL, succeeding
// and failing, refused with a wrong, mistyped or revoked key, keys given to the operator listener
// as a Basic password or a bearer token, and requests failing inside with the database gone — at debug level, and
// requires that no log line holds a key or a piece of its secret, while the lines of
// authenticated requests name the key by its id.
func TestKeysNeverLogged(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	b := newBundle(t, bundleOpts{DB: pgtest.New(t), LogLevel: slog.LevelDebug})
	log := slog.New(slog.NewJSONHandler(lockedWriter{w: b.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ui, err := jobs.NewUI(ctx, b.river, log)
	require.NoError(t, err)
	op := rest.NewOperatorHandler(rest.OperatorOptions{DB: b.db, Log: log, Metrics: b.metrics,
		UI: ui, UIPrefix: jobs.UIPrefix, Token: operatorToken})

	revoked, _ := b.newKey("Acme")
	b.must(http.StatusOK, http.MethodGet, "/api/v1/events", revoked, nil)
	_, err = access.RevokeKey(b.sys(), b.db.Ent, revoked[:12])
	require.NoError(t, err)
	unknown, _, _ := access.NewKey() // well formed, never stored
	mistyped := mistype(b.acme)
	keys := map[string]string{"acme": b.acme, "globex": b.globex, "revoked": revoked, "unknown": unknown, "mistyped": mistyped}
	ids := []string{b.keyID(b.acme), b.keyID(b.globex)}

	basic := func(method, path, key string) *http.Request {
		req, err := http.NewRequest(method, path, nil)
		require.NoError(t, err)
		req.SetBasicAuth("operator", key)
		return req
	}
	header := func(method, path, authorization string) *http.Request {
		req, err := http.NewRequest(method, path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", authorization)
		return req
	}

	t.Run("REST", func(t *testing.T) {
		ev := b.createEvent(b.acme, "Logged")
		base := "/api/v1/events/" + str(ev, "id")
		b.must(http.StatusOK, http.MethodGet, "/api/v1/events", b.acme, nil)
		b.must(http.StatusOK, http.MethodPatch, base, b.acme, map[string]any{"tagline": "Hi"})
		b.requireError(b.do(http.MethodPost, base+"/library", b.acme, "{"), http.StatusBadRequest, "invalid_json")
		b.requireError(b.do(http.MethodPost, base+"/library", b.acme, map[string]any{}), http.StatusBadRequest, "invalid_body")
		b.requireError(b.do(http.MethodGet, base+"/speakers/ctc_01doesnotexist0000000000", b.acme, nil), http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodGet, base, b.globex, nil), http.StatusForbidden, "forbidden")
		b.requireError(b.do(http.MethodDelete, "/api/v1/events", b.acme, nil), http.StatusMethodNotAllowed, "method_not_allowed")
		b.requireError(b.do(http.MethodGet, "/api/v1/nothing?api_key="+b.acme, b.acme, nil), http.StatusNotFound, "unknown_endpoint")
		for _, key := range []string{revoked, unknown, mistyped} {
			b.requireError(b.do(http.MethodGet, base, key, nil), http.StatusUnauthorized, "invalid_api_key")
			b.requireError(b.do(http.MethodPost, "/api/v1/events", key, "{"), http.StatusUnauthorized, "invalid_api_key")
		}
		// Keys made, rotated and refused for scope through the API.
		made := b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys", b.acme,
			map[string]any{"name": "Made", "scopes": []string{"read"}}).Obj()
		keys["made"] = made["secret"].(string)
		rotated := b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys/"+b.keyID(keys["made"])+"/rotate", b.acme, nil).Obj()
		keys["rotated"] = rotated["secret"].(string)
		b.requireError(b.do(http.MethodPost, base+"/library", keys["rotated"], map[string]any{}), http.StatusForbidden, "insufficient_scope")
		b.must(http.StatusOK, http.MethodGet, "/api/v1/api-keys", b.acme, nil)
		for authorization, code := range map[string]string{"Basic " + b.acme: "invalid_api_key",
			"Bearer " + b.acme + " " + b.acme: "invalid_api_key", "Token " + b.acme: "invalid_api_key", b.acme: "missing_api_key"} {
			b.requireError(b.send(header(http.MethodGet, base, authorization)), http.StatusUnauthorized, code)
		}
	})

	t.Run("GraphQL", func(t *testing.T) {
		b.gqlOK(b.acme, `{ organization { id } events { totalCount } }`, nil)
		b.gqlOK(b.acme, `mutation($in: CreateEventInput!) { createEvent(input: $in) { id } }`, map[string]any{"in": map[string]any{
			"name": "Logged too", "type": "meetup", "timezone": "UTC", "startsAt": "2027-01-01T00:00:00Z", "endsAt": "2027-01-02T00:00:00Z"}})
		require.Equal(t, []string{"graphql_validation_failed"}, b.gql(b.acme, `{ nothing }`, nil).Codes())
		require.Equal(t, []string{"forbidden"}, b.gql(b.globex, `query($id: ID!) { event(id: $id) { id } }`,
			map[string]any{"id": "evt_01doesnotexist0000000000"}).Codes())
		for _, key := range []string{revoked, unknown, mistyped} {
			require.Equal(t, []string{"invalid_api_key"}, b.gql(key, `{ organization { id } }`, nil).Codes())
		}
	})

	t.Run("OperatorListener", func(t *testing.T) {
		// Keys are refused there, and not logged either.
		for _, key := range keys {
			require.Equal(t, http.StatusUnauthorized, serveTo(op, basic(http.MethodGet, "/riverui/api/jobs", key)).Code)
			require.Equal(t, http.StatusUnauthorized, serveTo(op, header(http.MethodGet, "/metrics", "Bearer "+key)).Code)
		}
		require.Equal(t, http.StatusOK, serveTo(op, basic(http.MethodGet, "/riverui/api/jobs?limit=10", operatorToken)).Code)
	})

	t.Run("DatabaseGone", func(t *testing.T) {
		// Last: the failures logged with their detail, the lookup of the key itself among them.
		b.db.Close()
		b.requireError(b.do(http.MethodGet, "/api/v1/events", b.acme, nil), http.StatusInternalServerError, "internal_error")
		require.Equal(t, []string{"internal_error"}, b.gql(b.acme, `{ organization { id } }`, nil).Codes())
		require.Equal(t, http.StatusInternalServerError, serveTo(op, basic(http.MethodGet, "/riverui/api/jobs", operatorToken)).Code)
	})

	logMu.Lock()
	logs := b.logs.String()
	logMu.Unlock()
	require.Contains(t, logs, `"level":"ERROR"`, "the failures are logged")
	require.NotContains(t, logs, operatorToken)
	for name, key := range keys {
		for _, secret := range append(keySecrets(key), base64.StdEncoding.EncodeToString([]byte("operator:"+key))) {
			require.NotContains(t, logs, secret, "the %s key is logged", name)
		}
	}
	for _, id := range ids {
		require.Contains(t, logs, `"api_key_id":"`+id+`"`)
	}
}

// TestKeysHashedAtRest uses keys for reads and writes over both transports, then reads every
// row of every table: no column holds a key or a piece of its secret. An API key's record keeps
// its SHA-256 and its display prefix only; writes name the key by id and name.
func TestKeysHashedAtRest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := b.sys()

	ev := b.createEvent(b.acme, "At rest")
	b.must(http.StatusOK, http.MethodPatch, "/api/v1/events/"+str(ev, "id"), b.acme, map[string]any{"tagline": "Hi"})
	b.saveItem(b.acme, str(ev, "id"), map[string]any{"kind": "track", "name": "T"})
	b.gqlOK(b.globex, `mutation($in: CreateEventInput!) { createEvent(input: $in) { id } }`, map[string]any{"in": map[string]any{
		"name": "Globex", "type": "meetup", "timezone": "UTC", "startsAt": "2027-01-01T00:00:00Z", "endsAt": "2027-01-02T00:00:00Z"}})

	// Keys made and rotated through the API, asked with an Idempotency-Key, which would store the
	// answer if it were honoured there.
	var made []string
	for _, path := range []string{"/api/v1/api-keys", ""} {
		body := `{"name":"Made","scopes":["read","write"]}`
		if path == "" {
			path, body = "/api/v1/api-keys/"+b.keyID(made[0])+"/rotate", `{"overlapHours":1}`
		}
		req := b.request(http.MethodPost, path, "Bearer "+b.acme)
		req.Body = io.NopCloser(strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(rest.IdempotencyHeader, "at-rest")
		r := b.send(req)
		require.Equal(t, http.StatusCreated, r.Status, r.Raw)
		made = append(made, r.Obj()["secret"].(string))
	}
	b.must(http.StatusOK, http.MethodGet, "/api/v1/events", made[1], nil)

	for _, key := range append([]string{b.acme, b.globex}, made...) {
		var hash, prefix string
		require.NoError(t, b.db.PoolFor(ctx).QueryRow(ctx, `SELECT hash, prefix FROM api_keys WHERE prefix = $1`, key[:12]).Scan(&hash, &prefix))
		require.Equal(t, access.HashKey(key), hash)
		require.Equal(t, key[:12], prefix)
	}

	var secrets []string
	for _, key := range append([]string{b.acme, b.globex}, made...) {
		secrets = append(secrets, keySecrets(key)...)
	}
	pattern := strings.Join(secrets, "|") // base62: nothing to escape
	rows, err := b.db.PoolFor(ctx).Query(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Contains(t, tables, "api_keys")
	for _, table := range tables {
		var leaked int
		id := pgx.Identifier{table}.Sanitize()
		require.NoError(t, b.db.PoolFor(ctx).QueryRow(ctx, `SELECT count(*) FROM `+id+` t WHERE t::text ~ $1`, pattern).Scan(&leaked))
		require.Zero(t, leaked, "a row of %s holds an API key", table)
	}
}
