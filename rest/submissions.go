package rest

import (
	"context"

	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/apperr"
)

// Call-for-proposals submissions and the decisions on them (docs/rest-api.md §4 "Submissions").

func (a *API) listSubmissions(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	var status *graph.SubmissionStatus
	if s := q.URL.Query().Get("status"); s != "" {
		st := graph.SubmissionStatus(s)
		if !st.IsValid() {
			return nil, apperr.Invalid("status must be one of draft, pending, maybe, accepted, declined, withdrawn")
		}
		status = &st
	}
	return a.res.Event().Submissions(ctx, ev, status)
}

func (a *API) createSubmission(ctx context.Context, q *request) (any, error) {
	in, err := bind[graph.CreateSubmissionInput](q)
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
	in, err := bind[graph.ChangeSubmissionStatusInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().ChangeSubmissionStatus(ctx, q.param("eventId"), q.param("submissionId"), in)
}

func (a *API) decideSubmissions(ctx context.Context, q *request) (any, error) {
	in, err := bind[graph.DecideSubmissionsInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().DecideSubmissions(ctx, q.param("eventId"), in)
}

// SubmissionDetail is GET E/submissions/{id}.
type SubmissionDetail struct {
	Submission   *graph.Submission         `json:"submission"`
	Answers      []*graph.SubmissionAnswer `json:"answers"`
	Reviews      []*graph.QuickReview      `json:"reviews"`
	RoundReviews []*graph.HumanReview      `json:"roundReviews"`
	Activity     []*graph.TimelineItem     `json:"activity"`
	Emails       []*graph.SubmissionEmail  `json:"emails"`
}
