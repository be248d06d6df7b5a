// Package operation holds Podium's operations: what organizers, speakers, reviewers, integrators and
// jobs can do, each a method of Service. The GraphQL resolvers (package graph), the REST handlers
// and web pages (package rest) and the job workers all call these methods, so no rule is written
// twice and no transport calls another.
package operation

import (
	"time"

	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/access/mailbudget"
	"github.com/podium/podium/graph/ai"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/files"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/jobs"
)

// Service holds what operations need. It is built once per server.
type Service struct {
	// DB is the database; read models query its pool with hand-written SQL (see sql).
	DB *dbx.DB
	// Client is the root ent client, on the connection pool. Mutations use the transaction's
	// client from the context instead (see ClientOf).
	Client *ent.Client
	// Outbox queues emails in the mutation's transaction; its River client inserts other jobs too.
	Outbox *email.Outbox
	// AI scores proposals; nil when no provider is configured.
	AI *ai.Client
	// Webhooks says which URLs webhook endpoints may have; its zero value allows public https only.
	Webhooks jobs.WebhookNetwork
	// Files stores uploaded files (docs/files.md); nil refuses uploads and downloads.
	Files *files.Service
	// Budgets bound the emails a person's own actions send to others (co-speaker invitations,
	// docs/people.md); nil means mailbudget.Default on DB's pool.
	Budgets *mailbudget.Budgets
	// Feed delivers committed changes to this process's subscriptions; nil refuses them.
	Feed *Feed
	// Lane lets cheap requests, REST's and GraphQL's, run before the resolvers of expensive
	// operations (see Lane); nil means none.
	Lane *Lane
	// UnsubscribeLinks signs the unsubscribe links of campaign emails (docs/deliverability.md); nil
	// signs them for Outbox.PublicURL with the process's random key.
	UnsubscribeLinks *jobs.Unsubscribe
	// EmailHookSecret is the bearer secret of the mail provider's reports (POST
	// /hooks/email-events, PODIUM_EMAIL_HOOK_SECRET); empty turns the hook off.
	EmailHookSecret string
	// DraftBudget bounds how long a request that generates its agenda draft itself works at it
	// (GenerateAgendaDraftNow); zero means DraftRequestBudget.
	DraftBudget time.Duration
}

// LaneOrNil is the Lane of r, or nil.
func (r *Service) LaneOrNil() *Lane {
	if r == nil {
		return nil
	}
	return r.Lane
}

// budgets are the email budgets of people's own actions.
func (r *Service) budgets() *mailbudget.Budgets {
	if r.Budgets != nil {
		return r.Budgets
	}
	return mailbudget.New(r.DB.Pool, mailbudget.Default)
}

// New returns the operations on db, queuing emails in outbox.
func New(db *dbx.DB, outbox *email.Outbox) *Service {
	return &Service{DB: db, Client: db.Ent, Outbox: outbox, Lane: NewLane()}
}

// ClientOf returns the ent client of the transaction in ctx, or the root client for reads outside
// one.
func (r *Service) ClientOf(ctx context.Context) *ent.Client {
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
// hand-written SQL where ent would need one query per row. The schema's tenant filter does not
// see these statements, so they filter by event themselves after the event-access check, and
// PostgreSQL's row-level security holds them to the organization of ctx (docs/tenancy.md). A
// context with no organization, which no operation should reach, gets a querier that fails
// every statement (viewer.ErrNoScope) rather than one that reads nothing.
func (r *Service) sql(ctx context.Context) querier {
	if viewer.OrganizationID(ctx) == "" && !viewer.IsSystem(ctx) {
		return noScope{}
	}
	if tx := dbx.TxFromContext(ctx); tx != nil {
		return tx.PGX()
	}
	return r.DB.PoolFor(ctx)
}

// noScope is the querier of a context without an organization: every statement fails.
type noScope struct{}

func (noScope) Query(context.Context, string, ...any) (pgx.Rows, error) {
	return nil, fmt.Errorf("graph: hand-written query: %w", viewer.ErrNoScope)
}

func (noScope) QueryRow(context.Context, string, ...any) pgx.Row { return noScopeRow{} }

func (noScope) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, fmt.Errorf("graph: hand-written statement: %w", viewer.ErrNoScope)
}

type noScopeRow struct{}

func (noScopeRow) Scan(...any) error {
	return fmt.Errorf("graph: hand-written query: %w", viewer.ErrNoScope)
}

// errNoTransaction is returned by operations that must run inside a transaction and do not.
var errNoTransaction = errors.New("graph: this operation must run inside a transaction")

// tx returns the pgx transaction of ctx, for inserting jobs with the change that causes them.
func (r *Service) tx(ctx context.Context) (pgx.Tx, error) {
	t := dbx.TxFromContext(ctx)
	if t == nil {
		return nil, errNoTransaction
	}
	return t.PGX(), nil
}

// inTx runs fn in the transaction of ctx, or in a new one it commits when fn succeeds and rolls
// back when it fails. Every operation that writes runs in one: called alone (by a page or a job) it
// owns its transaction; called inside a GraphQL mutation's or a REST write's, it joins it.
func inTx[T any](ctx context.Context, r *Service, fn func(context.Context) (T, error)) (T, error) {
	var out T
	err := r.DB.InTx(ctx, func(ctx context.Context) error {
		var err error
		out, err = fn(ctx)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// Event is the event with id, when the caller may see it (access.Event says who may).
func (r *Service) Event(ctx context.Context, id string) (*ent.Event, error) {
	return access.Event(ctx, r.ClientOf(ctx), id)
}

// Speaker is the contact id of the event with eventID, when it is one of its speakers.
func (r *Service) Speaker(ctx context.Context, eventID, id string) (*ent.Contact, error) {
	return SpeakerOf(ctx, r.ClientOf(ctx), eventID, id)
}

// ViewerRole is the caller's role in the organization: an API key and a signed-in member act as
// its admin.
func (r *Service) ViewerRole(context.Context, *ent.Organization) (model.OrganizationRole, error) {
	return model.OrganizationRoleAdmin, nil
}

// WebhookEventTypeList is every event type a webhook endpoint may subscribe to.
func (r *Service) WebhookEventTypeList(context.Context) ([]string, error) {
	return slices.Clone(WebhookEventTypes), nil
}
