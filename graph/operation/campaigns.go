package operation

import (
	"cmp"
	"context"
	"strings"
	"unicode/utf8"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/scalar"
)

// Campaigns (docs/campaigns.md): an organizer's message sent to many speakers of an event. The
// campaign, one recipient row and one email per speaker are written in the request's transaction
// through the outbox (email.Outbox.Queue), so they commit together or not at all; River's email
// workers deliver them afterwards. The answer does not wait for delivery: a campaign is sending
// until every one of its emails has an outcome, read from the email log.

// Limits of a campaign's text, so that each merged email fits the email log.
const (
	maxCampaignSubject = 500
	maxCampaignBody    = 50000
	// maxMergedSubject is the email log's limit on a subject.
	maxMergedSubject = 1000
)

// campaignAudience is a speaker a campaign goes to, with what its merge tokens need.
type campaignAudience struct {
	ID, Email, FirstName, LastName, TalkTitle string
}

// SendCampaign sends a campaign to the speakers named by contactIds and the audience, once each
// (docs/campaigns.md; docs/rest-api.md: POST E/campaigns).
func (r *Service) SendCampaign(ctx context.Context, eventID string, in model.SendCampaignInput) (*model.SendCampaignResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.SendCampaignResult, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(in.Subject) == "" || strings.TrimSpace(in.Body) == "" {
			return nil, apperr.Invalid("Enter a campaign subject and message")
		}
		if err := campaignText(in); err != nil {
			return nil, err
		}
		var replyTo *string
		if in.ReplyTo != nil {
			address, err := replyToAddress("replyTo", *in.ReplyTo)
			if err != nil {
				return nil, err
			}
			replyTo = &address
		}
		var statuses []string
		var segment *ent.Segment
		if in.Audience != nil {
			statuses = mapAll(in.Audience.WorkflowStatuses, func(s contact.WorkflowStatus) string { return string(s) })
			if in.Audience.SegmentID != nil {
				if segment, err = r.segmentRow(ctx, *in.Audience.SegmentID); err != nil {
					return nil, err
				}
			}
		}
		group := ""
		if in.Segment != nil {
			group = segmentSQL[*in.Segment]
		}
		if len(in.ContactIds) == 0 && len(statuses) == 0 && segment == nil && group == "" {
			return nil, apperr.Invalid("Choose at least one recipient")
		}
		audience, err := r.campaignAudience(ctx, ev.ID, in.ContactIds, statuses, segment, group)
		if err != nil {
			return nil, err
		}
		if len(audience) == 0 {
			return nil, apperr.Invalid("Choose at least one recipient")
		}

		portal := strings.TrimRight(r.Outbox.PublicURL, "/") + "/portal"
		emails := make([]email.Email, len(audience))
		for i, a := range audience {
			name := fullName(a.FirstName, a.LastName)
			merge := strings.NewReplacer("{speaker_name}", name, "{talk_title}", a.TalkTitle,
				"{event_name}", ev.Name, "{portal_url}", portal)
			subject, body := merge.Replace(in.Subject), merge.Replace(in.Body)
			if utf8.RuneCountInString(strings.Join(strings.Fields(subject), " ")) > maxMergedSubject {
				return nil, apperr.Invalid("The subject is longer than %d characters once merged for %s", maxMergedSubject, name)
			}
			emails[i] = email.Email{EventID: ev.ID, ContactID: new(a.ID), Type: emaillog.TypeCustom, To: a.Email,
				Template: email.Campaign, ReplyTo: replyTo, Data: email.Data{EventName: ev.Name, FirstName: a.FirstName,
					Path: "/portal", Subject: subject, Message: body, Unsubscribe: r.UnsubscribeURL(ctx, a.Email)}}
		}

		filter := map[string]any{}
		if len(statuses) > 0 {
			filter["workflowStatuses"] = statuses
		}
		if segment != nil {
			filter["segmentId"] = segment.ID
		}
		if in.Segment != nil {
			filter["segment"] = string(*in.Segment)
		}
		create := c.EmailCampaign.Create().SetEventID(ev.ID).SetNillableTemplateID(in.TemplateID).
			SetSubjectSnapshot(in.Subject).SetBodySnapshot(in.Body).SetRecipientFilter(filter).
			SetRecipientCount(len(audience)).SetNillableReplyTo(replyTo)
		if v := viewer.FromContext(ctx); v != nil && v.Person != nil {
			create.SetCreatedByUserID(v.Person.UserID)
		} else if v != nil && v.APIKeyID != "" {
			create.SetCreatedByAPIKeyID(v.APIKeyID)
		}
		campaign, err := create.Save(ctx)
		if err != nil {
			return nil, err
		}
		rows, err := r.Outbox.Queue(ctx, emails...)
		if err != nil {
			return nil, err
		}
		if err := r.insertRecipients(ctx, campaign.ID, audience, rows); err != nil {
			return nil, err
		}
		return &model.SendCampaignResult{Campaign: toCampaign(campaign, CampaignStats{Pending: len(rows)}), Sent: len(rows), Failed: 0}, nil
	})
}

// insertRecipients records who the campaign went to, in one statement: each recipient's resolved
// text is read from their email log row rather than sent again.
func (r *Service) insertRecipients(ctx context.Context, campaignID string, audience []campaignAudience, rows []*ent.EmailLog) error {
	ids, logs, names := make([]string, len(rows)), make([]string, len(rows)), make([]string, len(rows))
	for i, row := range rows {
		ids[i], logs[i], names[i] = pid.New("cmr"), row.ID, fullName(audience[i].FirstName, audience[i].LastName)
	}
	_, err := r.sql(ctx).Exec(ctx, `
INSERT INTO email_campaign_recipients (id, created_at, updated_at, organization_id, campaign_id, contact_id,
  recipient_name, recipient_email, resolved_subject, resolved_body, email_log_id)
SELECT v.id, now(), now(), e.organization_id, $1, e.contact_id, v.name, e.recipient, e.subject, e.body, e.id
FROM unnest($2::text[], $3::text[], $4::text[]) AS v(id, log_id, name)
JOIN email_log e ON e.id = v.log_id`, campaignID, ids, logs, names)
	return err
}

// campaignText checks a campaign's text as any typed text is checked (checkLine, checkText: no
// control characters, the subject one line) and the template id it records.
func campaignText(in model.SendCampaignInput) error {
	if err := checkLine("The subject", in.Subject, maxCampaignSubject, false); err != nil {
		return err
	}
	if err := checkText("The message", in.Body, maxCampaignBody); err != nil {
		return err
	}
	if in.TemplateID != nil && checkLine("templateId", *in.TemplateID, 200, false) != nil {
		return apperr.Invalid("templateId must be an id")
	}
	return nil
}

// segmentSQL is the condition, on contacts c, of each CampaignSegment that adds people of its
// own: speaker groups are of mailable speakers; submitter groups of the people in call-for-proposals
// submissions, whose decision they may not have heard yet (campaigns are not decisions).
var segmentSQL = map[model.CampaignSegment]string{
	model.CampaignSegmentAllSpeakers:          mailableSpeakerSQL,
	model.CampaignSegmentConfirmed:            "(" + mailableSpeakerSQL + " AND c.confirmed_at IS NOT NULL)",
	model.CampaignSegmentAwaitingConfirmation: "(c.confirmed_at IS NULL AND " + toldAcceptedSQL + ")",
	model.CampaignSegmentIncompleteTasks: "(" + mailableSpeakerSQL + ` AND EXISTS (SELECT 1 FROM task_assignments a
    WHERE a.status = 'todo' AND (a.contact_id = c.id OR (a.contact_id IS NULL AND a.submission_id IN (
      SELECT p.submission_id FROM submission_participants p WHERE p.contact_id = c.id)))))`,
	model.CampaignSegmentAllSubmitters:    proposedSQL("true"),
	model.CampaignSegmentAwaitingDecision: proposedSQL("s.status IN ('pending', 'maybe')"),
	model.CampaignSegmentDeclined:         proposedSQL("s.status = 'declined'"),
}

// toldAcceptedSQL is toldAccepted over contacts c.
const toldAcceptedSQL = `EXISTS (SELECT 1 FROM submission_participants sp JOIN submissions ss ON ss.id = sp.submission_id
    WHERE sp.contact_id = c.id AND ss.status = 'accepted' AND ss.notified_at IS NOT NULL)`

// proposedSQL is the condition of contacts c taking part in a call-for-proposals submission s
// that meets cond.
func proposedSQL(cond string) string {
	return `EXISTS (SELECT 1 FROM submission_participants p JOIN submissions s ON s.id = p.submission_id
    WHERE p.contact_id = c.id AND NOT ` + manualSQL + ` AND ` + cond + `)`
}

// campaignAudience finds the event's speakers among ids, with one of the workflow statuses, or
// linked to a contact the segment (when not nil) selects now, by last name, each once, with the
// title of their first submission: one statement, whatever their number; the segment is evaluated
// inside it (SegmentMembers). Speakers are those mail may treat as speakers (mailableSpeaker); a
// submitter who is not one yet is reached only when named among ids. Ids of no such contact of
// the event are left out. group, when not empty, is a condition of segmentSQL adding its people.
func (r *Service) campaignAudience(ctx context.Context, eventID string, ids, statuses []string, segment *ent.Segment, group string) ([]campaignAudience, error) {
	plausible := make([]string, 0, len(ids))
	for _, id := range ids {
		if pid.Plausible(id) {
			plausible = append(plausible, id)
		}
	}
	args := []any{eventID, plausible, statuses}
	chosen := "c.id = ANY($2) OR c.workflow_status = ANY($3)"
	if segment != nil {
		var members string
		members, args = SegmentMembers(segment.OrganizationID, segment.Filter, args)
		chosen += ` OR c.id IN (SELECT l.contact_id FROM organization_contact_events l
    WHERE l.event_id = $1 AND l.organization_contact_id IN (SELECT m.id FROM (` + members + `) m))`
	}
	var out []campaignAudience
	err := eachRowArgs(ctx, r.sql(ctx), `
SELECT c.id, c.email, c.first_name, c.last_name, COALESCE(t.title, '')
FROM contacts c
LEFT JOIN LATERAL (
  SELECT s.title FROM submission_participants p JOIN submissions s ON s.id = p.submission_id
  WHERE p.contact_id = c.id ORDER BY s.created_at, s.id LIMIT 1) t ON true
WHERE c.event_id = $1 AND ((`+mailableSpeakerSQL+` AND (`+chosen+`))
  OR (c.participation = 'submitter' AND c.id = ANY($2)) OR `+cmp.Or(group, "false")+`)
ORDER BY c.last_name, c.first_name, c.id`, args,
		func(scan func(...any) error) error {
			var a campaignAudience
			if err := scan(&a.ID, &a.Email, &a.FirstName, &a.LastName, &a.TalkTitle); err != nil {
				return err
			}
			out = append(out, a)
			return nil
		})
	return out, err
}

// CampaignStats is where a campaign's emails stand: how many still wait for an outcome, and when
// the last outcome was recorded.
type CampaignStats struct {
	Pending int
	LastAt  *scalar.Timestamp
}

// toCampaign presents a campaign: sending while an email waits, sent once none does.
func toCampaign(c *ent.EmailCampaign, st CampaignStats) *model.CampaignRecord {
	rec := &model.CampaignRecord{ID: c.ID, CreatedAt: scalar.At(c.CreatedAt), UpdatedAt: scalar.At(c.UpdatedAt),
		EventID: c.EventID, TemplateID: c.TemplateID, SubjectSnapshot: c.SubjectSnapshot, BodySnapshot: c.BodySnapshot,
		RecipientFilter: c.RecipientFilter, Status: model.EmailCampaignStatusSending, CreatedByUserID: c.CreatedByUserID,
		CreatedByAPIKeyID: c.CreatedByAPIKeyID, ReplyTo: c.ReplyTo}
	if rec.RecipientFilter == nil {
		rec.RecipientFilter = map[string]any{}
	}
	if st.Pending == 0 {
		rec.Status = model.EmailCampaignStatusSent
		rec.SentAt = st.LastAt
		if rec.SentAt == nil {
			rec.SentAt = &rec.CreatedAt
		}
		rec.UpdatedAt = *rec.SentAt
	}
	return rec
}
