package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
	"github.com/podium/podium/rest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// testBundle is one test's server: a fresh database, the real router, and keys of two
// organizations, acme and globex.
type testBundle struct {
	t     *testing.T
	db    *dbx.DB
	res   *graph.Resolver
	river *river.Client[pgx.Tx]
	// sink receives email when the bundle was made by setupMail.
	sink    *mailtest.Sink
	handler http.Handler
	// sessions are the session cookies of people signed in by personToken, by address.
	sessions map[string]string
	// metrics are what handler counts, served by the operator listener (see operator).
	metrics *rest.Metrics
	logs    *bytes.Buffer
	// acme and globex are API keys of two organizations.
	acme, globex       string
	acmeOrg, globexOrg string
	// version, when set, is the Podium-Version header of every request do sends.
	version string
	// shapesSeen, when not nil, collects the operations checkResponse held to the original's
	// current response schemas.
	shapesSeen map[string]bool
}

func setup(t *testing.T) *testBundle { return setupWith(t, nil) }

// setupMail is setup with the email workers running, delivering to an in-process SMTP server.
func setupMail(t *testing.T) *testBundle {
	t.Helper()
	b := setupWith(t, nil)
	b.sink = mailtest.New(t, mailtest.Options{})
	sender, err := jobs.NewSMTPSender(b.sink.URL(), "Podium <podium@example.test>", jobs.SMTPOptions{})
	require.NoError(t, err)
	t.Cleanup(sender.Close)
	b.startWorkers(jobs.Config{Sender: sender, EmailWorkers: 4})
	return b
}

// startWorkers runs River workers for the bundle's database until the test ends, polling fast.
func (b *testBundle) startWorkers(cfg jobs.Config) {
	b.t.Helper()
	cfg.Work, cfg.Log = true, b.quietLog()
	cfg.Tune = func(c *river.Config) {
		c.FetchPollInterval = 20 * time.Millisecond
		c.FetchCooldown = 5 * time.Millisecond
	}
	worker, err := jobs.NewClient(b.db, cfg)
	require.NoError(b.t, err)
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(b.t, worker.Start(ctx))
	b.t.Cleanup(func() {
		cancel()
		stop, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = worker.Stop(stop)
	})
}

// setupWith is setup with extra routes mounted on the router.
func setupWith(t *testing.T, mount func(b *testBundle, r chi.Router)) *testBundle {
	t.Helper()
	return newBundle(t, bundleOpts{DB: pgtest.New(t), Mount: mount})
}

// bundleOpts configure newBundle.
type bundleOpts struct {
	// DB is the bundle's database. Fuzz targets make it with their *testing.F, so that it outlives
	// the *testing.T of the input that builds the bundle (see fuzzServer).
	DB *dbx.DB
	// Mount adds routes to the router, as in setupWith.
	Mount func(b *testBundle, r chi.Router)
	// LogLevel is the lowest level written to b.logs; the zero value is Info, as in production.
	LogLevel slog.Level
}

// newBundle builds a bundle's server on opts.DB. It registers no cleanup on t, so the server lasts
// as long as the database does; a fuzz target rebinds b.t for each input (see fuzzServer).
func newBundle(t *testing.T, opts bundleOpts) *testBundle {
	t.Helper()
	db, mount := opts.DB, opts.Mount
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewJSONHandler(lockedWriter{w: logs}, &slog.HandlerOptions{Level: opts.LogLevel}))
	rc, err := jobs.NewClient(db, jobs.Config{Log: log})
	require.NoError(t, err)
	res := graph.NewResolver(db, &email.Outbox{Jobs: rc, PublicURL: "https://podium.example.test"})
	b := &testBundle{t: t, db: db, logs: logs, res: res, river: rc, metrics: rest.NewMetrics(db)}
	b.handler = rest.NewHandler(rest.Options{
		DB: db, Ops: res.Ops, Log: log, QueryCountHeader: true, Metrics: b.metrics,
		GraphQL: graph.NewHandler(graph.HandlerOptions{DB: db, Resolver: res, Log: log}),
		Mount: func(r chi.Router) {
			if mount != nil {
				mount(b, r)
			}
		},
	})
	b.acme, b.acmeOrg = b.newKey("Acme")
	b.globex, b.globexOrg = b.newKey("Globex")
	return b
}

// sys is the context of fixtures and checks that tests write and read in the database directly,
// across organizations: system work, as the command line's (see docs/tenancy.md).
func (b *testBundle) sys() context.Context {
	return viewer.System(context.Background(), "test: fixtures and checks across organizations")
}

// scopeOf is the context of operations called directly for the organization of eventID, as
// background work for it runs.
func (b *testBundle) scopeOf(eventID string) context.Context {
	b.t.Helper()
	ev, err := b.db.Ent.Event.Get(b.sys(), eventID)
	require.NoError(b.t, err)
	return viewer.WithOrganization(context.Background(), ev.OrganizationID)
}

// newKey creates a key for the organization named org (creating it when new).
func (b *testBundle) newKey(org string) (key, orgID string) {
	b.t.Helper()
	key, rec, err := access.CreateKey(b.sys(), b.db.Ent, org, "test")
	require.NoError(b.t, err)
	return key, rec.OrganizationID
}

// response is a recorded HTTP response with its body decoded.
type response struct {
	Status int
	Header http.Header
	Raw    string
	// JSON is the decoded body: map[string]any, []any, or nil for an empty body.
	JSON any
}

// Obj returns the body as an object.
func (r response) Obj() map[string]any {
	m, _ := r.JSON.(map[string]any)
	return m
}

// List returns the body as an array.
func (r response) List() []any {
	l, _ := r.JSON.([]any)
	return l
}

// ErrCode returns error.code of an error envelope.
func (r response) ErrCode() string {
	e, _ := r.Obj()["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// ErrMessage returns error.message of an error envelope.
func (r response) ErrMessage() string {
	e, _ := r.Obj()["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}

// do sends a request through the router. body is sent as is when it is a string or []byte, and
// JSON-encoded otherwise; nil sends no body.
func (b *testBundle) do(method, path, key string, body any) response {
	b.t.Helper()
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	case []byte:
		rd = bytes.NewReader(v)
	default:
		raw, err := json.Marshal(v)
		require.NoError(b.t, err)
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if b.version != "" {
		req.Header.Set(rest.VersionHeader, b.version)
	}
	return b.send(req)
}

// send serves req and decodes the response.
func (b *testBundle) send(req *http.Request) response {
	b.t.Helper()
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, req)
	b.checkResponse(req, rec)
	out := response{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.String()}
	if rec.Body.Len() > 0 {
		dec := json.NewDecoder(rec.Body)
		dec.UseNumber()
		require.NoError(b.t, dec.Decode(&out.JSON), "body of %s %s is not JSON: %s", req.Method, req.URL, out.Raw)
	}
	return out
}

// must sends a request and requires the status.
func (b *testBundle) must(status int, method, path, key string, body any) response {
	b.t.Helper()
	r := b.do(method, path, key, body)
	require.Equal(b.t, status, r.Status, "%s %s: %s", method, path, r.Raw)
	return r
}

// requireError requires an error envelope with the status and code.
func (b *testBundle) requireError(r response, status int, code string) {
	b.t.Helper()
	require.Equal(b.t, status, r.Status, r.Raw)
	require.Equal(b.t, code, r.ErrCode(), r.Raw)
	require.NotEmpty(b.t, r.ErrMessage(), r.Raw)
	require.Equal(b.t, "application/json; charset=utf-8", r.Header.Get("Content-Type"))
}

// gqlResponse is a GraphQL response.
type gqlResponse struct {
	Status int
	Data   map[string]any
	Errors []gqlError
	Raw    string
}

type gqlError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

// Codes returns each error's extensions.code.
func (g gqlResponse) Codes() []string {
	var codes []string
	for _, e := range g.Errors {
		c, _ := e.Extensions["code"].(string)
		codes = append(codes, c)
	}
	return codes
}

// gql posts a GraphQL document.
func (b *testBundle) gql(key, query string, vars map[string]any) gqlResponse {
	b.t.Helper()
	r := b.do(http.MethodPost, "/graphql", key, map[string]any{"query": query, "variables": vars})
	out := gqlResponse{Status: r.Status, Raw: r.Raw}
	require.NoError(b.t, json.Unmarshal([]byte(r.Raw), &out), r.Raw)
	return out
}

// gqlOK posts a GraphQL document and requires it to succeed.
func (b *testBundle) gqlOK(key, query string, vars map[string]any) map[string]any {
	b.t.Helper()
	r := b.gql(key, query, vars)
	require.Empty(b.t, r.Errors, r.Raw)
	require.Equal(b.t, http.StatusOK, r.Status)
	return r.Data
}

// createEvent creates an event over REST and returns it.
func (b *testBundle) createEvent(key, name string) map[string]any {
	b.t.Helper()
	return b.must(http.StatusCreated, http.MethodPost, "/api/v1/events", key, map[string]any{
		"name": name, "type": "conference", "timezone": "Europe/Berlin",
		"startsAt": "2027-09-10T09:00:00.000Z", "endsAt": "2027-09-12T17:00:00.000Z",
	}).Obj()
}

// saveItem creates or updates a library item and returns it.
func (b *testBundle) saveItem(key, eventID string, body map[string]any) map[string]any {
	b.t.Helper()
	if _, ok := body["id"]; !ok {
		body["id"] = nil
	}
	return b.must(http.StatusOK, http.MethodPost, "/api/v1/events/"+eventID+"/library", key, body).Obj()
}

// newSubmission stores a submission of eventID directly, for tests of what refers to library
// items; the submissions API arrives with its own issue.
func (b *testBundle) newSubmission(eventID string, n int) *ent.Submission {
	b.t.Helper()
	ev, err := b.db.Ent.Event.Get(b.sys(), eventID)
	require.NoError(b.t, err)
	s, err := b.db.Ent.Submission.Create().SetOrganizationID(ev.OrganizationID).
		SetEventID(eventID).SetNumber(n).SetCode("SESS-" + itoa(n)).SetStatus("pending").
		SetTitle("Proposal").SetSubmittedAt(time.Now()).
		Save(b.sys())
	require.NoError(b.t, err)
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

// str reads a string field of a decoded object.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// num reads a number field of a decoded object.
func num(t *testing.T, m map[string]any, key string) int64 {
	t.Helper()
	n, ok := m[key].(json.Number)
	require.True(t, ok, "%s is not a number: %v", key, m[key])
	i, err := n.Int64()
	require.NoError(t, err)
	return i
}

var logMu sync.Mutex

// lockedWriter serializes writes of concurrent handlers into one buffer.
type lockedWriter struct{ w *bytes.Buffer }

func (l lockedWriter) Write(p []byte) (int, error) {
	logMu.Lock()
	defer logMu.Unlock()
	return l.w.Write(p)
}

func sortStrings(s []string) { sort.Strings(s) }

// sendRaw serves req and returns the recorder, for responses that are not JSON.
func (b *testBundle) sendRaw(req *http.Request) *httptest.ResponseRecorder {
	b.t.Helper()
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, req)
	b.checkResponse(req, rec)
	return rec
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

// request builds a request with an Authorization header (none when empty).
func (b *testBundle) request(method, path, authorization string) *http.Request {
	req := httptest.NewRequest(method, path, nil)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	return req
}

// quietLog discards what it is given.
func (b *testBundle) quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func jsonNumber(s string) json.Number { return json.Number(s) }
