package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph"
	"github.com/podium/podium/rest"
)

// Every response a test receives through the router (b.send, b.sendRaw) is checked against the
// OpenAPI document the server serves, with kin-openapi: its status must be documented and its
// body must match the documented schema. So the document is proven against what the whole suite
// sees, not against a sample.

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

// The calendar feed is text; kin-openapi decodes only JSON-like bodies by itself.
func init() {
	openapi3filter.RegisterBodyDecoder("text/calendar", openapi3filter.FileBodyDecoder)
	// schedule.xml is checked against its own XSD (agenda_exports_test.go); here, as a string.
	openapi3filter.RegisterBodyDecoder("application/xml", openapi3filter.FileBodyDecoder)
}

// openAPIRouter loads the served document once per test binary (it depends on the route table
// only) and checks that it is a valid OpenAPI 3 document.
func (b *testBundle) openAPIRouter() routers.Router {
	b.t.Helper()
	specOnce.Do(func() {
		rec := httptest.NewRecorder()
		b.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil))
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(rec.Body.Bytes())
		if err != nil {
			specErr = err
			return
		}
		if specErr = doc.Validate(context.Background()); specErr != nil {
			return
		}
		// The router matches on the servers' base path.
		doc.Servers = openapi3.Servers{{URL: "http://podium.test/api/v1"}}
		specRouter, specErr = legacy.NewRouter(doc)
	})
	require.NoError(b.t, specErr, "the served OpenAPI document")
	return specRouter
}

// checkResponse validates a recorded response of req against the document. Requests the document
// does not describe (GraphQL, health, operator pages, unknown paths, wrong methods) pass.
func (b *testBundle) checkResponse(req *http.Request, rec *httptest.ResponseRecorder) {
	b.t.Helper()
	if !strings.HasPrefix(req.URL.Path, "/api/v1/") || req.URL.Path == "/api/v1/openapi.json" {
		return
	}
	router := b.openAPIRouter()
	probe := req.Clone(context.Background())
	probe.URL.Scheme, probe.URL.Host, probe.Host = "http", "podium.test", "podium.test"
	route, params, err := router.FindRoute(probe)
	if err != nil {
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: probe, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
		Status: rec.Code,
		Header: rec.Header(),
		Body:   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true,
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	err = openapi3filter.ValidateResponse(context.Background(), in)
	require.NoError(b.t, err, "%s %s answered %d, which the OpenAPI document does not describe:\n%.2000s",
		req.Method, req.URL.Path, rec.Code, rec.Body.String())
}

// TestOpenAPIDocumentIsValid loads the served document with kin-openapi and validates it.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.NotNil(t, b.openAPIRouter())
}

// TestOpenAPISnapshot holds the served document to docs/openapi.json, which is written by
// `make generate` and reviewed like code: a change to a route, a body or a response type that
// does not come with the regenerated snapshot fails here, so the API cannot change unnoticed.
func TestOpenAPISnapshot(t *testing.T) {
	t.Parallel()
	b := setup(t)

	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var served bytes.Buffer
	require.NoError(t, json.Indent(&served, rec.Body.Bytes(), "", "  "))
	served.WriteByte('\n')
	want, err := os.ReadFile("../docs/openapi.json")
	require.NoError(t, err)
	require.Equal(t, string(want), served.String(),
		"the served OpenAPI document differs from docs/openapi.json; run `make generate` and review the diff")
	require.Equal(t, rest.OpenAPI(graph.Schema()), rec.Body.Bytes(), "rest.OpenAPI is what the router serves")
}
