package rest

import (
	"net/http"
	"reflect"
	"sync"

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

// apis are the APIs of the handlers NewHandler made, by handler.
var apis sync.Map

func init() { registerAPI = func(h http.Handler, a *API) { apis.Store(h, a) } }

// SetTokenVerifier makes the API behind h, a handler of NewHandler, check OAuth access tokens with
// tv (a test's stand-in for the authorization server). Set it before the first request.
func SetTokenVerifier(h http.Handler, tv access.TokenVerifier) {
	a, ok := apis.Load(h)
	if !ok {
		panic("rest: SetTokenVerifier: not a handler of NewHandler")
	}
	a.(*API).auth.Tokens = tv
}
