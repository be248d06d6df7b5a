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
	if current(ctx) {
		// From 2026-08-21 deciding records and informing emails (informSubmissions).
		switch {
		case in.Feedback != nil:
			return nil, apperr.InvalidBody("feedback is not part of deciding in API version %s: send it with POST /events/{eventId}/submissions/inform", versionOf(ctx))
		case in.Inform != nil && *in.Inform:
			return nil, apperr.InvalidBody("Deciding emails no one in API version %s: inform with POST /events/{eventId}/submissions/inform", versionOf(ctx))
		}
		in.Inform = new(false)
		res, err := a.ops.DecideSubmissions(ctx, q.param("eventId"), in)
		if err != nil {
			return nil, err
		}
		return Decided{Submissions: res.Submissions, CreatedTasks: res.CreatedTasks}, nil
	}
	if in.Feedback == nil {
		return nil, apperr.InvalidBody("feedback must not be null")
	}
	in.Inform = new(true)
	return a.ops.DecideSubmissions(ctx, q.param("eventId"), in)
}

// Decided is POST E/submissions/decide's answer from API version 2026-08-21: no email was queued.
type Decided struct {
	Submissions  []*model.DecidedSubmission `json:"submissions"`
	CreatedTasks int                        `json:"createdTasks"`
}

// informSubmissions is POST E/submissions/inform (API version 2026-08-21 on): the decision
// emails of the submissions, once (docs/decisions.md), or scheduled with at (ext).
func (a *API) informSubmissions(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.InformSubmissionsInput](q)
	if err != nil {
		return nil, err
	}
	res, err := a.ops.InformSubmissions(ctx, q.param("eventId"), in)
	if err != nil {
		return nil, err
	}
	return Informed{Queued: res.CreatedEmails}, nil
}

// Informed is POST E/submissions/inform's answer: the decision emails queued now (0 for a
// send scheduled later).
type Informed struct {
	Queued int `json:"queued"`
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
