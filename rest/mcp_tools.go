package rest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/rest/mcp"
)

// The MCP endpoint's tools are the route table of API version VersionCurrent (docs/mcp.md): one
// tool per operation, named by its operation id, described by its documentation, its input the
// path and query parameters and the body's schema (the OpenAPI document's, from the GraphQL input
// type). A call runs the route in-process through serve, as the caller the endpoint already
// authenticated: the same rate limit, scopes, rules, body check, transaction and idempotency as
// over HTTP, and the same answers.

// Arguments every write tool, or every previewed tool, takes besides the route's own.
const (
	argIdempotencyKey    = "idempotencyKey"
	argConfirmationToken = "confirmationToken"
)

// confirmationLifetime bounds how long a preview's confirmation token runs the call it previewed.
const confirmationLifetime = 10 * time.Minute

// previewRecipients bounds the recipients a preview lists (it counts them all).
const previewRecipients = 20

// mcpTool is one route as a tool.
type mcpTool struct {
	rt *route
	// serve runs the route (API.serve), a panic answered internal_error as the router answers it.
	serve http.Handler
	// key is what an API key, or an application's grant, needs; person the rule for people.
	key    access.KeyRule
	person access.Rule
	// params are the path parameters, query the query parameters.
	params, query []string
	// preview marks a route that emails people or changes many records: a call without a
	// confirmation token answers a preview and keeps nothing.
	preview bool
}

// mcpTools makes and runs the tools.
type mcpTools struct {
	a *API
	// signing is the server key of confirmation tokens, read once.
	mu      sync.Mutex
	signing []byte
}

// mountMCP serves the MCP endpoint at /api/mcp and its protected resource metadata.
func (a *API) mountMCP(r chi.Router, publicURL string) {
	t := &mcpTools{a: a}
	srv := mcp.New(mcp.Options{
		PublicURL:    publicURL,
		Authenticate: a.auth.AuthenticateFor,
		Tools:        t.tools(),
		Version:      VersionCurrent,
		Log:          a.log,
	})
	r.Handle(mcp.Path, srv)
	r.Handle(mcp.MetadataPath, srv.Metadata())
	r.Handle(mcp.MetadataPath+mcp.Path, srv.Metadata())
}

// tools are the route table's tools, and whoami.
func (t *mcpTools) tools() []mcp.Tool {
	schema := t.a.schema
	fields := restFields(schema)
	in := inputSchemas{schema, VersionCurrent}
	out := []mcp.Tool{t.whoami()}
	for i := range routes {
		rt := &routes[i]
		if rt.public() || !rt.inVersion(VersionCurrent) {
			continue
		}
		doc := rt.docIn(VersionCurrent, fields)
		switch doc.output.(type) {
		case fileBody, calendarFeed, exportDocument: // not JSON
			continue
		}
		rules := rt.rules(schema) // as serve checks them
		m := &mcpTool{rt: rt, serve: t.a.recoverPanics(t.a.serve(rt)), key: rules.key, person: rules.person}
		for _, p := range pathParam.FindAllStringSubmatch(rt.path, -1) {
			m.params = append(m.params, p[1])
		}
		for _, q := range doc.query {
			m.query = append(m.query, q.name)
		}
		m.preview = m.key.Need == access.NeedSendMail || m.key.Need == access.NeedSendMailIfAsked ||
			(rt.input != "" && changesMany(rt, schema.Types[rt.input]))
		out = append(out, mcp.Tool{
			Tool:    m.describe(doc, in),
			Allowed: m.allowed,
			Call: func(ctx context.Context, v *viewer.Viewer, args json.RawMessage) *gomcp.CallToolResult {
				return t.call(ctx, v, m, args)
			},
		})
	}
	return out
}

// changesMany reports whether a route changes as many records as its body lists: the body has a
// list of ids at its top level, and the route neither creates one record (201), nor replaces the
// fields of one (PUT, PATCH: its lists are that record's links, to tracks or speakers), nor
// reorders (the list is the order).
func changesMany(rt *route, def *ast.Definition) bool {
	if rt.status == http.StatusCreated || rt.method == http.MethodPut || rt.method == http.MethodPatch ||
		strings.HasPrefix(rt.operationID, "reorder") {
		return false
	}
	for _, f := range def.Fields {
		if f.Type.Elem != nil && f.Type.Elem.NamedType == "ID" {
			return true
		}
	}
	return false
}

// describe is the tool as tools/list shows it.
func (m *mcpTool) describe(doc routeDoc, in inputSchemas) *gomcp.Tool {
	rt := m.rt
	props := obj{}
	var required []string
	for _, p := range m.params {
		props[p] = obj{"type": "string", "description": "Path parameter {" + p + "} of " + rt.method + " /api/v1" + rt.path}
		required = append(required, p)
	}
	for _, q := range doc.query {
		s := obj{"type": "string", "description": q.description}
		if len(q.enum) > 0 {
			s["enum"] = q.enum
		}
		props[q.name] = s
	}
	taken := func(name string) {
		if _, ok := props[name]; ok {
			panic("rest: mcp: argument " + name + " of " + rt.operationID + " is both a parameter and a body key")
		}
	}
	if rt.input != "" {
		body := in.object(in.schema.Types[rt.input])
		for name, s := range body["properties"].(obj) {
			taken(name)
			props[name] = s
		}
		if req, ok := body["required"].([]string); ok && !rt.optionalBody() {
			required = append(required, req...)
		}
	}
	if rt.isWrite() && !rt.shownOnce() {
		taken(argIdempotencyKey)
		props[argIdempotencyKey] = obj{"type": "string", "minLength": 1, "maxLength": 255,
			"description": "Send the same key again (within 24 h) to get the first answer instead of a second write " +
				"(REST's Idempotency-Key)."}
	}
	if m.preview {
		taken(argConfirmationToken)
		props[argConfirmationToken] = obj{"type": "string",
			"description": "Leave out to get a preview (the emails it would send, the answer it would give; nothing is " +
				"kept), then call again with the same arguments and the preview's confirmationToken to run it."}
	}
	input := obj{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		slices.Sort(required)
		input["required"] = slices.Compact(required)
	}
	description := doc.description
	if description == "" {
		description = doc.summary
	}
	description += "\n\n" + rt.method + " /api/v1" + rt.path + " (API version " + VersionCurrent + ")."
	if m.preview {
		description += " Without confirmationToken this answers a preview and changes nothing."
	}
	return &gomcp.Tool{
		Name:        rt.operationID,
		Title:       doc.summary,
		Description: description,
		InputSchema: jsonSchemaOf(input),
		Annotations: m.annotations(doc.summary),
	}
}

// annotations are the hints of the route's method: GET reads; DELETE destroys; PUT is
// idempotent; POST adds, unless the operation deletes or cancels. Only the tools that may email
// people reach outside Podium.
func (m *mcpTool) annotations(title string) *gomcp.ToolAnnotations {
	rt := m.rt
	a := &gomcp.ToolAnnotations{Title: title, OpenWorldHint: new(false)}
	if m.key.Need == access.NeedSendMail || m.key.Need == access.NeedSendMailIfAsked {
		a.OpenWorldHint = new(true)
	}
	switch rt.method {
	case http.MethodGet:
		a.ReadOnlyHint = true
		a.IdempotentHint = true
	case http.MethodDelete:
		a.DestructiveHint = new(true)
		a.IdempotentHint = true
	case http.MethodPut: // a replacement: destructive, as MCP assumes by default
		a.IdempotentHint = true
	case http.MethodPatch: // an update overwrites: destructive, as MCP assumes by default
	default:
		id := strings.ToLower(rt.operationID)
		destroys := strings.Contains(id, "delete") || strings.Contains(id, "cancel") ||
			strings.Contains(id, "remove") || strings.Contains(id, "revoke") || strings.Contains(id, "unassign")
		a.DestructiveHint = new(destroys)
	}
	return a
}

// jsonSchemaOf turns the OpenAPI 3.0 spelling of a nullable schema ("nullable": true) into JSON
// Schema's (a type list with "null"), which MCP's input schemas are.
func jsonSchemaOf(s obj) obj {
	out := obj{}
	for k, v := range s {
		switch v := v.(type) {
		case obj:
			if k == "properties" {
				props := obj{}
				for name, p := range v {
					props[name] = jsonSchemaOf(p.(obj))
				}
				out[k] = props
			} else {
				out[k] = jsonSchemaOf(v)
			}
		default:
			out[k] = v
		}
	}
	if out["nullable"] == true {
		delete(out, "nullable")
		if t, ok := out["type"].(string); ok {
			out["type"] = []string{t, "null"}
		}
		if enum, ok := out["enum"].([]string); ok {
			list := make([]any, 0, len(enum)+1)
			for _, e := range enum {
				list = append(list, e)
			}
			out["enum"] = append(list, nil)
		}
	}
	return out
}

// allowed decides whether v may run the tool, as admit would: by the scopes and event of an API
// key or of an application's grant, and by the route's rule for a person.
func (m *mcpTool) allowed(ctx context.Context, v *viewer.Viewer) error {
	if err := access.Key(viewer.NewContext(ctx, v), m.key); err != nil {
		return err
	}
	if v.Person != nil {
		return access.Person(v, m.person)
	}
	return nil
}

// call runs a route tool: a preview first when the route needs one, else the route.
func (t *mcpTools) call(ctx context.Context, v *viewer.Viewer, m *mcpTool, raw json.RawMessage) *gomcp.CallToolResult {
	args, err := toolArgs(raw)
	if err != nil {
		return mcp.ErrorResult(err)
	}
	token, err := takeString(args, argConfirmationToken)
	if err != nil {
		return mcp.ErrorResult(err)
	}
	idem, err := takeString(args, argIdempotencyKey)
	if err != nil {
		return mcp.ErrorResult(err)
	}
	if m.preview {
		if token == "" {
			return t.preview(ctx, v, m, args)
		}
		if err := t.confirm(ctx, v, m, args, token); err != nil {
			return t.fail(ctx, m, err)
		}
		if idem == "" && (v.APIKeyID != "" || v.OrganizationID != "") {
			// A confirmation runs its call once: used again within its ten minutes, it answers
			// what the first use did (an idempotency record of the token), and sends nothing twice.
			// (A person of no organization keeps no idempotency record; nothing they may run is
			// previewed.)
			sum := sha256.Sum256([]byte(token))
			idem = "confirmation:" + hex.EncodeToString(sum[:16])
		}
	}
	rec, err := t.run(ctx, v, m, args, idem)
	if err != nil {
		return t.fail(ctx, m, err)
	}
	return rec.result()
}

// fail is the result of a call that failed before or around its route: an error of the
// vocabulary as REST answers it; any other is logged and answered internal_error.
func (t *mcpTools) fail(ctx context.Context, m *mcpTool, err error) *gomcp.CallToolResult {
	e, ok := operation.ErrorOf(err)
	if !ok {
		t.a.log.ErrorContext(ctx, "mcp tool call failed", "tool", m.rt.operationID, "err", err)
	}
	return mcp.ErrorResult(e)
}

// toolArgs are a call's arguments by name, numbers kept as written.
func toolArgs(raw json.RawMessage) (map[string]json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return args, nil
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, apperr.Invalid("The arguments must be a JSON object")
	}
	return args, nil
}

// takeString removes the argument name from args and returns it as a string ("" when absent or
// null); a number is taken as written.
func takeString(args map[string]json.RawMessage, name string) (string, error) {
	raw, ok := args[name]
	delete(args, name)
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", apperr.Invalid("%s must be a string", name)
}

// callerKey marks the context of an in-process call with the viewer the MCP endpoint
// authenticated: admit takes it instead of reading an Authorization header. Only this file sets
// it, on requests it makes itself; nothing from the network reaches it.
type callerKey struct{}

// inProcessCaller is the viewer of an in-process call, or nil for a request from the network.
func inProcessCaller(ctx context.Context) *viewer.Viewer {
	v, _ := ctx.Value(callerKey{}).(*viewer.Viewer)
	return v
}

// previewKey marks the context of a previewed call: its transaction is rolled back, so the work
// of an afterCommit must not run (runWrite answers the recorded result).
type previewKey struct{}

// inPreview reports whether ctx is a previewed call's.
func inPreview(ctx context.Context) bool { return ctx.Value(previewKey{}) != nil }

// run serves the route in-process for v: the request REST would receive, served by serve.
func (t *mcpTools) run(ctx context.Context, v *viewer.Viewer, m *mcpTool, args map[string]json.RawMessage, idem string) (*recorder, error) {
	rt := m.rt
	args = maps.Clone(args)
	rctx := chi.NewRouteContext()
	path := rt.path
	for _, p := range m.params {
		val, err := takeString(args, p)
		if err != nil {
			return nil, err
		}
		if val == "" {
			return nil, apperr.Invalid("%s is required", p)
		}
		rctx.URLParams.Add(p, val)
		path = strings.Replace(path, "{"+p+"}", url.PathEscape(val), 1)
	}
	query := url.Values{}
	for _, q := range m.query {
		val, err := takeString(args, q)
		if err != nil {
			return nil, err
		}
		if val != "" {
			query.Set(q, val)
		}
	}
	var body io.Reader = http.NoBody
	if rt.input == "" {
		for name := range args {
			return nil, apperr.Invalid("Unknown argument %q: %s takes none besides its parameters", name, rt.operationID)
		}
	} else if len(args) > 0 || !rt.optionalBody() {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	target := "/api/v1" + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	ctx = context.WithValue(ctx, chi.RouteCtxKey, rctx)
	ctx = context.WithValue(ctx, callerKey{}, v)
	req, err := http.NewRequestWithContext(ctx, rt.method, target, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set(VersionHeader, VersionCurrent)
	req.Header.Set("Content-Type", "application/json")
	if idem != "" {
		req.Header.Set(IdempotencyHeader, idem)
	}
	rec := &recorder{header: http.Header{}}
	m.serve.ServeHTTP(rec, req)
	return rec, nil
}

// recorder keeps the response of an in-process call.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

// ok reports a 2xx answer.
func (r *recorder) ok() bool { return r.status >= 200 && r.status < 300 }

// result is the tool result of the response: its JSON on success, REST's error envelope otherwise.
func (r *recorder) result() *gomcp.CallToolResult {
	if !r.ok() {
		var env mcp.Envelope
		if err := json.Unmarshal(r.body.Bytes(), &env); err != nil || env.Error.Code == "" {
			return mcp.ErrorResult(fmt.Errorf("rest: mcp: answer %d is not an error envelope: %s", r.status, r.body.String()))
		}
		res := mcp.EnvelopeResult(env)
		if after, err := strconv.Atoi(r.header.Get("Retry-After")); err == nil {
			// rate_limited and unavailable ask to come back: when, as REST's header says.
			res.Meta = gomcp.Meta{"podium/retryAfter": after}
		}
		return res
	}
	var res *gomcp.CallToolResult
	if r.status == http.StatusNoContent || r.body.Len() == 0 {
		res = &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: "Done: " + strconv.Itoa(r.status) + " " + http.StatusText(r.status)}}}
	} else {
		res = mcp.JSONResult(r.body.Bytes())
	}
	if r.header.Get(ReplayedHeader) == "true" {
		res.Meta = gomcp.Meta{"podium/replayed": true}
	}
	return res
}

// errPreview rolls a preview's transaction back.
var errPreview = errors.New("rest: mcp: preview, rolled back")

// previewEmail is an email a preview would have queued.
type previewEmail struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
}

// previewResult is what a preview answers.
type previewResult struct {
	Preview bool   `json:"preview"`
	Message string `json:"message"`
	Emails  struct {
		Count      int            `json:"count"`
		Recipients []previewEmail `json:"recipients"`
		// Body is the first email's text, as rendered.
		Body *string `json:"body"`
	} `json:"emails"`
	// Response is the answer the call would give.
	Response          json.RawMessage `json:"response"`
	ConfirmationToken string          `json:"confirmationToken"`
	ExpiresAt         string          `json:"expiresAt"`
}

// preview runs the call in a transaction that is rolled back whatever happens, collecting the
// emails it queued there (email_log rows of this transaction) and its answer, and answers them
// with a confirmation token for exactly these arguments.
func (t *mcpTools) preview(ctx context.Context, v *viewer.Viewer, m *mcpTool, args map[string]json.RawMessage) *gomcp.CallToolResult {
	key, err := t.key(ctx)
	if err != nil {
		return t.fail(ctx, m, err)
	}
	var out previewResult
	var rec *recorder
	ctx = context.WithValue(viewer.NewContext(ctx, v), previewKey{}, true)
	err = t.a.db.InTx(ctx, func(ctx context.Context) error {
		if rec, err = t.run(ctx, v, m, args, ""); err != nil {
			return err
		}
		if !rec.ok() {
			return errPreview
		}
		rows, err := dbx.TxFromContext(ctx).PGX().Query(ctx, `SELECT recipient, subject, body, count(*) OVER ()
FROM email_log WHERE xmin = pg_current_xact_id()::xid ORDER BY created_at, id LIMIT $1`, previewRecipients)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e previewEmail
			var body string
			if err := rows.Scan(&e.To, &e.Subject, &body, &out.Emails.Count); err != nil {
				return err
			}
			if out.Emails.Body == nil {
				out.Emails.Body = &body
			}
			out.Emails.Recipients = append(out.Emails.Recipients, e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return errPreview
	})
	if !errors.Is(err, errPreview) {
		return t.fail(ctx, m, err)
	}
	if !rec.ok() {
		return rec.result()
	}
	exp := time.Now().Add(confirmationLifetime).Unix()
	out.Preview = true
	out.Message = fmt.Sprintf("preview: nothing was sent and nothing was changed. Run it with confirmationToken "+
		"(valid until %s, for exactly these arguments): it would send %d email(s).",
		time.Unix(exp, 0).UTC().Format(time.RFC3339), out.Emails.Count)
	if out.Emails.Recipients == nil {
		out.Emails.Recipients = []previewEmail{}
	}
	out.Response = json.RawMessage(bytes.TrimSpace(rec.body.Bytes()))
	if len(out.Response) == 0 {
		out.Response = json.RawMessage("null")
	}
	out.ConfirmationToken = confirmationToken(key, callerIdentity(v), m.rt.operationID, canonical(args), exp)
	out.ExpiresAt = time.Unix(exp, 0).UTC().Format(time.RFC3339)
	b, err := json.Marshal(out)
	if err != nil {
		return mcp.ErrorResult(err)
	}
	return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}
}

// errBadConfirmation answers a confirmation token that does not confirm the call.
var errBadConfirmation = apperr.Invalid("This confirmationToken does not confirm this call: it is invalid, expired " +
	"(tokens last 10 minutes) or was given for other arguments. Call without it for a new preview.")

// confirm checks that token confirms this call: made by this server for this caller, tool and
// arguments, and not expired.
func (t *mcpTools) confirm(ctx context.Context, v *viewer.Viewer, m *mcpTool, args map[string]json.RawMessage, token string) error {
	key, err := t.key(ctx)
	if err != nil {
		return err
	}
	rest, ok := strings.CutPrefix(token, "pct_")
	expText, _, ok2 := strings.Cut(rest, ".")
	exp, err := strconv.ParseInt(expText, 36, 64)
	if !ok || !ok2 || err != nil || time.Now().Unix() > exp {
		return errBadConfirmation
	}
	want := confirmationToken(key, callerIdentity(v), m.rt.operationID, canonical(args), exp)
	if !hmac.Equal([]byte(want), []byte(token)) {
		return errBadConfirmation
	}
	return nil
}

// confirmationToken is HMAC-SHA256 under key over the caller, the tool, its arguments and the
// expiry, which the token carries in the clear.
func confirmationToken(key []byte, identity, tool, args string, exp int64) string {
	mac := hmac.New(sha256.New, key)
	expText := strconv.FormatInt(exp, 36)
	mac.Write([]byte("podium mcp confirmation\n" + identity + "\n" + tool + "\n" + expText + "\n" + args))
	return "pct_" + expText + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// callerIdentity names who confirms: the API key, or the person in their organization through
// their grant.
func callerIdentity(v *viewer.Viewer) string {
	if v.Person == nil {
		return "key " + v.APIKeyID
	}
	grant := ""
	if v.Client != nil {
		grant = v.Client.GrantID
	}
	return "user " + v.Person.UserID + " org " + v.OrganizationID + " grant " + grant
}

// canonical is the arguments as one string: keys sorted at every level, numbers as written.
func canonical(args map[string]json.RawMessage) string {
	norm := map[string]any{}
	for k, raw := range args {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			v = string(raw)
		}
		norm[k] = v
	}
	b, _ := json.Marshal(norm)
	return string(b)
}

// key is the server key that signs confirmation tokens, the same in every process (server_keys).
func (t *mcpTools) key(ctx context.Context) ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.signing != nil {
		return t.signing, nil
	}
	k, err := jobs.ServerKey(viewer.System(dbx.Detach(ctx), "MCP: the server's key of confirmation tokens"),
		t.a.db.System, "mcp_confirmation")
	if err != nil {
		return nil, err
	}
	t.signing = k
	return k, nil
}

// whoami is the tool that says who the caller is.
func (t *mcpTools) whoami() mcp.Tool {
	return mcp.Tool{
		Tool: &gomcp.Tool{
			Name:  "whoami",
			Title: "Who am I",
			Description: "Who the caller is: an API key (its name, scopes and event) or a person (their organization, " +
				"role, and the application they act through with the scopes they granted it).",
			InputSchema: obj{"type": "object", "properties": obj{}, "additionalProperties": false},
			Annotations: &gomcp.ToolAnnotations{Title: "Who am I", ReadOnlyHint: true, IdempotentHint: true,
				OpenWorldHint: new(false)},
		},
		Allowed: func(context.Context, *viewer.Viewer) error { return nil },
		Call: func(ctx context.Context, v *viewer.Viewer, _ json.RawMessage) *gomcp.CallToolResult {
			out := obj{"kind": "api_key", "organization": nil}
			if v.OrganizationID != "" {
				org := obj{"id": v.OrganizationID, "name": nil}
				if o, err := t.a.db.Ent.Organization.Get(viewer.NewContext(ctx, v), v.OrganizationID); err == nil {
					org["name"] = o.Name
				}
				out["organization"] = org
			}
			if v.Person == nil {
				out["apiKey"] = obj{"id": v.APIKeyID, "name": v.APIKeyName, "scopes": v.APIKeyScopes,
					"eventId": nilIfEmpty(v.APIKeyEventID), "version": nilIfEmpty(v.APIKeyVersion)}
			} else {
				out["kind"] = "person"
				out["person"] = obj{"userId": v.Person.UserID, "email": v.Person.Email, "name": v.Person.Name}
				out["role"] = nilIfEmpty(v.Role)
				out["client"] = nil
				if v.Client != nil {
					out["client"] = obj{"id": v.Client.ID, "name": v.Client.Name, "scopes": v.Client.Scopes}
				}
			}
			b, err := json.Marshal(out)
			if err != nil {
				return mcp.ErrorResult(err)
			}
			return mcp.JSONResult(b)
		},
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
