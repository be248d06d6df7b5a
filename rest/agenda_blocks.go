package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
)

// Agenda blocks: breaks, meals, registration and socials on the agenda (docs/agenda.md "Blocks").
// Both answer the whole agenda, as the other agenda writes do.

func (a *API) saveAgendaBlock(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SaveAgendaBlockInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SaveAgendaBlock(ctx, q.param("eventId"), in)
}

func (a *API) deleteAgendaBlock(ctx context.Context, q *request) (any, error) {
	return a.ops.DeleteAgendaBlock(ctx, q.param("eventId"), q.param("blockId"))
}
