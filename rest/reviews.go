package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
)

// Review rounds, reviewers, assignments, answers and AI reviews (docs/rest-api.md §4 "Reviews").

func (a *API) getEvaluation(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.ops.EventEvaluation(ctx, ev)
}

func (a *API) saveReviewRound(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SaveReviewRoundInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SaveReviewRound(ctx, q.param("eventId"), in)
}

func (a *API) addReviewer(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.AddReviewerInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.AddReviewer(ctx, q.param("eventId"), q.param("roundId"), in)
}

func (a *API) assignReviews(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.AssignReviewsInput](q)
	if err != nil {
		return nil, err
	}
	res, err := a.ops.AssignReviews(ctx, q.param("eventId"), q.param("roundId"), in)
	if err != nil {
		return nil, err
	}
	return AssignReviewsResult{Created: res.Created, Skipped: res.Skipped}, nil
}

func (a *API) unassignReview(ctx context.Context, q *request) (any, error) {
	return a.ops.UnassignReview(ctx, q.param("eventId"), q.param("roundId"), q.param("assignmentId"))
}

func (a *API) autoDistributeReviews(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.AutoDistributeReviewsInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.AutoDistributeReviews(ctx, q.param("eventId"), q.param("roundId"), in)
}

func (a *API) sendReviewReminders(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SendReviewRemindersInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SendReviewReminders(ctx, q.param("eventId"), q.param("roundId"), in)
}

func (a *API) generateAiReview(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.GenerateAiReviewInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.GenerateAiReview(ctx, q.param("eventId"), q.param("roundId"), in)
}

func (a *API) scoreRoundWithAi(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ScoreRoundWithAiInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.ScoreRoundWithAi(ctx, q.param("eventId"), q.param("roundId"), &in)
}

func (a *API) overrideAiReview(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.OverrideAiReviewInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.OverrideAiReview(ctx, q.param("eventId"), in)
}

func (a *API) listReviewerTracks(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.ops.ReviewerTracks(ctx, ev.ID)
}

func (a *API) setReviewerTracks(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SetReviewerTracksInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SetReviewerTracks(ctx, q.param("eventId"), q.param("eventMemberId"), in)
}

func (a *API) submitReviewAnswers(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SubmitReviewAnswersInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SubmitReviewAnswers(ctx, q.param("eventId"), q.param("assignmentId"), in)
}

func (a *API) recuseReview(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.RecuseReviewInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.RecuseReview(ctx, q.param("eventId"), q.param("assignmentId"), in)
}

// AssignReviewsResult is POST …/assignments.
type AssignReviewsResult struct {
	Created int `json:"created"`
	Skipped int `json:"skipped"`
}
