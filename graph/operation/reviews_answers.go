package operation

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/reviewanswer"
	"github.com/podium/podium/ent/reviewassignment"
	"github.com/podium/podium/ent/reviewcriterion"
	"github.com/podium/podium/ent/reviewround"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// assignmentOf checks access to the event and returns an assignment of it, locked for the
// transaction's update.
func assignmentOf(ctx context.Context, c *ent.Client, eventID, id string) (*ent.ReviewAssignment, error) {
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	if !pid.Plausible(id) {
		return nil, errAssignmentNotFound
	}
	a, err := c.ReviewAssignment.Query().
		Where(reviewassignment.ID(id), reviewassignment.HasRoundWith(reviewround.EventID(ev.ID))).
		WithRound().ForUpdate(). // locks the assignment; the round is read alongside
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errAssignmentNotFound
	}
	return a, err
}

// SubmitReviewAnswers records a reviewer's answers and completes the assignment; a resubmission
// while the round is open replaces the answers (docs/rest-api.md: "Answers").
func (r *Service) SubmitReviewAnswers(ctx context.Context, eventID, assignmentID string, in model.SubmitReviewAnswersInput) (*model.ReviewAssignmentRecord, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ReviewAssignmentRecord, error) {
		c := r.ClientOf(ctx)
		a, err := assignmentOf(ctx, c, eventID, assignmentID)
		if err != nil {
			return nil, err
		}
		if a.Status == reviewassignment.StatusRecused {
			return nil, apperr.Forbidden("This assignment is recused; its review cannot be submitted")
		}
		if err := ensureOpen(a.Edges.Round); err != nil {
			return nil, err
		}
		criteria, err := c.ReviewCriterion.Query().Where(reviewcriterion.RoundID(a.RoundID)).
			Order(ent.Asc(reviewcriterion.FieldPosition)).All(ctx)
		if err != nil {
			return nil, err
		}
		answers, err := checkAnswers(criteria, in.Answers)
		if err != nil {
			return nil, err
		}
		if _, err := c.ReviewAnswer.Delete().Where(reviewanswer.AssignmentID(a.ID)).Exec(ctx); err != nil {
			return nil, err
		}
		creates := make([]*ent.ReviewAnswerCreate, len(answers))
		for i, v := range answers {
			creates[i] = c.ReviewAnswer.Create().SetAssignmentID(a.ID).SetCriterionID(v.CriterionID).
				SetNillableNumericValue(v.NumericValue).SetNillableTextValue(v.TextValue).SetNillableOptionValue(v.OptionValue)
		}
		if err := c.ReviewAnswer.CreateBulk(creates...).Exec(ctx); err != nil {
			return nil, err
		}
		round := a.Edges.Round
		a, err = a.Update().SetStatus(reviewassignment.StatusCompleted).SetCompletedAt(time.Now()).Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.emit(ctx, hookReviewCompleted, hookData{"eventId": round.EventID, "assignmentId": a.ID, "submissionId": a.SubmissionID, "roundId": a.RoundID,
			"reviewerId": a.EventMemberID}); err != nil {
			return nil, err
		}
		return toAssignment(a), nil
	})
}

// checkAnswers checks answers against the round's scorecard and returns what is stored: for each
// answered criterion, only the value of its type. Required criteria come first, then one answer
// per criterion, then each answer against its criterion.
func checkAnswers(criteria []*ent.ReviewCriterion, in []*model.ReviewAnswerInput) ([]*model.ReviewAnswerInput, error) {
	byCriterion := make(map[string]*model.ReviewAnswerInput, len(in))
	duplicate := false
	for _, a := range in {
		if _, seen := byCriterion[a.CriterionID]; seen {
			duplicate = true
		}
		byCriterion[a.CriterionID] = a
	}
	for _, cr := range criteria {
		if cr.Required && valueOf(cr, byCriterion[cr.ID]) == nil {
			return nil, apperr.Invalid("%s is required", cr.Label)
		}
	}
	if duplicate {
		return nil, apperr.Invalid("Submit one answer per criterion")
	}
	byID := make(map[string]*ent.ReviewCriterion, len(criteria))
	for _, cr := range criteria {
		byID[cr.ID] = cr
	}
	var out []*model.ReviewAnswerInput
	for _, a := range in {
		cr, ok := byID[a.CriterionID]
		if !ok {
			return nil, apperr.Forbidden("This criterion is not on the round's scorecard")
		}
		switch cr.Type {
		case reviewcriterion.TypeNumeric:
			if v := a.NumericValue; v != nil && ((cr.Min != nil && *v < *cr.Min) || (cr.Max != nil && *v > *cr.Max)) {
				return nil, apperr.New(http.StatusBadRequest, apperr.CodeNumericOutOfBounds, cr.Label+" is outside its allowed range")
			}
		case reviewcriterion.TypeDropdown:
			if v := a.OptionValue; v != nil && !slices.Contains(cr.Options, *v) {
				return nil, apperr.New(http.StatusBadRequest, apperr.CodeDropdownValueNotInOptions,
					*v+" is not an option for "+cr.Label)
			}
		}
		if v := valueOf(cr, a); v != nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// valueOf is the answer as stored: only the value of the criterion's type, nil when that value is
// missing or blank.
func valueOf(cr *ent.ReviewCriterion, a *model.ReviewAnswerInput) *model.ReviewAnswerInput {
	if a == nil {
		return nil
	}
	v := &model.ReviewAnswerInput{CriterionID: cr.ID}
	switch cr.Type {
	case reviewcriterion.TypeNumeric:
		v.NumericValue = a.NumericValue
	case reviewcriterion.TypeDropdown:
		if a.OptionValue != nil && strings.TrimSpace(*a.OptionValue) != "" {
			v.OptionValue = a.OptionValue
		}
	default:
		if a.TextValue != nil && strings.TrimSpace(*a.TextValue) != "" {
			v.TextValue = a.TextValue
		}
	}
	if v.NumericValue == nil && v.OptionValue == nil && v.TextValue == nil {
		return nil
	}
	return v
}

// RecuseReview records a reviewer stepping back from an assignment.
func (r *Service) RecuseReview(ctx context.Context, eventID, assignmentID string, in model.RecuseReviewInput) (*model.ReviewAssignmentRecord, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ReviewAssignmentRecord, error) {
		c := r.ClientOf(ctx)
		a, err := assignmentOf(ctx, c, eventID, assignmentID)
		if err != nil {
			return nil, err
		}
		if a.Status == reviewassignment.StatusRecused {
			return nil, apperr.Conflict(apperr.CodeAlreadyRecused, "This assignment is already recused")
		}
		round := a.Edges.Round
		a, err = a.Update().SetStatus(reviewassignment.StatusRecused).SetRecusedAt(time.Now()).
			SetRecusalReason(strings.TrimSpace(in.Reason)).ClearCompletedAt().Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.change(ctx, changeReviewRecused, round.EventID, reviewData(a)); err != nil {
			return nil, err
		}
		return toAssignment(a), nil
	})
}

// answersView is the answers of a review, none when there is no review.
func answersView(h *model.HumanReview) []*model.ReviewAnswerView {
	if h == nil {
		return []*model.ReviewAnswerView{}
	}
	return h.Answers
}
