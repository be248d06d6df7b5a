package operation

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/timelineentry"
	"github.com/podium/podium/graph/scalar"
)

// emailLabels name the timeline line of each email type.
var emailLabels = map[string]string{
	"confirmation":    "Confirmation email sent",
	"magic_link":      "Portal sign-in link sent",
	"accepted":        "Acceptance email sent",
	"declined":        "Decline email sent",
	"cancelled":       "Cancellation email sent",
	"reinstated":      "Reinstatement email sent",
	"task_reminder":   "Task reminder sent",
	"calendar_invite": "Calendar invite sent",
	"custom":          "Email sent",
}

// Timeline merges a submission's history, newest first. Each kind of event has one durable source:
// the timeline entries for transitions that overwrite columns (status, decisions, cancellation,
// scheduling), and the records themselves for everything else (the submission's creation, emails,
// task completions, uploads, speaker confirmations). Nothing is written twice. The submissions of
// one request are read together (see timelines).
func (r *Service) Timeline(ctx context.Context, eventID, submissionID string) ([]*model.TimelineItem, error) {
	items, err := r.loaders(ctx).activity.Load(ctx, eventItem{eventID, submissionID})
	if err == nil && items == nil {
		return nil, errSubmissionNotFound
	}
	return items, err
}

// timelines reads the timelines of the submissions of keys, each in its event, one statement per
// source whatever their number and their events'; a submission that is not its key's event's
// maps to nil.
func (r *Service) timelines(ctx context.Context, keys []eventItem) (map[eventItem][]*model.TimelineItem, error) {
	c := r.ClientOf(ctx)
	byID := make(map[string][]*model.TimelineItem, len(keys))
	subs, err := c.Submission.Query().Where(
		submission.EventIDIn(unique(mapAll(keys, func(k eventItem) string { return k.event }))...),
		submission.IDIn(mapAll(keys, func(k eventItem) string { return k.id })...)).All(ctx)
	if err != nil {
		return nil, err
	}
	asked := map[eventItem]bool{}
	for _, k := range keys {
		asked[k] = true
	}
	subs = slices.DeleteFunc(subs, func(s *ent.Submission) bool { return !asked[eventItem{s.EventID, s.ID}] })
	out := make(map[eventItem][]*model.TimelineItem, len(keys))
	for _, k := range keys {
		out[k] = nil
	}
	if len(subs) == 0 {
		return out, nil
	}
	found := mapAll(subs, func(s *ent.Submission) string { return s.ID })
	add := func(sub, id string, at time.Time, kind, label string, detail, actor *string) {
		byID[sub] = append(byID[sub], &model.TimelineItem{ID: id, At: scalar.At(at), Kind: kind, Label: label, Detail: detail, ActorName: actor})
	}
	for _, sub := range subs {
		created := "Submission created"
		if isManual(sub) {
			created = "Session created manually"
		}
		add(sub.ID, "created_"+sub.ID, sub.CreatedAt, "created", created, nil, nil)
		if !isManual(sub) && sub.SubmittedAt != nil {
			add(sub.ID, "submitted_"+sub.ID, *sub.SubmittedAt, "submitted", "Submitted for review", nil, nil)
		}
	}

	entries, err := c.TimelineEntry.Query().Where(timelineentry.SubmissionIDIn(found...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		add(e.SubmissionID, e.ID, e.At, string(e.Kind), e.Label, e.Detail, new(e.ActorName))
	}

	q := r.sql(ctx)
	err = eachRow(ctx, q, `SELECT submission_id, id, type, subject, recipient, created_at FROM email_log WHERE submission_id = ANY($1)`,
		found, func(scan func(...any) error) error {
			var sub, id, typ, subject, recipient string
			var at time.Time
			if err := scan(&sub, &id, &typ, &subject, &recipient, &at); err != nil {
				return err
			}
			add(sub, id, at, "email", emailLabels[typ], new(subject+" — "+recipient), nil)
			return nil
		})
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, q, `SELECT a.submission_id, a.id, t.title, a.completed_at FROM task_assignments a JOIN task_templates t ON t.id = a.template_id
WHERE a.submission_id = ANY($1) AND a.status = 'done' AND a.completed_at IS NOT NULL`,
		found, func(scan func(...any) error) error {
			var sub, id, title string
			var at time.Time
			if err := scan(&sub, &id, &title, &at); err != nil {
				return err
			}
			add(sub, id, at, "task", "Task completed", new(title), nil)
			return nil
		})
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, q, `SELECT a.submission_id, a.id, a.file_name, a.uploaded_at FROM deliverable_assignments a
WHERE a.submission_id = ANY($1) AND a.status = 'uploaded' AND a.uploaded_at IS NOT NULL`,
		found, func(scan func(...any) error) error {
			var sub, id string
			var name *string
			var at time.Time
			if err := scan(&sub, &id, &name, &at); err != nil {
				return err
			}
			add(sub, id, at, "file", "File uploaded", name, nil)
			return nil
		})
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, q, `SELECT p.submission_id, c.id, c.first_name, c.last_name, c.confirmed_at FROM submission_participants p
JOIN contacts c ON c.id = p.contact_id WHERE p.submission_id = ANY($1) AND c.confirmed_at IS NOT NULL`,
		found, func(scan func(...any) error) error {
			var sub, id, first, last string
			var at time.Time
			if err := scan(&sub, &id, &first, &last, &at); err != nil {
				return err
			}
			add(sub, "confirmed_"+id, at, "speaker_confirmed", "Speaker confirmed", new(fullName(first, last)), nil)
			return nil
		})
	if err != nil {
		return nil, err
	}
	for _, sub := range subs {
		items := byID[sub.ID]
		slices.SortStableFunc(items, func(a, b *model.TimelineItem) int {
			return cmp.Or(b.At.Compare(a.At.Time), cmp.Compare(b.ID, a.ID))
		})
		out[eventItem{sub.EventID, sub.ID}] = items
	}
	return out, nil
}
