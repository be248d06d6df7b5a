package operation

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/reviewassignment"
	"github.com/podium/podium/ent/reviewroundmember"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

var errAssignmentNotFound = apperr.NotFound("Review assignment")

// AssignReviews assigns submissions to a reviewer of the round (docs/rest-api.md: POST …/assignments).
// Existing pairs are skipped; a request that would take the reviewer past their cap assigns
// nothing.
func (r *Service) AssignReviews(ctx context.Context, eventID, roundID string, in model.AssignReviewsInput) (*model.AssignReviewsResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.AssignReviewsResult, error) {
		c, ev, rd, err := r.eventRound(ctx, eventID, roundID, false)
		if err != nil {
			return nil, err
		}
		if err := ensureOpen(rd); err != nil {
			return nil, err
		}
		// Locking the pool membership serializes assignments to one reviewer, so caps hold.
		notMember := apperr.NotFound("Reviewer")
		if !pid.Plausible(in.EventMemberID) {
			return nil, notMember
		}
		m, err := c.ReviewRoundMember.Query().
			Where(reviewroundmember.RoundID(rd.ID), reviewroundmember.EventMemberID(in.EventMemberID)).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return nil, notMember
		}
		if err != nil {
			return nil, err
		}
		ids := unique(in.SubmissionIds)
		if err := submissionsOf(ctx, c, ev.ID, ids); err != nil {
			return nil, err
		}
		// A draft is its speaker's until they submit it (the organizers' lists leave it out), so no
		// reviewer reads it; nor one withdrawn before it was ever submitted.
		drafts, err := c.Submission.Query().Where(submission.IDIn(ids...), submission.Or(submission.StatusEQ(submission.StatusDraft),
			submission.And(submission.StatusEQ(submission.StatusWithdrawn), submission.SubmittedAtIsNil()))).Exist(ctx)
		if err != nil {
			return nil, err
		}
		if drafts {
			return nil, apperr.Invalid("Only submitted proposals can be assigned: a draft is its speaker's until they submit it")
		}
		current, err := c.ReviewAssignment.Query().
			Where(reviewassignment.RoundID(rd.ID), reviewassignment.EventMemberID(m.EventMemberID)).All(ctx)
		if err != nil {
			return nil, err
		}
		load := 0
		assigned := map[string]bool{}
		for _, a := range current {
			assigned[a.SubmissionID] = true
			if a.Status != reviewassignment.StatusRecused {
				load++
			}
		}
		res := &model.AssignReviewsResult{}
		now := time.Now()
		var creates []*ent.ReviewAssignmentCreate
		for _, id := range ids {
			if assigned[id] {
				res.Skipped++
				continue
			}
			if m.AssignmentCap != nil && load >= *m.AssignmentCap {
				return nil, apperr.Conflict(apperr.CodeAssignmentCapExceeded, "This reviewer has reached their assignment cap")
			}
			load++
			creates = append(creates, c.ReviewAssignment.Create().SetRoundID(rd.ID).SetSubmissionID(id).
				SetEventMemberID(m.EventMemberID).SetAssignedAt(now))
		}
		created, err := c.ReviewAssignment.CreateBulk(creates...).Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.changes(ctx, assignedChanges(ev.ID, rd.ID, created)); err != nil {
			return nil, err
		}
		res.Created = len(creates)
		return res, nil
	})
}

// submissionsOf checks that every id is a submission of the event.
func submissionsOf(ctx context.Context, c *ent.Client, eventID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if slices.ContainsFunc(ids, func(id string) bool { return !pid.Plausible(id) }) {
		return errSubmissionNotFound
	}
	n, err := c.Submission.Query().Where(submission.IDIn(ids...), submission.EventID(eventID)).Count(ctx)
	if err != nil {
		return err
	}
	if n != len(ids) {
		return errSubmissionNotFound
	}
	return nil
}

// UnassignReview removes an assignment of the round with its answers.
func (r *Service) UnassignReview(ctx context.Context, eventID, roundID, assignmentID string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		c, ev, rd, err := r.eventRound(ctx, eventID, roundID, false)
		if err != nil {
			return "", err
		}
		if !pid.Plausible(assignmentID) {
			return "", errAssignmentNotFound
		}
		a, err := c.ReviewAssignment.Query().
			Where(reviewassignment.ID(assignmentID), reviewassignment.RoundID(rd.ID)).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return "", errAssignmentNotFound
		}
		if err != nil {
			return "", err
		}
		if err := c.ReviewAssignment.DeleteOneID(a.ID).Exec(ctx); err != nil {
			return "", err
		}
		if err := r.change(ctx, changeReviewUnassigned, ev.ID, reviewData(a)); err != nil {
			return "", err
		}
		return assignmentID, nil
	})
}

// AutoDistributeReviews plans, and unless dryRun creates, the assignments that bring every pending
// or maybe submission (in trackIds, when given) up to the round's reviewsPerSubmission
// (docs/rest-api.md: POST …/auto-distribute).
func (r *Service) AutoDistributeReviews(ctx context.Context, eventID, roundID string, in model.AutoDistributeReviewsInput) (*model.AutoDistributionResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.AutoDistributionResult, error) {
		// Locking the round makes concurrent distributions of it take turns: the second sees the
		// first's assignments and creates none twice.
		c, ev, rd, err := r.eventRound(ctx, eventID, roundID, true)
		if err != nil {
			return nil, err
		}
		if err := ensureOpen(rd); err != nil {
			return nil, err
		}
		trackIDs, err := tracksOf(ctx, c, ev.ID, in.TrackIds)
		if err != nil {
			return nil, err
		}
		input, err := r.planInput(ctx, ev.ID, rd.ID, trackIDs)
		if err != nil {
			return nil, err
		}
		plan := planAutoDistribution(input, rd.ReviewsPerSubmission)
		if (in.DryRun != nil && *in.DryRun) || len(plan.Planned) == 0 {
			return plan, nil
		}
		ids, members, submissions := make([]string, len(plan.Planned)), make([]string, len(plan.Planned)), make([]string, len(plan.Planned))
		for i, p := range plan.Planned {
			ids[i], members[i], submissions[i] = pid.New("asg"), p.EventMemberID, p.SubmissionID
		}
		// A pair assigned by hand meanwhile is skipped, not an error.
		rows, err := r.sql(ctx).Query(ctx, `
INSERT INTO review_assignments (id, created_at, updated_at, status, assigned_at, round_id, event_member_id, submission_id)
SELECT a.id, now(), now(), 'pending', now(), $2, a.member, a.submission
FROM unnest($1::text[], $3::text[], $4::text[]) AS a(id, member, submission)
ON CONFLICT (round_id, submission_id, event_member_id) DO NOTHING
RETURNING id, event_member_id, submission_id`, ids, rd.ID, members, submissions)
		if err != nil {
			return nil, err
		}
		created, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*ent.ReviewAssignment, error) {
			a := &ent.ReviewAssignment{RoundID: rd.ID}
			return a, row.Scan(&a.ID, &a.EventMemberID, &a.SubmissionID)
		})
		if err != nil {
			return nil, err
		}
		if err := r.changes(ctx, assignedChanges(ev.ID, rd.ID, created)); err != nil {
			return nil, err
		}
		plan.Created = len(created)
		plan.Skipped = len(plan.Planned) - plan.Created
		return plan, nil
	})
}

// planInput is what auto-distribution plans from.
type planInput struct {
	submissions []planSubmission
	members     []planMember
	existing    []planAssignment
}

type planSubmission struct {
	id, code string
	trackIDs []string
}

type planMember struct {
	eventMemberID string
	cap           *int
	trackIDs      []string
	// conflicts are the submissions with a participant whose email is the reviewer's.
	conflicts map[string]bool
}

type planAssignment struct {
	submissionID, eventMemberID string
	recused                     bool
}

// planInput loads the candidates (pending or maybe submissions, in one of trackIDs when given),
// the round's pool with reviewer tracks and conflicts, and the round's assignments.
func (r *Service) planInput(ctx context.Context, eventID, roundID string, trackIDs []string) (planInput, error) {
	q := r.sql(ctx)
	var in planInput
	subs := map[string]*planSubmission{}
	err := eachRowArgs(ctx, q, `
SELECT s.id, s.code, COALESCE(array_agg(st.track_id ORDER BY st.track_id) FILTER (WHERE st.track_id IS NOT NULL), '{}')
FROM submissions s LEFT JOIN submission_tracks st ON st.submission_id = s.id
WHERE s.event_id = $1 AND s.status IN ('pending', 'maybe')
GROUP BY s.id, s.code`, []any{eventID}, func(scan func(...any) error) error {
		var s planSubmission
		if err := scan(&s.id, &s.code, &s.trackIDs); err != nil {
			return err
		}
		if len(trackIDs) > 0 && !slices.ContainsFunc(s.trackIDs, func(t string) bool { return slices.Contains(trackIDs, t) }) {
			return nil
		}
		in.submissions = append(in.submissions, s)
		return nil
	})
	if err != nil {
		return in, err
	}
	for i := range in.submissions {
		subs[in.submissions[i].id] = &in.submissions[i]
	}
	emails := map[string][]string{}
	err = eachRowArgs(ctx, q, `
SELECT p.submission_id, lower(trim(c.email))
FROM submission_participants p JOIN contacts c ON c.id = p.contact_id JOIN submissions s ON s.id = p.submission_id
WHERE s.event_id = $1 AND s.status IN ('pending', 'maybe')`, []any{eventID}, func(scan func(...any) error) error {
		var id, addr string
		if err := scan(&id, &addr); err != nil {
			return err
		}
		if _, ok := subs[id]; ok {
			emails[addr] = append(emails[addr], id)
		}
		return nil
	})
	if err != nil {
		return in, err
	}
	err = eachRowArgs(ctx, q, `
SELECT m.event_member_id, m.assignment_cap, lower(trim(u.email)),
       COALESCE(array_agg(emt.track_id ORDER BY emt.track_id) FILTER (WHERE emt.track_id IS NOT NULL), '{}')
FROM review_round_members m
JOIN event_members em ON em.id = m.event_member_id
JOIN users u ON u.id = em.user_id
LEFT JOIN event_member_tracks emt ON emt.event_member_id = em.id
WHERE m.round_id = $1
GROUP BY m.event_member_id, m.assignment_cap, u.email`, []any{roundID}, func(scan func(...any) error) error {
		m := planMember{conflicts: map[string]bool{}}
		var addr string
		if err := scan(&m.eventMemberID, &m.cap, &addr, &m.trackIDs); err != nil {
			return err
		}
		for _, id := range emails[addr] {
			m.conflicts[id] = true
		}
		in.members = append(in.members, m)
		return nil
	})
	if err != nil {
		return in, err
	}
	err = eachRowArgs(ctx, q, `SELECT submission_id, event_member_id, status = 'recused' FROM review_assignments WHERE round_id = $1`,
		[]any{roundID}, func(scan func(...any) error) error {
			var a planAssignment
			if err := scan(&a.submissionID, &a.eventMemberID, &a.recused); err != nil {
				return err
			}
			in.existing = append(in.existing, a)
			return nil
		})
	return in, err
}

// Tiers in order of preference.
var tierRank = map[model.AutoDistributionTier]int{
	model.AutoDistributionTierInTrack: 0, model.AutoDistributionTierGeneralist: 1, model.AutoDistributionTierOutOfTrack: 2,
}

// planAutoDistribution is the deterministic fill of docs/rest-api.md "Auto-distribute". Submissions are
// taken fewest reviews first (then by id) and filled one level at a time up to perSubmission, so
// every submission gets its first reviewer before any gets its second. For each, the candidates
// are the pool members not already assigned to it, not in conflict with it and under their cap;
// the pick is the best tier (in-track, generalist, out-of-track), then the least loaded, then the
// lowest id. Recused assignments count neither towards a submission's reviews nor a reviewer's
// load, but their pairs are never planned again.
func planAutoDistribution(in planInput, perSubmission int) *model.AutoDistributionResult {
	pair := func(s, m string) string { return s + "\x00" + m }
	taken := map[string]bool{}
	load := map[string]int{}
	reviews := map[string]int{}
	for _, a := range in.existing {
		taken[pair(a.submissionID, a.eventMemberID)] = true
		if a.recused {
			continue
		}
		load[a.eventMemberID]++
		reviews[a.submissionID]++
	}
	subs := slices.Clone(in.submissions)
	slices.SortFunc(subs, func(a, b planSubmission) int {
		return cmp.Or(cmp.Compare(reviews[a.id], reviews[b.id]), strings.Compare(a.id, b.id))
	})
	members := slices.Clone(in.members)
	slices.SortFunc(members, func(a, b planMember) int { return strings.Compare(a.eventMemberID, b.eventMemberID) })

	out := &model.AutoDistributionResult{Planned: []*model.PlannedAssignment{}, Shortfalls: []*model.AutoDistributionShortfall{}}
	conflicts := map[string]bool{}
	for level := 1; level <= perSubmission; level++ {
		for _, s := range subs {
			if reviews[s.id] >= level {
				continue
			}
			var best *planMember
			var bestTier model.AutoDistributionTier
			for i := range members {
				m := &members[i]
				if taken[pair(s.id, m.eventMemberID)] {
					continue
				}
				if m.conflicts[s.id] {
					conflicts[pair(s.id, m.eventMemberID)] = true
					continue
				}
				if m.cap != nil && load[m.eventMemberID] >= *m.cap {
					continue
				}
				tier := tierOf(m.trackIDs, s.trackIDs)
				if best == nil || tierRank[tier] < tierRank[bestTier] ||
					(tier == bestTier && load[m.eventMemberID] < load[best.eventMemberID]) {
					best, bestTier = m, tier
				}
			}
			if best == nil {
				continue
			}
			out.Planned = append(out.Planned, &model.PlannedAssignment{SubmissionID: s.id, EventMemberID: best.eventMemberID, Tier: bestTier})
			taken[pair(s.id, best.eventMemberID)] = true
			load[best.eventMemberID]++
			reviews[s.id]++
			if bestTier == model.AutoDistributionTierOutOfTrack {
				out.OutOfTrack++
			}
		}
	}
	out.ConflictsSkipped = len(conflicts)
	for _, s := range subs {
		missing := perSubmission - reviews[s.id]
		if missing <= 0 {
			continue
		}
		reason := model.AutoDistributionShortfallReasonNoReviewers
		allConflicted, left := true, false
		for _, m := range members {
			if taken[pair(s.id, m.eventMemberID)] {
				continue
			}
			left = true
			allConflicted = allConflicted && m.conflicts[s.id]
		}
		switch {
		case !left:
		case allConflicted:
			reason = model.AutoDistributionShortfallReasonConflicts
		default:
			reason = model.AutoDistributionShortfallReasonCapsExhausted
		}
		out.Shortfalls = append(out.Shortfalls, &model.AutoDistributionShortfall{SubmissionID: s.id, Code: s.code, Missing: missing, Reason: reason})
	}
	return out
}

// tierOf says how a reviewer with reviewer tracks mine fits a submission in tracks theirs.
func tierOf(mine, theirs []string) model.AutoDistributionTier {
	switch {
	case slices.ContainsFunc(mine, func(t string) bool { return slices.Contains(theirs, t) }):
		return model.AutoDistributionTierInTrack
	case len(mine) == 0:
		return model.AutoDistributionTierGeneralist
	default:
		return model.AutoDistributionTierOutOfTrack
	}
}

// toAssignment presents a stored assignment.
func toAssignment(a *ent.ReviewAssignment) *model.ReviewAssignmentRecord {
	return &model.ReviewAssignmentRecord{ID: a.ID, CreatedAt: scalar.At(a.CreatedAt), UpdatedAt: scalar.At(a.UpdatedAt),
		RoundID: a.RoundID, SubmissionID: a.SubmissionID, EventMemberID: a.EventMemberID,
		Status: model.ReviewAssignmentStatus(a.Status), AssignedAt: scalar.At(a.AssignedAt),
		CompletedAt: scalar.AtPtr(a.CompletedAt), RecusedAt: scalar.AtPtr(a.RecusedAt), RecusalReason: a.RecusalReason}
}
