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
	return a.res.Event().Resources(ctx, ev)
}

func (a *API) createResource(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ResourceInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().CreateResource(ctx, q.param("eventId"), in)
}

func (a *API) updateResource(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ResourceInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().UpdateResource(ctx, q.param("eventId"), q.param("resourceId"), in)
}

func (a *API) deleteResource(ctx context.Context, q *request) (any, error) {
	return a.res.Mutation().DeleteResource(ctx, q.param("eventId"), q.param("resourceId"))
}

func (a *API) reorderResources(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ReorderResourcesInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().ReorderResources(ctx, q.param("eventId"), in)
}
