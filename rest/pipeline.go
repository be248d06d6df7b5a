package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
)

// The pipeline: the organization's stages and cards (docs/crm-pipeline.md), on the original
// API's paths.

func (a *API) getPipeline(ctx context.Context, _ *request) (any, error) {
	return a.ops.Pipeline(ctx)
}

func (a *API) savePipelineStage(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SavePipelineStageInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SavePipelineStage(ctx, in)
}

// Reordered answers a reorder of the pipeline's stages.
type Reordered struct {
	// OK is always true.
	OK bool `json:"ok"`
}

func (a *API) reorderPipelineStages(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ReorderPipelineStagesInput](q)
	if err != nil {
		return nil, err
	}
	ok, err := a.ops.ReorderPipelineStages(ctx, in)
	if err != nil {
		return nil, err
	}
	return Reordered{OK: ok}, nil
}

func (a *API) deletePipelineStage(ctx context.Context, q *request) (any, error) {
	return a.ops.DeletePipelineStage(ctx, q.param("stageId"))
}

func (a *API) addPipelineCard(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.AddPipelineCardInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.AddPipelineCard(ctx, in)
}

func (a *API) movePipelineCard(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.MovePipelineCardInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.MovePipelineCard(ctx, q.param("cardId"), in)
}
