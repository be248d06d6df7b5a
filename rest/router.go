// Package rest serves the REST API under /api/v1, wire-compatible with the API integrators
// already use (docs/rest-api.md), and assembles Podium's public HTTP router — /api/v1, /graphql,
// health checks, the pages for people — and the operator listener's (operator.go).
//
// A REST handler translates and nothing more: it checks the body against the GraphQL input type
// of its operation, calls the operation of package operation that GraphQL's resolver calls (writes
// inside one database transaction), and presents the result in the REST shape. Rules live in package operation.
//
// routes.go lists every operation on one line; its handler, a method named after the operation,
// is in the file of its domain (events.go, speakers.go, submissions.go, sessions.go,
// readiness.go, reviews.go, resources.go, agenda.go, emails.go).
//
// The REST shapes are those of docs/rest-api.md. Every key is always present (nullable ones as
// null, never omitted), timestamps are ISO 8601 UTC with milliseconds, and the fields come in the
// order the original API documents them. GraphQL exposes the same fields under the same names.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/access/mailbudget"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/files"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/rest/web"
)

// MaxBodyBytes caps a request body; larger bodies are answered 413 payload_too_large.
const MaxBodyBytes = 1 << 20

// GraphQL is the GraphQL server the router mounts at /graphql (package graph's Server): the
// router checks the caller, then hands over.
type GraphQL interface {
	http.Handler
	// Schema is the GraphQL schema. REST bodies are checked against its input types and bound to
	// them, so both transports accept the same input.
	Schema() *ast.Schema
	// SDL is the schema as text, served at /graphql/schema.graphql.
	SDL() string
	// ServesPage reports whether r asks for the GraphiQL page, which loads without a key.
	ServesPage(r *http.Request) bool
	// Observe returns ctx carrying fn, which the server tells of each operation it answers.
	Observe(ctx context.Context, fn func(ctx context.Context, name, typ string, errorCodes []string)) context.Context
}

// Options configure NewHandler.
type Options struct {
	DB *dbx.DB
	// Ops are the operations every handler calls.
	Ops *operation.Service
	Log *slog.Logger
	// GraphQL serves /graphql; the router adds the caller check. Its schema also checks and binds
	// REST bodies.
	GraphQL GraphQL
	// Mount adds further routes to the root router; they run after the CORS and logging
	// middleware and are responsible for their own access checks. Operator pages (River UI) are
	// not mounted here but on the operator listener (NewOperatorHandler).
	Mount func(r chi.Router)
	// QueryCountHeader adds the Podium-Query-Count header to every response (benchmarks, debugging).
	QueryCountHeader bool
	// RateLimit rations requests per API key; the zero value does not limit.
	RateLimit RateLimit
	// Metrics count what the router answers; NewOperatorHandler serves them. nil makes a set of
	// this router's own.
	Metrics *Metrics
	// MailLimits bound the sign-in links sent (docs/people.md); nil means mailbudget.Default.
	MailLimits *mailbudget.Limits
}

// API is the REST API's state.
type API struct {
	db     *dbx.DB
	ops    *operation.Service
	auth   *access.Authenticator
	log    *slog.Logger
	schema *ast.Schema
	// graphql is the GraphQL server mounted at /graphql.
	graphql GraphQL
	// queryHeader adds Podium-Query-Count to responses.
	queryHeader bool
	// limit rations requests per API key.
	limit *limiter
	// metrics count what the router answers.
	metrics *Metrics
	// signin serves the sign-in pages and checks browser sessions (signin.go).
	signin *signIn
	// openapiDocs are the OpenAPI documents by API version, each rendered on the first request
	// for it.
	openapiMu   sync.Mutex
	openapiDocs map[string][]byte
}

// NewHandler returns Podium's HTTP handler.
func NewHandler(opts Options) http.Handler {
	a := &API{
		db:          opts.DB,
		ops:         opts.Ops,
		auth:        access.NewAuthenticator(opts.DB.Ent, opts.DB.Pool),
		log:         opts.Log,
		schema:      opts.GraphQL.Schema(),
		graphql:     opts.GraphQL,
		queryHeader: opts.QueryCountHeader,
		limit:       newLimiter(opts.RateLimit, opts.DB.Pool),
		metrics:     opts.Metrics,
		openapiDocs: map[string][]byte{},
	}
	if a.metrics == nil {
		a.metrics = NewMetrics(opts.DB)
	}
	publicURL := ""
	if opts.Ops != nil && opts.Ops.Outbox != nil {
		publicURL = opts.Ops.Outbox.PublicURL
	}
	limits := mailbudget.Default
	if opts.MailLimits != nil {
		limits = *opts.MailLimits
	}
	people := &access.People{DB: opts.DB, Outbox: opts.Ops.Outbox, Budgets: mailbudget.New(opts.DB.Pool, limits)}
	if opts.Ops.Budgets == nil {
		// Sign-in links and a person's own emails draw on one daily budget per mailbox.
		opts.Ops.Budgets = people.Budgets
	}
	a.signin = newSignIn(people, publicURL,
		func(ctx context.Context, msg string, args ...any) { a.log.ErrorContext(ctx, msg, args...) })
	a.signin.ops = opts.Ops

	r := chi.NewRouter()
	r.Use(a.logRequests, compress, a.recoverPanics, cors, a.cheapFirst)
	r.NotFound(a.notFound)
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) { a.methodNotAllowed(r, w, req) })

	// A bare status for load balancers; the details, the metrics and River UI are on the
	// operator listener (operator.go), not here.
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/readyz", a.ready)
	r.Handle("/graphql", a.graphQL(opts.GraphQL))
	a.signin.routes(r)
	// OAuth for applications acting for people (oauth.go)
	a.mountOAuth(r, people, publicURL)
	r.Get("/files/{orgId}/{fileId}", a.serveSignedFile) // signed download URLs (files.go)
	a.mountEmbed(r)                                     // public widget pages and feeds (embed.go)
	web.MountCFP(r, web.CFPDeps{Ops: a.ops, Person: a.signin.person, Log: a.log})
	a.mountDeliverability(r) // unsubscribe links and the mail provider's reports (unsubscribe.go)
	r.Get("/graphql/schema.graphql", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, a.graphql.SDL())
	})
	r.Route("/api/v1", func(r chi.Router) {
		r.Get("/", a.meta)
		r.Get("/openapi.json", a.openAPI)
		for _, rt := range routes {
			r.Method(rt.method, rt.path, a.serve(&rt))
		}
	})
	a.mountMCP(r, publicURL) // the MCP endpoint (mcp_tools.go)
	if opts.Mount != nil {
		opts.Mount(r)
	}
	return r
}

// request is what a handler sees.
type request struct {
	*http.Request
	route *route
	// body is the request body, checked against the route's input type and normalized.
	body json.RawMessage
}

// param returns a path parameter.
func (q *request) param(name string) string { return chi.URLParam(q.Request, name) }

// bind is how every handler reads its body: the body, already checked against the route's GraphQL
// input type, unmarshalled into T, the gqlgen struct of that type. A T of another name than the
// route's input is a mistake in the route table, refused rather than half-bound.
func bind[T any](q *request) (T, error) {
	var in T
	// gqlgen spells initialisms in capitals (CreateApiKeyInput is CreateAPIKeyInput in Go).
	if name := reflect.TypeFor[T]().Name(); !strings.EqualFold(name, q.route.input) {
		return in, fmt.Errorf("rest: %s binds %s, but its route declares input %q", q.route.operationID, name, q.route.input)
	}
	if err := json.Unmarshal(q.body, &in); err != nil {
		return in, apperr.InvalidBody("The request body does not match the operation: %v", err)
	}
	return in, nil
}

// serve runs one route in the order of docs/rest-api.md §1: (route matched) → API key → rate limit →
// body → the operation, which checks event access before its own rules.
func (a *API) serve(rt *route) http.HandlerFunc {
	// What an API key needs to run the route, and who among people may (people_routes.go).
	rules := rt.rules(a.schema)
	return func(w http.ResponseWriter, r *http.Request) {
		q, err := a.admit(w, r, rt, rules)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		var res *response
		replayed := false
		if rt.isWrite() {
			res, replayed, err = a.runWrite(q)
		} else {
			res, err = a.runRead(q)
		}
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		res.write(w, replayed)
	}
}

// admit checks what comes before the operation: the caller (unless the route is public) — an API
// key, or a person through an application they authorized (docs/agents.md) —, the API version and
// that the route is in it, the caller's rate limit, scopes and role, then the body against the
// route's input type.
func (a *API) admit(w http.ResponseWriter, r *http.Request, rt *route, rules routeRules) (*request, error) {
	ctx := r.Context()
	var key *viewer.Viewer
	if !rt.public() {
		// A tool call of the MCP endpoint comes authenticated already (mcp_tools.go).
		key = inProcessCaller(ctx)
		if key == nil {
			v, err := a.auth.AuthenticateFor(ctx, r.Header.Get("Authorization"), r.Header.Get("Podium-Organization"))
			if err != nil {
				return nil, err
			}
			key = v
		}
	}
	pin := ""
	if key != nil {
		pin = key.APIKeyVersion
	}
	version, err := requestVersion(r, pin)
	if err != nil {
		return nil, err
	}
	w.Header().Set(VersionHeader, version)
	if !rt.inVersion(version) {
		return nil, notInVersion(rt, version)
	}
	ctx = withVersion(ctx, version)
	if key != nil {
		// The limiter's statement runs as the key's organization, as the operation's will: the
		// connection it leaves in the pool is already scoped for them.
		ctx = viewer.NewContext(ctx, key)
		bucket := key.APIKeyID
		if key.Person != nil {
			bucket = "user:" + key.Person.UserID
		}
		if err := a.limit.allow(ctx, w, bucket); err != nil {
			return nil, err
		}
		if key.APIKeyID != "" {
			noteKey(ctx, key.APIKeyID)
		}
		// The caller's scopes, event and role, before the body is read: a refused call reads and
		// writes nothing.
		if err := access.Key(ctx, rules.key); err != nil {
			return nil, err
		}
		if key.Person != nil {
			if err := access.Person(key, rules.person); err != nil {
				return nil, err
			}
		}
	}
	q := &request{Request: r.WithContext(ctx), route: rt}
	if rt.input != "" {
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		if err != nil {
			return nil, bodyReadError(err)
		}
		if rt.optionalBody() && len(bytes.TrimSpace(raw)) == 0 {
			raw = []byte("{}")
		}
		if q.body, err = decodeBody(a.schema, rt.input, raw, version); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// runRead runs a read, outside any transaction.
func (a *API) runRead(q *request) (*response, error) {
	out, err := q.route.handle(a, q.Context(), q)
	if err != nil {
		return nil, err
	}
	return q.route.render(out)
}

// afterCommit is a write's result that goes on once its transaction commits: recorded answers
// within the transaction (and is what an Idempotency-Key replay answers); then, run after the
// commit with the request's context, gives the response. A handler returns it for work that must
// not hold the transaction open (generating an agenda draft).
type afterCommit struct {
	recorded any
	then     func(ctx context.Context) (any, error)
}

// runWrite runs a write in one transaction, with its Idempotency-Key record when it carries one;
// replayed reports the response recorded by an earlier request with the same key.
func (a *API) runWrite(q *request) (res *response, replayed bool, err error) {
	keyed, err := keyedWriteOf(q)
	if err != nil {
		return nil, false, err
	}
	base := q.Context()
	var then func(ctx context.Context) (any, error)
	err = a.db.InTx(base, func(ctx context.Context) error {
		q.Request = q.Request.WithContext(ctx)
		if keyed != nil {
			rec, err := keyed.claim(ctx)
			if err != nil || rec != nil {
				res, replayed = rec, rec != nil
				return err
			}
		}
		out, err := q.route.handle(a, ctx, q)
		if err != nil {
			return err
		}
		if ac, ok := out.(afterCommit); ok {
			out, then = ac.recorded, ac.then
		}
		if res, err = q.route.render(out); err != nil {
			return err
		}
		if keyed != nil {
			return keyed.record(ctx, res)
		}
		return nil
	})
	if err != nil || replayed || then == nil || inPreview(base) { // a preview's transaction is rolled back
		return res, replayed, err
	}
	q.Request = q.Request.WithContext(base)
	out, err := then(base)
	if err != nil {
		return nil, false, err
	}
	res, err = q.route.render(out)
	return res, false, err
}

// keyRule is what an API key needs to run the route (access.KeyRoute) of its fields.
func (rt *route) keyRule(schema *ast.Schema) access.KeyRule {
	return access.KeyRoute(rt.method, rt.path, rt.fields(schema)...)
}

// fields are the root fields whose rules are the route's: the fields that name the route in their
// description (queries for GET, mutations otherwise), then the field its operation id names.
func (rt *route) fields(schema *ast.Schema) []string {
	object := "Mutation."
	if rt.method == http.MethodGet {
		object = "Query."
	}
	var fields []string
	for _, f := range restFields(schema)[rt.method+" "+rt.path] {
		if strings.HasPrefix(f.name, object) {
			fields = append(fields, f.name)
		}
	}
	return append(fields, object+rt.operationID)
}

// jsonAppender is a result that writes its own JSON, byte for byte what the encoder below would.
type jsonAppender interface{ AppendJSON([]byte) []byte }

// render encodes a handler's result as the route's response: JSON, or the document itself when
// the handler returns a calendarFeed.
func (rt *route) render(out any) (*response, error) {
	if rt.status == http.StatusNoContent {
		return &response{status: http.StatusNoContent}, nil
	}
	if res, ok := out.(*response); ok { // rendered by the handler itself (agenda.go's public feeds)
		return res, nil
	}
	if feed, ok := out.(calendarFeed); ok {
		return &response{status: rt.status, body: []byte(feed), contentType: calendarContentType}, nil
	}
	if a, ok := out.(jsonAppender); ok { // the session board (sessions.go)
		return &response{status: rt.status, body: a.AppendJSON(make([]byte, 0, 64<<10))}, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return &response{status: rt.status, body: b.Bytes()}, nil
}

// write sends a rendered response.
func (res *response) write(w http.ResponseWriter, replayed bool) {
	if replayed {
		w.Header().Set(ReplayedHeader, "true")
	}
	for k, v := range res.header {
		w.Header()[k] = v
	}
	if res.stream != nil { // a download (files.go)
		res.stream(w)
		return
	}
	if res.status != http.StatusNoContent && res.status != http.StatusNotModified {
		contentType := res.contentType
		if contentType == "" {
			contentType = "application/json; charset=utf-8"
		}
		w.Header().Set("Content-Type", contentType)
	}
	w.WriteHeader(res.status)
	if res.status != http.StatusNoContent {
		_, _ = w.Write(res.body)
	}
}

func bodyReadError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return apperr.New(http.StatusRequestEntityTooLarge, apperr.CodePayloadTooLarge,
			"The request body is larger than 1 MiB")
	}
	return apperr.InvalidJSON()
}

// graphQL checks the caller — an API key, or else a browser session (docs/people.md) — then
// hands over to gqlgen. A failed check is answered the GraphQL way, with the code in extensions.
// A write authenticated by cookie from another origin is refused before anything runs. GraphiQL
// itself loads without a key; its queries need one.
func (a *API) graphQL(next GraphQL) http.Handler {
	refuse := func(w http.ResponseWriter, r *http.Request, err error) {
		e := a.errorOf(w, r, err)
		writeJSON(w, e.Status, map[string]any{"errors": []any{map[string]any{
			"message": e.Message, "extensions": map[string]any{"code": e.Code},
		}}})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if next.ServesPage(r) {
			next.ServeHTTP(w, r)
			return
		}
		v, bucket, err := a.graphQLViewer(r)
		if err == nil {
			err = a.limit.allow(viewer.NewContext(r.Context(), v), w, bucket)
		}
		if err != nil {
			refuse(w, r, err)
			return
		}
		if v.APIKeyID != "" {
			noteKey(r.Context(), v.APIKeyID)
		}
		if !files.IsMultipart(r) { // an upload is bounded by its own limit (docs/files.md)
			r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		}
		ctx := next.Observe(viewer.NewContext(r.Context(), v), a.metrics.ObserveGraphQL)
		// A subscription checks now and then that its caller still holds the credential it came
		// with (docs/subscriptions.md).
		ctx = operation.WithCallerCheck(ctx, func(ctx context.Context) (*viewer.Viewer, error) {
			v, _, err := a.graphQLViewer(r.WithContext(ctx))
			return v, err
		})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// graphQLViewer is the caller of a GraphQL request and its rate-limit bucket: the API key of the
// Authorization header when there is one (as before sessions existed), else the person of the
// session cookie. A cookie-authenticated write from another origin is refused.
func (a *API) graphQLViewer(r *http.Request) (*viewer.Viewer, string, error) {
	header := r.Header.Get("Authorization")
	secret := a.signin.sessionSecret(r)
	if header != "" || secret == "" {
		v, err := a.auth.AuthenticateFor(r.Context(), header, r.Header.Get("Podium-Organization"))
		if err != nil {
			return nil, "", err
		}
		if v.Person != nil { // an application acting for a person (docs/agents.md): the person's bucket
			return v, "user:" + v.Person.UserID, nil
		}
		return v, v.APIKeyID, nil
	}
	if err := web.CheckOrigin(r); err != nil {
		return nil, "", apperr.Forbidden("A request from another site cannot use your session")
	}
	p, err := a.signin.people.Authenticate(r.Context(), secret)
	if err != nil {
		return nil, "", err
	}
	return access.PersonViewer(p, r.Header.Get("Podium-Organization")), "user:" + p.UserID, nil
}

// ready is the readiness check: 503 while PostgreSQL cannot be reached, so that a load balancer
// sends the process no traffic it could only answer 503.
func (a *API) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := a.db.Pool.Ping(ctx); err != nil {
		w.Header().Set("Retry-After", strconv.Itoa(apperr.UnavailableRetryAfter))
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// notFound answers paths no route matches.
func (a *API) notFound(w http.ResponseWriter, r *http.Request) {
	a.writeError(w, r, apperr.New(http.StatusNotFound, apperr.CodeUnknownEndpoint,
		"No endpoint matches "+r.Method+" "+r.URL.Path))
}

// methodNotAllowed answers a known path with a method it does not serve, listing those it does.
func (a *API) methodNotAllowed(mux chi.Routes, w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if mux.Match(chi.NewRouteContext(), m, r.URL.Path) {
			allowed = append(allowed, m)
		}
	}
	list := strings.Join(allowed, ", ")
	w.Header().Set("Allow", list)
	a.writeError(w, r, apperr.New(http.StatusMethodNotAllowed, apperr.CodeMethodNotAllowed,
		"Use "+list+" for this endpoint"))
}

// writeError writes err in the contract's envelope. Errors outside the vocabulary are logged and
// answered as internal_error, without detail.
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := a.errorOf(w, r, err)
	writeJSON(w, e.Status, envelope{Error: envelopeError{Code: e.Code, Message: e.Message}})
}

// errorOf translates err for an answer written by the router (REST, and GraphQL's key check),
// logging what is outside the vocabulary, and sets the Retry-After of the errors that ask the
// client to come back: rate_limited, and unavailable while PostgreSQL cannot be reached.
func (a *API) errorOf(w http.ResponseWriter, r *http.Request, err error) *apperr.Error {
	e, ok := operation.ErrorOf(err)
	if !ok {
		a.log.ErrorContext(r.Context(), "request failed", "err", err, "method", r.Method, "path", r.URL.Path)
	}
	switch e.Code {
	case apperr.CodeRateLimited:
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", "1")
		}
	case apperr.CodeUnavailable:
		a.log.WarnContext(r.Context(), "database unavailable", "err", err, "method", r.Method, "path", r.URL.Path)
		w.Header().Set("Retry-After", strconv.Itoa(apperr.UnavailableRetryAfter))
	}
	return e
}

// envelope is the contract's error body.
type envelope struct {
	Error envelopeError `json:"error"`
}

type envelopeError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// writeJSON writes v as the response body. HTML characters are not escaped: the body is JSON,
// not markup, and integrators compare strings byte for byte.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// allowedHeaders are the request headers a page of another origin may send: the credential, the
// body's type, the idempotency key, the API version, a person's organization, and the MCP
// transport's own (docs/mcp.md).
const allowedHeaders = "Authorization, Content-Type, Idempotency-Key, " + VersionHeader +
	", Podium-Organization, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID"

// exposedHeaders are the response headers such a page may read: the OAuth challenge of a 401
// (where to find the authorization server), the version answered, a replay's mark, when to come
// back, and the MCP session.
const exposedHeaders = "WWW-Authenticate, " + VersionHeader + ", " + ReplayedHeader + ", Retry-After, Mcp-Session-Id"

// cors lets browser clients call the API: keys travel in headers, never cookies, so a wildcard
// origin exposes nothing. OPTIONS on any path is a preflight and answers 204.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", exposedHeaders)
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, PUT, DELETE, OPTIONS")
			h.Set("Access-Control-Allow-Headers", allowedHeaders)
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}
