package rest

import (
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/graph/access"
)

// routeRules are who may run a route: what an API key needs, and the rule for people (a person
// acting through an application they authorized: docs/agents.md).
type routeRules struct {
	key    access.KeyRule
	person access.Rule
}

// peopleRoutes are the routes a person runs by an operation of their own rather than the one of
// the route's GraphQL field, with who may: a reviewer answers and recuses from their own
// assignment (the reviewer desk's operations), and reads their own queue.
var peopleRoutes = map[string]access.Rule{
	"submitReviewAnswers": access.Anyone,
	"recuseReview":        access.Anyone,
	"getMyReviews":        access.Anyone,
}

// rules are the route's rules: an API key's from its fields (access.KeyRoute); people's from
// peopleRoutes, else from its fields (access.RouteRule).
func (rt *route) rules(schema *ast.Schema) routeRules {
	fields := rt.fields(schema)
	rules := routeRules{key: access.KeyRoute(rt.method, rt.path, fields...), person: access.RouteRule(fields...)}
	if rule, ok := peopleRoutes[rt.operationID]; ok {
		rules.person = rule
	}
	return rules
}
