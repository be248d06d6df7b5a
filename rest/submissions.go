package rest

import (
	"context"

	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
)

// Call-for-proposals submissions and the decisions on them (docs/rest-api.md §4 "Submissions").

func (a *API) listSubmissions(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	var status *model.SubmissionStatus
	if s := q.URL.Query().Get("status"); s != "" {
		st := model.SubmissionStatus(s)
		if !st.IsValid() {
			return nil, apperr.Invalid("status must be one of draft, pending, maybe, accepted, declined, withdrawn")
		}
		status = &st
	}
	return a.res.Event().Submissions(ctx, ev, status)
}

func (a *API) createSubmission(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.CreateSubmissionInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().CreateSubmission(ctx, q.param("eventId"), in)
}

func (a *API) getSubmission(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	sub, err := a.res.Event().Submission(ctx, ev, q.param("submissionId"))
	if err != nil {
		return nil, err
	}
	d := SubmissionDetail{Submission: sub}
	if d.Answers, err = a.res.Submission().Answers(ctx, sub); err != nil {
		return nil, err
	}
	if d.Reviews, err = a.res.Submission().Reviews(ctx, sub); err != nil {
		return nil, err
	}
	if d.RoundReviews, err = a.res.Submission().RoundReviews(ctx, sub); err != nil {
		return nil, err
	}
	if d.Activity, err = a.res.Submission().Activity(ctx, sub); err != nil {
		return nil, err
	}
	if d.Emails, err = a.res.Submission().Emails(ctx, sub); err != nil {
		return nil, err
	}
	return d, nil
}

func (a *API) changeSubmissionStatus(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ChangeSubmissionStatusInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().ChangeSubmissionStatus(ctx, q.param("eventId"), q.param("submissionId"), in)
}

func (a *API) decideSubmissions(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.DecideSubmissionsInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().DecideSubmissions(ctx, q.param("eventId"), in)
}

// SubmissionDetail is GET E/submissions/{id}.
type SubmissionDetail struct {
	Submission   *model.Submission         `json:"submission"`
	Answers      []*model.SubmissionAnswer `json:"answers"`
	Reviews      []*model.QuickReview      `json:"reviews"`
	RoundReviews []*model.HumanReview      `json:"roundReviews"`
	Activity     []*model.TimelineItem     `json:"activity"`
	Emails       []*model.SubmissionEmail  `json:"emails"`
}
