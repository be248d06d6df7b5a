package operation

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/organizationcontact"
	"github.com/podium/podium/ent/organizationcontactevent"
	"github.com/podium/podium/ent/organizationcontactnote"
	"github.com/podium/podium/ent/organizationcontacttag"
	"github.com/podium/podium/ent/organizationtag"
	"github.com/podium/podium/ent/pipelinecard"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/stagehistory"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/submissionparticipant"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// The organization's contact book (docs/crm.md). Every operation is scoped to the caller's
// organization by the tenant filter and row-level security: a contact, tag or event of another
// organization is not found, like one that does not exist.

var (
	errCrmContactNotFound = apperr.NotFound("CRM contact")
	errCrmEmailTaken      = apperr.Conflict(apperr.CodeConflict, "A contact with this email already exists")
)

// crmContactOf loads a contact of the organization, or answers not_found.
func crmContactOf(ctx context.Context, c *ent.Client, id string) (*ent.OrganizationContact, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	if !pid.Plausible(id) {
		return nil, errCrmContactNotFound
	}
	ct, err := c.OrganizationContact.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, errCrmContactNotFound
	}
	return ct, err
}

// crmEmail trims and lower-cases an address and requires an @ in it: the original API's only
// check on create, applied here to updates and imports too.
func crmEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if !strings.Contains(s, "@") {
		return "", apperr.Invalid("Enter a valid email")
	}
	return s, nil
}

// crmEmailFree answers 409 when another contact of the organization has addr.
func crmEmailFree(ctx context.Context, c *ent.Client, addr, except string) error {
	q := c.OrganizationContact.Query().Where(organizationcontact.Email(addr))
	if except != "" {
		q = q.Where(organizationcontact.IDNEQ(except))
	}
	taken, err := q.Exist(ctx)
	if err != nil {
		return err
	}
	if taken {
		return errCrmEmailTaken
	}
	return nil
}

// crmActorNameMax is the length of an actor's name as notes and stage history keep it (the
// schema's limit): a longer name or email is cut, so that it cannot refuse the write.
const crmActorNameMax = 300

// crmActor is who writes a note or moves a card: a signed-in person (their user id, and their name
// or else their email) or an API key (its id and "API key: <name>"), the name cut to
// crmActorNameMax characters.
func crmActor(ctx context.Context) (userID, keyID *string, name string) {
	userID, keyID, name = crmActorOf(viewer.FromContext(ctx))
	return userID, keyID, truncateRunes(name, crmActorNameMax)
}

// crmActorOf is crmActor before the cut.
func crmActorOf(v *viewer.Viewer) (userID, keyID *string, name string) {
	switch {
	case v == nil:
		return nil, nil, "Podium"
	case v.Person != nil:
		id, name := v.Person.UserID, v.Person.Name
		if strings.TrimSpace(name) == "" {
			name = v.Person.Email
		}
		if v.Client != nil {
			name += " via " + v.Client.Name
		}
		return &id, nil, name
	case v.APIKeyID != "":
		id := v.APIKeyID
		return nil, &id, "API key: " + v.APIKeyName
	default:
		return nil, nil, "Podium"
	}
}

func (r *Service) CreateContact(ctx context.Context, in model.ContactInput) (*model.CrmContact, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmContact, error) {
		if _, err := access.Viewer(ctx); err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		addr, err := crmEmail(in.Email)
		if err != nil {
			return nil, err
		}
		if err := crmEmailFree(ctx, c, addr, ""); err != nil {
			return nil, err
		}
		ct, err := c.OrganizationContact.Create().SetFirstName(strings.TrimSpace(in.FirstName)).
			SetLastName(strings.TrimSpace(in.LastName)).SetEmail(addr).SetNillableTitle(in.Title).
			SetNillableCompany(in.Company).SetNillableBio(in.Bio).SetNillableLinkedinURL(in.LinkedinURL).
			SetNillableTwitterURL(in.TwitterURL).SetNillableFacebookURL(in.FacebookURL).
			SetNillableWebsiteURL(in.WebsiteURL).SetNillableHeadshotURL(in.HeadshotURL).
			SetCustom(map[string]any{}).Save(ctx)
		if err != nil {
			return nil, err
		}
		return toCrmContact(ct), nil
	})
}

// UpdateContact replaces the contact's fields (the original API's PATCH is a full replacement):
// nulls and left-out socials clear. custom is kept (the original wiped it).
func (r *Service) UpdateContact(ctx context.Context, id string, in model.ContactInput) (*model.CrmContact, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmContact, error) {
		c := r.ClientOf(ctx)
		ct, err := crmContactOf(ctx, c, id)
		if err != nil {
			return nil, err
		}
		addr, err := crmEmail(in.Email)
		if err != nil {
			return nil, err
		}
		if err := crmEmailFree(ctx, c, addr, ct.ID); err != nil {
			return nil, err
		}
		u := ct.Update().SetFirstName(strings.TrimSpace(in.FirstName)).SetLastName(strings.TrimSpace(in.LastName)).
			SetEmail(addr)
		setOrClear(omit(in.Title), u.SetTitle, u.ClearTitle)
		setOrClear(omit(in.Company), u.SetCompany, u.ClearCompany)
		setOrClear(omit(in.Bio), u.SetBio, u.ClearBio)
		setOrClear(omit(in.LinkedinURL), u.SetLinkedinURL, u.ClearLinkedinURL)
		setOrClear(omit(in.TwitterURL), u.SetTwitterURL, u.ClearTwitterURL)
		setOrClear(omit(in.FacebookURL), u.SetFacebookURL, u.ClearFacebookURL)
		setOrClear(omit(in.WebsiteURL), u.SetWebsiteURL, u.ClearWebsiteURL)
		setOrClear(omit(in.HeadshotURL), u.SetHeadshotURL, u.ClearHeadshotURL)
		ct, err = u.Save(ctx)
		if err != nil {
			return nil, err
		}
		return toCrmContact(ct), nil
	})
}

// ContactDetail is getContact: the contact, its tags by name, its event links newest first with
// their event and the event contact's submissions, its notes newest first, its card and the
// card's history newest first. Names of authors, actors and stages are read from the rows, as
// they were written.
func (r *Service) ContactDetail(ctx context.Context, id string) (*model.CrmContactDetail, error) {
	c := r.ClientOf(ctx)
	ct, err := crmContactOf(ctx, c, id)
	if err != nil {
		return nil, err
	}
	d := &model.CrmContactDetail{Contact: toCrmContact(ct)}
	tags, err := c.OrganizationTag.Query().
		Where(organizationtag.HasContactLinksWith(organizationcontacttag.OrganizationContactID(ct.ID))).
		Order(ent.Asc(organizationtag.FieldName), ent.Asc(organizationtag.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	d.Tags = mapAll(tags, toCrmTag)
	if d.Events, err = r.contactEvents(ctx, c, ct.ID); err != nil {
		return nil, err
	}
	notes, err := c.OrganizationContactNote.Query().Where(organizationcontactnote.OrganizationContactID(ct.ID)).
		Order(ent.Desc(organizationcontactnote.FieldCreatedAt), ent.Desc(organizationcontactnote.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	d.Notes = mapAll(notes, func(n *ent.OrganizationContactNote) *model.CrmNoteEntry {
		return &model.CrmNoteEntry{Note: toCrmContactNote(n), AuthorName: n.AuthorName}
	})
	d.StageHistory = []*model.CrmStageHistoryEntry{}
	card, err := c.PipelineCard.Query().Where(pipelinecard.OrganizationContactID(ct.ID)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return d, nil
	case err != nil:
		return nil, err
	}
	d.Card = toCrmContactCard(card)
	history, err := c.StageHistory.Query().Where(stagehistory.CardID(card.ID)).
		Order(ent.Desc(stagehistory.FieldCreatedAt), ent.Desc(stagehistory.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	d.StageHistory = mapAll(history, toCrmStageHistoryEntry)
	return d, nil
}

// contactEvents reads a contact's event links, newest first, with their events and every
// submission (any status) of the linked event contacts, by title: three statements.
func (r *Service) contactEvents(ctx context.Context, c *ent.Client, contactID string) ([]*model.CrmContactEventEntry, error) {
	links, err := c.OrganizationContactEvent.Query().
		Where(organizationcontactevent.OrganizationContactID(contactID)).WithEvent().
		Order(ent.Desc(organizationcontactevent.FieldCreatedAt), ent.Desc(organizationcontactevent.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	eventContacts := mapAll(links, func(l *ent.OrganizationContactEvent) string { return l.ContactID })
	parts, err := c.SubmissionParticipant.Query().Where(submissionparticipant.ContactIDIn(eventContacts...)).
		WithSubmission(func(q *ent.SubmissionQuery) { q.Order(ent.Asc(submission.FieldTitle), ent.Asc(submission.FieldID)) }).
		All(ctx)
	if err != nil {
		return nil, err
	}
	sessions := map[string][]*ent.Submission{}
	for _, p := range parts {
		if s := p.Edges.Submission; s != nil {
			sessions[p.ContactID] = append(sessions[p.ContactID], s)
		}
	}
	return mapAll(links, func(l *ent.OrganizationContactEvent) *model.CrmContactEventEntry {
		e := &model.CrmContactEventEntry{Link: toCrmContactEvent(l), Sessions: sessionRefs(sessions[l.ContactID])}
		if ev := l.Edges.Event; ev != nil {
			e.Name, e.Slug = ev.Name, ev.Slug
		}
		return e
	}), nil
}

// sessionRefs names submissions by title, each once.
func sessionRefs(subs []*ent.Submission) []*model.CrmSessionRef {
	out := []*model.CrmSessionRef{}
	seen := map[string]bool{}
	for _, s := range subs {
		if !seen[s.ID] {
			seen[s.ID] = true
			out = append(out, &model.CrmSessionRef{ID: s.ID, Code: s.Code, Title: s.Title})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Title != out[j].Title {
			return out[i].Title < out[j].Title
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// AddContactTag puts the tag named in.Name on the contact, creating the tag when the organization
// has none of that name (names are case-sensitive); an existing tag has its updatedAt bumped.
// Repeating it changes nothing more.
func (r *Service) AddContactTag(ctx context.Context, contactID string, in model.AddContactTagInput) (*model.CrmTag, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmTag, error) {
		c := r.ClientOf(ctx)
		ct, err := crmContactOf(ctx, c, contactID)
		if err != nil {
			return nil, err
		}
		if err := organizationtag.NameValidator(in.Name); err != nil {
			return nil, apperr.Invalid("%s", err.Error())
		}
		tagID, err := c.OrganizationTag.Create().SetName(in.Name).
			OnConflictColumns(organizationtag.FieldOrganizationID, organizationtag.FieldName).
			Update(func(u *ent.OrganizationTagUpsert) { u.SetUpdatedAt(time.Now()) }).ID(ctx)
		if err != nil {
			return nil, err
		}
		tagged, err := c.OrganizationContactTag.Query().Where(organizationcontacttag.OrganizationContactID(ct.ID),
			organizationcontacttag.TagID(tagID)).Exist(ctx)
		if err != nil {
			return nil, err
		}
		if !tagged {
			if err := c.OrganizationContactTag.Create().SetOrganizationContactID(ct.ID).SetTagID(tagID).Exec(ctx); err != nil {
				return nil, err
			}
		}
		tag, err := c.OrganizationTag.Get(ctx, tagID)
		if err != nil {
			return nil, err
		}
		return toCrmTag(tag), nil
	})
}

// RemoveContactTag takes the tag off the contact; the tag stays. A tag the contact does not
// carry is no error (the original answers 204 alike), but the contact must be the organization's.
func (r *Service) RemoveContactTag(ctx context.Context, contactID, tagID string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		c := r.ClientOf(ctx)
		ct, err := crmContactOf(ctx, c, contactID)
		if err != nil {
			return "", err
		}
		_, err = c.OrganizationContactTag.Delete().Where(organizationcontacttag.OrganizationContactID(ct.ID),
			organizationcontacttag.TagID(tagID)).Exec(ctx)
		return tagID, err
	})
}

// AddContactNote adds a note, recording its author as they are now.
func (r *Service) AddContactNote(ctx context.Context, contactID string, in model.AddContactNoteInput) (*model.CrmContactNote, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmContactNote, error) {
		c := r.ClientOf(ctx)
		ct, err := crmContactOf(ctx, c, contactID)
		if err != nil {
			return nil, err
		}
		userID, keyID, name := crmActor(ctx)
		n, err := c.OrganizationContactNote.Create().SetOrganizationContactID(ct.ID).SetBody(in.Body).
			SetNillableAuthorUserID(userID).SetNillableAuthorAPIKeyID(keyID).SetAuthorName(name).Save(ctx)
		if err != nil {
			return nil, err
		}
		return toCrmContactNote(n), nil
	})
}

// AddContactToEvent copies the contact into the event as a speaker or organizer contact and links
// them. An event contact with the same email gets only its blank fields filled (and the
// requested participation); custom keys with a value overwrite. The link is created or reset to
// invited.
func (r *Service) AddContactToEvent(ctx context.Context, contactID string, in model.AddContactToEventInput) (*model.CrmContactEvent, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmContactEvent, error) {
		c := r.ClientOf(ctx)
		ct, err := crmContactOf(ctx, c, contactID)
		if err != nil {
			return nil, err
		}
		if in.Participation == contact.ParticipationSubmitter {
			// A submitter is someone who sent a proposal; organizers add speakers or organizers.
			return nil, apperr.Invalid("Participation must be speaker or organizer")
		}
		if !pid.Plausible(in.EventID) {
			return nil, apperr.NotFound("Event")
		}
		ev, err := c.Event.Query().Where(event.ID(in.EventID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("Event")
		} else if err != nil {
			return nil, err
		}
		ec, err := r.copyToEvent(ctx, c, ct, ev.ID, in.Participation)
		if err != nil {
			return nil, err
		}
		link, err := c.OrganizationContactEvent.Query().Where(organizationcontactevent.OrganizationContactID(ct.ID),
			organizationcontactevent.EventID(ev.ID)).Only(ctx)
		switch {
		case ent.IsNotFound(err):
			link, err = c.OrganizationContactEvent.Create().SetOrganizationContactID(ct.ID).SetEventID(ev.ID).
				SetContactID(ec.ID).SetRole(string(in.Participation)).SetStatus("invited").Save(ctx)
		case err == nil:
			link, err = link.Update().SetContactID(ec.ID).SetRole(string(in.Participation)).SetStatus("invited").Save(ctx)
		}
		if err != nil {
			return nil, err
		}
		return toCrmContactEvent(link), nil
	})
}

// copyToEvent creates the event contact of ct in the event, or fills the blanks of the one with
// its email.
func (r *Service) copyToEvent(ctx context.Context, c *ent.Client, ct *ent.OrganizationContact, eventID string,
	participation contact.Participation) (*ent.Contact, error) {
	existing, err := c.Contact.Query().Where(contact.EventID(eventID), contact.Email(ct.Email)).Only(ctx)
	if ent.IsNotFound(err) {
		custom := map[string]any{}
		for k, v := range ct.Custom {
			custom[k] = v
		}
		return c.Contact.Create().SetEventID(eventID).SetEmail(ct.Email).SetParticipation(participation).
			SetFirstName(ct.FirstName).SetLastName(ct.LastName).SetNillableTitle(ct.Title).
			SetNillableCompany(ct.Company).SetNillableBio(ct.Bio).SetNillableHeadshotURL(ct.HeadshotURL).
			SetNillableLinkedinURL(ct.LinkedinURL).SetNillableTwitterURL(ct.TwitterURL).
			SetNillableFacebookURL(ct.FacebookURL).SetNillableWebsiteURL(ct.WebsiteURL).SetCustom(custom).Save(ctx)
	}
	if err != nil {
		return nil, err
	}
	u := existing.Update().SetParticipation(participation)
	fill := func(have string, incoming *string, set func(string) *ent.ContactUpdateOne) {
		if isBlank(&have) && !isBlank(incoming) {
			set(*incoming)
		}
	}
	fillPtr := func(have, incoming *string, set func(string) *ent.ContactUpdateOne) {
		if isBlank(have) && !isBlank(incoming) {
			set(*incoming)
		}
	}
	fill(existing.FirstName, &ct.FirstName, u.SetFirstName)
	fill(existing.LastName, &ct.LastName, u.SetLastName)
	fillPtr(existing.Title, ct.Title, u.SetTitle)
	fillPtr(existing.Company, ct.Company, u.SetCompany)
	fillPtr(existing.Bio, ct.Bio, u.SetBio)
	fillPtr(existing.HeadshotURL, ct.HeadshotURL, u.SetHeadshotURL)
	fillPtr(existing.LinkedinURL, ct.LinkedinURL, u.SetLinkedinURL)
	fillPtr(existing.TwitterURL, ct.TwitterURL, u.SetTwitterURL)
	fillPtr(existing.FacebookURL, ct.FacebookURL, u.SetFacebookURL)
	fillPtr(existing.WebsiteURL, ct.WebsiteURL, u.SetWebsiteURL)
	custom := map[string]any{}
	for k, v := range existing.Custom {
		custom[k] = v
	}
	for k, v := range ct.Custom {
		if !blankValue(v) {
			custom[k] = v
		}
	}
	return u.SetCustom(custom).Save(ctx)
}

// isBlank is the fill-blanks rule's blank: null, or only whitespace.
func isBlank(s *string) bool { return s == nil || strings.TrimSpace(*s) == "" }

// blankValue is blank for a custom value: null, a whitespace-only string or an empty list.
func blankValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	}
	return false
}
