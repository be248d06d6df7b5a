package operation

import (
	"context"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/emailcampaign"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/scalar"
)

// Communications answers an event's communications view: its speakers with task counts, its
// campaigns with every recipient's delivery, and the decisions not yet announced (docs/decisions.md)
// — five statements, whatever the number of speakers, campaigns and recipients.
func (r *Service) Communications(ctx context.Context, eventID string) (*model.CommunicationCenter, error) {
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	out := &model.CommunicationCenter{EventName: ev.Name, EventSlug: ev.Slug, Contacts: []*model.CommunicationContact{},
		Templates: []*model.EmailTemplate{}, Campaigns: []*model.CampaignHistory{}, ReminderRules: []*model.ReminderRule{}}
	q := r.sql(ctx)
	// A task applies to a speaker when it is theirs, or when it is a session's task and they speak
	// in that session.
	err = eachRowArgs(ctx, q, `
SELECT c.id, c.email, c.first_name, c.last_name, c.headshot_url, c.title, c.company, c.workflow_status,
  COALESCE(k.total, 0), COALESCE(k.done, 0), COALESCE(k.todo, 0), COALESCE(t.title, '')
FROM contacts c
LEFT JOIN LATERAL (
  SELECT count(*) AS total, count(*) FILTER (WHERE a.status IN ('done', 'waived')) AS done,
         count(*) FILTER (WHERE a.status = 'todo') AS todo
  FROM task_assignments a JOIN task_templates tt ON tt.id = a.template_id AND tt.event_id = c.event_id
  WHERE a.contact_id = c.id OR (a.contact_id IS NULL AND a.submission_id IN (
    SELECT p.submission_id FROM submission_participants p WHERE p.contact_id = c.id))) k ON true
LEFT JOIN LATERAL (
  SELECT s.title FROM submission_participants p JOIN submissions s ON s.id = p.submission_id
  WHERE p.contact_id = c.id ORDER BY s.created_at, s.id LIMIT 1) t ON true
WHERE c.event_id = $1 AND `+mailableSpeakerSQL+`
ORDER BY c.last_name, c.first_name, c.id`, []any{ev.ID}, func(scan func(...any) error) error {
		ct := &model.CommunicationContact{}
		var status string
		if err := scan(&ct.ID, &ct.Email, &ct.FirstName, &ct.LastName, &ct.HeadshotURL, &ct.Title, &ct.Company,
			&status, &ct.TaskTotal, &ct.TaskDone, &ct.TaskIncomplete, &ct.TalkTitle); err != nil {
			return err
		}
		ct.WorkflowStatus = contact.WorkflowStatus(status)
		out.Contacts = append(out.Contacts, ct)
		return nil
	})
	if err != nil {
		return nil, err
	}

	campaigns, err := c.EmailCampaign.Query().Where(emailcampaign.EventID(ev.ID)).
		Order(ent.Desc(emailcampaign.FieldCreatedAt), ent.Desc(emailcampaign.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	recipients := map[string][]*model.CampaignRecipient{}
	stats := map[string]*CampaignStats{}
	for _, cp := range campaigns {
		stats[cp.ID] = &CampaignStats{}
	}
	err = eachRowArgs(ctx, q, `
SELECT r.campaign_id, r.id, r.contact_id, c.first_name, c.last_name, c.email, r.resolved_subject,
  r.resolved_body, r.email_log_id, e.status, COALESCE(e.sent_at, e.updated_at)
FROM email_campaign_recipients r
JOIN email_campaigns m ON m.id = r.campaign_id
LEFT JOIN contacts c ON c.id = r.contact_id
LEFT JOIN email_log e ON e.id = r.email_log_id
WHERE m.event_id = $1
ORDER BY c.last_name, c.first_name, r.id`, []any{ev.ID}, func(scan func(...any) error) error {
		var campaignID string
		var contactID, first, last, addr, status *string
		var at *time.Time
		rc := &model.CampaignRecipient{}
		if err := scan(&campaignID, &rc.ID, &contactID, &first, &last, &addr, &rc.ResolvedSubject,
			&rc.ResolvedBody, &rc.EmailLogID, &status, &at); err != nil {
			return err
		}
		st := stats[campaignID]
		if st == nil {
			return nil
		}
		rc.DeliveryStatus = model.CampaignDeliveryStatusFailed
		if status != nil {
			s := emaillog.Status(*status)
			rc.EmailStatus = &s
			switch s {
			case emaillog.StatusQueued, emaillog.StatusSending:
				rc.DeliveryStatus = model.CampaignDeliveryStatusPending
				st.Pending++
			case emaillog.StatusSent:
				rc.DeliveryStatus = model.CampaignDeliveryStatusSent
			}
			if at != nil && (st.LastAt == nil || at.After(st.LastAt.Time)) {
				st.LastAt = scalar.AtPtr(at)
			}
		}
		// Recipients whose contact was deleted stay in the counts, not in the list.
		if contactID == nil {
			return nil
		}
		rc.ContactID, rc.ContactName, rc.Email = *contactID, fullName(*first, *last), *addr
		recipients[campaignID] = append(recipients[campaignID], rc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, cp := range campaigns {
		list := recipients[cp.ID]
		if list == nil {
			list = []*model.CampaignRecipient{}
		}
		out.Campaigns = append(out.Campaigns, &model.CampaignHistory{Campaign: toCampaign(cp, *stats[cp.ID]), Recipients: list})
	}
	err = q.QueryRow(ctx, `
SELECT count(*) FILTER (WHERE s.status = 'accepted'), count(*) FILTER (WHERE s.status = 'declined')
FROM submissions s WHERE s.event_id = $1 AND `+uninformedSQL, ev.ID).Scan(&out.AcceptedNotInformed, &out.DeclinedNotInformed)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CommunicationPeople answers the communications view's figures about people that the
// original's current API shows (docs/rest-api.md "Versions"): four statements.
func (r *Service) CommunicationPeople(ctx context.Context, eventID string) (*model.CommunicationPeople, error) {
	ev, err := access.Event(ctx, r.ClientOf(ctx), eventID)
	if err != nil {
		return nil, err
	}
	q := r.sql(ctx)
	out := &model.CommunicationPeople{ConfirmedAt: map[string]*scalar.Timestamp{}, Uninformed: map[string]bool{},
		Submitters: []*model.Submitter{}}
	err = eachRowArgs(ctx, q, `
SELECT c.id, c.confirmed_at, EXISTS (SELECT 1 FROM submission_participants p JOIN submissions s ON s.id = p.submission_id
  WHERE p.contact_id = c.id AND `+uninformedSQL+`)
FROM contacts c WHERE c.event_id = $1`, []any{ev.ID}, func(scan func(...any) error) error {
		var id string
		var at *time.Time
		var uninformed bool
		if err := scan(&id, &at, &uninformed); err != nil {
			return err
		}
		if at != nil {
			out.ConfirmedAt[id] = scalar.AtPtr(at)
		}
		if uninformed {
			out.Uninformed[id] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachRowArgs(ctx, q, `
SELECT c.id, c.email, c.first_name, c.last_name, c.headshot_url, s.status, s.notified_at
FROM contacts c JOIN submission_participants p ON p.contact_id = c.id JOIN submissions s ON s.id = p.submission_id
WHERE c.event_id = $1 AND NOT `+manualSQL+`
ORDER BY c.last_name, c.first_name, c.id, s.number`, []any{ev.ID}, func(scan func(...any) error) error {
		sm := &model.Submitter{}
		sub := &model.SubmitterSubmission{}
		var status string
		var notifiedAt *time.Time
		if err := scan(&sm.ID, &sm.Email, &sm.FirstName, &sm.LastName, &sm.HeadshotURL, &status, &notifiedAt); err != nil {
			return err
		}
		sub.Status, sub.NotifiedAt = model.SubmissionStatus(status), scalar.AtPtr(notifiedAt)
		if n := len(out.Submitters); n == 0 || out.Submitters[n-1].ID != sm.ID {
			sm.Submissions = []*model.SubmitterSubmission{}
			out.Submitters = append(out.Submitters, sm)
		}
		last := out.Submitters[len(out.Submitters)-1]
		last.Submissions = append(last.Submissions, sub)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = q.QueryRow(ctx, `
SELECT (SELECT count(*) FROM contacts c WHERE c.event_id = $1 AND c.confirmed_at IS NULL AND EXISTS (
          SELECT 1 FROM submission_participants sp JOIN submissions ss ON ss.id = sp.submission_id
          WHERE sp.contact_id = c.id AND ss.status = 'accepted' AND ss.notified_at IS NOT NULL)),
       (SELECT count(*) FROM task_assignments a JOIN task_templates t ON t.id = a.template_id
          WHERE t.event_id = $1 AND a.status = 'todo' AND t.due_date < now() + interval '7 days'),
       (SELECT count(*) FROM email_log e WHERE e.event_id = $1 AND e.status = 'failed'),
       (SELECT count(*) FROM email_log e WHERE e.event_id = $1 AND e.status = 'sent')`, ev.ID).
		Scan(&out.AwaitingConfirmation, &out.DueSoonTasks, &out.Failed, &out.SentTotal)
	return out, err
}
