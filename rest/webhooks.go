package rest

import (
	"context"
	"strconv"

	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
)

// Webhooks: the organization's endpoints and their delivery log (docs/webhooks.md). The original
// API has none; these paths are Podium's own, beside the contract's.

func (a *API) listWebhookEventTypes(ctx context.Context, _ *request) (any, error) {
	return a.ops.WebhookEventTypeList(ctx)
}

func (a *API) listWebhooks(ctx context.Context, _ *request) (any, error) {
	return a.ops.ListWebhooks(ctx)
}

func (a *API) createWebhook(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.CreateWebhookInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.CreateWebhook(ctx, in)
}

func (a *API) getWebhook(ctx context.Context, q *request) (any, error) {
	return a.ops.Webhook(ctx, q.param("webhookId"))
}

func (a *API) updateWebhook(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.UpdateWebhookInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.UpdateWebhook(ctx, q.param("webhookId"), in)
}

func (a *API) deleteWebhook(ctx context.Context, q *request) (any, error) {
	return a.ops.DeleteWebhook(ctx, q.param("webhookId"))
}

func (a *API) rotateWebhookSecret(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.RotateWebhookSecretInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.RotateWebhookSecret(ctx, q.param("webhookId"), &in)
}

func (a *API) listWebhookDeliveries(ctx context.Context, q *request) (any, error) {
	var status *model.WebhookDeliveryState
	if s := q.URL.Query().Get("status"); s != "" {
		st := model.WebhookDeliveryState(s)
		if !st.IsValid() {
			return nil, apperr.Invalid("status must be one of pending, succeeded, failed")
		}
		status = &st
	}
	var first *int
	if s := q.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, apperr.Invalid("limit must be a whole number")
		}
		first = &n
	}
	return a.ops.WebhookDeliveries(ctx, q.param("webhookId"), status, first)
}

func (a *API) redeliverWebhook(ctx context.Context, q *request) (any, error) {
	return a.ops.RedeliverWebhook(ctx, q.param("webhookId"), q.param("deliveryId"))
}

// Redelivered answers a redelivery of everything since a time.
type Redelivered struct {
	// Count is how many messages are delivered again.
	Count int `json:"count"`
}

func (a *API) redeliverWebhooks(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.RedeliverWebhooksInput](q)
	if err != nil {
		return nil, err
	}
	n, err := a.ops.RedeliverWebhooks(ctx, q.param("webhookId"), in)
	if err != nil {
		return nil, err
	}
	return Redelivered{Count: n}, nil
}
