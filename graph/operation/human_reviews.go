package operation

import (
	"context"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/graph/scalar"
)

// humanReviews loads the review assignments of the submissions (any, when nil) in the rounds (any,
// when nil), each with its reviewer and answers: two queries whatever their number. It is the one
// reading of reviews shared by a submission's detail and the review workspace. The ids must come
// from the caller's event; with both nil it reads nothing.
func (r *Service) humanReviews(ctx context.Context, submissionIDs, roundIDs []string) ([]*model.HumanReview, error) {
	if submissionIDs == nil && roundIDs == nil {
		return []*model.HumanReview{}, nil
	}
	q := r.sql(ctx)
	var out []*model.HumanReview
	byID := map[string]*model.HumanReview{}
	var ids []string
	err := eachRowArgs(ctx, q, `SELECT a.id, a.created_at, a.updated_at, a.round_id, a.submission_id, a.event_member_id,
       a.status, a.assigned_at, a.completed_at, a.recused_at, a.recusal_reason, u.name, u.email
FROM review_assignments a
JOIN event_members m ON m.id = a.event_member_id
JOIN users u ON u.id = m.user_id
WHERE ($1::text[] IS NULL OR a.submission_id = ANY($1)) AND ($2::text[] IS NULL OR a.round_id = ANY($2))
ORDER BY a.assigned_at, a.id`, []any{submissionIDs, roundIDs}, func(scan func(...any) error) error {
		a := &model.ReviewAssignmentRecord{}
		h := &model.HumanReview{Assignment: a, Answers: []*model.ReviewAnswerView{}}
		var created, updated, assigned time.Time
		var completed, recused *time.Time
		if err := scan(&a.ID, &created, &updated, &a.RoundID, &a.SubmissionID, &a.EventMemberID, &a.Status,
			&assigned, &completed, &recused, &a.RecusalReason, &h.ReviewerName, &h.ReviewerEmail); err != nil {
			return err
		}
		a.CreatedAt, a.UpdatedAt, a.AssignedAt = scalar.At(created), scalar.At(updated), scalar.At(assigned)
		a.CompletedAt, a.RecusedAt = scalar.AtPtr(completed), scalar.AtPtr(recused)
		out = append(out, h)
		byID[a.ID] = h
		ids = append(ids, a.ID)
		return nil
	})
	if err != nil || len(ids) == 0 {
		return nonNilSlice(out), err
	}
	err = eachRow(ctx, q, `SELECT ans.assignment_id, c.id, c.label, c.type, ans.numeric_value, ans.text_value, ans.option_value
FROM review_answers ans JOIN review_criteria c ON c.id = ans.criterion_id
WHERE ans.assignment_id = ANY($1) ORDER BY c.position, c.id`, ids, func(scan func(...any) error) error {
		var assignmentID string
		v := &model.ReviewAnswerView{}
		if err := scan(&assignmentID, &v.CriterionID, &v.Label, &v.Type, &v.NumericValue, &v.TextValue, &v.OptionValue); err != nil {
			return err
		}
		byID[assignmentID].Answers = append(byID[assignmentID].Answers, v)
		return nil
	})
	return out, err
}

// RoundReviews answers Submission.roundReviews: every review assignment of the submission, in all
// rounds, with its answers.
func (r *Service) RoundReviews(ctx context.Context, submissionID string) ([]*model.HumanReview, error) {
	return r.loaders(ctx).roundReviews.Load(ctx, submissionID)
}
