package operation

import (
	"context"
	"errors"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/browsersession"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/contactaccesslink"
	"github.com/podium/podium/ent/emailoverride"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/model"
)

// Emails organizers own (docs/emails.md): an event's wording of the emails Podium sends its
// speakers, contacts and reviewers, and the revocation of contacts' access links.

// EmailTemplates lists the emails of the event whose wording organizers may change, each with the
// event's wording or Podium's.
func (r *Service) EmailTemplates(ctx context.Context, eventID string) ([]*model.EventEmailTemplate, error) {
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	saved, err := c.EmailOverride.Query().Where(emailoverride.EventID(ev.ID)).All(ctx)
	if err != nil {
		return nil, err
	}
	byName := map[string]*ent.EmailOverride{}
	for _, o := range saved {
		byName[o.Template] = o
	}
	out := make([]*model.EventEmailTemplate, 0, len(email.Customizable))
	for _, name := range email.Customizable {
		t, err := emailTemplateOf(name, byName[name])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// emailTemplateOf is the template name with the event's wording o, or Podium's when o is nil.
func emailTemplateOf(name string, o *ent.EmailOverride) (*model.EventEmailTemplate, error) {
	t := &model.EventEmailTemplate{Template: name, Description: email.Descriptions[name],
		Placeholders: email.Placeholders[name]}
	if o != nil {
		t.Subject, t.Body, t.Customized, t.UpdatedAt, t.UpdatedBy = o.Subject, o.Body, true, &o.UpdatedAt, &o.UpdatedBy
		return t, nil
	}
	w, err := email.DefaultWording(name)
	if err != nil {
		return nil, err
	}
	t.Subject, t.Body = w.Subject, w.Body
	return t, nil
}

// checkWording refuses a wording that names a template organizers cannot reword or a placeholder
// the email does not take, naming it.
func checkWording(template string, w email.Wording) error {
	err := email.Check(template, w)
	var we *email.WordingError
	if errors.As(err, &we) {
		return apperr.Invalid("%s", we.Message).With("field", we.Field)
	}
	return err
}

// SaveEmailTemplate saves the event's wording of an email, replacing the one saved before.
func (r *Service) SaveEmailTemplate(ctx context.Context, eventID string, in model.SaveEmailTemplateInput) (*model.EventEmailTemplate, error) {
	w := email.Wording{Subject: in.Subject, Body: in.Body}
	return inTx(ctx, r, func(ctx context.Context) (*model.EventEmailTemplate, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if err := checkWording(in.Template, w); err != nil {
			return nil, err
		}
		_, _, by := crmActor(ctx)
		id, err := c.EmailOverride.Create().SetEventID(ev.ID).SetTemplate(in.Template).SetSubject(w.Subject).
			SetBody(w.Body).SetUpdatedBy(by).
			OnConflictColumns(emailoverride.FieldEventID, emailoverride.FieldTemplate).
			Update(func(u *ent.EmailOverrideUpsert) {
				u.UpdateSubject().UpdateBody().UpdateUpdatedBy().SetUpdatedAt(time.Now())
			}).ID(ctx)
		if err != nil {
			return nil, err
		}
		o, err := c.EmailOverride.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := r.emit(ctx, hookTemplateSaved, hookData{"eventId": ev.ID, "template": o.Template}); err != nil {
			return nil, err
		}
		return emailTemplateOf(o.Template, o)
	})
}

// ResetEmailTemplate deletes the event's wording of an email: Podium's applies again.
func (r *Service) ResetEmailTemplate(ctx context.Context, eventID, template string) (*model.EventEmailTemplate, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.EventEmailTemplate, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if _, ok := email.Placeholders[template]; !ok {
			return nil, checkWording(template, email.Wording{})
		}
		n, err := c.EmailOverride.Delete().Where(emailoverride.EventID(ev.ID), emailoverride.Template(template)).Exec(ctx)
		if err != nil {
			return nil, err
		}
		// Resetting a wording the event never changed changes nothing, and tells no one.
		if err := r.emitWhen(ctx, n > 0, hookTemplateReset, hookData{"eventId": ev.ID, "template": template}); err != nil {
			return nil, err
		}
		return emailTemplateOf(template, nil)
	})
}

// previewData is the sample an email is previewed with, its link leading where that email's does.
func previewData(ev *ent.Event, template string) email.Data {
	d := email.Data{EventName: ev.Name, FirstName: "Ada", SessionTitle: "The Analytical Engine",
		Message: "A note from the organizers.", When: "Tue 3 Mar 2026, 10:00–10:45 CET", Room: "Main hall",
		RoundName: "First round", Count: 3, Path: "/portal",
		Changes: []email.ChangeLine{{Title: "The Analytical Engine", Detail: "moved to Tue 3 Mar 2026, 11:00"}}}
	d.ProgrammedAs = "It is programmed as Workshop (90 min), track Engines, rather than as submitted."
	switch template {
	case email.ReviewerInvitation, email.ReviewReminder:
		d.Path = "/reviews"
	case email.CFPSubmitted:
		d.Path = "/cfp"
	case email.CFPCoSpeaker:
		d.Path, d.Message = "/cfp", "Grace Hopper"
	}
	return d
}

// toContact says the email goes to an event's contact (a speaker), so it carries an access link;
// reviewers and co-speakers invited by a submitter are no contacts (yet).
func toContact(template string) bool {
	return template != email.ReviewerInvitation && template != email.ReviewReminder && template != email.CFPCoSpeaker
}

// EmailTemplatePreview renders an email for sample data as the outbox queues it: with the event's
// brand and saved wording, or with subject and body when given (an unsaved wording, checked as on
// save). An email to a contact ends with the contact's access link, the placeholder of its token
// in place of the token minted at delivery.
func (r *Service) EmailTemplatePreview(ctx context.Context, eventID, template string, subject, body *string) (*model.EmailPreview, error) {
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	if _, ok := email.Placeholders[template]; !ok {
		return nil, checkWording(template, email.Wording{})
	}
	look, err := email.LoadLook(ctx, c, ev.ID)
	if err != nil {
		return nil, err
	}
	if subject != nil || body != nil {
		if subject == nil || body == nil {
			return nil, apperr.Invalid("Give both subject and body to preview an unsaved wording").With("field", "body")
		}
		w := email.Wording{Subject: *subject, Body: *body}
		if err := checkWording(template, w); err != nil {
			return nil, err
		}
		look = look.WithWording(ev.ID, template, w)
	}
	e := email.Email{EventID: ev.ID, Template: template, Data: previewData(ev, template)}
	if toContact(template) {
		sample := "contact"
		e.ContactID = &sample
	}
	rendered, err := r.Outbox.Render(e, look)
	if err != nil {
		return nil, err
	}
	return &model.EmailPreview{Subject: rendered.Subject, Text: rendered.Text, HTML: rendered.HTML}, nil
}

// RevokeContactAccess revokes every live access link of the contact and ends the browser
// sessions opened with them; it returns how many links it revoked. Later emails to the contact
// carry fresh links.
func (r *Service) RevokeContactAccess(ctx context.Context, contactID string) (int, error) {
	return inTx(ctx, r, func(ctx context.Context) (int, error) {
		c := r.ClientOf(ctx)
		if !pid.Plausible(contactID) {
			return 0, apperr.NotFound("Contact")
		}
		ct, err := c.Contact.Query().Where(contact.ID(contactID)).Only(ctx)
		if ent.IsNotFound(err) {
			return 0, apperr.NotFound("Contact")
		}
		if err != nil {
			return 0, err
		}
		if _, err := access.Event(ctx, c, ct.EventID); err != nil {
			return 0, err
		}
		links, err := c.ContactAccessLink.Query().Where(contactaccesslink.ContactID(ct.ID)).IDs(ctx)
		if err != nil {
			return 0, err
		}
		now := time.Now()
		n, err := c.ContactAccessLink.Update().Where(contactaccesslink.ContactID(ct.ID),
			contactaccesslink.RevokedAtIsNil()).SetRevokedAt(now).Save(ctx)
		if err != nil || len(links) == 0 {
			return n, err
		}
		if err := r.emitWhen(ctx, n > 0, hookContactAccessRevoked, hookData{"eventId": ct.EventID, "contactId": ct.ID,
			"links": n}); err != nil {
			return 0, err
		}
		// Sessions are system state (a person spans organizations): only those opened with this
		// contact's links are ended, in a statement of the system pool. Should the transaction
		// roll back, they stay ended, which errs on the safe side.
		sys := viewer.System(ctx, "access links: end the sessions opened with a contact's revoked links")
		if err := r.DB.Ent.BrowserSession.Update().Where(browsersession.AccessLinkIDIn(links...),
			browsersession.RevokedAtIsNil()).SetRevokedAt(now).Exec(sys); err != nil {
			return 0, err
		}
		return n, nil
	})
}
