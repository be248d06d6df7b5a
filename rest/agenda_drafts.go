package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
)

// Agenda drafts: proposed agendas, generated before POST answers (in the background for GraphQL),
// accepted into the live schedule (docs/agenda-drafts.md).

func (a *API) listAgendaDrafts(ctx context.Context, q *request) (any, error) {
	return a.ops.AgendaDrafts(ctx, q.param("eventId"))
}

func (a *API) generateAgendaDraft(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.GenerateAgendaDraftInput](q)
	if err != nil {
		return nil, err
	}
	s, err := a.ops.StartAgendaDraftFallback(ctx, q.param("eventId"), in)
	if err != nil {
		return nil, err
	}
	// The draft is generated once stored, as the original API does before it answers, so that the
	// answer holds the proposal (docs/agenda-drafts.md "Generating"); a provider slow or down leaves
	// it queued for its job.
	return afterCommit{recorded: s.Draft, then: func(ctx context.Context) (any, error) {
		return a.ops.GenerateAgendaDraftNow(ctx, s)
	}}, nil
}

func (a *API) changeAgendaDraft(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ChangeAgendaDraftInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.ChangeAgendaDraft(ctx, q.param("eventId"), q.param("draftId"), in)
}

func (a *API) acceptAgendaDraft(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.AcceptAgendaDraftInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.AcceptAgendaDraft(ctx, q.param("eventId"), q.param("draftId"), in)
}
