package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
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
	specMu      sync.Mutex
	specRouters = map[string]routers.Router{}
)

// The calendar feed is text; kin-openapi decodes only JSON-like bodies by itself.
func init() {
	openapi3filter.RegisterBodyDecoder("text/calendar", openapi3filter.FileBodyDecoder)
	// schedule.xml is checked against its own XSD (agenda_exports_test.go); here, as a string.
	openapi3filter.RegisterBodyDecoder("application/xml", openapi3filter.FileBodyDecoder)
}

// openAPIRouter loads the served document of an API version once per test binary (it depends on
// the route table only) and checks that it is a valid OpenAPI 3 document.
func (b *testBundle) openAPIRouter(version string) routers.Router {
	b.t.Helper()
	specMu.Lock()
	defer specMu.Unlock()
	if r, ok := specRouters[version]; ok {
		return r
	}
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json?version="+version, nil))
	require.Equal(b.t, http.StatusOK, rec.Code, rec.Body.String())
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(rec.Body.Bytes())
	require.NoError(b.t, err, "the served OpenAPI document of %s", version)
	require.NoError(b.t, doc.Validate(context.Background()), "the served OpenAPI document of %s", version)
	// The router matches on the servers' base path.
	doc.Servers = openapi3.Servers{{URL: "http://podium.test/api/v1"}}
	r, err := legacy.NewRouter(doc)
	require.NoError(b.t, err)
	specRouters[version] = r
	return r
}

// checkResponse validates a recorded response of req against the document. Requests the document
// does not describe (GraphQL, health, operator pages, unknown paths, wrong methods) pass.
func (b *testBundle) checkResponse(req *http.Request, rec *httptest.ResponseRecorder) {
	b.t.Helper()
	if !strings.HasPrefix(req.URL.Path, "/api/v1/") || req.URL.Path == "/api/v1/openapi.json" {
		return
	}
	version := req.Header.Get(rest.VersionHeader)
	if !slices.Contains(rest.Versions, version) {
		version = rest.DefaultVersion
	}
	router := b.openAPIRouter(version)
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
	// In the original's current version, a 2xx JSON body is also what the original's clients
	// read: its schema for the operation. Podium's own operations (ext) have none and pass.
	if version >= rest.VersionCurrent && rec.Code/100 == 2 && rec.Body.Len() > 0 &&
		strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		if schema, ok := originalSchema(b.t, route.Operation.OperationID); ok {
			require.NoError(b.t, originalShapeErr(schema, rec.Body.Bytes()),
				"%s %s (%s) answered what the original's clients cannot read:\n%.2000s",
				req.Method, req.URL.Path, route.Operation.OperationID, rec.Body.String())
			if b.shapesSeen != nil {
				b.shapesSeen[route.Operation.OperationID] = true
			}
		}
	}
}

// TestOpenAPIDocumentIsValid loads the served document of each API version with kin-openapi and
// validates it.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, v := range rest.Versions {
		require.NotNil(t, b.openAPIRouter(v))
	}
}

// TestOpenAPISnapshot holds each version's served document to its file in docs (docs/openapi.json
// for the default), written by `make generate` and reviewed like code: a change to a route, a body
// or a response type that does not come with the regenerated snapshots fails here, so the API
// cannot change unnoticed.
func TestOpenAPISnapshot(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, v := range append([]string{""}, rest.Versions...) {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil)
		version := rest.DefaultVersion
		if v != "" {
			req.Header.Set(rest.VersionHeader, v)
			version = v
		}
		rec := httptest.NewRecorder()
		b.handler.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, version, rec.Header().Get(rest.VersionHeader))
		var served bytes.Buffer
		require.NoError(t, json.Indent(&served, rec.Body.Bytes(), "", "  "))
		served.WriteByte('\n')
		want, err := os.ReadFile("../" + rest.OpenAPIFile(version))
		require.NoError(t, err)
		require.Equal(t, string(want), served.String(),
			"the served OpenAPI document of %s differs from %s; run `make generate` and review the diff", version, rest.OpenAPIFile(version))
		require.Equal(t, rest.OpenAPI(graph.Schema(), version), rec.Body.Bytes(), "rest.OpenAPI is what the router serves")
	}
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json?version=1999-01-01", nil))
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Contains(t, rec.Body.String(), rest.CodeUnknownVersion)
}
