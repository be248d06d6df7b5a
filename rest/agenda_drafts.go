package rest

import (
	"context"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// Agenda drafts: proposed agendas, generated before POST answers (in the background for GraphQL),
// accepted into the live schedule (docs/agenda-drafts.md).

func (a *API) listAgendaDrafts(ctx context.Context, q *request) (any, error) {
	list, err := a.ops.AgendaDrafts(ctx, q.param("eventId"))
	if err != nil || !current(ctx) {
		return list, err
	}
	out := make([]AgendaDraftCurrent, len(list))
	for i, d := range list {
		out[i] = toCurrentDraft(d)
	}
	return out, nil
}

func (a *API) generateAgendaDraft(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.GenerateAgendaDraftInput](q)
	if err != nil {
		return nil, err
	}
	s, err := a.ops.StartAgendaDraftFallback(ctx, q.param("eventId"), in)
	if err != nil {
		return nil, err
	}
	// The draft is generated once stored, as the original API does before it answers, so that the
	// answer holds the proposal (docs/agenda-drafts.md "Generating"); a provider slow or down leaves
	// it queued for its job.
	shape := currentDraftOf(ctx)
	recorded, _ := shape(s.Draft, nil)
	return afterCommit{recorded: recorded, then: func(ctx context.Context) (any, error) {
		return shape(a.ops.GenerateAgendaDraftNow(ctx, s))
	}}, nil
}

func (a *API) changeAgendaDraft(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ChangeAgendaDraftInput](q)
	if err != nil {
		return nil, err
	}
	return currentDraftOf(ctx)(a.ops.ChangeAgendaDraft(ctx, q.param("eventId"), q.param("draftId"), in))
}

func (a *API) acceptAgendaDraft(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.AcceptAgendaDraftInput](q)
	if err != nil {
		return nil, err
	}
	res, err := a.ops.AcceptAgendaDraft(ctx, q.param("eventId"), q.param("draftId"), in)
	if err != nil || !current(ctx) {
		return res, err
	}
	return AcceptedDraftCurrent{Agenda: res.Agenda, Draft: toCurrentDraft(res.Draft),
		ChangedSubmissionIDs: res.ChangedSubmissionIds}, nil
}

// AgendaDraftCurrent is an agenda draft in API version 2026-08-21. The original generates a
// draft before it answers and knows four statuses: a draft Podium has queued, or whose generation
// failed, has no proposal yet and reads as draft; the failure reason, the generator and the
// sessions left unplaced are Podium's own and left out.
type AgendaDraftCurrent struct {
	ID          string               `json:"id"`
	EventID     string               `json:"eventId"`
	Name        string               `json:"name"`
	Status      string               `json:"status" enum:"draft,generated,committed,discarded"`
	Criteria    agenda.DraftCriteria `json:"criteria"`
	Proposal    ProposalCurrent      `json:"proposal"`
	GeneratedAt *scalar.Timestamp    `json:"generatedAt"`
	CommittedAt *scalar.Timestamp    `json:"committedAt"`
	CreatedAt   scalar.Timestamp     `json:"createdAt"`
	UpdatedAt   scalar.Timestamp     `json:"updatedAt"`
}

// ProposalCurrent is a draft's proposal in API version 2026-08-21: its placements.
type ProposalCurrent struct {
	Placements []agenda.Placement `json:"placements"`
}

// AcceptedDraftCurrent is POST E/agenda/drafts/{id}/accept's answer in API version 2026-08-21.
type AcceptedDraftCurrent struct {
	Agenda               *model.Agenda      `json:"agenda"`
	Draft                AgendaDraftCurrent `json:"draft"`
	ChangedSubmissionIDs []string           `json:"changedSubmissionIds"`
}

func toCurrentDraft(d *model.AgendaDraft) AgendaDraftCurrent {
	status := string(d.Status)
	if d.Status == model.AgendaDraftStatusQueued || d.Status == model.AgendaDraftStatusFailed {
		status = string(model.AgendaDraftStatusDraft)
	}
	placements := d.Proposal.Placements
	if placements == nil {
		placements = []agenda.Placement{}
	}
	return AgendaDraftCurrent{ID: d.ID, EventID: d.EventID, Name: d.Name, Status: status, Criteria: d.Criteria,
		Proposal: ProposalCurrent{Placements: placements}, GeneratedAt: d.GeneratedAt, CommittedAt: d.CommittedAt,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

// currentDraftOf presents a draft an operation answered in the request's version.
func currentDraftOf(ctx context.Context) func(*model.AgendaDraft, error) (any, error) {
	return func(d *model.AgendaDraft, err error) (any, error) {
		if err != nil || !current(ctx) {
			return d, err
		}
		return toCurrentDraft(d), nil
	}
}
