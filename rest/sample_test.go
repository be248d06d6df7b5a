package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/podium/podium/rest"
)

// apiOperation is one operation of the served OpenAPI document.
type apiOperation struct {
	method, path, id string
	// body is the request body's schema, nil when there is none.
	body map[string]any
	// public operations need no key.
	public bool
}

// operations lists the operations of the OpenAPI document the server serves, so that tests
// generated from it cover every route, including those added later.
func (b *testBundle) operations(t *testing.T) []apiOperation {
	t.Helper()
	return b.operationsIn(t, rest.DefaultVersion)
}

// operationsIn lists the operations of the OpenAPI document of an API version.
func (b *testBundle) operationsIn(t *testing.T, version string) []apiOperation {
	t.Helper()
	doc := b.must(http.StatusOK, http.MethodGet, "/api/v1/openapi.json?version="+version, "", nil).Obj()
	var ops []apiOperation
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			o := apiOperation{method: strings.ToUpper(method), path: path, id: op.(map[string]any)["operationId"].(string)}
			if security, ok := op.(map[string]any)["security"].([]any); ok && len(security) == 0 {
				o.public = true
			}
			if rb, ok := op.(map[string]any)["requestBody"].(map[string]any); ok {
				o.body = rb["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
			}
			ops = append(ops, o)
		}
	}
	return ops
}

// sample returns a value of the shape schema describes: the smallest that passes the body check
// (null where allowed, empty lists, the first enum value).
func sample(schema map[string]any) any {
	if schema["nullable"] == true {
		return nil
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch schema["type"] {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		required, _ := schema["required"].([]any)
		for _, name := range required {
			out[name.(string)] = sample(props[name.(string)].(map[string]any))
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "string":
		if schema["format"] == "date-time" {
			return "2027-01-01T00:00:00Z"
		}
		return "x"
	}
	return nil
}
