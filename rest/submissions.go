package rest

import (
	"context"

	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/operation"
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
	return a.ops.SubmissionList(ctx, ev, status, nil)
}

func (a *API) createSubmission(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.CreateSubmissionInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.CreateSubmission(ctx, q.param("eventId"), in)
}

func (a *API) getSubmission(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	sub, err := a.ops.Submission(ctx, ev.ID, q.param("submissionId"))
	if err != nil {
		return nil, err
	}
	// Podium keeps no quick reviews: the original API's list is always empty.
	d := SubmissionDetail{Submission: sub, Answers: operation.SubmissionAnswers(sub), Reviews: []*model.QuickReview{}}
	if d.RoundReviews, err = a.ops.RoundReviews(ctx, sub.ID); err != nil {
		return nil, err
	}
	if d.Activity, err = a.ops.Timeline(ctx, sub.EventID, sub.ID); err != nil {
		return nil, err
	}
	if d.Emails, err = a.ops.SubmissionEmails(ctx, sub.ID); err != nil {
		return nil, err
	}
	return d, nil
}

func (a *API) changeSubmissionStatus(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ChangeSubmissionStatusInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.ChangeSubmissionStatus(ctx, q.param("eventId"), q.param("submissionId"), in)
}

// decideSubmissions decides and informs at once, as REST always has (docs/rest-api.md §4): the
// versioned REST surface is where deciding and informing part. So feedback, optional in GraphQL,
// stays required and not null here, and inform is always true.
func (a *API) decideSubmissions(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.DecideSubmissionsInput](q)
	if err != nil {
		return nil, err
	}
	if in.Feedback == nil {
		return nil, apperr.InvalidBody("feedback must not be null")
	}
	in.Inform = new(true)
	return a.ops.DecideSubmissions(ctx, q.param("eventId"), in)
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
