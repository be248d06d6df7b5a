package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
)

// Agenda drafts: proposed agendas, generated in the background, accepted into the live schedule
// (docs/agenda-drafts.md).

func (a *API) listAgendaDrafts(ctx context.Context, q *request) (any, error) {
	return a.ops.AgendaDrafts(ctx, q.param("eventId"))
}

func (a *API) generateAgendaDraft(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.GenerateAgendaDraftInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.StartAgendaDraft(ctx, q.param("eventId"), in)
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
