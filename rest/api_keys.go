package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
)

// API keys managed through the API (docs/rest-api.md §2). The original API has none; these paths
// are Podium's own, beside the contract's. The rules are the operations'.

func (a *API) listApiKeys(ctx context.Context, _ *request) (any, error) {
	return a.ops.APIKeys(ctx)
}

func (a *API) createApiKey(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.CreateAPIKeyInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.CreateAPIKey(ctx, in)
}

func (a *API) revokeApiKey(ctx context.Context, q *request) (any, error) {
	return a.ops.RevokeAPIKey(ctx, q.param("keyId"))
}

func (a *API) rotateApiKey(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.RotateAPIKeyInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.RotateAPIKey(ctx, q.param("keyId"), &in)
}
