package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/files"
)

// Limits bound what one GraphQL request may ask for and cost: a document over a limit is refused
// before anything runs, and a request over its time budget stops.
type Limits struct {
	// Complexity caps gqlgen's complexity score of an operation.
	Complexity int
	// Depth caps how deeply selections nest.
	Depth int
	// Aliases caps the number of aliased fields, the usual way to multiply work in one request.
	Aliases int
	// Document bounds the document itself, before it is validated (see DocumentLimits).
	Document DocumentLimits
	// Errors caps the errors of one response; the last one then says how many were left out.
	Errors int
	// ErrorMessageBytes caps the length of one error message, which may quote the request.
	ErrorMessageBytes int
	// Budget is how long one request may take. When it runs out, or the client goes away, what
	// honors the request's context stops: the document is not parsed, SQL statements are
	// canceled, the AI provider's call is abandoned, and the request is answered
	// request_timeout. Parsing and validating one document cannot be interrupted; Document
	// keeps them to milliseconds.
	Budget time.Duration
	// ReadBudget is how long a query (an operation that only reads) may take, within Budget.
	ReadBudget time.Duration
	// Statements caps the SQL statements of one query, MutationStatements those of one mutation
	// (imports write row by row). The statement over the cap is not sent, the operation stops and
	// is answered statement_limit_exceeded; a mutation rolls back.
	Statements, MutationStatements int64
	// AnswerBytes caps the JSON of one answer's data; a larger answer is replaced by the error
	// response_too_large (and a mutation rolls back).
	AnswerBytes int
	// Share bounds the expensive operations an organization and a caller run at once.
	Share FairShare
}

// DefaultLimits suit the organizer front ends: a full session board or review workspace fits,
// a document built to exhaust the server does not. Complexity counts the items a request may read
// (see costedSchema): the board of 2,000 sessions with every field costs about 250,000, a page of
// 1,000 sessions with each speaker's resources and each submission's activity and emails about
// 150,000; three such pages are refused. The document limits leave several times the
// room of the largest document a client sends, GraphiQL's introspection query (three fragments,
// under a hundred fields and a few hundred once expanded); at these limits validation takes
// milliseconds. The budget stays under the HTTP server's write timeout (60 s), so that a request
// over it is still answered, and above the slowest legitimate operation, a synchronous AI review;
// a query, which never waits for an AI provider, has a fifth of it. Loaders keep the statements of
// a front-end query to a few dozen whatever its pages hold, far under its cap; the whole board's
// answer is a few megabytes, under the answer cap.
var DefaultLimits = Limits{
	Complexity: 400_000, Depth: 15, Aliases: 50,
	Document: DocumentLimits{Tokens: 10_000, Operations: 20, Fragments: 100, Selections: 1_000,
		Fields: 500, ExpandedFields: 2_000, Directives: 50, Variables: 100, Arguments: 1_000, NameBytes: 1_000},
	Errors: 20, ErrorMessageBytes: 1_000,
	Budget: 50 * time.Second, ReadBudget: 10 * time.Second,
	Statements: 1_000, MutationStatements: 20_000,
	AnswerBytes: 8 << 20,
	Share:       DefaultFairShare,
}

// nodeComplexity is the complexity of reading one node by its id, a database statement of its
// own: a thousand times a field, so that within the complexity limit one request reads at most a
// few hundred nodes.
const nodeComplexity = 1_000

// HandlerOptions configure NewHandler.
type HandlerOptions struct {
	DB       *dbx.DB
	Resolver *Resolver
	Log      *slog.Logger
	Limits   Limits
	// Observe, when set, is told of every answered operation (for metrics).
	Observe ObserveFunc
	// GenericLists turns off the direct writing of plain session lists (plainLists), leaving
	// every field to gqlgen; tests compare the two.
	GenericLists bool
}

// NewHandler returns the /graphql endpoint: POST and GET transports, WebSocket and server-sent
// events for subscriptions, a parsed-query cache,
// automatic persisted queries, the limits, one database transaction per mutation, and errors that
// always carry extensions.code. A browser asking for text/html gets GraphiQL instead.
func NewHandler(opts HandlerOptions) *Server {
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits
	}
	cfg := Config{Resolvers: opts.Resolver}
	// nodes reads each id with its own statement: its cost is the number of ids, which may come
	// in a variable no document limit sees.
	cfg.Complexity.Query.Nodes = func(childComplexity int, ids []string) int {
		return len(ids) * (nodeComplexity + childComplexity)
	}
	schema := costedSchema{NewExecutableSchema(cfg)}
	srv := handler.New(schema)
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	if opts.Resolver != nil && opts.Resolver.Ops.Files != nil { // multipart uploads (docs/files.md)
		srv.AddTransport(files.Transport{Service: opts.Resolver.Ops.Files, Budget: opts.Limits.Budget,
			Authorize: opts.Resolver.authorizeUpload, Uploads: files.NewLimiter(maxUploadsInFlight)})
	}
	live := &liveConns{idleAfter: wsIdleAfter, held: func(id string) int {
		if feed := opts.Resolver.Ops.Feed; feed != nil {
			return feed.ConnectionSubscriptions(id)
		}
		return 0
	}}
	srv.AddTransport(live.websocket())
	srv.AddTransport(transport.SSE{KeepAlivePingInterval: sseKeepAlive})
	srv.AddTransport(jsonPOST{}) // before transport.POST, which serves what it leaves
	srv.AddTransport(transport.POST{})
	queries := newByteLRU(documentCacheBytes, documentSize)
	srv.SetQueryCache(queries)
	srv.SetParserTokenLimit(opts.Limits.Document.Tokens)
	srv.Use(errorCap{max: opts.Limits.Errors, messageBytes: opts.Limits.ErrorMessageBytes}) // outermost: sees every error
	srv.Use(documentLimit{limits: opts.Limits.Document, schema: schema.Schema(), cache: queries})
	srv.Use(extension.Introspection{})
	srv.Use(persistedQueries{extension.AutomaticPersistedQuery{Cache: newByteLRU(documentCacheBytes, persistedQuerySize)}})
	srv.Use(pageLimit{}) // before the complexity limit, which counts the pages
	srv.Use(extension.FixedComplexityLimit(opts.Limits.Complexity))
	srv.Use(shapeLimit{depth: opts.Limits.Depth, aliases: opts.Limits.Aliases})
	present := presentError(opts.Log)
	srv.Use(telemetry{observe: opts.Observe, spans: &sync.Map{}})
	// The budget starts once a place is found.
	srv.Use(fairShare{share: opts.Limits.Share, places: newPlaces(), lane: opts.Resolver.Ops.LaneOrNil()})
	srv.Use(operationBudget{limits: opts.Limits}) // outside the transaction, which rolls back when it stops
	srv.Use(transactioner{db: opts.DB, present: present})
	srv.Use(answerCap{max: opts.Limits.AnswerBytes}) // inside the transaction: a refused answer rolls back
	srv.Use(subscriptionEvents{ops: opts.Resolver.Ops})
	if !opts.GenericLists {
		srv.Use(plainLists{}) // innermost: it wraps what the resolver returns
	}
	srv.AroundRootFields(access.AroundRootField) // who may run which root field (docs/people.md)
	srv.SetErrorPresenter(present)
	srv.SetRecoverFunc(recoverPanic(opts.Log))

	graphiql := newGraphiQL()
	return &Server{schema: schema.Schema(), live: live, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if WantsGraphiQL(r) {
			graphiql.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost && !files.IsMultipart(r) {
			if err := checkBody(r); err != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(err.Status)
				_ = json.NewEncoder(w).Encode(map[string]any{"data": nil, "errors": []any{map[string]any{
					"message": err.Message, "extensions": map[string]any{"code": err.Code}}}})
				return
			}
		}
		ctx := r.Context()
		if IsStream(r) {
			// A subscription lasts until its client leaves or the server shuts down.
			_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
			if r.Header.Get("Upgrade") != "" {
				ctx = live.newConnection(ctx)
			}
			srv.ServeHTTP(flushWriter{w}, r.WithContext(opts.Resolver.Ops.WithLoaders(ctx)))
			return
		}
		if opts.Limits.Budget > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, opts.Limits.Budget)
			defer cancel()
		}
		srv.ServeHTTP(w, r.WithContext(opts.Resolver.Ops.WithLoaders(ctx)))
	})}
}

// Server is the /graphql endpoint, with what the HTTP router in front of it needs to know: the
// schema, which requests ask for the GraphiQL page, and where to report answered operations.
type Server struct {
	http.Handler
	schema *ast.Schema
	live   *liveConns
}

// CloseSubscriptions closes every WebSocket connection with CloseServiceRestart and refuses new
// ones; the process is shutting down (event streams end with their subscriptions, when the
// operations' Feed closes).
func (s *Server) CloseSubscriptions() { s.live.closeAll() }

// Schema is the server's schema.
func (s *Server) Schema() *ast.Schema { return s.schema }

// SDL is the schema as text (see SDL).
func (*Server) SDL() string { return SDL() }

// ServesPage reports whether r asks for the GraphiQL page rather than an operation.
func (*Server) ServesPage(r *http.Request) bool { return WantsGraphiQL(r) }

// Observe returns ctx carrying fn, which the server tells of the operation it answers.
func (*Server) Observe(ctx context.Context, fn func(ctx context.Context, name, typ string, errorCodes []string)) context.Context {
	return WithObserver(ctx, fn)
}

// checkBody refuses a POST body that is not a GraphQL request before gqlgen reads it, with the
// codes REST gives the same mistakes: invalid_json for what is not JSON, invalid_body for JSON of
// another shape. gqlgen would answer both as a failure of its own. The body is put back for it.
func checkBody(r *http.Request) *apperr.Error {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return apperr.New(http.StatusRequestEntityTooLarge, apperr.CodePayloadTooLarge, "The request body is larger than 1 MiB")
		}
		return apperr.InvalidJSON()
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if !json.Valid(raw) {
		return apperr.InvalidJSON()
	}
	var params struct {
		Query         *string        `json:"query"`
		OperationName *string        `json:"operationName"`
		Variables     map[string]any `json:"variables"`
		Extensions    map[string]any `json:"extensions"`
	}
	if err := json.Unmarshal(raw, &params); err != nil {
		return apperr.InvalidBody("The request body must be a GraphQL request: {\"query\", \"variables\"?, \"operationName\"?}")
	}
	return nil
}

// transactioner runs each mutation operation in one database transaction shared by ent and River
// (see package dbx): if any field fails, everything the operation wrote — rows and queued jobs —
// rolls back and only the errors are answered. Field resolvers of a mutation run one at a time,
// since they share the transaction's connection.
type transactioner struct {
	db      *dbx.DB
	present graphql.ErrorPresenterFunc
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
	graphql.ResponseInterceptor
} = transactioner{}

// ExtensionName names the extension.
func (transactioner) ExtensionName() string { return "PodiumTransactioner" }

// Validate accepts any schema.
func (transactioner) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext serializes the field resolvers of mutations.
func (t transactioner) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || oc.Operation.Operation != ast.Mutation {
		return nil
	}
	previous := oc.ResolverMiddleware
	var mu sync.Mutex
	oc.ResolverMiddleware = func(ctx context.Context, next graphql.Resolver) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		return previous(ctx, next)
	}
	return nil
}

// InterceptResponse wraps a mutation's execution in a transaction. Requests refused before an
// operation exists (a body gqlgen cannot read) pass through.
func (t transactioner) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if !graphql.HasOperationContext(ctx) {
		return next(ctx)
	}
	op := graphql.GetOperationContext(ctx).Operation
	if op == nil || op.Operation != ast.Mutation {
		return next(ctx)
	}
	fail := func(err error) *graphql.Response {
		return &graphql.Response{Errors: gqlerror.List{t.present(ctx, err)}}
	}
	tx, err := t.db.Begin(ctx)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if r := recover(); r != nil {
			_ = tx.Rollback()
			panic(r)
		}
	}()
	resp := next(dbx.NewContext(ctx, tx))
	if len(resp.Errors) > 0 {
		_ = tx.Rollback()
		return &graphql.Response{Errors: resp.Errors, Extensions: resp.Extensions}
	}
	if err := tx.Commit(); err != nil {
		return fail(fmt.Errorf("graph: commit: %w", err))
	}
	return resp
}

// shapeLimit refuses documents that nest too deeply or alias too many fields.
type shapeLimit struct{ depth, aliases int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = shapeLimit{}

// ExtensionName names the extension.
func (shapeLimit) ExtensionName() string { return "PodiumShapeLimit" }

// Validate accepts any schema.
func (shapeLimit) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext measures the operation, following fragments.
func (l shapeLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	aliases := 0
	var walk func(set ast.SelectionSet, depth int, seen map[string]bool) int
	walk = func(set ast.SelectionSet, depth int, seen map[string]bool) int {
		deepest := depth
		for _, sel := range set {
			var d int
			switch s := sel.(type) {
			case *ast.Field:
				if s.Alias != "" && s.Alias != s.Name {
					aliases++
				}
				d = walk(s.SelectionSet, depth+1, seen)
			case *ast.InlineFragment:
				d = walk(s.SelectionSet, depth, seen)
			case *ast.FragmentSpread:
				if seen[s.Name] || s.Definition == nil {
					continue
				}
				seen[s.Name] = true
				d = walk(s.Definition.SelectionSet, depth, seen)
				delete(seen, s.Name)
			}
			if d > deepest {
				deepest = d
			}
		}
		return deepest
	}
	depth := walk(oc.Operation.SelectionSet, 0, map[string]bool{})
	if depth > l.depth {
		return limitError(fmt.Sprintf("The query nests %d levels deep; the limit is %d", depth, l.depth))
	}
	if aliases > l.aliases {
		return limitError(fmt.Sprintf("The query uses %d aliases; the limit is %d", aliases, l.aliases))
	}
	return nil
}

func limitError(message string) *gqlerror.Error {
	err := gqlerror.Errorf("%s", message)
	err.Extensions = map[string]any{"code": apperr.CodeComplexityLimitExceeded}
	return err
}
