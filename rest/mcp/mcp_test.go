package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/rest/mcp"
)

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// setup serves two tools: open, which anyone runs, and closed, which only the key "other" runs.
func setup(t *testing.T) *httptest.Server {
	t.Helper()
	echo := func(_ context.Context, v *viewer.Viewer, args json.RawMessage) *gomcp.CallToolResult {
		return mcp.JSONResult([]byte(`{"key":"` + v.APIKeyID + `"}`))
	}
	s := mcp.New(mcp.Options{
		PublicURL: "https://podium.example.test/",
		Authenticate: func(_ context.Context, header, _ string) (*viewer.Viewer, error) {
			switch header {
			case "Bearer good":
				return &viewer.Viewer{OrganizationID: "org_1", APIKeyID: "good", APIKeyScopes: []string{"read"}}, nil
			case "Bearer other":
				return &viewer.Viewer{OrganizationID: "org_1", APIKeyID: "other", APIKeyScopes: []string{"read"}}, nil
			case "Bearer broken":
				return nil, errors.New("database down")
			}
			return nil, apperr.New(http.StatusUnauthorized, apperr.CodeInvalidAPIKey, "unknown")
		},
		Tools: []mcp.Tool{
			{Tool: &gomcp.Tool{Name: "open", InputSchema: map[string]any{"type": "object"}},
				Allowed: func(context.Context, *viewer.Viewer) error { return nil }, Call: echo},
			{Tool: &gomcp.Tool{Name: "boom", InputSchema: map[string]any{"type": "object"}},
				Allowed: func(context.Context, *viewer.Viewer) error { return nil },
				Call:    func(context.Context, *viewer.Viewer, json.RawMessage) *gomcp.CallToolResult { panic("boom") }},
			{Tool: &gomcp.Tool{Name: "closed", InputSchema: map[string]any{"type": "object"}},
				Allowed: func(_ context.Context, v *viewer.Viewer) error {
					if v.APIKeyID != "other" {
						return apperr.Forbidden("Not for you")
					}
					return nil
				}, Call: echo},
		},
	})
	mux := http.NewServeMux()
	mux.Handle(mcp.Path, s)
	mux.Handle(mcp.MetadataPath+mcp.Path, s.Metadata())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func connect(t *testing.T, srv *httptest.Server, token string) *gomcp.ClientSession {
	t.Helper()
	c := gomcp.NewClient(&gomcp.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &gomcp.StreamableClientTransport{Endpoint: srv.URL + mcp.Path,
		HTTPClient: &http.Client{Transport: bearer(token)}, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestMCPServerListsAndRefuses: each caller lists the tools it may run, and a call of another is
// refused with the rule's error in REST's envelope; the tool runs as the authenticated caller; a
// panic answers internal_error.
func TestMCPServerListsAndRefuses(t *testing.T) {
	t.Parallel()
	srv := setup(t)
	names := func(cs *gomcp.ClientSession) []string {
		res, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		require.Equal(t, "private", res.CacheScope, "a list of the caller's own")
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	good, other := connect(t, srv, "good"), connect(t, srv, "other")
	require.ElementsMatch(t, []string{"open", "boom"}, names(good))
	require.ElementsMatch(t, []string{"open", "boom", "closed"}, names(other))

	res, err := good.CallTool(context.Background(), &gomcp.CallToolParams{Name: "closed"})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.JSONEq(t, `{"error":{"code":"forbidden","message":"Not for you"}}`, res.Content[0].(*gomcp.TextContent).Text)

	res, err = other.CallTool(context.Background(), &gomcp.CallToolParams{Name: "closed"})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.JSONEq(t, `{"key":"other"}`, res.Content[0].(*gomcp.TextContent).Text)
	require.Equal(t, map[string]any{"key": "other"}, res.StructuredContent)

	// A tool that panics answers internal_error; the server goes on.
	res, err = good.CallTool(context.Background(), &gomcp.CallToolParams{Name: "boom"})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, res.Content[0].(*gomcp.TextContent).Text, `"internal_error"`)
	_, err = good.CallTool(context.Background(), &gomcp.CallToolParams{Name: "open"})
	require.NoError(t, err)
}

// TestMCPServerChallenge: a missing or unknown token is 401 with the challenge naming the
// metadata; a failure of the check itself is not taken for a bad token.
func TestMCPServerChallenge(t *testing.T) {
	t.Parallel()
	srv := setup(t)
	post := func(token string) (status int, challenge, body string) {
		req, err := http.NewRequest(http.MethodPost, srv.URL+mcp.Path, strings.NewReader(`{}`))
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		raw, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, res.Header.Get("WWW-Authenticate"), string(raw)
	}
	for _, token := range []string{"", "unknown"} {
		status, challenge, _ := post(token)
		require.Equal(t, http.StatusUnauthorized, status)
		require.Equal(t, `Bearer resource_metadata="https://podium.example.test/.well-known/oauth-protected-resource/api/mcp"`,
			challenge)
	}
	status, _, body := post("broken")
	require.Equal(t, http.StatusInternalServerError, status)
	require.NotContains(t, body, "database down")
}
