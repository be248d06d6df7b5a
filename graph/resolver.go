// Package graph is Podium's GraphQL transport: the schema's resolvers, the server with its limits,
// costs and error presenter. Resolvers translate arguments, call the operation of
// graph/operation, and return its result.
package graph

import (
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/operation"
)

// Resolver is the root of the GraphQL resolvers. It holds the operations they call.
type Resolver struct {
	// Ops are Podium's operations; every resolver calls them.
	Ops *operation.Service
}

// NewResolver returns the resolvers of the operations on db, queuing emails in outbox.
func NewResolver(db *dbx.DB, outbox *email.Outbox) *Resolver {
	return &Resolver{Ops: operation.New(db, outbox)}
}
