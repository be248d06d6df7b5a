package operation

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/apikey"
	"github.com/podium/podium/ent/eventmember"
	"github.com/podium/podium/ent/quickreview"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/track"
	"github.com/podium/podium/ent/user"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// Quick reviews (the saveMyReview mutation, Submission.reviews): a person's approve/maybe/deny,
// score and comment on a pending proposal, one per person and submission.

// maxQuickComment bounds a quick review's comment.
const maxQuickComment = 5000

// errNoReviewer refuses a quick review asked by an API key no person made (one of the command
// line): a review is a person's.
var errNoReviewer = apperr.Forbidden("This API key was made on the command line and reviews as no one: " +
	"review signed in, or with a key made by a person (createApiKey)")

// errNotReviewing refuses a quick review to an organization member who is no reviewer of the event:
// members read and change nothing, and only reviewers and organizers review.
var errNotReviewing = apperr.Forbidden("Quick reviews are for the event's reviewers and its organizers: you are neither")

// errOutsideTracks refuses a reviewer's quick review of a submission outside their tracks.
var errOutsideTracks = apperr.Forbidden("You score submissions inside your assigned tracks only: this one is in none of them")

// SaveMyReview saves the caller's quick review of a pending submission of the event, replacing
// theirs. A person reviews as themselves, an API key as the person who made it. An organization's
// owners and admins (and keys) review any submission; a reviewer of the event those in one of the
// tracks they are assigned (none without tracks), else errOutsideTracks; an organization member
// who does not review there changes nothing.
func (r *Service) SaveMyReview(ctx context.Context, eventID, submissionID string, in model.SaveMyReviewInput) (*model.QuickReview, error) {
	member := ""
	if v := viewer.FromContext(ctx); v != nil && v.Person != nil && v.Role != "owner" && v.Role != "admin" {
		i := slices.IndexFunc(v.Person.EventRoles, func(e viewer.EventRole) bool { return e.EventID == eventID && e.Role == "reviewer" })
		switch {
		case i >= 0:
			e := v.Person.EventRoles[i]
			ctx, member = inOrganization(ctx, e.OrganizationID), e.MemberID
		case v.OrganizationID != "":
			return nil, errNotReviewing
		}
	}
	return inTx(ctx, r, func(ctx context.Context) (*model.QuickReview, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		var tracks []string
		if member != "" {
			if tracks, err = c.EventMember.Query().Where(eventmember.ID(member)).QueryTracks().IDs(ctx); err != nil {
				return nil, err
			}
		}
		reviewer, err := quickReviewer(ctx, c)
		if err != nil {
			return nil, err
		}
		if in.Score < 1 || in.Score > 5 {
			return nil, apperr.Invalid("score must be between 1 and 5")
		}
		var comment *string
		if in.Comment != nil {
			if t := strings.TrimSpace(*in.Comment); t != "" {
				if len([]rune(t)) > maxQuickComment {
					return nil, apperr.Invalid("The comment must be at most %d characters", maxQuickComment)
				}
				comment = &t
			}
		}
		if !pid.Plausible(submissionID) {
			return nil, errSubmissionNotFound
		}
		s, err := c.Submission.Query().Where(submission.ID(submissionID), submission.EventID(ev.ID), fromCFP()).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, errSubmissionNotFound
		}
		if err != nil {
			return nil, err
		}
		if s.Status != submission.StatusPending {
			return nil, apperr.Invalid("Only a pending submission takes a quick review")
		}
		if member != "" {
			// A reviewer scores inside the tracks they are assigned, as the original does.
			ok, err := c.Submission.Query().Where(submission.ID(s.ID), submission.HasTracksWith(track.IDIn(tracks...))).Exist(ctx)
			if err != nil {
				return nil, err
			}
			if len(tracks) == 0 || !ok {
				return nil, errOutsideTracks
			}
		}
		id, err := c.QuickReview.Create().SetEventID(ev.ID).SetSubmissionID(s.ID).SetUserID(reviewer).
			SetDecision(quickreview.Decision(in.Decision)).SetScore(in.Score).SetNillableComment(comment).
			OnConflictColumns(quickreview.FieldSubmissionID, quickreview.FieldUserID).
			Update(func(u *ent.QuickReviewUpsert) {
				u.UpdateDecision().UpdateScore().UpdateComment().SetUpdatedAt(time.Now())
			}).ID(ctx)
		if err != nil {
			return nil, err
		}
		out, err := r.quickReviewsOf(ctx, nil, []string{id})
		if err != nil {
			return nil, err
		}
		return out[s.ID][0], nil
	})
}

// quickReviewer is the person the caller reviews as: the signed-in person, or the person who made
// the calling API key.
func quickReviewer(ctx context.Context, c *ent.Client) (string, error) {
	v, err := access.Viewer(ctx)
	if err != nil {
		return "", err
	}
	if v.Person != nil {
		return v.Person.UserID, nil
	}
	k, err := c.APIKey.Query().Where(apikey.ID(v.APIKeyID)).Only(ctx)
	if err != nil {
		return "", err
	}
	if k.CreatedByUserID == nil {
		return "", errNoReviewer
	}
	return *k.CreatedByUserID, nil
}

// QuickReviews answers Submission.reviews: the submission's quick reviews, newest first.
func (r *Service) QuickReviews(ctx context.Context, submissionID string) ([]*model.QuickReview, error) {
	return r.loaders(ctx).quickReviews.Load(ctx, submissionID)
}

// quickReviewsOf reads the quick reviews of the submissions (or those of ids), with their
// reviewers, in two statements, by submission, newest first.
func (r *Service) quickReviewsOf(ctx context.Context, submissions, ids []string) (map[string][]*model.QuickReview, error) {
	c := r.ClientOf(ctx)
	q := c.QuickReview.Query().Order(ent.Desc(quickreview.FieldUpdatedAt), ent.Desc(quickreview.FieldID))
	if ids != nil {
		q = q.Where(quickreview.IDIn(ids...))
	} else {
		q = q.Where(quickreview.SubmissionIDIn(submissions...))
	}
	reviews, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	users := map[string]*ent.User{}
	if len(reviews) > 0 {
		var uids []string
		for _, rv := range reviews {
			uids = append(uids, rv.UserID)
		}
		list, err := c.User.Query().Where(user.IDIn(uids...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, u := range list {
			users[u.ID] = u
		}
	}
	out := map[string][]*model.QuickReview{}
	for _, rv := range reviews {
		m := &model.QuickReview{ID: rv.ID, ReviewerID: rv.UserID, Decision: string(rv.Decision), Score: &rv.Score,
			Comment: rv.Comment, UpdatedAt: scalar.At(rv.UpdatedAt)}
		if u := users[rv.UserID]; u != nil {
			m.ReviewerName, m.ReviewerImage = cmpOr(u.Name, u.Email), u.Image
		}
		out[rv.SubmissionID] = append(out[rv.SubmissionID], m)
	}
	return out, nil
}
