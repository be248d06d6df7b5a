package operation

import (
	"context"
	"time"

	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// SubmissionSubmitters answers, by submission id, the contact who sent each submission of the
// event (its submitter_contact_id); submissions without one, such as sessions made by organizers,
// are left out. Two statements.
func (r *Service) SubmissionSubmitters(ctx context.Context, eventID string, ids []string) (map[string]*model.PersonRef, error) {
	ev, err := access.Event(ctx, r.ClientOf(ctx), eventID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*model.PersonRef, len(ids))
	err = eachRowArgs(ctx, r.sql(ctx), `
SELECT s.id, c.id, btrim(c.first_name || ' ' || c.last_name), c.email
FROM submissions s JOIN contacts c ON c.id = s.submitter_contact_id
WHERE s.event_id = $1 AND s.id = ANY($2)`, []any{ev.ID, ids}, func(scan func(...any) error) error {
		var id string
		p := &model.PersonRef{}
		if err := scan(&id, &p.ID, &p.Name, &p.Email); err != nil {
			return err
		}
		out[id] = p
		return nil
	})
	return out, err
}

// EventMailStatus counts the event's emails that are not out yet, by where delivery stands.
func (r *Service) EventMailStatus(ctx context.Context, eventID string) (*model.MailStatus, error) {
	ev, err := access.Event(ctx, r.ClientOf(ctx), eventID)
	if err != nil {
		return nil, err
	}
	out := &model.MailStatus{}
	err = r.sql(ctx).QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'queued'), count(*) FILTER (WHERE status = 'sending')
FROM email_log WHERE event_id = $1 AND status IN ('queued', 'sending')`, ev.ID).Scan(&out.Queued, &out.Sending)
	return out, err
}

// SpeakerPipelines answers Contact.pipeline for contacts ids at once, by contact id (nil for a
// contact who is not a speaker): one statement. The ids are of contacts the caller has read
// through an operation that checked access.
func (r *Service) SpeakerPipelines(ctx context.Context, ids []string) (map[string]*model.SpeakerPipeline, error) {
	return r.speakerPipelines(ctx, ids)
}

// SpeakerSubmissions answers, by contact id, the submissions and sessions each speaker of the
// event takes part in, by number: one statement.
func (r *Service) SpeakerSubmissions(ctx context.Context, eventID string) (map[string][]*model.SpeakerSubmission, error) {
	ev, err := access.Event(ctx, r.ClientOf(ctx), eventID)
	if err != nil {
		return nil, err
	}
	out := map[string][]*model.SpeakerSubmission{}
	err = eachRowArgs(ctx, r.sql(ctx), `
SELECT p.contact_id, s.id, s.code, s.title, s.status, s.starts_at, s.cancelled_at, `+manualSQL+`, s.notified_at
FROM submission_participants p JOIN submissions s ON s.id = p.submission_id
WHERE s.event_id = $1 ORDER BY s.number`, []any{ev.ID}, func(scan func(...any) error) error {
		var contactID, status string
		var startsAt, cancelledAt, notifiedAt *time.Time
		var manual bool
		s := &model.SpeakerSubmission{}
		if err := scan(&contactID, &s.ID, &s.Code, &s.Title, &status, &startsAt, &cancelledAt, &manual, &notifiedAt); err != nil {
			return err
		}
		s.Status, s.DecisionSent = model.SubmissionStatus(status), decisionSent(manual, notifiedAt)
		s.StartsAt, s.CancelledAt = scalar.AtPtr(startsAt), scalar.AtPtr(cancelledAt)
		out[contactID] = append(out[contactID], s)
		return nil
	})
	return out, err
}
