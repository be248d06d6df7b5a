package operation

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/reviewcriterion"
	"github.com/podium/podium/ent/reviewround"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// maxCriteria bounds a scorecard.
const maxCriteria = 100

var errRoundClosed = apperr.Conflict(apperr.CodeRoundClosed, "This review round is closed")

// roundOf returns the round of the event, locked for the transaction's update when forUpdate is
// set.
func roundOf(ctx context.Context, c *ent.Client, eventID, roundID string, forUpdate bool) (*ent.ReviewRound, error) {
	if !pid.Plausible(roundID) {
		return nil, errRoundNotFound
	}
	q := c.ReviewRound.Query().Where(reviewround.ID(roundID), reviewround.EventID(eventID))
	if forUpdate {
		q = q.ForUpdate()
	}
	rd, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errRoundNotFound
	}
	return rd, err
}

// eventRound checks access to the event and returns it with its round (locked for the
// transaction's update when forUpdate is set) and the client to work with.
func (r *Service) eventRound(ctx context.Context, eventID, roundID string, forUpdate bool) (*ent.Client, *ent.Event, *ent.ReviewRound, error) {
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, nil, nil, err
	}
	rd, err := roundOf(ctx, c, ev.ID, roundID, forUpdate)
	return c, ev, rd, err
}

// ensureOpen refuses work on a round outside its window.
func ensureOpen(rd *ent.ReviewRound) error {
	if statusAt(time.Now(), rd.OpensAt, rd.ClosesAt) != model.ReviewRoundStatusOpen {
		return errRoundClosed
	}
	return nil
}

// SaveReviewRound creates or updates a round and replaces its scorecard (docs/rest-api.md: POST
// E/review-rounds).
func (r *Service) SaveReviewRound(ctx context.Context, eventID string, in model.SaveReviewRoundInput) (*model.SaveReviewRoundResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.SaveReviewRoundResult, error) {
		// The range of reviewsPerSubmission is part of the body's shape (400 invalid_body), checked
		// before access like every shape rule.
		if in.ReviewsPerSubmission < 1 || in.ReviewsPerSubmission > 10 {
			return nil, apperr.InvalidBody("reviewsPerSubmission must be a whole number from 1 to 10")
		}
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		var existing *ent.ReviewRound
		if in.RoundID != nil {
			if existing, err = roundOf(ctx, c, ev.ID, *in.RoundID, true); err != nil {
				return nil, apperr.Forbidden("This round does not belong to the event")
			}
		}
		name := strings.TrimSpace(in.Name)
		if name == "" {
			return nil, apperr.Invalid("Name this review round")
		}
		if in.Position < 1 {
			return nil, apperr.Invalid("Round position must be a whole number of at least 1")
		}
		criteria, err := normalizeCriteria(in.Criteria)
		if err != nil {
			return nil, err
		}
		if !in.ClosesAt.After(in.OpensAt) {
			return nil, apperr.Invalid("Close time must be after open time")
		}
		status := reviewround.Status(statusAt(time.Now(), in.OpensAt, in.ClosesAt))

		var rd *ent.ReviewRound
		if existing == nil {
			rd, err = c.ReviewRound.Create().SetEventID(ev.ID).SetName(name).SetOpensAt(in.OpensAt).SetClosesAt(in.ClosesAt).
				SetBlind(in.Blind).SetReviewsPerSubmission(in.ReviewsPerSubmission).SetPosition(in.Position).SetStatus(status).
				Save(ctx)
		} else {
			rd, err = existing.Update().SetName(name).SetOpensAt(in.OpensAt).SetClosesAt(in.ClosesAt).
				SetBlind(in.Blind).SetReviewsPerSubmission(in.ReviewsPerSubmission).SetPosition(in.Position).SetStatus(status).
				Save(ctx)
		}
		if err != nil {
			return nil, err
		}
		if err := saveCriteria(ctx, c, rd.ID, criteria); err != nil {
			return nil, err
		}
		ws, err := r.evaluation(ctx, ev.ID, "")
		if err != nil {
			return nil, err
		}
		return &model.SaveReviewRoundResult{RoundID: rd.ID, Workspace: ws}, nil
	})
}

// normalizeCriteria checks a scorecard and puts each criterion in its stored form: labels and
// options trimmed, dropdown and text criteria weighted 1 without bounds, numeric and text criteria
// without options.
func normalizeCriteria(in []*model.ReviewCriterionInput) ([]*model.ReviewCriterionInput, error) {
	if len(in) > maxCriteria {
		return nil, apperr.Invalid("A scorecard has at most %d criteria", maxCriteria)
	}
	labels := make([]string, 0, len(in))
	ids := map[string]bool{}
	for _, c := range in {
		label := strings.ToLower(strings.TrimSpace(c.Label))
		if label == "" {
			return nil, apperr.Invalid("Name every scorecard criterion")
		}
		if slices.Contains(labels, label) {
			return nil, apperr.Invalid("Criterion names must be unique")
		}
		labels = append(labels, label)
		if c.ID != nil {
			if ids[*c.ID] {
				return nil, apperr.Invalid("A criterion appears twice in the scorecard")
			}
			ids[*c.ID] = true
		}
	}
	out := make([]*model.ReviewCriterionInput, len(in))
	for i, c := range in {
		n := *c
		n.Label = strings.TrimSpace(c.Label)
		switch c.Type {
		case model.ReviewCriterionTypeNumeric:
			if c.Min == nil || c.Max == nil || !finite(*c.Min) || !finite(*c.Max) || *c.Min >= *c.Max {
				return nil, apperr.Invalid("%s needs a minimum below its maximum", n.Label)
			}
			if !finite(c.Weight) || c.Weight <= 0 {
				return nil, apperr.Invalid("%s needs a positive weight", n.Label)
			}
			n.Options = []string{}
		case model.ReviewCriterionTypeDropdown:
			var options, seen []string
			for _, o := range c.Options {
				if o = strings.TrimSpace(o); o != "" {
					options = append(options, o)
					seen = append(seen, strings.ToLower(o))
				}
			}
			slices.Sort(seen)
			if len(options) < 2 || len(slices.Compact(seen)) != len(options) {
				return nil, apperr.Invalid("%s needs at least two unique options", n.Label)
			}
			n.Options, n.Min, n.Max, n.Weight = options, nil, nil, 1
		default:
			n.Options, n.Min, n.Max, n.Weight = []string{}, nil, nil, 1
		}
		out[i] = &n
	}
	return out, nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// saveCriteria replaces a round's scorecard: criteria left out are deleted with their answers,
// id:null inserts, an id of this round updates; an id of no criterion of this round is dropped.
// The criteria kept are numbered 1..n in order.
func saveCriteria(ctx context.Context, c *ent.Client, roundID string, criteria []*model.ReviewCriterionInput) error {
	current, err := c.ReviewCriterion.Query().Where(reviewcriterion.RoundID(roundID)).IDs(ctx)
	if err != nil {
		return err
	}
	var kept []*model.ReviewCriterionInput
	var keptIDs []string
	for _, cr := range criteria {
		if cr.ID != nil && !slices.Contains(current, *cr.ID) {
			continue
		}
		kept = append(kept, cr)
		if cr.ID != nil {
			keptIDs = append(keptIDs, *cr.ID)
		}
	}
	if _, err := c.ReviewCriterion.Delete().
		Where(reviewcriterion.RoundID(roundID), reviewcriterion.IDNotIn(keptIDs...)).Exec(ctx); err != nil {
		return err
	}
	var creates []*ent.ReviewCriterionCreate
	for i, cr := range kept {
		if cr.ID == nil {
			creates = append(creates, c.ReviewCriterion.Create().SetRoundID(roundID).SetLabel(cr.Label).
				SetType(reviewcriterion.Type(cr.Type)).SetNillableMin(cr.Min).SetNillableMax(cr.Max).SetOptions(cr.Options).
				SetRequired(cr.Required).SetWeight(cr.Weight).SetPosition(i+1))
			continue
		}
		u := c.ReviewCriterion.UpdateOneID(*cr.ID).SetLabel(cr.Label).SetType(reviewcriterion.Type(cr.Type)).
			SetOptions(cr.Options).SetRequired(cr.Required).SetWeight(cr.Weight).SetPosition(i + 1)
		if cr.Type == model.ReviewCriterionTypeNumeric {
			u.SetMin(*cr.Min).SetMax(*cr.Max)
		} else {
			u.ClearMin().ClearMax()
		}
		if err := u.Exec(ctx); err != nil {
			return err
		}
	}
	return c.ReviewCriterion.CreateBulk(creates...).Exec(ctx)
}
