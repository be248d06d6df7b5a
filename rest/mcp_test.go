package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/rest"
)

// mcpBearer adds the Authorization header (and Podium-Organization, when set) to every request of
// an MCP client.
type mcpBearer struct{ token, org string }

func (h mcpBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+h.token)
	if h.org != "" {
		r.Header.Set("Podium-Organization", h.org)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpServer serves the bundle's router over HTTP until the test ends.
func (b *testBundle) mcpServer() *httptest.Server {
	b.t.Helper()
	srv := httptest.NewServer(b.handler)
	b.t.Cleanup(srv.Close)
	return srv
}

// mcpClient connects the official SDK's client to /api/mcp with token.
func (b *testBundle) mcpClient(token string) *mcp.ClientSession { return b.mcpClientFor(token, "") }

// mcpClientFor is mcpClient for a person acting for the organization org.
func (b *testBundle) mcpClientFor(token, org string) *mcp.ClientSession {
	b.t.Helper()
	return mcpConnect(b.t, b.mcpServer().URL, token, org)
}

// mcpConnect connects the official SDK's client to the MCP endpoint of the server at base.
func mcpConnect(t *testing.T, base, token, org string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "podium-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: base + "/api/mcp", HTTPClient: &http.Client{Transport: mcpBearer{token: token, org: org}},
		DisableStandaloneSSE: true,
	}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// tools lists the tools cs may run, by name.
func tools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		require.NoError(t, err)
		out[tool.Name] = tool
	}
	return out
}

// toolCall calls a tool and answers its result with its text content decoded as JSON (nil when
// the text is not JSON).
func toolCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	require.NotEmpty(t, res.Content)
	text := res.Content[0].(*mcp.TextContent).Text
	var body map[string]any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	_ = dec.Decode(&body)
	return res, body
}

// toolOK calls a tool and requires success.
func toolOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, body := toolCall(t, cs, name, args)
	require.False(t, res.IsError, "%s: %v", name, res.Content[0].(*mcp.TextContent).Text)
	return body
}

// toolError calls a tool and requires it to fail with code, in REST's envelope.
func toolError(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, code string) string {
	t.Helper()
	res, body := toolCall(t, cs, name, args)
	require.True(t, res.IsError, "%s: %v", name, res.Content[0].(*mcp.TextContent).Text)
	e, _ := body["error"].(map[string]any)
	require.Equal(t, code, e["code"], res.Content[0].(*mcp.TextContent).Text)
	require.NotEmpty(t, e["message"])
	return e["message"].(string)
}

// stringsOf are the strings of a decoded list.
func stringsOf(list []any) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = v.(string)
	}
	return out
}

// newScopedKey makes an API key of acme with scopes, over REST.
func (b *testBundle) newScopedKey(scopes ...string) string {
	b.t.Helper()
	return b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys", b.acme,
		map[string]any{"name": "MCP " + strings.Join(scopes, "+"), "scopes": scopes}).Obj()["secret"].(string)
}

// TestMCPAuth: without a token the endpoint answers 401 with the challenge naming the protected
// resource metadata, which is served at both well-known paths.
func TestMCPAuth(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := b.mcpServer()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, authorization := range []string{"", "Bearer pdm_unknown", "Bearer not-a-key", "Basic abc"} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/mcp", strings.NewReader(init))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = res.Body.Close()
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, authorization)
		require.Equal(t, `Bearer resource_metadata="https://podium.example.test/.well-known/oauth-protected-resource/api/mcp"`,
			res.Header.Get("WWW-Authenticate"), authorization)
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/api/mcp", "/.well-known/oauth-protected-resource"} {
		res, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		raw, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode, path)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(raw, &doc))
		require.Equal(t, "https://podium.example.test/api/mcp", doc["resource"])
		require.Equal(t, []any{"https://podium.example.test"}, doc["authorization_servers"])
		require.Equal(t, []any{"read", "write", "send_mail"}, doc["scopes_supported"])
		require.Equal(t, []any{"header"}, doc["bearer_methods_supported"])
	}
}

// TestMCPToolsList: a full key lists a tool for every authenticated JSON route of API version
// 2026-08-21, with its schema and annotations, and whoami; a read-only key lists only the
// read-only tools, and a write is refused with nothing written.
func TestMCPToolsList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	all := tools(t, b.mcpClient(b.acme))

	var want []string
	for _, rt := range rest.RouteTable() {
		// Public routes need no caller; downloads answer bytes; setSpeakerWorkflow is gone in 2026-08-21.
		if strings.HasPrefix(rt.Path, "/public/") || rt.OperationID == "downloadFile" || rt.OperationID == "setSpeakerWorkflow" {
			continue
		}
		want = append(want, rt.OperationID)
	}
	want = append(want, "whoami")
	got := make([]string, 0, len(all))
	for name := range all {
		got = append(got, name)
	}
	slices.Sort(want)
	slices.Sort(got)
	require.Equal(t, want, got)

	for name, tool := range all {
		s := tool.InputSchema.(map[string]any)
		require.Equal(t, "object", s["type"], name)
		require.NotNil(t, tool.Annotations, name)
		require.NotEmpty(t, tool.Title, name)
		require.NotEmpty(t, tool.Description, name)
	}
	schemaOf := func(name string) map[string]any { return all[name].InputSchema.(map[string]any) }
	props := func(name string) map[string]any { return schemaOf(name)["properties"].(map[string]any) }

	require.True(t, all["listEvents"].Annotations.ReadOnlyHint)
	require.True(t, *all["deleteSession"].Annotations.DestructiveHint)
	require.False(t, *all["createEvent"].Annotations.DestructiveHint)
	require.True(t, *all["cancelSession"].Annotations.DestructiveHint)
	require.True(t, all["setSpeakerAvailability"].Annotations.IdempotentHint)
	require.True(t, *all["sendCampaign"].Annotations.OpenWorldHint)
	// Path parameters, query parameters and the body's keys, from the GraphQL input type.
	require.ElementsMatch(t, []any{"eventId", "contactId"}, schemaOf("getSpeaker")["required"])
	require.Contains(t, props("listSubmissions"), "status")
	require.Contains(t, schemaOf("createEvent")["required"], "name")
	require.Equal(t, []any{"string", "null"}, props("updateEvent")["description"].(map[string]any)["type"])
	require.Contains(t, props("createEvent"), "idempotencyKey")
	require.NotContains(t, props("listEvents"), "idempotencyKey")
	// Tools that email people or change many records take a confirmation token; others do not.
	for _, name := range []string{"informSubmissions", "decideSubmissions", "sendCampaign", "inviteSpeakerPortals", "acceptAgendaDraft"} {
		require.Contains(t, props(name), "confirmationToken", name)
	}
	for _, name := range []string{"createEvent", "createSession", "setSessionSpeakers", "reorderResources"} {
		require.NotContains(t, props(name), "confirmationToken", name)
	}

	t.Run("SchemasOfTheOpenAPIDocument", func(t *testing.T) {
		// Each tool takes what its operation takes in the OpenAPI document of 2026-08-21: its path
		// and query parameters and its body's keys, with the same required ones.
		doc := b.must(http.StatusOK, http.MethodGet, "/api/v1/openapi.json?version="+rest.VersionCurrent, "", nil).Obj()
		seen := 0
		for _, item := range doc["paths"].(map[string]any) {
			for _, op := range item.(map[string]any) {
				op := op.(map[string]any)
				tool, ok := all[str(op, "operationId")]
				if !ok {
					continue
				}
				seen++
				var want, required []string
				params, _ := op["parameters"].([]any)
				for _, p := range params {
					p := p.(map[string]any)
					if p["in"] == "header" {
						continue
					}
					want = append(want, str(p, "name"))
					if p["required"] == true {
						required = append(required, str(p, "name"))
					}
				}
				if body, ok := op["requestBody"].(map[string]any); ok {
					s := body["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
					want = append(want, slices.Collect(maps.Keys(s["properties"].(map[string]any)))...)
					if req, ok := s["required"].([]any); ok && body["required"] == true {
						required = append(required, stringsOf(req)...)
					}
				}
				s := tool.InputSchema.(map[string]any)
				var got []string
				for name := range s["properties"].(map[string]any) {
					if name != "idempotencyKey" && name != "confirmationToken" {
						got = append(got, name)
					}
				}
				require.ElementsMatch(t, want, got, tool.Name)
				gotRequired, _ := s["required"].([]any)
				require.ElementsMatch(t, required, stringsOf(gotRequired), tool.Name)
			}
		}
		require.Equal(t, len(all)-1, seen) // all but whoami
	})

	t.Run("EventKey", func(t *testing.T) {
		// A key confined to one event lists no tool of the whole organization.
		event := str(b.createEvent(b.acme, "Confined"), "id")
		key := b.must(http.StatusCreated, http.MethodPost, "/api/v1/api-keys", b.acme, map[string]any{"name": "One event",
			"scopes": []string{"read", "write", "send_mail"}, "eventId": event}).Obj()["secret"].(string)
		cs := b.mcpClient(key)
		listed := tools(t, cs)
		require.Contains(t, listed, "getEvent")
		require.Contains(t, listed, "informSubmissions")
		for _, name := range []string{"listContacts", "listWebhooks", "getPipeline", "getOrganization"} {
			require.NotContains(t, listed, name)
		}
		toolError(t, cs, "listContacts", nil, "forbidden")
		require.Equal(t, event, toolOK(t, cs, "getEvent", map[string]any{"eventId": event})["id"])
	})

	t.Run("ReadOnlyKey", func(t *testing.T) {
		key := b.newScopedKey("read")
		cs := b.mcpClient(key)
		listed := tools(t, cs)
		require.Contains(t, listed, "listEvents")
		require.Contains(t, listed, "whoami")
		for name, tool := range listed {
			require.True(t, tool.Annotations.ReadOnlyHint, name)
		}
		// Every read the key's scope allows (listing API keys needs write).
		for _, rt := range rest.RouteTable() {
			tool, ok := all[rt.OperationID]
			if ok && tool.Annotations.ReadOnlyHint && rest.KeyRuleOf(rt.Method, rt.Path).Need == access.NeedRead {
				require.Contains(t, listed, rt.OperationID)
			}
		}
		require.NotContains(t, listed, "listApiKeys")

		before := b.count(`SELECT count(*) FROM events`)
		msg := toolError(t, cs, "createEvent", map[string]any{"name": "Nope", "type": "conference",
			"timezone": "Europe/Berlin", "startsAt": "2027-09-10T09:00:00.000Z", "endsAt": "2027-09-12T17:00:00.000Z"},
			"insufficient_scope")
		require.Contains(t, msg, "write")
		require.Equal(t, before, b.count(`SELECT count(*) FROM events`))
		who := toolOK(t, cs, "whoami", nil)
		require.Equal(t, "api_key", who["kind"])
		require.Equal(t, []any{"read"}, who["apiKey"].(map[string]any)["scopes"])
	})
}

// TestMCPToolCalls: a call runs the REST route — list, create, read back — and answers its JSON;
// errors come in REST's envelope and vocabulary; an idempotencyKey replays the first answer.
func TestMCPToolCalls(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.mcpClient(b.acme)

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "listEvents"})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Nil(t, res.StructuredContent) // an array: text only
	var events []any
	require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &events))
	require.Empty(t, events)
	args := map[string]any{"name": "Over MCP", "type": "conference", "timezone": "Europe/Berlin",
		"startsAt": "2027-09-10T09:00:00.000Z", "endsAt": "2027-09-12T17:00:00.000Z", "idempotencyKey": "create-1"}
	res, made := toolCall(t, cs, "createEvent", args)
	require.False(t, res.IsError)
	require.NotNil(t, res.StructuredContent)
	id := str(made, "id")
	require.NotEmpty(t, id)
	require.Equal(t, "Over MCP", made["name"])
	got := toolOK(t, cs, "getEvent", map[string]any{"eventId": id})
	require.Equal(t, id, got["id"])
	require.Equal(t, got, b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+id, b.acme, nil).Obj())

	// The same key and arguments: the first answer again, nothing written.
	res, again := toolCall(t, cs, "createEvent", args)
	require.False(t, res.IsError)
	require.Equal(t, id, again["id"])
	require.Equal(t, true, res.Meta["podium/replayed"])
	require.Equal(t, 1, b.count(`SELECT count(*) FROM events WHERE name = 'Over MCP'`))
	args["name"] = "Other"
	toolError(t, cs, "createEvent", args, "idempotency_key_reused")

	toolError(t, cs, "getSpeaker", map[string]any{"eventId": id, "contactId": "ctc_01doesnotexist0000000000"}, "not_found")
	toolError(t, b.mcpClient(b.globex), "getEvent", map[string]any{"eventId": id}, "forbidden")
	toolError(t, cs, "createEvent", map[string]any{"name": "No dates"}, "invalid_body")
	toolError(t, cs, "getEvent", map[string]any{}, "invalid_input")
	toolError(t, cs, "getEvent", map[string]any{"eventId": id, "extra": 1}, "invalid_input")
}

// TestMCPRateLimited: tool calls draw on the caller's rate limit as REST requests do; the refusal
// says when to come back.
func TestMCPRateLimited(t *testing.T) {
	t.Parallel()
	b := setup(t)
	log := b.quietLog()
	h := rest.NewHandler(rest.Options{DB: b.db, Ops: b.res.Ops, Log: log, RateLimit: rest.RateLimit{PerSecond: 0.01, Burst: 2, Local: true},
		GraphQL: graph.NewHandler(graph.HandlerOptions{DB: b.db, Resolver: b.res, Log: log})})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cs := mcpConnect(t, srv.URL, b.acme, "")
	toolOK(t, cs, "getOrganization", nil)
	toolOK(t, cs, "getOrganization", nil)
	res, _ := toolCall(t, cs, "getOrganization", nil)
	require.True(t, res.IsError)
	require.Contains(t, res.Content[0].(*mcp.TextContent).Text, `"rate_limited"`)
	require.Positive(t, res.Meta["podium/retryAfter"])
}

// TestMCPPreviewSendMail: informSubmissions without a confirmation token sends nothing — no
// email_log row, no River job, no webhook message, nothing changed — and answers the recipients, one rendered body
// and a token; the token runs exactly those arguments, and refuses others; an idempotencyKey
// replays the confirmed call.
func TestMCPPreviewSendMail(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	p1 := b.propose(w, "Generics", w.ada)
	p2 := b.propose(w, "Compilers", w.grace, w.alan)
	b.decide(w, "accept", p1["id"], p2["id"])
	b.createWebhook(b.acme, "https://93.184.215.14/hooks", "submission.informed")
	cs := b.mcpClient(b.acme)

	hooks := func() int {
		return b.count(`SELECT count(*) FROM webhook_messages WHERE event_type = 'submission.informed'`)
	}
	mails := func() int { return b.count(`SELECT count(*) FROM email_log WHERE type IN ('accepted', 'declined')`) }
	jobs := func() int { return b.count(`SELECT count(*) FROM river_job`) }
	informed := func() int {
		return b.count(`SELECT count(*) FROM submissions WHERE id = ANY($1) AND notified_at IS NOT NULL`,
			[]string{str(p1, "id"), str(p2, "id")})
	}
	mailsBefore, jobsBefore := mails(), jobs()
	args := map[string]any{"eventId": w.event, "submissionIds": []any{p1["id"], p2["id"]}, "subject": "Your talk"}

	preview := toolOK(t, cs, "informSubmissions", args)
	require.Equal(t, true, preview["preview"])
	require.True(t, strings.HasPrefix(str(preview, "message"), "preview: nothing was sent"), preview["message"])
	emails := preview["emails"].(map[string]any)
	require.Equal(t, json.Number("3"), emails["count"])
	var to []string
	for _, r := range emails["recipients"].([]any) {
		r := r.(map[string]any)
		require.Equal(t, "Your talk", r["subject"])
		to = append(to, str(r, "to"))
	}
	require.ElementsMatch(t, []string{"ada@example.test", "grace@example.test", "alan@example.test"}, to)
	require.NotEmpty(t, emails["body"])
	require.Equal(t, json.Number("3"), preview["response"].(map[string]any)["queued"])
	token := str(preview, "confirmationToken")
	require.NotEmpty(t, token)
	require.Equal(t, mailsBefore, mails())
	require.Equal(t, jobsBefore, jobs())
	require.Zero(t, hooks())
	require.Zero(t, informed())

	// A token is for exactly the arguments it previewed, and only a real one counts.
	other := map[string]any{"eventId": w.event, "submissionIds": []any{p1["id"]}, "subject": "Your talk", "confirmationToken": token}
	toolError(t, cs, "informSubmissions", other, "invalid_input")
	forged := map[string]any{"eventId": w.event, "submissionIds": []any{p1["id"], p2["id"]}, "subject": "Your talk",
		"confirmationToken": token[:len(token)-2] + "xx"}
	toolError(t, cs, "informSubmissions", forged, "invalid_input")
	expired := map[string]any{"eventId": w.event, "submissionIds": []any{p1["id"], p2["id"]}, "subject": "Your talk",
		"confirmationToken": "pct_1." + strings.SplitN(token, ".", 2)[1]}
	toolError(t, cs, "informSubmissions", expired, "invalid_input")
	// Another caller cannot use it.
	toolError(t, b.mcpClient(b.newScopedKey("read", "write", "send_mail")), "informSubmissions",
		map[string]any{"eventId": w.event, "submissionIds": []any{p1["id"], p2["id"]}, "subject": "Your talk",
			"confirmationToken": token}, "invalid_input")
	require.Equal(t, mailsBefore, mails())
	require.Equal(t, jobsBefore, jobs())

	// The token runs the call once: used again, it answers what the first use did.
	args["confirmationToken"] = token
	res, sent := toolCall(t, cs, "informSubmissions", args)
	require.False(t, res.IsError, res.Content[0].(*mcp.TextContent).Text)
	require.Equal(t, json.Number("3"), sent["queued"])
	require.Equal(t, mailsBefore+3, mails())
	require.Greater(t, jobs(), jobsBefore)
	require.Equal(t, 2, informed())
	require.NotZero(t, hooks())

	res, replay := toolCall(t, cs, "informSubmissions", args)
	require.False(t, res.IsError)
	require.Equal(t, true, res.Meta["podium/replayed"])
	require.Equal(t, sent, replay)
	require.Equal(t, mailsBefore+3, mails())

	// A preview that would fail answers the error, with no token.
	delete(args, "confirmationToken")
	toolError(t, cs, "informSubmissions", args, "invalid_input")
}

// ownReviews are the tools of a person's own reviews, which anyone signed in may run (on their own
// assignments only), and whoami.
var ownReviews = []string{"getMyReviews", "recuseReview", "saveMyReview", "submitReviewAnswers", "whoami"}

// TestMCPPersonThroughClient: a person acting through an application lists and runs what their
// role allows within the scopes they granted: an owner with a read grant lists no write tool and
// cannot write; with a write grant they write; a reviewer lists the tools of their own reviews; a
// member lists the read tools and those of their own reviews.
func TestMCPPersonThroughClient(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.addMember(b.acmeOrg, "owner@example.test", organizationmember.RoleOwner)
	b.addMember(b.acmeOrg, "member@example.test", organizationmember.RoleMember)
	event := str(b.createEvent(b.acme, "Agents"), "id")
	// Each token comes from Podium's own OAuth flow (docs/agents.md), granting the scopes named.
	ownerRead := b.personToken("owner@example.test", "read")
	ownerWrite := b.personToken("owner@example.test", "read", "write")
	memberAll := b.personToken("member@example.test", "read", "write", "send_mail")
	all := tools(t, b.mcpClient(b.acme))
	create := map[string]any{"name": "By agent", "type": "conference", "timezone": "Europe/Berlin",
		"startsAt": "2027-09-10T09:00:00.000Z", "endsAt": "2027-09-12T17:00:00.000Z"}

	t.Run("OwnerReadGrant", func(t *testing.T) {
		cs := b.mcpClient(ownerRead)
		listed := tools(t, cs)
		require.Contains(t, listed, "getEvent")
		for name, tool := range listed {
			require.True(t, tool.Annotations.ReadOnlyHint, name)
		}
		got := toolOK(t, cs, "getEvent", map[string]any{"eventId": event})
		require.Equal(t, event, got["id"])
		toolError(t, cs, "createEvent", create, "insufficient_scope")
		require.Zero(t, b.count(`SELECT count(*) FROM events WHERE name = 'By agent'`))
		who := toolOK(t, cs, "whoami", nil)
		require.Equal(t, "person", who["kind"])
		require.Equal(t, "owner", who["role"])
		require.Equal(t, "owner@example.test", who["person"].(map[string]any)["email"])
		require.Equal(t, []any{"read"}, who["client"].(map[string]any)["scopes"])
		require.Equal(t, "Acme", who["organization"].(map[string]any)["name"])
	})

	t.Run("OwnerWriteGrant", func(t *testing.T) {
		cs := b.mcpClient(ownerWrite)
		listed := tools(t, cs)
		require.Contains(t, listed, "createEvent")
		// send_mail was not granted: the tools that always email are not listed.
		require.NotContains(t, listed, "informSubmissions")
		require.NotContains(t, listed, "sendCampaign")
		made := toolOK(t, cs, "createEvent", create)
		require.Equal(t, "By agent", made["name"])
		keyed := maps.Clone(create)
		keyed["name"], keyed["idempotencyKey"] = "Keyed", "agent-1"
		// A person's idempotencyKey is kept as a key's is: the retry answers the first call.
		first := toolOK(t, cs, "createEvent", keyed)
		res, again := toolCall(t, cs, "createEvent", keyed)
		require.Equal(t, true, res.Meta["podium/replayed"])
		require.Equal(t, first, again)
		require.Equal(t, 1, b.count(`SELECT count(*) FROM events WHERE name = 'Keyed'`))
		toolError(t, cs, "sendCampaign", map[string]any{"eventId": event}, "insufficient_scope")
	})

	t.Run("OtherOrganization", func(t *testing.T) {
		// The owner of Acme is a member of Globex: with Podium-Organization they act there, and read.
		require.NoError(t, b.db.Ent.OrganizationMember.Create().SetOrganizationID(b.globexOrg).SetUserID(owner).
			SetRole(organizationmember.RoleMember).Exec(b.sys()))
		cs := b.mcpClientFor(ownerWrite, b.globexOrg)
		who := toolOK(t, cs, "whoami", nil)
		require.Equal(t, b.globexOrg, who["organization"].(map[string]any)["id"])
		require.Equal(t, "member", who["role"])
		require.NotContains(t, tools(t, cs), "createEvent")
		toolError(t, cs, "getEvent", map[string]any{"eventId": event}, "forbidden")
		require.Equal(t, "owner", toolOK(t, b.mcpClient(ownerWrite), "whoami", nil)["role"])
	})

	t.Run("Reviewer", func(t *testing.T) {
		// A reviewer acts for no organization: they list the tools of their own reviews alone.
		w := world{event: event, base: "/api/v1/events/" + event}
		roundID := str(roundOf(b.saveRound(w, roundBody("Round"))), "id")
		b.addReviewer(w, roundID, "reviewer@example.test", nil)
		cs := b.mcpClient(b.personToken("reviewer@example.test", "read", "write", "send_mail"))
		listed := slices.Sorted(maps.Keys(tools(t, cs)))
		require.Equal(t, ownReviews, listed)
		toolError(t, cs, "getEvent", map[string]any{"eventId": event}, "forbidden")
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "getMyReviews",
			Arguments: map[string]any{"eventId": event}})
		require.NoError(t, err)
		require.False(t, res.IsError, res.Content[0].(*mcp.TextContent).Text)
		who := toolOK(t, cs, "whoami", nil)
		require.Nil(t, who["organization"])
		require.Nil(t, who["role"])
	})

	t.Run("Member", func(t *testing.T) {
		cs := b.mcpClient(memberAll)
		listed := tools(t, cs)
		require.Contains(t, listed, "listEvents")
		require.NotContains(t, listed, "createEvent")
		for name := range listed {
			require.True(t, all[name].Annotations.ReadOnlyHint || slices.Contains(ownReviews, name), name)
		}
		toolError(t, cs, "createEvent", create, "forbidden")
		require.Equal(t, 1, b.count(`SELECT count(*) FROM events WHERE name = 'By agent'`))
	})
}

// TestMCPThroughOAuth: the whole chain an MCP client follows — the challenge names the resource
// metadata, which names the authorization server, whose token the endpoint then accepts: the
// person acts through the application within the scopes they granted; a refreshed token goes on,
// and the person's revocation ends it at once.
func TestMCPThroughOAuth(t *testing.T) {
	t.Parallel()
	b, cookie := setupOAuth(t)
	prm := b.must(http.StatusOK, http.MethodGet, "/.well-known/oauth-protected-resource/api/mcp", "", nil).Obj()
	issuer := prm["authorization_servers"].([]any)[0].(string)
	require.Equal(t, publicURL, issuer)
	as := b.must(http.StatusOK, http.MethodGet, "/.well-known/oauth-authorization-server", "", nil).Obj()
	require.Equal(t, issuer, as["issuer"])
	require.Equal(t, prm["scopes_supported"], as["scopes_supported"])

	f := b.newOAuthFlow(cookie, "read")
	tok := f.connect("read")
	cs := b.mcpClient(tok.AccessToken)
	who := toolOK(t, cs, "whoami", nil)
	require.Equal(t, "person", who["kind"])
	require.Equal(t, "owner", who["role"])
	require.Equal(t, "Claude", who["client"].(map[string]any)["name"])
	require.Equal(t, []any{"read"}, who["client"].(map[string]any)["scopes"])
	listed := tools(t, cs)
	require.Contains(t, listed, "listEvents")
	require.NotContains(t, listed, "createEvent")
	events, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "listEvents"})
	require.NoError(t, err)
	require.False(t, events.IsError)
	require.Contains(t, events.Content[0].(*mcp.TextContent).Text, "Acme Summit")
	toolError(t, cs, "createEvent", map[string]any{"name": "Nope", "type": "conference", "timezone": "Europe/Berlin",
		"startsAt": "2027-09-10T09:00:00.000Z", "endsAt": "2027-09-12T17:00:00.000Z"}, "insufficient_scope")

	// Refreshed, the application goes on with a new token; revoked by the person, it stops at once.
	status, fresh := f.refresh(tok.RefreshToken)
	require.Equal(t, http.StatusOK, status, fresh)
	renewed := b.mcpClient(fresh["access_token"].(string))
	require.Equal(t, "person", toolOK(t, renewed, "whoami", nil)["kind"])
	apps := b.gqlCookie(cookie, `{ myConnectedApps { id } }`, nil).Data["myConnectedApps"].([]any)
	require.Len(t, apps, 1)
	r := b.gqlCookie(cookie, `mutation { revokeMyConnectedApp(id: "`+apps[0].(map[string]any)["id"].(string)+`") { id } }`, nil)
	require.Empty(t, r.Errors, r.Raw)
	_, err = renewed.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	require.Error(t, err, "a revoked application's token still runs tools")
}
