package rest

import (
	"context"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/graph/scalar"
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
	list, err := a.ops.SubmissionList(ctx, ev, status, nil)
	if err != nil || !current(ctx) {
		return list, err
	}
	ids := make([]string, len(list.Submissions))
	for i, s := range list.Submissions {
		ids[i] = s.ID
	}
	submitters, err := a.ops.SubmissionSubmitters(ctx, ev.ID, ids)
	if err != nil {
		return nil, err
	}
	out := SubmissionListCurrent{Submissions: make([]SubmissionSummaryCurrent, len(list.Submissions)),
		Tracks: list.Tracks, Formats: list.Formats, Tags: list.Tags}
	for i, s := range list.Submissions {
		out.Submissions[i] = toCurrentSummary(s, submitters[s.ID])
	}
	if out.MailStatus, err = a.ops.EventMailStatus(ctx, ev.ID); err != nil {
		return nil, err
	}
	return out, nil
}

// SubmissionListCurrent is GET E/submissions in API version 2026-08-21: the summaries name their
// submitter and leave the description and review comments to the detail; mailStatus counts the
// event's emails not out yet.
type SubmissionListCurrent struct {
	Submissions []SubmissionSummaryCurrent `json:"submissions"`
	Tracks      []*agenda.Track            `json:"tracks"`
	Formats     []string                   `json:"formats"`
	Tags        []*model.TagSummary        `json:"tags"`
	MailStatus  *model.MailStatus          `json:"mailStatus"`
}

// SubmissionSummaryCurrent is a submission of the list in API version 2026-08-21. Podium's
// decisionSent is its own and left out (notifiedAt says the same of informed submissions).
type SubmissionSummaryCurrent struct {
	ID          string                     `json:"id"`
	EventID     string                     `json:"eventId"`
	Code        string                     `json:"code"`
	Status      model.SubmissionStatus     `json:"status"`
	CancelledAt *scalar.Timestamp          `json:"cancelledAt"`
	CancelledBy *model.SessionCancelledBy  `json:"cancelledBy"`
	Title       string                     `json:"title"`
	Format      *string                    `json:"format"`
	Source      model.SessionSource        `json:"source"`
	SubmittedAt *scalar.Timestamp          `json:"submittedAt"`
	CreatedAt   scalar.Timestamp           `json:"createdAt"`
	NotifiedAt  *scalar.Timestamp          `json:"notifiedAt"`
	Tracks      []agenda.Track             `json:"tracks"`
	Tags        []*model.TagSummary        `json:"tags"`
	Speakers    []*model.SubmissionSpeaker `json:"speakers"`
	Rating      *float64                   `json:"rating"`
	ReviewCount int                        `json:"reviewCount"`
	// Submitter is the contact who sent the submission; null for one organizers made.
	Submitter *model.PersonRef `json:"submitter"`
}

// SubmissionCurrent is GET E/submissions/{id}'s submission in API version 2026-08-21.
type SubmissionCurrent struct {
	SubmissionSummaryCurrent
	Description    string   `json:"description"`
	ReviewComments []string `json:"reviewComments"`
}

func toCurrentSummary(s *model.Submission, submitter *model.PersonRef) SubmissionSummaryCurrent {
	return SubmissionSummaryCurrent{ID: s.ID, EventID: s.EventID, Code: s.Code, Status: s.Status,
		CancelledAt: s.CancelledAt, CancelledBy: s.CancelledBy, Title: s.Title, Format: s.Format, Source: s.Source,
		SubmittedAt: s.SubmittedAt, CreatedAt: s.CreatedAt, NotifiedAt: s.NotifiedAt, Tracks: s.Tracks, Tags: s.Tags,
		Speakers: s.Speakers, Rating: s.Rating, ReviewCount: s.ReviewCount, Submitter: submitter}
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
	d := SubmissionDetail{Submission: sub, Answers: operation.SubmissionAnswers(sub)}
	if d.Reviews, err = a.ops.QuickReviews(ctx, sub.ID); err != nil {
		return nil, err
	}
	if d.RoundReviews, err = a.ops.RoundReviews(ctx, sub.ID); err != nil {
		return nil, err
	}
	if d.Activity, err = a.timeline(ctx, sub.EventID, sub.ID); err != nil {
		return nil, err
	}
	if d.Emails, err = a.ops.SubmissionEmails(ctx, sub.ID); err != nil {
		return nil, err
	}
	if !current(ctx) {
		return d, nil
	}
	submitters, err := a.ops.SubmissionSubmitters(ctx, ev.ID, []string{sub.ID})
	if err != nil {
		return nil, err
	}
	out := SubmissionDetailCurrent{
		Submission: SubmissionCurrent{SubmissionSummaryCurrent: toCurrentSummary(sub, submitters[sub.ID]),
			Description: sub.Description, ReviewComments: sub.ReviewComments},
		Answers: d.Answers, Reviews: d.Reviews, RoundReviews: d.RoundReviews, Activity: d.Activity, Emails: d.Emails,
		Participants: make([]Participant, len(sub.Speakers)),
	}
	for i, sp := range sub.Speakers {
		out.Participants[i] = Participant{ContactID: sp.ID, Name: sp.Name, Role: sp.Role, Answers: []*model.SubmissionAnswer{}}
	}
	return out, nil
}

// SubmissionDetailCurrent is GET E/submissions/{id} in API version 2026-08-21. Podium keeps one
// version of each form, so earlierFormVersion is always false; its forms ask nothing per
// participant, so each participant's answers are empty (the submission's are in answers).
type SubmissionDetailCurrent struct {
	Submission         SubmissionCurrent         `json:"submission"`
	Answers            []*model.SubmissionAnswer `json:"answers"`
	Reviews            []*model.QuickReview      `json:"reviews"`
	RoundReviews       []*model.HumanReview      `json:"roundReviews"`
	Activity           []*model.TimelineItem     `json:"activity"`
	Emails             []*model.SubmissionEmail  `json:"emails"`
	EarlierFormVersion bool                      `json:"earlierFormVersion"`
	Participants       []Participant             `json:"participants"`
}

// Participant is a speaker of a submission with the answers they gave.
type Participant struct {
	ContactID string                    `json:"contactId"`
	Name      string                    `json:"name"`
	Role      string                    `json:"role"`
	Answers   []*model.SubmissionAnswer `json:"answers"`
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
		// From 2026-08-21 deciding records and informing emails (informSubmissions); the body
		// check refuses feedback and inform there (removedFields).
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

// saveMyReview is PUT E/submissions/{submissionId}/review (API version 2026-08-21 on): the caller's
// quick review.
func (a *API) saveMyReview(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SaveMyReviewInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SaveMyReview(ctx, q.param("eventId"), q.param("submissionId"), in)
}
