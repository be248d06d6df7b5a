// Package mcp serves Podium's Model Context Protocol endpoint, POST /api/mcp (docs/mcp.md): the
// streamable HTTP transport of the official Go SDK, stateless, behind a bearer-token check whose
// 401 points clients at the OAuth protected resource metadata (RFC 9728) served beside it.
//
// The package knows nothing of REST: it serves the tools it is given. Package rest makes them
// from its route table (rest/mcp_tools.go), each with the rule of who may run it; a caller lists
// only the tools it may run, and a call of any other is refused with the same rule's answer.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
)

// Path is where the endpoint is served.
const Path = "/api/mcp"

// MetadataPath is where the protected resource metadata of the endpoint is served (RFC 9728 §3:
// the well-known prefix before the resource's path); the bare prefix serves it too, for clients
// that look there.
const MetadataPath = "/.well-known/oauth-protected-resource"

// OrganizationHeader picks the organization a person acts for, among those they belong to.
const OrganizationHeader = "Podium-Organization"

// Scopes are the scopes a grant may hold, as the metadata document lists them.
var Scopes = []string{"read", "write", "send_mail"}

// Tool is one tool of the endpoint.
type Tool struct {
	// Tool is what tools/list shows of it.
	Tool *gomcp.Tool
	// Allowed answers nil when the caller v may run the tool, else the refusal a call gets (an
	// error of package apperr's vocabulary).
	Allowed func(ctx context.Context, v *viewer.Viewer) error
	// Call runs the tool for v with its arguments as sent (a JSON object, or empty).
	Call func(ctx context.Context, v *viewer.Viewer, args json.RawMessage) *gomcp.CallToolResult
}

// Options configure New.
type Options struct {
	// PublicURL is the base of the server's public URLs (PUBLIC_URL): the resource the metadata
	// names is PublicURL + Path, its authorization server PublicURL.
	PublicURL string
	// Authenticate checks an Authorization header for the organization named by the
	// Podium-Organization header ("" for the caller's own): an API key, or an OAuth access token
	// acting for a person. A refusal with status 401 answers the MCP challenge.
	Authenticate func(ctx context.Context, header, org string) (*viewer.Viewer, error)
	// Tools are every tool; each caller lists those it may run.
	Tools []Tool
	// Version is the REST API version the tools are of; it names the server in initialize's answer.
	Version string
	// Log receives the endpoint's lines (each tool call, the SDK's warnings); nil discards them.
	Log *slog.Logger
}

// Server is the MCP endpoint.
type Server struct {
	opts    Options
	tools   map[string]Tool
	handler http.Handler
}

// viewerKey is where the verifier leaves the caller in the token information the SDK hands to
// every request.
const viewerKey = "podium/viewer"

// New returns the endpoint serving opts.Tools.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, tools: map[string]Tool{}}
	// The SDK logs every stateless request's session at Info (connecting, connected, initialized):
	// only its warnings and errors are worth a line.
	sdkLog := slog.New(atLeast{Handler: opts.Log.Handler(), level: slog.LevelWarn})
	srv := gomcp.NewServer(&gomcp.Implementation{Name: "podium", Title: "Podium", Version: opts.Version},
		&gomcp.ServerOptions{Logger: sdkLog,
			// What a caller lists depends on who they are: no one else may serve it from a cache.
			SetCacheable: func(_ context.Context, _ gomcp.Request, c *gomcp.Cacheable) { c.CacheScope = "private" },
			Instructions: "Podium's REST API as tools: each tool is one operation of /api/v1 (API version " +
				opts.Version + "), answering its JSON or its {code, message} error. Tools that email people or " +
				"change many records first answer a preview and a confirmationToken; call again with it to run " +
				"for real."})
	for _, t := range opts.Tools {
		s.tools[t.Tool.Name] = t
		srv.AddTool(t.Tool, s.call(t))
	}
	srv.AddReceivingMiddleware(s.listOnlyAllowed)
	h := gomcp.NewStreamableHTTPHandler(func(*http.Request) *gomcp.Server { return srv }, &gomcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		Logger:       sdkLog,
		// Rebinding a name to localhost steals nothing here: every request carries its bearer token,
		// which a page of another site does not have, and behind a reverse proxy on the same host
		// every request would look like one.
		DisableLocalhostProtection: true,
	})
	s.handler = auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: strings.TrimRight(opts.PublicURL, "/") + MetadataPath + Path,
		// Podium's tokens end when they are revoked; an API key may have no expiry at all.
		AllowMissingExpiration: true,
	})(h)
	return s
}

// ServeHTTP serves the endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Metadata serves the protected resource metadata document (RFC 9728) of the endpoint.
func (s *Server) Metadata() http.Handler {
	base := strings.TrimRight(s.opts.PublicURL, "/")
	return auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               base + Path,
		AuthorizationServers:   []string{base},
		ScopesSupported:        Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Podium",
	})
}

// errTokenCheck answers a token that could not be checked (the database unreachable).
var errTokenCheck = errors.New("the bearer token could not be checked: try again")

// verify is the SDK's token check: Podium's own, for the organization the request names.
func (s *Server) verify(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
	v, err := s.opts.Authenticate(ctx, "Bearer "+token, r.Header.Get(OrganizationHeader))
	if err != nil {
		var e *apperr.Error
		if errors.As(err, &e) && e.Status == http.StatusUnauthorized {
			return nil, errors.Join(auth.ErrInvalidToken, err)
		}
		// The SDK answers any other error 500 with its text: log it, answer nothing of it.
		s.opts.Log.ErrorContext(ctx, "mcp: check bearer token", "err", err)
		return nil, errTokenCheck
	}
	info := &auth.TokenInfo{Scopes: v.APIKeyScopes, UserID: v.APIKeyID, Extra: map[string]any{viewerKey: v}}
	if v.Person != nil {
		info.UserID = "user:" + v.Person.UserID
		info.Scopes = nil
		if v.Client != nil {
			info.Scopes = v.Client.Scopes
		}
	}
	return info, nil
}

// caller is the viewer the verifier found for a request.
func caller(extra *gomcp.RequestExtra) *viewer.Viewer {
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	v, _ := extra.TokenInfo.Extra[viewerKey].(*viewer.Viewer)
	return v
}

// listOnlyAllowed leaves out of tools/list the tools the caller may not run.
func (s *Server) listOnlyAllowed(next gomcp.MethodHandler) gomcp.MethodHandler {
	return func(ctx context.Context, method string, req gomcp.Request) (gomcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*gomcp.ListToolsResult)
		if err != nil || !ok {
			return res, err
		}
		v := caller(req.GetExtra())
		out := *list
		out.Tools = make([]*gomcp.Tool, 0, len(list.Tools))
		for _, t := range list.Tools {
			if v != nil && s.tools[t.Name].Allowed(ctx, v) == nil {
				out.Tools = append(out.Tools, t)
			}
		}
		return &out, nil
	}
}

// call is the SDK handler of t: the caller's check, then the tool.
func (s *Server) call(t Tool) gomcp.ToolHandler {
	return func(ctx context.Context, req *gomcp.CallToolRequest) (res *gomcp.CallToolResult, err error) {
		// The SDK may run a handler outside the HTTP request's goroutine, where net/http's recovery
		// does not reach: a panic answers internal_error and leaves the process up.
		defer func() {
			if p := recover(); p != nil {
				s.opts.Log.ErrorContext(ctx, "mcp tool panic", "tool", t.Tool.Name, "panic", p, "stack", string(debug.Stack()))
				res, err = ErrorResult(apperr.Internal()), nil
			}
		}()
		v := caller(req.Extra)
		if v == nil {
			return ErrorResult(apperr.New(http.StatusUnauthorized, apperr.CodeMissingAPIKey, "Provide a bearer token")), nil
		}
		if err := t.Allowed(ctx, v); err != nil {
			return ErrorResult(err), nil
		}
		start := time.Now()
		res = t.Call(ctx, v, req.Params.Arguments)
		s.opts.Log.InfoContext(ctx, "mcp tool call", "tool", t.Tool.Name, "error", res.IsError,
			"ms", time.Since(start).Milliseconds())
		return res, nil
	}
}

// Envelope is a failed call's body: REST's error envelope, in the same vocabulary.
type Envelope struct {
	Error EnvelopeError `json:"error"`
}

// EnvelopeError is the error of an Envelope.
type EnvelopeError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ErrorResult is the result of a call refused or failed with err, in REST's envelope; an error
// outside the vocabulary answers internal_error without detail.
func ErrorResult(err error) *gomcp.CallToolResult {
	var e *apperr.Error
	if !errors.As(err, &e) {
		e = apperr.New(http.StatusInternalServerError, apperr.CodeInternal, "Something went wrong handling this request")
	}
	return EnvelopeResult(Envelope{Error: EnvelopeError{Code: e.Code, Message: e.Message}})
}

// EnvelopeResult is the result of a failed call answering env.
func EnvelopeResult(env Envelope) *gomcp.CallToolResult {
	b, _ := json.Marshal(env)
	return &gomcp.CallToolResult{IsError: true, Content: []gomcp.Content{&gomcp.TextContent{Text: string(b)}},
		StructuredContent: env}
}

// JSONResult is the result of a successful call answering the JSON body: as text, and as
// structured content when it is an object.
func JSONResult(body []byte) *gomcp.CallToolResult {
	res := &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: strings.TrimSpace(string(body))}}}
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil && obj != nil {
		res.StructuredContent = json.RawMessage(body)
	}
	return res
}

// atLeast is a log handler passing on the records of level and above.
type atLeast struct {
	slog.Handler
	level slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(attrs []slog.Attr) slog.Handler {
	return atLeast{Handler: h.Handler.WithAttrs(attrs), level: h.level}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{Handler: h.Handler.WithGroup(name), level: h.level}
}
