package operation

import (
	"context"
	"maps"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/organizationcontactevent"
	"github.com/podium/podium/ent/organizationcontactnote"
	"github.com/podium/podium/ent/organizationcontacttag"
	"github.com/podium/podium/ent/pipelinecard"
	"github.com/podium/podium/ent/stagehistory"
	"github.com/podium/podium/graph/apperr"
)

// codeDuplicateMerge is the original API's conflict code for merging a contact into itself.
const codeDuplicateMerge = "duplicate_merge"

// MergeContacts merges the duplicate into the primary, in the caller's transaction:
//   - the primary keeps its id, names and email; each of its other fields that is null takes the
//     duplicate's; custom is the duplicate's overlaid with the primary's (the primary wins a key);
//   - the duplicate's tags and event links are copied to the primary, except tags it has and
//     events it is linked to already (its own link wins); notes move to the primary as they are;
//   - a card of the duplicate alone moves to the primary; when both have one, the duplicate's
//     history moves to the primary's card (whose stage and note win) and the duplicate's card
//     goes;
//   - the duplicate is deleted, with what was left of its links.
func (r *Service) MergeContacts(ctx context.Context, in model.MergeContactsInput) (*model.CrmContact, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmContact, error) {
		if in.PrimaryID == in.DuplicateID {
			return nil, apperr.Conflict(codeDuplicateMerge, "Choose two contacts in the same organization")
		}
		c := r.ClientOf(ctx)
		primary, err := crmContactOf(ctx, c, in.PrimaryID)
		if err != nil {
			return nil, err
		}
		dup, err := crmContactOf(ctx, c, in.DuplicateID)
		if err != nil {
			return nil, err
		}
		if err := mergeTags(ctx, c, primary.ID, dup.ID); err != nil {
			return nil, err
		}
		if err := mergeEventLinks(ctx, c, primary.ID, dup.ID); err != nil {
			return nil, err
		}
		if err := c.OrganizationContactNote.Update().Where(organizationcontactnote.OrganizationContactID(dup.ID)).
			SetOrganizationContactID(primary.ID).Exec(ctx); err != nil {
			return nil, err
		}
		if err := mergeCards(ctx, c, primary.ID, dup.ID); err != nil {
			return nil, err
		}
		custom := maps.Clone(dup.Custom)
		if custom == nil {
			custom = map[string]any{}
		}
		maps.Copy(custom, primary.Custom)
		u := primary.Update().SetCustom(custom)
		for _, f := range []struct {
			have, theirs *string
			set          func(string) *ent.OrganizationContactUpdateOne
		}{
			{primary.Title, dup.Title, u.SetTitle}, {primary.Company, dup.Company, u.SetCompany},
			{primary.Bio, dup.Bio, u.SetBio}, {primary.LinkedinURL, dup.LinkedinURL, u.SetLinkedinURL},
			{primary.TwitterURL, dup.TwitterURL, u.SetTwitterURL}, {primary.FacebookURL, dup.FacebookURL, u.SetFacebookURL},
			{primary.WebsiteURL, dup.WebsiteURL, u.SetWebsiteURL}, {primary.HeadshotURL, dup.HeadshotURL, u.SetHeadshotURL},
		} {
			if f.have == nil && f.theirs != nil {
				f.set(*f.theirs)
			}
		}
		if err := c.OrganizationContact.DeleteOneID(dup.ID).Exec(ctx); err != nil {
			return nil, err
		}
		merged, err := u.Save(ctx)
		if err != nil {
			return nil, err
		}
		return toCrmContact(merged), nil
	})
}

// mergeTags puts the duplicate's tags on the primary, skipping those it has.
func mergeTags(ctx context.Context, c *ent.Client, primary, dup string) error {
	links, err := c.OrganizationContactTag.Query().
		Where(organizationcontacttag.OrganizationContactIDIn(primary, dup)).All(ctx)
	if err != nil {
		return err
	}
	has := map[string]bool{}
	for _, l := range links {
		if l.OrganizationContactID == primary {
			has[l.TagID] = true
		}
	}
	var creates []*ent.OrganizationContactTagCreate
	for _, l := range links {
		if l.OrganizationContactID == dup && !has[l.TagID] {
			has[l.TagID] = true
			creates = append(creates, c.OrganizationContactTag.Create().SetOrganizationContactID(primary).SetTagID(l.TagID))
		}
	}
	if len(creates) == 0 {
		return nil
	}
	return c.OrganizationContactTag.CreateBulk(creates...).Exec(ctx)
}

// mergeEventLinks copies the duplicate's event links to the primary, for events the primary is
// not linked to.
func mergeEventLinks(ctx context.Context, c *ent.Client, primary, dup string) error {
	links, err := c.OrganizationContactEvent.Query().
		Where(organizationcontactevent.OrganizationContactIDIn(primary, dup)).
		Order(ent.Asc(organizationcontactevent.FieldCreatedAt), ent.Asc(organizationcontactevent.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	has := map[string]bool{}
	for _, l := range links {
		if l.OrganizationContactID == primary {
			has[l.EventID] = true
		}
	}
	var creates []*ent.OrganizationContactEventCreate
	for _, l := range links {
		if l.OrganizationContactID == dup && !has[l.EventID] {
			has[l.EventID] = true
			creates = append(creates, c.OrganizationContactEvent.Create().SetOrganizationContactID(primary).
				SetContactID(l.ContactID).SetEventID(l.EventID).SetRole(l.Role).SetStatus(l.Status))
		}
	}
	if len(creates) == 0 {
		return nil
	}
	return c.OrganizationContactEvent.CreateBulk(creates...).Exec(ctx)
}

// mergeCards moves the duplicate's card, or its history, to the primary.
func mergeCards(ctx context.Context, c *ent.Client, primary, dup string) error {
	cards, err := c.PipelineCard.Query().Where(pipelinecard.OrganizationContactIDIn(primary, dup)).All(ctx)
	if err != nil {
		return err
	}
	var mine, theirs *ent.PipelineCard
	for _, card := range cards {
		if card.OrganizationContactID == primary {
			mine = card
		} else {
			theirs = card
		}
	}
	switch {
	case theirs == nil:
		return nil
	case mine == nil:
		return theirs.Update().SetOrganizationContactID(primary).Exec(ctx)
	}
	if err := c.StageHistory.Update().Where(stagehistory.CardID(theirs.ID)).SetCardID(mine.ID).Exec(ctx); err != nil {
		return err
	}
	return c.PipelineCard.DeleteOneID(theirs.ID).Exec(ctx)
}
