package operation

import (
	"context"
	"slices"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/deliverableassignment"
	"github.com/podium/podium/ent/form"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/submissionparticipant"
	"github.com/podium/podium/ent/taskassignment"
	"github.com/podium/podium/graph/apperr"
)

// A speaker's own records (docs/people.md). A speaker is an event contact whose email address
// is the signed-in person's; they have no organization scope of their own, so each read acts in
// the organization of one of their contacts and reads only what hangs off that contact: their
// sessions and submissions (those they take part in), the tasks and deliverables that are the
// session's or theirs (never a co-speaker's), the published resources whose audience includes
// them and the published agenda. Anything else by id answers as an id that does not exist.

var (
	errSpeakerSessionNotFound = apperr.NotFound("Session")
	errSpeakerContactNotFound = apperr.NotFound("Contact")
)

// speakingOf returns the caller's contacts, the events they speak at; none for an API key.
func speakingOf(ctx context.Context) []viewer.Contact {
	if v := viewer.FromContext(ctx); v != nil && v.Person != nil {
		return v.Person.Contacts
	}
	return nil
}

// MySpeaking lists every event where the caller speaks, with what is theirs there.
func (r *Service) MySpeaking(ctx context.Context) ([]*model.SpeakerEvent, error) {
	out := []*model.SpeakerEvent{}
	for _, c := range speakingOf(ctx) {
		sctx := inOrganization(ctx, c.OrganizationID)
		ct, err := r.OwnContact(sctx, c.ContactID)
		if err != nil {
			return nil, err
		}
		ev, err := r.Client.Event.Get(sctx, ct.EventID)
		if err != nil {
			return nil, err
		}
		sessions, err := r.speakerSessions(sctx, ct, nil)
		if err != nil {
			return nil, err
		}
		res, err := r.ContactResources(sctx, ct)
		if err != nil {
			return nil, err
		}
		se := &model.SpeakerEvent{EventID: ev.ID, EventName: ev.Name, Timezone: ev.Timezone, Theme: ev.Theme, LogoURL: ev.LogoURL,
			SpeakerConfirmationEnabled: ev.SpeakerConfirmationEnabled, Contact: toSpeakerContact(ct),
			Sessions: sessions, Resources: make([]*model.SpeakerResource, len(res)), Agenda: []*agenda.Entry{}}
		for i, x := range res {
			se.Resources[i] = &model.SpeakerResource{ID: x.ID, Title: x.Title, Subtitle: x.Subtitle, Body: x.Body,
				LinkURL: x.LinkURL, EmbedURL: x.EmbedURL, FileName: x.FileName, FileURL: r.SignedLink(x.FileStorageKey)}
		}
		if ev.AgendaPublishedAt != nil {
			se.AgendaPublishedAt = ev.AgendaPublishedAt
			for i := range ev.PublishedAgenda {
				se.Agenda = append(se.Agenda, &ev.PublishedAgenda[i])
			}
		}
		out = append(out, se)
	}
	return out, nil
}

// MySpeakerSession is one of the caller's sessions or submissions.
func (r *Service) MySpeakerSession(ctx context.Context, id string) (*model.SpeakerSession, error) {
	if !pid.Plausible(id) {
		return nil, errSpeakerSessionNotFound
	}
	for _, c := range speakingOf(ctx) {
		sctx := inOrganization(ctx, c.OrganizationID)
		ct, err := r.OwnContact(sctx, c.ContactID)
		if err != nil {
			return nil, err
		}
		s, err := r.speakerSessions(sctx, ct, &id)
		if err != nil {
			return nil, err
		}
		if len(s) == 1 {
			return s[0], nil
		}
	}
	return nil, errSpeakerSessionNotFound
}

// MySpeakerContact is one of the caller's contact records.
func (r *Service) MySpeakerContact(ctx context.Context, id string) (*model.SpeakerContact, error) {
	for _, c := range speakingOf(ctx) {
		if c.ContactID != id {
			continue
		}
		ct, err := r.OwnContact(inOrganization(ctx, c.OrganizationID), id)
		if err != nil {
			return nil, err
		}
		return toSpeakerContact(ct), nil
	}
	return nil, errSpeakerContactNotFound
}

// OwnContact reads a contact of the caller, checking again that its address is theirs.
func (r *Service) OwnContact(ctx context.Context, id string) (*ent.Contact, error) {
	p := viewer.FromContext(ctx).Person
	ct, err := r.Client.Contact.Query().Where(contact.ID(id), contact.EmailEqualFold(p.Email)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errSpeakerContactNotFound
	}
	return ct, err
}

// speakerSessions lists the sessions and submissions the contact takes part in (only id when
// given), each with the tasks and deliverables that are the session's or the contact's.
func (r *Service) speakerSessions(ctx context.Context, ct *ent.Contact, id *string) ([]*model.SpeakerSession, error) {
	q := r.Client.Submission.Query().Where(submission.EventID(ct.EventID),
		submission.HasParticipantsWith(submissionparticipant.ContactID(ct.ID))).WithRoom()
	if id != nil {
		q = q.Where(submission.ID(*id))
	}
	subs, err := q.Order(ent.Asc(submission.FieldNumber), ent.Asc(submission.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(subs))
	for i, s := range subs {
		ids[i] = s.ID
	}
	// Two queries for all the sessions: the tasks and the deliverables that are the session's
	// or the contact's.
	tasks, err := r.Client.TaskAssignment.Query().Where(taskassignment.SubmissionIDIn(ids...),
		taskassignment.Or(taskassignment.ContactIDIsNil(), taskassignment.ContactID(ct.ID))).WithTemplate().All(ctx)
	if err != nil {
		return nil, err
	}
	files, err := r.Client.DeliverableAssignment.Query().Where(deliverableassignment.SubmissionIDIn(ids...),
		deliverableassignment.Or(deliverableassignment.ContactIDIsNil(), deliverableassignment.ContactID(ct.ID))).
		WithRequirement().All(ctx)
	if err != nil {
		return nil, err
	}
	// Two more for whether each one's content takes changes: the event's lock and the forms.
	ev, err := r.Client.Event.Get(ctx, ct.EventID)
	if err != nil {
		return nil, err
	}
	formIDs := []string{}
	for _, s := range subs {
		if s.SourceFormID != nil {
			formIDs = append(formIDs, *s.SourceFormID)
		}
	}
	forms, err := r.Client.Form.Query().Where(form.IDIn(formIDs...)).All(ctx)
	if err != nil {
		return nil, err
	}
	formOf := make(map[string]*ent.Form, len(forms))
	for _, f := range forms {
		formOf[f.ID] = f
	}
	others, err := r.Client.SubmissionParticipant.Query().Where(submissionparticipant.SubmissionIDIn(ids...),
		submissionparticipant.ContactIDNEQ(ct.ID)).WithContact().
		Order(ent.Asc(submissionparticipant.FieldPosition), ent.Asc(submissionparticipant.FieldContactID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*model.SpeakerSession, len(subs))
	byID := make(map[string]*model.SpeakerSession, len(subs))
	undisclosed := map[string]bool{}
	now := time.Now()
	for i, s := range subs {
		undisclosed[s.ID] = !announced(s)
		var f *ent.Form
		if s.SourceFormID != nil {
			f = formOf[*s.SourceFormID]
		}
		out[i] = &model.SpeakerSession{ID: s.ID, EventID: s.EventID, Code: s.Code, Title: s.Title, Description: s.Description,
			Status: speakerStatus(s), CancelledAt: s.CancelledAt, StartsAt: s.StartsAt, EndsAt: s.EndsAt,
			Tasks: []*model.Task{}, Deliverables: []*model.Deliverable{}, Ready: true, CoSpeakers: []string{}, ContentEditable: true}
		if undisclosed[s.ID] {
			// A decision not yet announced reads as pending: no slot, room, tasks or files tell it.
			out[i].StartsAt, out[i].EndsAt, out[i].CancelledAt = nil, nil, nil
		}
		if why := contentRefusal(ev, s, f, now); why != nil {
			out[i].ContentEditable, out[i].ContentClosedReason = false, &why.Message
		}
		if s.Edges.Room != nil && !undisclosed[s.ID] {
			out[i].Room = &s.Edges.Room.Name
		}
		byID[s.ID] = out[i]
	}
	for _, p := range others {
		ss := byID[p.SubmissionID]
		ss.CoSpeakers = append(ss.CoSpeakers, fullName(p.Edges.Contact.FirstName, p.Edges.Contact.LastName))
	}
	for _, t := range tasks {
		if undisclosed[t.SubmissionID] {
			continue
		}
		ss := byID[t.SubmissionID]
		ss.Tasks = append(ss.Tasks, toTask(t))
		ss.Ready = ss.Ready && t.Status != taskassignment.StatusTodo
	}
	for _, d := range files {
		if undisclosed[d.SubmissionID] {
			continue
		}
		ss := byID[d.SubmissionID]
		ss.Deliverables = append(ss.Deliverables, toDeliverable(d))
		ss.Ready = ss.Ready && d.Status == deliverableassignment.StatusUploaded
	}
	for _, ss := range out {
		slices.SortStableFunc(ss.Tasks, func(a, b *model.Task) int { return a.SortPosition - b.SortPosition })
		slices.SortStableFunc(ss.Deliverables, func(a, b *model.Deliverable) int { return a.SortPosition - b.SortPosition })
	}
	return out, nil
}

func toSpeakerContact(ct *ent.Contact) *model.SpeakerContact {
	return &model.SpeakerContact{ID: ct.ID, EventID: ct.EventID, Email: ct.Email, FirstName: ct.FirstName, LastName: ct.LastName,
		Title: ct.Title, Company: ct.Company, Bio: ct.Bio, WorkflowStatus: ct.WorkflowStatus.String(),
		ProfileReviewStatus: ct.ProfileReviewStatus.String(), ConfirmedAt: ct.ConfirmedAt}
}

// Speaking lists the events where the caller speaks (mySpeaking), for the portal's pages.
func (r *Service) Speaking(ctx context.Context) ([]*model.SpeakerEvent, error) {
	return r.MySpeaking(ctx)
}

// speakerStatus is a submission's status as its speakers see it: maybe, the organizers' own
// shortlist, and a decision not yet announced (docs/decisions.md) read as pending.
func speakerStatus(s *ent.Submission) model.SubmissionStatus {
	if s.Status == submission.StatusMaybe || !announced(s) {
		return model.SubmissionStatusPending
	}
	return model.SubmissionStatus(s.Status)
}

// announced reports whether the speakers of s may know its decision: it has none, it was
// informed, or it is a manual session (informedSQL in Go).
func announced(s *ent.Submission) bool {
	decided := s.Status == submission.StatusAccepted || s.Status == submission.StatusDeclined
	return !decided || s.SourceFormID == nil || s.NotifiedAt != nil
}
