package operation

import (
	"github.com/podium/podium/ent"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// Conversions from the contact book's rows to its read models (graph/model/crm.go).

func toCrmContact(c *ent.OrganizationContact) *model.CrmContact {
	custom := c.Custom
	if custom == nil {
		custom = map[string]any{}
	}
	return &model.CrmContact{ID: c.ID, CreatedAt: scalar.At(c.CreatedAt), UpdatedAt: scalar.At(c.UpdatedAt),
		OrganizationID: c.OrganizationID, FirstName: c.FirstName, LastName: c.LastName, Email: c.Email,
		Title: c.Title, Company: c.Company, Bio: c.Bio, LinkedinURL: c.LinkedinURL, TwitterURL: c.TwitterURL,
		FacebookURL: c.FacebookURL, WebsiteURL: c.WebsiteURL, HeadshotURL: c.HeadshotURL, Custom: custom}
}

func toCrmTag(t *ent.OrganizationTag) *model.CrmTag {
	return &model.CrmTag{ID: t.ID, CreatedAt: scalar.At(t.CreatedAt), UpdatedAt: scalar.At(t.UpdatedAt),
		OrganizationID: t.OrganizationID, Name: t.Name}
}

func toCrmContactEvent(l *ent.OrganizationContactEvent) *model.CrmContactEvent {
	return &model.CrmContactEvent{ID: l.ID, CreatedAt: scalar.At(l.CreatedAt), UpdatedAt: scalar.At(l.UpdatedAt),
		OrganizationContactID: l.OrganizationContactID, ContactID: l.ContactID, EventID: l.EventID,
		Role: l.Role, Status: l.Status}
}

func toCrmContactNote(n *ent.OrganizationContactNote) *model.CrmContactNote {
	return &model.CrmContactNote{ID: n.ID, OrganizationContactID: n.OrganizationContactID, Body: n.Body,
		AuthorUserID: n.AuthorUserID, AuthorAPIKeyID: n.AuthorAPIKeyID, CreatedAt: scalar.At(n.CreatedAt)}
}

func toCrmContactCard(c *ent.PipelineCard) *model.CrmContactCard {
	if c == nil {
		return nil
	}
	return &model.CrmContactCard{ID: c.ID, CreatedAt: scalar.At(c.CreatedAt), UpdatedAt: scalar.At(c.UpdatedAt),
		OrganizationContactID: c.OrganizationContactID, StageID: c.StageID, OwnerUserID: c.OwnerUserID, Note: c.Note}
}

func toCrmStageHistoryEntry(h *ent.StageHistory) *model.CrmStageHistoryEntry {
	return &model.CrmStageHistoryEntry{
		History: &model.CrmStageChange{ID: h.ID, CardID: h.CardID, FromStageID: h.FromStageID, ToStageID: h.ToStageID,
			ActorUserID: h.ActorUserID, ActorAPIKeyID: h.ActorAPIKeyID, CreatedAt: scalar.At(h.CreatedAt)},
		FromStageName: h.FromStageName, ToStageName: h.ToStageName, ActorName: h.ActorName}
}
