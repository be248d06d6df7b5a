// Package graph is Podium's operation layer and its GraphQL surface. Resolvers are the operations:
// GraphQL calls them through gqlgen, and the REST layer (package rest) calls the same methods, so
// no rule is written twice.
package graph

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/graph/ai"
	"github.com/podium/podium/graph/email"
)

// Resolver holds what operations need. It is built once per server.
type Resolver struct {
	// DB is the database; read models query its pool with hand-written SQL (see sql).
	DB *dbx.DB
	// Client is the root ent client, on the connection pool. Mutations use the transaction's
	// client from the context instead (see client).
	Client *ent.Client
	// Outbox queues emails in the mutation's transaction; its River client inserts other jobs too.
	Outbox *email.Outbox
	// AI scores proposals; nil when no provider is configured.
	AI *ai.Client
}

// NewResolver returns the operations on db, queuing emails in outbox.
func NewResolver(db *dbx.DB, outbox *email.Outbox) *Resolver {
	return &Resolver{DB: db, Client: db.Ent, Outbox: outbox}
}

// client returns the ent client of the transaction in ctx, or the root client for reads outside
// one.
func (r *Resolver) client(ctx context.Context) *ent.Client {
	if c := ent.FromContext(ctx); c != nil {
		return c
	}
	return r.Client
}

// querier runs hand-written SQL.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// sql returns the querier of the transaction in ctx, or the pool outside one. Read models use
// hand-written SQL where ent would need one query per row; they filter by event themselves, since
// the schema's tenant filter only guards ent queries.
func (r *Resolver) sql(ctx context.Context) querier {
	if tx := dbx.TxFromContext(ctx); tx != nil {
		return tx.PGX()
	}
	return r.DB.Pool
}

// errNoTransaction is returned by operations that must run inside a transaction and do not.
var errNoTransaction = errors.New("graph: this operation must run inside a transaction")

// tx returns the pgx transaction of ctx, for inserting jobs with the change that causes them.
func (r *Resolver) tx(ctx context.Context) (pgx.Tx, error) {
	t := dbx.TxFromContext(ctx)
	if t == nil {
		return nil, errNoTransaction
	}
	return t.PGX(), nil
}
