package operation

import (
	"context"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submissionparticipant"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// speakersOf checks a list of speaker ids: de-duplicated in order, at least one, every one a
// contact of the event.
func speakersOf(ctx context.Context, c *ent.Client, eventID string, ids []string, noneMessage string) ([]string, error) {
	speakers := unique(ids)
	if len(speakers) == 0 {
		return nil, apperr.Invalid("%s", noneMessage)
	}
	plausible := make([]string, 0, len(speakers))
	for _, id := range speakers {
		if pid.Plausible(id) {
			plausible = append(plausible, id)
		}
	}
	n, err := c.Contact.Query().Where(contact.IDIn(plausible...), contact.EventID(eventID)).Count(ctx)
	if err != nil {
		return nil, err
	}
	if n != len(speakers) {
		return nil, apperr.Forbidden("One or more speakers do not belong to this event")
	}
	return speakers, nil
}

// setParticipants makes ids the speakers of a submission, in order (positions from 0); fresh says
// the submission was just created, with no participants to replace.
func setParticipants(ctx context.Context, c *ent.Client, submissionID string, ids []string, fresh bool) error {
	if !fresh {
		if _, err := c.SubmissionParticipant.Delete().Where(submissionparticipant.SubmissionID(submissionID)).Exec(ctx); err != nil {
			return err
		}
	}
	builders := make([]*ent.SubmissionParticipantCreate, len(ids))
	for i, id := range ids {
		builders[i] = c.SubmissionParticipant.Create().SetSubmissionID(submissionID).SetContactID(id).
			SetRole("speaker").SetPosition(i)
	}
	return c.SubmissionParticipant.CreateBulk(builders...).Exec(ctx)
}

// SetSessionSpeakers replaces a session's speakers; speaker-scoped tasks and deliverables follow.
func (r *Service) SetSessionSpeakers(ctx context.Context, eventID, sessionID string, in model.SetSessionSpeakersInput) (*model.Session, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Session, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		s, err := sessionEntity(ctx, c, ev.ID, sessionID, true)
		if err != nil {
			return nil, err
		}
		speakers, err := speakersOf(ctx, c, ev.ID, in.SpeakerIds, "Every session must have a speaker")
		if err != nil {
			return nil, err
		}
		if err := setParticipants(ctx, c, s.ID, speakers, false); err != nil {
			return nil, err
		}
		if err := r.recordApprovedProfiles(ctx, ev.ID, speakers); err != nil {
			return nil, err
		}
		if err := r.dropLeftSpeakers(ctx, s.ID); err != nil {
			return nil, err
		}
		if _, err := r.assignReadiness(ctx, ev.ID, s.ID); err != nil {
			return nil, err
		}
		return r.Session(ctx, ev.ID, s.ID)
	})
}

// speaker is a participant of a session, as emails need them.
type speaker struct {
	ContactID, Email, FirstName, LastName string
}

func participants(ctx context.Context, c *ent.Client, submissionIDs ...string) (map[string][]speaker, error) {
	rows, err := c.SubmissionParticipant.Query().
		Where(submissionparticipant.SubmissionIDIn(submissionIDs...)).
		Order(ent.Asc(submissionparticipant.FieldPosition)).
		WithContact().
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]speaker{}
	for _, p := range rows {
		ct := p.Edges.Contact
		out[p.SubmissionID] = append(out[p.SubmissionID], speaker{ct.ID, ct.Email, ct.FirstName, ct.LastName})
	}
	return out, nil
}

// SessionContacts answers Session.contacts: the speakers' contact records, in speaking order.
func (r *Service) SessionContacts(ctx context.Context, s *model.Session) ([]*ent.Contact, error) {
	ids := make([]string, len(s.Speakers))
	for i, sp := range s.Speakers {
		ids[i] = sp.ID
	}
	return r.loaders(ctx).contacts.LoadAll(ctx, ids)
}
