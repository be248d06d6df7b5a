package operation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/riverqueue/river"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/aireviewresult"
	"github.com/podium/podium/ent/reviewcriterion"
	"github.com/podium/podium/ent/reviewround"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/submissionparticipant"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/ai"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
	"github.com/podium/podium/jobs"
)

// upsertAIResultSQL stores the one result of a (round, submission); a new score replaces the old
// one and clears any override (docs/rest-api.md: "re-running replaces it and clears any override").
const upsertAIResultSQL = `
INSERT INTO ai_review_results (id, created_at, updated_at, round_id, submission_id, score, reasoning, provider, model)
VALUES ($1, now(), now(), $2, $3, $4, $5, $6, $7)
ON CONFLICT (round_id, submission_id) DO UPDATE SET
  updated_at = now(), score = EXCLUDED.score, reasoning = EXCLUDED.reasoning, provider = EXCLUDED.provider,
  model = EXCLUDED.model, overridden_score = NULL, override_reason = NULL, overridden_by_user_id = NULL,
  overridden_by_api_key_id = NULL, overridden_at = NULL
RETURNING id, created_at, updated_at, round_id, submission_id, score, reasoning, provider, model, overridden_score,
  override_reason, overridden_by_user_id, overridden_by_api_key_id, overridden_at, NULL::text`

// aiError is how a failed AI review reaches the caller: 502 review_generation_error.
func aiError(err error) error {
	var pe *ai.Error
	switch {
	case errors.Is(err, ai.ErrNotConfigured):
		return apperr.New(http.StatusBadGateway, apperr.CodeReviewGenerationError, "AI review is not configured on this server")
	case errors.As(err, &pe):
		return apperr.New(http.StatusBadGateway, apperr.CodeReviewGenerationError, pe.Message)
	}
	return err
}

// GenerateAiReview has the provider score one submission in the round and stores the result
// (docs/rest-api.md: POST …/ai-review). A failure stores nothing.
func (r *Service) GenerateAiReview(ctx context.Context, eventID, roundID string, in model.GenerateAiReviewInput) (*model.AIResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.AIResult, error) {
		c, ev, rd, err := r.eventRound(ctx, eventID, roundID, false)
		if err != nil {
			return nil, err
		}
		sub, err := findSubmission(ctx, c, ev.ID, in.SubmissionID, errSubmissionNotFound, false)
		if err != nil {
			return nil, err
		}
		res, err := r.aiReview(ctx, c, ev, rd, sub)
		if err != nil {
			return nil, aiError(err)
		}
		return res, nil
	})
}

// aiReview asks the provider for a score and stores it.
func (r *Service) aiReview(ctx context.Context, c *ent.Client, ev *ent.Event, rd *ent.ReviewRound, sub *ent.Submission) (*model.AIResult, error) {
	if r.AI == nil {
		return nil, ai.ErrNotConfigured
	}
	system, prompt, err := aiPrompt(ctx, c, ev, rd, sub)
	if err != nil {
		return nil, err
	}
	review, err := r.AI.Review(ctx, system, prompt)
	if err != nil {
		return nil, err
	}
	res, _, err := scanAIResult(r.sql(ctx).QueryRow(ctx, upsertAIResultSQL, pid.New("air"), rd.ID, sub.ID,
		review.Score, review.Reasoning, ai.Provider, r.AI.Model()).Scan)
	return res, err
}

// aiProposal is what the provider is told about a proposal.
type aiProposal struct {
	Code        string      `json:"code"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Format      *string     `json:"format,omitempty"`
	Tracks      []string    `json:"tracks"`
	Speakers    []aiSpeaker `json:"speakers,omitempty"`
}

type aiSpeaker struct {
	Name    string  `json:"name"`
	Title   *string `json:"title,omitempty"`
	Company *string `json:"company,omitempty"`
	Bio     *string `json:"bio,omitempty"`
}

type aiCriterion struct {
	Label    string   `json:"label"`
	Type     string   `json:"type"`
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	Options  []string `json:"options,omitempty"`
	Weight   float64  `json:"weight"`
	Required bool     `json:"required"`
}

// aiPrompt builds the provider's instructions and the proposal to review. In a blind round the
// speakers are left out and their names, companies, emails and profile URLs are redacted from the
// title and description, so nothing sent identifies them.
func aiPrompt(ctx context.Context, c *ent.Client, ev *ent.Event, rd *ent.ReviewRound, sub *ent.Submission) (string, string, error) {
	criteria, err := c.ReviewCriterion.Query().Where(reviewcriterion.RoundID(rd.ID)).
		Order(ent.Asc(reviewcriterion.FieldPosition)).All(ctx)
	if err != nil {
		return "", "", err
	}
	s, err := c.Submission.Query().Where(submission.ID(sub.ID)).WithFormat().WithTracks().
		WithParticipants(func(q *ent.SubmissionParticipantQuery) {
			q.WithContact().Order(ent.Asc(submissionparticipant.FieldPosition))
		}).Only(ctx)
	if err != nil {
		return "", "", err
	}
	p := aiProposal{Code: s.Code, Title: s.Title, Description: s.Description, Tracks: []string{}}
	if s.Edges.Format != nil {
		p.Format = &s.Edges.Format.Name
	}
	for _, t := range s.Edges.Tracks {
		p.Tracks = append(p.Tracks, t.Name)
	}
	var identity []string
	for _, part := range s.Edges.Participants {
		ct := part.Edges.Contact
		identity = append(identity, fullName(ct.FirstName, ct.LastName), ct.FirstName, ct.LastName, ct.Email)
		for _, v := range []*string{ct.Company, ct.LinkedinURL, ct.TwitterURL, ct.WebsiteURL} {
			if v != nil {
				identity = append(identity, *v)
			}
		}
		p.Speakers = append(p.Speakers, aiSpeaker{Name: fullName(ct.FirstName, ct.LastName), Title: ct.Title, Company: ct.Company, Bio: ct.Bio})
	}
	if rd.Blind {
		p.Title, p.Description, p.Speakers = redact(p.Title, identity), redact(p.Description, identity), nil
	}
	card := make([]aiCriterion, len(criteria))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, cr := range criteria {
		card[i] = aiCriterion{Label: cr.Label, Type: string(cr.Type), Min: cr.Min, Max: cr.Max, Options: cr.Options,
			Weight: cr.Weight, Required: cr.Required}
		if cr.Type == reviewcriterion.TypeNumeric && cr.Min != nil && cr.Max != nil {
			lo, hi = math.Min(lo, *cr.Min), math.Max(hi, *cr.Max)
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 10
	}
	body, err := json.MarshalIndent(map[string]any{"event": ev.Name, "round": rd.Name, "proposal": p, "scorecard": card}, "", "  ")
	if err != nil {
		return "", "", err
	}
	system := fmt.Sprintf("You review proposals for a conference. Evaluate the proposal against the scorecard, judging only "+
		"what the proposal says. Answer with a JSON object and nothing else: "+
		`{"score": <a number from %g to %g>, "reasoning": "<two to four sentences>"}.`, lo, hi)
	if rd.Blind {
		system += " The review is blind: speakers are not named, and their identity must play no part."
	}
	return system, string(body), nil
}

// OverrideAiReview records an organizer's score next to the provider's (docs/rest-api.md: POST
// E/ai-review-override). The API key making the request is recorded as the one who overrode it.
func (r *Service) OverrideAiReview(ctx context.Context, eventID string, in model.OverrideAiReviewInput) (*model.AIResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.AIResult, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		notFound := apperr.NotFound("AI review result")
		if !pid.Plausible(in.ResultID) {
			return nil, notFound
		}
		if !finite(in.Score) {
			return nil, apperr.Invalid("Enter a valid override score")
		}
		res, err := c.AIReviewResult.Query().
			Where(aireviewresult.ID(in.ResultID), aireviewresult.HasRoundWith(reviewround.EventID(ev.ID))).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return nil, notFound
		}
		if err != nil {
			return nil, err
		}
		u := res.Update().SetOverriddenScore(in.Score).SetOverrideReason(strings.TrimSpace(in.Reason)).
			SetOverriddenAt(time.Now()).ClearOverriddenByUserID()
		if v := viewer.FromContext(ctx); v != nil && v.APIKeyID != "" {
			u.SetOverriddenByAPIKeyID(v.APIKeyID)
		} else {
			u.ClearOverriddenByAPIKeyID()
		}
		if res, err = u.Save(ctx); err != nil {
			return nil, err
		}
		return toAIResult(res), nil
	})
}

func toAIResult(a *ent.AIReviewResult) *model.AIResult {
	return &model.AIResult{ID: a.ID, CreatedAt: scalar.At(a.CreatedAt), UpdatedAt: scalar.At(a.UpdatedAt), RoundID: a.RoundID,
		SubmissionID: a.SubmissionID, Score: a.Score, Reasoning: a.Reasoning, Provider: a.Provider, Model: a.Model,
		OverriddenScore: a.OverriddenScore, OverrideReason: a.OverrideReason, OverriddenByUserID: a.OverriddenByUserID,
		OverriddenByAPIKeyID: a.OverriddenByAPIKeyID, OverriddenAt: scalar.AtPtr(a.OverriddenAt)}
}

// ScoreRoundWithAi queues one background job per submission to score with the provider: by
// default every call-for-proposals submission that is neither a draft nor withdrawn. A submission
// whose job is still waiting or running is not queued twice.
func (r *Service) ScoreRoundWithAi(ctx context.Context, eventID, roundID string, in *model.ScoreRoundWithAiInput) (*model.ScoreRoundWithAiResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ScoreRoundWithAiResult, error) {
		c, ev, rd, err := r.eventRound(ctx, eventID, roundID, false)
		if err != nil {
			return nil, err
		}
		if r.AI == nil {
			return nil, aiError(ai.ErrNotConfigured)
		}
		q := c.Submission.Query().Where(submission.EventID(ev.ID))
		if in != nil && in.SubmissionIds != nil {
			ids := unique(in.SubmissionIds)
			if err := submissionsOf(ctx, c, ev.ID, ids); err != nil {
				return nil, err
			}
			q = q.Where(submission.IDIn(ids...))
		} else {
			q = q.Where(fromCFP(), submission.StatusNotIn(submission.StatusDraft, submission.StatusWithdrawn))
		}
		ids, err := q.Order(ent.Asc(submission.FieldNumber)).IDs(ctx)
		if err != nil {
			return nil, err
		}
		out := &model.ScoreRoundWithAiResult{RoundID: rd.ID}
		if len(ids) == 0 {
			return out, nil
		}
		params := make([]river.InsertManyParams, len(ids))
		for i, id := range ids {
			params[i] = river.InsertManyParams{Args: jobs.AIReviewArgs{RoundID: rd.ID, SubmissionID: id, OrganizationID: rd.OrganizationID}}
		}
		tx, err := r.tx(ctx)
		if err != nil {
			return nil, err
		}
		inserted, err := r.Outbox.Jobs.InsertManyTx(ctx, tx, params)
		if err != nil {
			return nil, err
		}
		for _, res := range inserted {
			if res.UniqueSkippedAsDuplicate {
				out.AlreadyQueued++
			} else {
				out.Queued++
			}
		}
		return out, nil
	})
}

// ScoreSubmission scores one submission in a round with the provider: the work of an AIReviewArgs
// job. It runs without a viewer, as background work does. A round or submission deleted since
// the job was queued leaves nothing to do.
func (r *Service) ScoreSubmission(ctx context.Context, roundID, submissionID string) error {
	if r.AI == nil {
		return ai.ErrNotConfigured
	}
	c := r.Client
	rd, err := c.ReviewRound.Query().Where(reviewround.ID(roundID)).WithEvent().Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	sub, err := c.Submission.Query().Where(submission.ID(submissionID), submission.EventID(rd.EventID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	// The provider is asked outside any transaction; the result is stored in one statement.
	_, err = r.aiReview(ctx, c, rd.Edges.Event, rd, sub)
	return err
}
