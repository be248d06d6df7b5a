package rest

import (
	"reflect"

	"runtime"
	"strings"

	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/access"
)

// RouteLine is one line of the route table, for the tests of package rest_test.
type RouteLine struct {
	Method, Path, OperationID string
	// Handler is the name of the handler's method, e.g. listEvents for (*API).listEvents.
	Handler string
}

// RouteTable returns the route table.
func RouteTable() []RouteLine {
	out := make([]RouteLine, len(routes))
	for i, rt := range routes {
		name := runtime.FuncForPC(reflect.ValueOf(rt.handle).Pointer()).Name()
		out[i] = RouteLine{rt.method, rt.path, rt.operationID, name[strings.LastIndex(name, ".")+1:]}
	}
	return out
}

// KeyRuleOf is what an API key needs to run the route method path (the router's derivation).
func KeyRuleOf(method, path string) access.KeyRule {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for _, rt := range routes {
		if rt.method == method && rt.path == path {
			return rt.keyRule(schema)
		}
	}
	panic("rest: no route " + method + " " + path)
}
