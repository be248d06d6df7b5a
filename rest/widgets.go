package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
)

// The public program and widgets (docs/widgets.md): the organizers' side. What a widget shows to
// anyone is served by embed.go.

func (a *API) getProgram(ctx context.Context, q *request) (any, error) {
	return a.ops.Program(ctx, q.param("eventId"))
}

func (a *API) listWidgets(ctx context.Context, q *request) (any, error) {
	return a.ops.Widgets(ctx, q.param("eventId"))
}

func (a *API) createWidget(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.CreateWidgetInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.CreateWidget(ctx, q.param("eventId"), in)
}

func (a *API) updateWidget(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.UpdateWidgetInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.UpdateWidget(ctx, q.param("eventId"), q.param("widgetId"), in)
}
