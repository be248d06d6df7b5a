package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
)

// Speaker resources: texts, links, embeds and files shown in the speaker portal
// (docs/rest-api.md §4 "Resources").

func (a *API) listResources(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.ops.Resources(ctx, ev.ID)
}

func (a *API) createResource(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ResourceInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.CreateResource(ctx, q.param("eventId"), in)
}

func (a *API) updateResource(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ResourceInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.UpdateResource(ctx, q.param("eventId"), q.param("resourceId"), in)
}

func (a *API) deleteResource(ctx context.Context, q *request) (any, error) {
	return a.ops.DeleteResource(ctx, q.param("eventId"), q.param("resourceId"))
}

func (a *API) reorderResources(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ReorderResourcesInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.ReorderResources(ctx, q.param("eventId"), in)
}
