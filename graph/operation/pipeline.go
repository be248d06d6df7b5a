package operation

import (
	"context"
	"strings"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/organizationcontact"
	"github.com/podium/podium/ent/pipelinecard"
	"github.com/podium/podium/ent/pipelinestage"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

// The pipeline (docs/crm-pipeline.md): the organization's stages and the cards that place its
// contacts in them, one card per contact. Every card entering a stage — created there or moved
// there — writes a stage history row in the same transaction, with the stage names and the
// actor's name as they are then, so the history still reads after a stage is renamed or deleted.

// codeInvalidPipelineMove answers a move to the card's own stage (409).
const codeInvalidPipelineMove = "invalid_pipeline_move"

var (
	errStageNotFound = apperr.NotFound("CRM stage")
	errCardNotFound  = apperr.NotFound("CRM card")
)

func toCrmPipelineStage(s *ent.PipelineStage) *model.CrmPipelineStage {
	return &model.CrmPipelineStage{ID: s.ID, CreatedAt: scalar.At(s.CreatedAt), UpdatedAt: scalar.At(s.UpdatedAt),
		OrganizationID: s.OrganizationID, Name: s.Name, SemanticStatus: model.CrmSemanticStatus(s.SemanticStatus),
		Position: s.Position}
}

// recordStageEntry writes the history row of card entering to, from from (nil for a new card).
func recordStageEntry(ctx context.Context, c *ent.Client, cardID string, from, to *ent.PipelineStage) error {
	userID, keyID, name := crmActor(ctx)
	h := c.StageHistory.Create().SetCardID(cardID).SetToStageID(to.ID).SetToStageName(to.Name).
		SetNillableActorUserID(userID).SetNillableActorAPIKeyID(keyID).SetActorName(name)
	if from != nil {
		h.SetFromStageID(from.ID).SetFromStageName(from.Name)
	}
	return h.Exec(ctx)
}

// Pipeline answers the board: stages by position (then name and id), each with its cards by the
// contact's last name, first name and id. Three statements, whatever the number of cards.
func (r *Service) Pipeline(ctx context.Context) (*model.CrmPipelineBoard, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	c := r.ClientOf(ctx)
	stages, err := c.PipelineStage.Query().Order(ent.Asc(pipelinestage.FieldPosition), ent.Asc(pipelinestage.FieldName),
		ent.Asc(pipelinestage.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	cards, err := c.PipelineCard.Query().WithContact().Order(
		pipelinecard.ByContactField(organizationcontact.FieldLastName),
		pipelinecard.ByContactField(organizationcontact.FieldFirstName),
		pipelinecard.ByID()).All(ctx)
	if err != nil {
		return nil, err
	}
	board := &model.CrmPipelineBoard{Columns: make([]*model.CrmPipelineColumn, len(stages))}
	column := make(map[string]*model.CrmPipelineColumn, len(stages))
	for i, s := range stages {
		board.Columns[i] = &model.CrmPipelineColumn{Stage: toCrmPipelineStage(s), Cards: []*model.CrmPipelineBoardCard{}}
		column[s.ID] = board.Columns[i]
	}
	for _, card := range cards {
		if col := column[card.StageID]; col != nil && card.Edges.Contact != nil {
			col.Cards = append(col.Cards, &model.CrmPipelineBoardCard{Card: toCrmContactCard(card),
				Contact: toCrmContact(card.Edges.Contact)})
		}
	}
	return board, nil
}

// SavePipelineStage creates a stage (id null) or updates one of the organization's.
func (r *Service) SavePipelineStage(ctx context.Context, in model.SavePipelineStageInput) (*model.CrmPipelineStage, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmPipelineStage, error) {
		if _, err := access.Viewer(ctx); err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		name, status := strings.TrimSpace(in.Name), pipelinestage.SemanticStatus(in.SemanticStatus)
		if in.ID == nil {
			s, err := c.PipelineStage.Create().SetName(name).SetSemanticStatus(status).SetPosition(in.Position).Save(ctx)
			return stageSaved(s, err)
		}
		s, err := c.PipelineStage.UpdateOneID(*in.ID).SetName(name).SetSemanticStatus(status).SetPosition(in.Position).Save(ctx)
		if ent.IsNotFound(err) {
			return nil, errStageNotFound
		}
		return stageSaved(s, err)
	})
}

// stageSaved presents a saved stage; a name the organization already uses is a conflict (the
// original answered 500).
func stageSaved(s *ent.PipelineStage, err error) (*model.CrmPipelineStage, error) {
	if ent.IsConstraintError(err) {
		return nil, apperr.Conflict(apperr.CodeConflict, "The pipeline already has a stage with this name")
	}
	if err != nil {
		return nil, err
	}
	return toCrmPipelineStage(s), nil
}

// ReorderPipelineStages gives the listed stages positions 1..n in one statement. An id listed
// twice gets the position of its last mention, as the original's one update per id left it;
// ids that are not the organization's stages are ignored.
func (r *Service) ReorderPipelineStages(ctx context.Context, in model.ReorderPipelineStagesInput) (bool, error) {
	return inTx(ctx, r, func(ctx context.Context) (bool, error) {
		v, err := access.Viewer(ctx)
		if err != nil {
			return false, err
		}
		positions := make(map[string]int, len(in.StageIds))
		for i, id := range in.StageIds {
			positions[id] = i + 1
		}
		ids, pos := make([]string, 0, len(positions)), make([]int, 0, len(positions))
		for id, p := range positions {
			ids, pos = append(ids, id), append(pos, p)
		}
		if len(ids) == 0 {
			return true, nil
		}
		_, err = r.sql(ctx).Exec(ctx, `UPDATE crm_pipeline_stages s SET position = o.position, updated_at = now()
FROM unnest($2::text[], $3::bigint[]) AS o(id, position)
WHERE s.id = o.id AND s.organization_id = $1`, v.OrganizationID, ids, pos)
		return err == nil, err
	})
}

// DeletePipelineStage deletes a stage that holds no card. The stage is locked first, so a card
// placed in it concurrently either is seen here (409) or fails on the missing stage.
func (r *Service) DeletePipelineStage(ctx context.Context, id string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		if _, err := access.Viewer(ctx); err != nil {
			return "", err
		}
		c := r.ClientOf(ctx)
		if _, err := c.PipelineStage.Query().Where(pipelinestage.ID(id)).ForUpdate().Only(ctx); ent.IsNotFound(err) {
			return "", errStageNotFound
		} else if err != nil {
			return "", err
		}
		if used, err := c.PipelineCard.Query().Where(pipelinecard.StageID(id)).Exist(ctx); err != nil {
			return "", err
		} else if used {
			return "", apperr.Conflict(apperr.CodeResourceInUse, "Move this stage's contacts before deleting it")
		}
		return id, c.PipelineStage.DeleteOneID(id).Exec(ctx)
	})
}

// AddPipelineCard places a contact in a stage: a new card with its history row, or — the
// contact's one card — moved there with its note replaced, with a history row only when the
// stage changed.
func (r *Service) AddPipelineCard(ctx context.Context, in model.AddPipelineCardInput) (*model.CrmContactCard, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmContactCard, error) {
		v, err := access.Viewer(ctx)
		if err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		if _, err := crmContactOf(ctx, c, in.OrganizationContactID); err != nil {
			return nil, err
		}
		to, err := c.PipelineStage.Get(ctx, in.StageID)
		if ent.IsNotFound(err) {
			return nil, errStageNotFound
		} else if err != nil {
			return nil, err
		}
		card, err := c.PipelineCard.Query().Where(pipelinecard.OrganizationContactID(in.OrganizationContactID)).
			WithStage().ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			var owner *string
			if v.Person != nil {
				owner = &v.Person.UserID
			}
			card, err = c.PipelineCard.Create().SetOrganizationContactID(in.OrganizationContactID).SetStageID(to.ID).
				SetNillableNote(in.Note).SetNillableOwnerUserID(owner).Save(ctx)
			if err != nil {
				return nil, err
			}
			return toCrmContactCard(card), recordStageEntry(ctx, c, card.ID, nil, to)
		} else if err != nil {
			return nil, err
		}
		from := card.Edges.Stage
		u := card.Update().SetStageID(to.ID)
		if in.Note != nil {
			u.SetNote(*in.Note)
		} else {
			u.ClearNote()
		}
		if card, err = u.Save(ctx); err != nil {
			return nil, err
		}
		if from != nil && from.ID == to.ID {
			return toCrmContactCard(card), nil
		}
		return toCrmContactCard(card), recordStageEntry(ctx, c, card.ID, from, to)
	})
}

// MovePipelineCard moves a card to another stage of the organization's pipeline, with its
// history row; the note is kept.
func (r *Service) MovePipelineCard(ctx context.Context, cardID string, in model.MovePipelineCardInput) (*model.CrmContactCard, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmContactCard, error) {
		if _, err := access.Viewer(ctx); err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		card, err := c.PipelineCard.Query().Where(pipelinecard.ID(cardID)).WithStage().ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return nil, errCardNotFound
		} else if err != nil {
			return nil, err
		}
		to, err := c.PipelineStage.Get(ctx, in.ToStageID)
		if ent.IsNotFound(err) {
			return nil, errStageNotFound
		} else if err != nil {
			return nil, err
		}
		if to.ID == card.StageID {
			return nil, apperr.Conflict(codeInvalidPipelineMove, "Choose a different stage in this pipeline")
		}
		from := card.Edges.Stage
		card, err = card.Update().SetStageID(to.ID).Save(ctx)
		if err != nil {
			return nil, err
		}
		return toCrmContactCard(card), recordStageEntry(ctx, c, card.ID, from, to)
	})
}
