package rest

import (
	"context"
	"fmt"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
)

// Review rounds, reviewers, assignments, answers and AI reviews (docs/rest-api.md §4 "Reviews").

func (a *API) getEvaluation(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	ws, err := a.ops.EventEvaluation(ctx, ev)
	if err != nil || !current(ctx) {
		return ws, err
	}
	return a.currentEvaluation(ctx, ws)
}

func (a *API) saveReviewRound(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SaveReviewRoundInput](q)
	if err != nil {
		return nil, err
	}
	res, err := a.ops.SaveReviewRound(ctx, q.param("eventId"), in)
	if err != nil || !current(ctx) {
		return res, err
	}
	ws, err := a.currentEvaluation(ctx, res.Workspace)
	if err != nil {
		return nil, err
	}
	return RoundSavedCurrent{RoundID: res.RoundID, Workspace: ws}, nil
}

// EvaluationCurrent is the review workspace in API version 2026-08-21: with the event's
// reviewers, whichever rounds they are in.
type EvaluationCurrent struct {
	model.EvaluationWorkspace
	EventReviewers []*model.ReviewerIdentity `json:"eventReviewers"`
}

// RoundSavedCurrent is POST E/review-rounds' answer in API version 2026-08-21.
type RoundSavedCurrent struct {
	RoundID   string            `json:"roundId"`
	Workspace EvaluationCurrent `json:"workspace"`
}

func (a *API) currentEvaluation(ctx context.Context, ws *model.EvaluationWorkspace) (EvaluationCurrent, error) {
	reviewers, err := a.ops.EventReviewers(ctx, ws.EventID)
	return EvaluationCurrent{EvaluationWorkspace: *ws, EventReviewers: reviewers}, err
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
	answer := func(ctx context.Context, eventID, id string) (*model.ReviewAssignmentRecord, error) {
		return a.ops.SubmitReviewAnswers(ctx, eventID, id, in)
	}
	return a.asReviewer(ctx, q, "answers", answer)
}

func (a *API) recuseReview(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.RecuseReviewInput](q)
	if err != nil {
		return nil, err
	}
	recuse := func(ctx context.Context, eventID, id string) (*model.ReviewAssignmentRecord, error) {
		return a.ops.RecuseReview(ctx, eventID, id, in)
	}
	return a.asReviewer(ctx, q, "recuses from", recuse)
}

func (a *API) getMyReviews(ctx context.Context, q *request) (any, error) {
	return a.ops.MyReviewsIn(ctx, q.param("eventId"))
}

// asReviewer runs change on the route's assignment: a person (through an application they
// authorized) on their own assignment only, as its reviewer (peopleRoutes); an API key on any, in
// the API version that lets it (reviewerOnly).
func (a *API) asReviewer(ctx context.Context, q *request, act string,
	change func(ctx context.Context, eventID, id string) (*model.ReviewAssignmentRecord, error)) (any, error) {
	if v := viewer.FromContext(ctx); v != nil && v.Person != nil {
		return a.ops.OnMyAssignmentIn(ctx, q.param("eventId"), q.param("assignmentId"), change)
	}
	if err := reviewerOnly(ctx, act); err != nil {
		return nil, err
	}
	return change(ctx, q.param("eventId"), q.param("assignmentId"))
}

// AssignReviewsResult is POST …/assignments.
type AssignReviewsResult struct {
	Created int `json:"created"`
	Skipped int `json:"skipped"`
}

// reviewerOnly refuses, from API version 2026-08-21, an assignment's answers or recusal sent with
// an organization API key: there only the reviewer acts on their assignment, and a key acts as an
// admin, as the original answers. Version 2026-08-12 lets a key act for any reviewer.
func reviewerOnly(ctx context.Context, act string) error {
	if !current(ctx) {
		return nil
	}
	return apperr.Forbidden(fmt.Sprintf("Only the assigned reviewer %s an assignment in API version %s: an API key "+
		"acts as an admin (use the review-rounds endpoints, or API version %s)", act, versionOf(ctx), VersionInterface))
}
