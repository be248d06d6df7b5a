package operation

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/podium/podium/graph/model"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/reviewassignment"
	"github.com/podium/podium/ent/schema/cfpform"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

// The reviewer desk (docs/people.md): a signed-in reviewer reads their own assignments and the
// submissions assigned to them, answers them while the round is open and recuses themselves.
// A reviewer has no organization scope of their own (access.PersonViewer), so each operation
// acts in the organization of the reviewer's event membership, and only on assignments of that
// membership: another reviewer's assignment is answered as an id that does not exist. Blind
// rounds show the submission as the workspace's blind summary. Reviewers never read other
// reviewers' answers nor results: review rounds have no setting that would allow it.

// reviewingOf returns where the caller of ctx reviews: their reviewer event memberships by
// organization; nothing for an API key.
func reviewingOf(ctx context.Context) map[string][]string {
	out := map[string][]string{}
	v := viewer.FromContext(ctx)
	if v == nil || v.Person == nil {
		return out
	}
	for _, e := range v.Person.EventRoles {
		if e.Role == "reviewer" {
			out[e.OrganizationID] = append(out[e.OrganizationID], e.MemberID)
		}
	}
	return out
}

// inOrganization returns ctx acting for the person of ctx in the organization org, where they
// hold a role (a reviewer's event membership, a speaker's contact). It drops any transaction of
// ctx: that one was begun without the organization, which row-level security then hides.
func inOrganization(ctx context.Context, org string) context.Context {
	v := viewer.FromContext(ctx)
	scoped := &viewer.Viewer{OrganizationID: org}
	if v != nil {
		scoped.Person = v.Person
	}
	return dbx.Detach(viewer.NewContext(ctx, scoped))
}

// myAssignment finds the assignment id among the caller's own and returns the organization it
// belongs to, or errAssignmentNotFound.
func (r *Service) myAssignment(ctx context.Context, id string) (string, *ent.ReviewAssignment, error) {
	if !pid.Plausible(id) {
		return "", nil, errAssignmentNotFound
	}
	for org, members := range reviewingOf(ctx) {
		a, err := r.Client.ReviewAssignment.Query().
			Where(reviewassignment.ID(id), reviewassignment.EventMemberIDIn(members...)).
			WithRound().Only(inOrganization(ctx, org))
		if ent.IsNotFound(err) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return org, a, nil
	}
	return "", nil, errAssignmentNotFound
}

// MyReviewAssignments lists the caller's assignments, oldest first.
func (r *Service) MyReviewAssignments(ctx context.Context) ([]*model.MyReviewAssignment, error) {
	reviewing := reviewingOf(ctx)
	orgs := make([]string, 0, len(reviewing))
	for org := range reviewing {
		orgs = append(orgs, org)
	}
	slices.Sort(orgs)
	out := []*model.MyReviewAssignment{}
	for _, org := range orgs {
		sctx := inOrganization(ctx, org)
		as, err := r.Client.ReviewAssignment.Query().
			Where(reviewassignment.EventMemberIDIn(reviewing[org]...)).WithRound().
			Order(ent.Asc(reviewassignment.FieldAssignedAt), ent.Asc(reviewassignment.FieldID)).All(sctx)
		if err != nil {
			return nil, err
		}
		desk := r.newDesk()
		for _, a := range as {
			m, err := desk.present(sctx, a)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// MyReviewAssignment is one of the caller's assignments.
func (r *Service) MyReviewAssignment(ctx context.Context, id string) (*model.MyReviewAssignment, error) {
	org, a, err := r.myAssignment(ctx, id)
	if err != nil {
		return nil, err
	}
	return r.newDesk().present(inOrganization(ctx, org), a)
}

// SubmitMyReview records the caller's answers to their assignment, in a transaction of the
// assignment's organization, with the rules of submitReviewAnswers.
func (r *Service) SubmitMyReview(ctx context.Context, id string, in model.SubmitReviewAnswersInput) (*model.MyReviewAssignment, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.MyReviewAssignment, error) {
		return r.onMyAssignment(ctx, id, func(ctx context.Context, a *ent.ReviewAssignment) error {
			_, err := r.SubmitReviewAnswers(ctx, a.Edges.Round.EventID, a.ID, in)
			return err
		})
	})
}

// RecuseMyAssignment records the caller stepping back from their assignment.
func (r *Service) RecuseMyAssignment(ctx context.Context, id string, in model.RecuseReviewInput) (*model.MyReviewAssignment, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.MyReviewAssignment, error) {
		return r.onMyAssignment(ctx, id, func(ctx context.Context, a *ent.ReviewAssignment) error {
			_, err := r.RecuseReview(ctx, a.Edges.Round.EventID, a.ID, in)
			return err
		})
	})
}

// errNotAlone refuses a reviewer's change sent with other mutation fields in one document: it
// commits in a transaction of its own (see inOrganization), so it could not roll back with the
// others, and a document must never be written in part.
var errNotAlone = apperr.Invalid("Send this mutation alone in its document: it cannot share a transaction with other fields")

// alone checks that the GraphQL mutation of ctx, if any, has this one root field.
func alone(ctx context.Context) error {
	if !graphql.HasOperationContext(ctx) {
		return nil
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation == nil || oc.Operation.Operation != ast.Mutation {
		return nil
	}
	n := 0
	for _, f := range graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{"Mutation"}) {
		if f.Name != "__typename" {
			n++
		}
	}
	if n > 1 {
		return errNotAlone
	}
	return nil
}

// onMyAssignment runs change on the caller's assignment id in one transaction of its
// organization and answers the assignment as it then is; nothing is written when the
// assignment is not the caller's or change fails.
func (r *Service) onMyAssignment(ctx context.Context, id string, change func(context.Context, *ent.ReviewAssignment) error) (*model.MyReviewAssignment, error) {
	if err := alone(ctx); err != nil {
		return nil, err
	}
	org, a, err := r.myAssignment(ctx, id)
	if err != nil {
		return nil, err
	}
	sctx := inOrganization(ctx, org)
	if err := r.DB.InTx(sctx, func(ctx context.Context) error { return change(ctx, a) }); err != nil {
		return nil, err
	}
	a, err = r.Client.ReviewAssignment.Query().Where(reviewassignment.ID(id)).WithRound().Only(sctx)
	if err != nil {
		return nil, err
	}
	return r.newDesk().present(sctx, a)
}

// desk presents assignments, loading each round's workspace once.
type desk struct {
	r      *Service
	rounds map[string]*model.RoundView
	events map[string]*ent.Event
	// proposals are the reviewed proposals of each round by submission, loaded with the round.
	proposals map[string]map[string]*model.ReviewedProposal
}

func (r *Service) newDesk() *desk {
	return &desk{r: r, rounds: map[string]*model.RoundView{}, events: map[string]*ent.Event{},
		proposals: map[string]map[string]*model.ReviewedProposal{}}
}

// present is an assignment as its reviewer sees it. ctx is scoped to its organization.
func (d *desk) present(ctx context.Context, a *ent.ReviewAssignment) (*model.MyReviewAssignment, error) {
	rd := a.Edges.Round
	view, ok := d.rounds[rd.ID]
	if !ok {
		ws, err := d.r.evaluation(ctx, rd.EventID, rd.ID)
		if err != nil {
			return nil, err
		}
		if len(ws.Rounds) != 1 {
			return nil, errAssignmentNotFound
		}
		view = ws.Rounds[0]
		d.rounds[rd.ID] = view
	}
	ev, ok := d.events[rd.EventID]
	if !ok {
		var err error
		if ev, err = d.r.Client.Event.Get(ctx, rd.EventID); err != nil {
			return nil, err
		}
		d.events[rd.EventID] = ev
	}
	sub := view.Index.Submissions[a.SubmissionID]
	if sub == nil {
		return nil, errAssignmentNotFound
	}
	proposals, ok := d.proposals[rd.ID]
	if !ok {
		var err error
		if proposals, err = d.r.reviewedProposals(ctx, rd.EventID, view.Index); err != nil {
			return nil, err
		}
		d.proposals[rd.ID] = proposals
	}
	proposal := proposals[a.SubmissionID]
	if proposal == nil {
		proposal = &model.ReviewedProposal{Answers: []*model.ReviewedAnswer{}}
	}
	out := &model.MyReviewAssignment{
		ID: a.ID, EventID: ev.ID, EventName: ev.Name, EventTimezone: ev.Timezone, Status: model.ReviewAssignmentStatus(a.Status),
		AssignedAt: a.AssignedAt, CompletedAt: a.CompletedAt, RecusedAt: a.RecusedAt,
		Round: view.Configuration.Round, Submission: sub, Criteria: view.Configuration.Criteria,
		Answers: answersView(view.Index.Reviews[a.ID]), Proposal: proposal,
	}
	return out, nil
}

// ReviewerDesk lists the caller's assignments: the operation of myReviewAssignments, for the
// reviewer's pages (rest/web).
func (r *Service) ReviewerDesk(ctx context.Context) ([]*model.MyReviewAssignment, error) {
	return r.MyReviewAssignments(ctx)
}

// ReviewerAssignment is one of the caller's assignments (myReviewAssignment).
func (r *Service) ReviewerAssignment(ctx context.Context, id string) (*model.MyReviewAssignment, error) {
	return r.MyReviewAssignment(ctx, id)
}

// SubmitReview records the caller's answers (submitMyReview).
func (r *Service) SubmitReview(ctx context.Context, id string, in model.SubmitReviewAnswersInput) (*model.MyReviewAssignment, error) {
	return r.SubmitMyReview(ctx, id, in)
}

// Recuse records the caller stepping back (recuseMyAssignment).
func (r *Service) Recuse(ctx context.Context, id, reason string) (*model.MyReviewAssignment, error) {
	return r.RecuseMyAssignment(ctx, id, model.RecuseReviewInput{Reason: reason})
}

// reviewedProposalsSQL reads what reviewers judge besides the text, for the submissions of one
// event: their format, level and language, their replies and their form's questions.
const reviewedProposalsSQL = `
SELECT s.id, f.name, l.name, s.language, s.answers, COALESCE(fm.questions, '[]'::jsonb)
FROM submissions s
LEFT JOIN formats f ON f.id = s.format_id
LEFT JOIN levels l ON l.id = s.level_id
LEFT JOIN forms fm ON fm.id = s.source_form_id
WHERE s.event_id = $1 AND s.id = ANY($2)`

// reviewedProposals loads, in one query, the proposals of the submissions of a round's index as
// their reviewers read them: the replies to questions the organizers hide from reviewers are left
// out, and in a blind round (the index keeps identities) the replies are redacted as the
// submission's text is.
func (r *Service) reviewedProposals(ctx context.Context, eventID string, index *model.RoundIndex) (map[string]*model.ReviewedProposal, error) {
	ids := make([]string, 0, len(index.Submissions))
	for id := range index.Submissions {
		ids = append(ids, id)
	}
	out := make(map[string]*model.ReviewedProposal, len(ids))
	err := eachRowArgs(ctx, r.sql(ctx), reviewedProposalsSQL, []any{eventID, ids}, func(scan func(...any) error) error {
		var id, language string
		var format, level *string
		var answers map[string]any
		var questions []cfpform.Question
		if err := scan(&id, &format, &level, &language, &answers, &questions); err != nil {
			return err
		}
		p := &model.ReviewedProposal{FormatName: format, LevelName: level, Language: language, Answers: []*model.ReviewedAnswer{}}
		identity, blind := index.Identity[id]
		for _, q := range questions {
			value := replyText(answers[q.Key])
			if q.HiddenFromReviewers || value == "" {
				continue
			}
			if blind {
				value = redact(value, identity)
			}
			p.Answers = append(p.Answers, &model.ReviewedAnswer{Key: q.Key, Label: q.Label, Value: value})
		}
		out[id] = p
		return nil
	})
	return out, err
}

// replyText is a reply as text: replies are strings, but answers is a JSON object that an
// import may have filled with other values.
func replyText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(b)
	}
}

// errNoReviewerHere refuses the queue of an event to a caller who reviews nothing there: an API
// key acts for no reviewer, and an organizer is not a reviewer until added as one.
var errNoReviewerHere = apperr.Forbidden("You are not a reviewer of this event: the queue is a reviewer's own (sign in as the reviewer)")

// MyReviewsIn is the caller's review queue in the event eventID (REST GET E/my-reviews): their
// assignments by round, in round order then oldest first, as the reviewer desk shows them (a
// blind round redacted), with their stored answers. A caller who does not review in the event —
// an API key, an organizer who is not a reviewer there — is refused.
func (r *Service) MyReviewsIn(ctx context.Context, eventID string) (*model.MyEventReviews, error) {
	v := viewer.FromContext(ctx)
	var org, member string
	if v != nil && v.Person != nil {
		for _, e := range v.Person.EventRoles {
			if e.EventID == eventID && e.Role == "reviewer" {
				org, member = e.OrganizationID, e.MemberID
				break
			}
		}
	}
	if member == "" {
		return nil, errNoReviewerHere
	}
	sctx := inOrganization(ctx, org)
	as, err := r.Client.ReviewAssignment.Query().Where(reviewassignment.EventMemberID(member)).
		WithRound().WithAnswers().
		Order(ent.Asc(reviewassignment.FieldAssignedAt), ent.Asc(reviewassignment.FieldID)).All(sctx)
	if err != nil {
		return nil, err
	}
	out := &model.MyEventReviews{EventID: eventID, EventMemberID: member, Rounds: []*model.MyRoundQueue{}}
	byRound := map[string]*model.MyRoundQueue{}
	desk := r.newDesk()
	for _, a := range as {
		m, err := desk.present(sctx, a)
		if err != nil {
			return nil, err
		}
		q := byRound[a.RoundID]
		if q == nil {
			q = &model.MyRoundQueue{Round: m.Round, Criteria: m.Criteria, Items: []*model.MyQueueItem{}}
			byRound[a.RoundID] = q
			out.Rounds = append(out.Rounds, q)
		}
		switch a.Status {
		case reviewassignment.StatusPending:
			q.Pending++
		case reviewassignment.StatusCompleted:
			q.Completed++
		case reviewassignment.StatusRecused:
			q.Recused++
		}
		answers := make([]*model.ReviewAnswerRecord, 0, len(a.Edges.Answers))
		for _, an := range a.Edges.Answers {
			answers = append(answers, &model.ReviewAnswerRecord{ID: an.ID, CreatedAt: scalar.At(an.CreatedAt),
				UpdatedAt: scalar.At(an.UpdatedAt), AssignmentID: a.ID, CriterionID: an.CriterionID,
				NumericValue: an.NumericValue, TextValue: an.TextValue, OptionValue: an.OptionValue})
		}
		s := m.Submission
		q.Items = append(q.Items, &model.MyQueueItem{Assignment: toAssignment(a),
			Code: s.Code, Title: s.Title, Description: s.Description, Status: s.Status, TrackNames: s.TrackNames,
			Participants: s.Participants, Answers: answers})
	}
	slices.SortStableFunc(out.Rounds, func(x, y *model.MyRoundQueue) int { return x.Round.Position - y.Round.Position })
	return out, nil
}

// OnMyAssignmentIn runs change on the caller's own assignment id of the event eventID, in a
// transaction of the assignment's organization, and answers what change answers: the REST routes
// of an assignment's answers and recusal, sent by its reviewer (docs/agents.md). Another
// reviewer's assignment, or one of another event, answers not_found and writes nothing.
func (r *Service) OnMyAssignmentIn(ctx context.Context, eventID, id string,
	change func(ctx context.Context, eventID, id string) (*model.ReviewAssignmentRecord, error)) (*model.ReviewAssignmentRecord, error) {
	org, a, err := r.myAssignment(ctx, id)
	if err != nil {
		return nil, err
	}
	if a.Edges.Round.EventID != eventID {
		return nil, errAssignmentNotFound
	}
	var out *model.ReviewAssignmentRecord
	err = r.DB.InTx(inOrganization(ctx, org), func(ctx context.Context) error {
		var err error
		out, err = change(ctx, eventID, a.ID)
		return err
	})
	return out, err
}
