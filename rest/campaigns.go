package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
)

// Campaigns and the communications view (docs/campaigns.md; docs/rest-api.md §4 "Campaigns").
// Both shapes are the operation layer's read models, which encode as the contract's JSON.

func (a *API) getCommunications(ctx context.Context, q *request) (any, error) {
	return a.ops.Communications(ctx, q.param("eventId"))
}

func (a *API) sendCampaign(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SendCampaignInput](q)
	if err != nil {
		return nil, err
	}
	res, err := a.ops.SendCampaign(ctx, q.param("eventId"), in)
	if err != nil || !current(ctx) {
		return res, err
	}
	return CampaignQueued{CampaignID: res.Campaign.ID, Queued: res.Sent}, nil
}

// CampaignQueued is POST E/campaigns' answer in API version 2026-08-21: the campaign's id and
// the emails queued, one per recipient.
type CampaignQueued struct {
	CampaignID string `json:"campaignId"`
	Queued     int    `json:"queued"`
}
