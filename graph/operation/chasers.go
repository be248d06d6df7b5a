package operation

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/schema/chaser"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/model"
)

// Chasers are the reminders Podium sends by itself (docs/chasers.md): to speakers told of an
// acceptance who have not confirmed, to speakers with tasks or files due, and to reviewers with
// reviews pending in a round that closes. Nothing is stored about them but the emails they
// send: who is due is read from the event's state each time, so a chaser stops as soon as the
// person acts, and when the last one went is read from the email log.

// defaultChasers are the settings of an event whose organizers have set none: every rule off,
// quiet from 21:00 to 08:00, one chaser a day per person.
var defaultChasers = chaser.Settings{
	Rules: []chaser.Rule{
		{Kind: chaser.Confirmation, OffsetHours: 72, EveryHours: 72, MaxSends: 3},
		{Kind: chaser.Deliverables, OffsetHours: 72, EveryHours: 48, MaxSends: 3},
		{Kind: chaser.Reviews, OffsetHours: 48, EveryHours: 24, MaxSends: 2},
	},
	QuietStart: 21 * 60, QuietEnd: 8 * 60, DailyCap: 1,
}

// chaserTemplates is the template each kind sends; review chasers are review reminders, and a
// reminder sent by hand counts as the last chaser.
var chaserTemplates = map[string]string{chaser.Confirmation: email.ChaserConfirmation,
	chaser.Deliverables: email.ChaserDeliverables, chaser.Reviews: email.ReviewReminder}

// settingsOf is an event's chaser settings, with a rule for every kind.
func settingsOf(ev *ent.Event) chaser.Settings {
	s := ev.Chasers
	if len(s.Rules) == 0 && s.DailyCap == 0 {
		return defaultChasers
	}
	rules := make([]chaser.Rule, 0, len(chaser.Kinds))
	for _, d := range defaultChasers.Rules {
		if i := slices.IndexFunc(s.Rules, func(r chaser.Rule) bool { return r.Kind == d.Kind }); i >= 0 {
			d = s.Rules[i]
		}
		rules = append(rules, d)
	}
	s.Rules = rules
	return s
}

// Chasers answers Event.chasers.
func (r *Service) Chasers(ev *ent.Event) *model.ChaserSettings {
	return toChaserSettings(settingsOf(ev))
}

func toChaserSettings(s chaser.Settings) *model.ChaserSettings {
	out := &model.ChaserSettings{QuietStart: s.QuietStart, QuietEnd: s.QuietEnd, DailyCap: s.DailyCap}
	for _, r := range s.Rules {
		out.Rules = append(out.Rules, &model.ChaserRule{Kind: model.ChaserKind(r.Kind), Enabled: r.Enabled,
			OffsetHours: r.OffsetHours, EveryHours: r.EveryHours, MaxSends: r.MaxSends})
	}
	return out
}

// SaveChasers replaces an event's chaser settings (docs/chasers.md "Rules").
func (r *Service) SaveChasers(ctx context.Context, eventID string, in model.ChaserSettingsInput) (*model.ChaserSettings, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ChaserSettings, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		s, err := chaserSettingsFrom(in)
		if err != nil {
			return nil, err
		}
		if err := c.Event.UpdateOneID(ev.ID).SetChasers(s).Exec(ctx); err != nil {
			return nil, err
		}
		ev.Chasers = s
		if err := r.emit(ctx, hookChasersUpdated, hookData{"eventId": ev.ID}); err != nil {
			return nil, err
		}
		return toChaserSettings(settingsOf(ev)), nil
	})
}

// chaserSettingsFrom checks the settings organizers sent: each kind at most once, hours within
// bounds, quiet hours on 5-minute marks within the day, a daily cap of 1 to 10.
func chaserSettingsFrom(in model.ChaserSettingsInput) (chaser.Settings, error) {
	s := chaser.Settings{QuietStart: in.QuietStart, QuietEnd: in.QuietEnd, DailyCap: in.DailyCap}
	for _, m := range []int{in.QuietStart, in.QuietEnd} {
		if m < 0 || m >= 24*60 || m%5 != 0 {
			return s, apperr.Invalid("Quiet hours are minutes after midnight, 0 to 1435, on 5-minute marks")
		}
	}
	if in.DailyCap < 1 || in.DailyCap > 10 {
		return s, apperr.Invalid("dailyCap must be between 1 and 10")
	}
	seen := map[model.ChaserKind]bool{}
	for _, r := range in.Rules {
		if seen[r.Kind] {
			return s, apperr.Invalid("The %s rule is given twice", r.Kind)
		}
		seen[r.Kind] = true
		switch {
		case r.OffsetHours < 0 || r.OffsetHours > 90*24:
			return s, apperr.Invalid("offsetHours must be between 0 and 2160 (90 days)")
		case r.EveryHours < 24 || r.EveryHours > 30*24:
			return s, apperr.Invalid("everyHours must be between 24 and 720 (30 days)")
		case r.MaxSends < 1 || r.MaxSends > 10:
			return s, apperr.Invalid("maxSends must be between 1 and 10")
		}
		s.Rules = append(s.Rules, chaser.Rule{Kind: string(r.Kind), Enabled: r.Enabled, OffsetHours: r.OffsetHours,
			EveryHours: r.EveryHours, MaxSends: r.MaxSends})
	}
	return s, nil
}

// dueItem is someone a chaser kind applies to now: who, for how many things, and from when a
// chaser may go (start).
type dueItem struct {
	kind      string
	to, name  string
	contactID *string
	count     int
	start     time.Time
	// deadline is the due date or the round's close, when there is one; round the round's name.
	deadline *time.Time
	round    string
}

// sent is one chaser (or review reminder) already in the email log.
type sent struct {
	template, to string
	at           time.Time
}

// plannedChaser is a chaser that will leave at at.
type plannedChaser struct {
	item dueItem
	at   time.Time
}

// planChasers decides when each due item's next chaser leaves: not before its start, nor before
// everyHours after the last one of its kind to that person, never during quiet hours, and not
// beyond the daily cap of its recipient (it then moves to the next day); none once maxSends were
// sent since its start. It is a pure function of its arguments, so tests run it on any clock.
func planChasers(s chaser.Settings, loc *time.Location, items []dueItem, history []sent) []plannedChaser {
	var out []plannedChaser
	// perDay counts chasers by recipient and local day, sent and planned.
	perDay := map[string]int{}
	day := func(to string, t time.Time) string { return to + "|" + t.In(loc).Format(time.DateOnly) }
	for _, h := range history {
		perDay[day(h.to, h.at)]++
	}
	for _, it := range items {
		rule, ok := s.Rule(it.kind)
		if !ok {
			continue
		}
		template := chaserTemplates[it.kind]
		next, count := it.start, 0
		for _, h := range history {
			if h.template != template || h.to != it.to || h.at.Before(it.start) {
				continue
			}
			count++
			if after := h.at.Add(time.Duration(rule.EveryHours) * time.Hour); after.After(next) {
				next = after
			}
		}
		if count >= rule.MaxSends {
			continue
		}
		for range 31 { // a month of capped days at most
			next = outsideQuiet(next, loc, s)
			if perDay[day(it.to, next)] < s.DailyCap {
				break
			}
			y, m, d := next.In(loc).Date()
			next = time.Date(y, m, d+1, 0, 0, 0, 0, loc)
		}
		if it.deadline != nil && !next.Before(*it.deadline) {
			continue // too late to chase
		}
		perDay[day(it.to, next)]++
		out = append(out, plannedChaser{item: it, at: next})
	}
	slices.SortStableFunc(out, func(a, b plannedChaser) int { return a.at.Compare(b.at) })
	return out
}

// outsideQuiet is t, or the end of the quiet hours t falls in (in the event's time zone).
func outsideQuiet(t time.Time, loc *time.Location, s chaser.Settings) time.Time {
	if s.QuietStart == s.QuietEnd {
		return t
	}
	local := t.In(loc)
	y, m, d := local.Date()
	minute := local.Hour()*60 + local.Minute()
	end := func(day int) time.Time { return time.Date(y, m, day, 0, s.QuietEnd, 0, 0, loc) }
	if s.QuietStart < s.QuietEnd { // e.g. 12:00–14:00
		if minute >= s.QuietStart && minute < s.QuietEnd {
			return end(d)
		}
		return t
	}
	// Spanning midnight, e.g. 21:00–08:00.
	switch {
	case minute >= s.QuietStart:
		return end(d + 1)
	case minute < s.QuietEnd:
		return end(d)
	}
	return t
}

// chaserDueSQL finds, in events $1, whom each kind applies to now ($2): speakers told of an
// acceptance of a session not cancelled who have neither confirmed nor declined (when the event
// asks speakers to confirm), from when they were told; speakers who have not declined, of such
// sessions with open tasks or outstanding
// files that have a due date, from offset before the earliest; reviewers with pending assignments
// in an open round, from offset before its close.
const chaserDueSQL = `
SELECT c.event_id, 'confirmation', c.email, c.first_name, c.id, 1, min(s.notified_at), NULL::timestamptz, ''
FROM contacts c
JOIN submission_participants p ON p.contact_id = c.id
JOIN submissions s ON s.id = p.submission_id
JOIN events e ON e.id = c.event_id
WHERE c.event_id = ANY($1) AND e.speaker_confirmation_enabled AND c.confirmed_at IS NULL AND c.workflow_status <> 'declined'
  AND s.status = 'accepted' AND s.notified_at IS NOT NULL AND s.cancelled_at IS NULL
GROUP BY c.id
UNION ALL
SELECT c.event_id, 'deliverables', c.email, c.first_name, c.id, count(*), min(d.due), min(d.due), ''
FROM contacts c
JOIN LATERAL (
  SELECT tt.due_date AS due FROM task_assignments a JOIN task_templates tt ON tt.id = a.template_id
  WHERE a.status = 'todo' AND tt.due_date IS NOT NULL AND (a.contact_id = c.id OR (a.contact_id IS NULL AND a.submission_id IN (
    SELECT p.submission_id FROM submission_participants p JOIN submissions s ON s.id = p.submission_id
    WHERE p.contact_id = c.id AND s.status = 'accepted' AND s.notified_at IS NOT NULL AND s.cancelled_at IS NULL)))
  UNION ALL
  SELECT fr.due_at FROM deliverable_assignments a JOIN file_requirements fr ON fr.id = a.requirement_id
  WHERE a.status = 'outstanding' AND fr.due_at IS NOT NULL AND (a.contact_id = c.id OR (a.contact_id IS NULL AND a.submission_id IN (
    SELECT p.submission_id FROM submission_participants p JOIN submissions s ON s.id = p.submission_id
    WHERE p.contact_id = c.id AND s.status = 'accepted' AND s.notified_at IS NOT NULL AND s.cancelled_at IS NULL)))
) d ON true
WHERE c.event_id = ANY($1) AND d.due > $2 AND c.workflow_status <> 'declined'
GROUP BY c.id
UNION ALL
SELECT r.event_id, 'reviews', u.email, u.name, NULL, count(*), min(r.closes_at), min(r.closes_at), min(r.name)
FROM review_assignments a
JOIN review_rounds r ON r.id = a.round_id
JOIN event_members m ON m.id = a.event_member_id
JOIN users u ON u.id = m.user_id
WHERE r.event_id = ANY($1) AND a.status = 'pending' AND r.closes_at > $2
GROUP BY u.id, r.id`

// chaserPlansOf reads who is due in events at now and what was sent, and plans their chasers,
// by event: three statements whatever the number of events.
func (r *Service) chaserPlansOf(ctx context.Context, events []string, now time.Time) (map[string][]plannedChaser, error) {
	c := r.ClientOf(ctx)
	evs, err := c.Event.Query().Where(event.IDIn(events...)).All(ctx)
	if err != nil {
		return nil, err
	}
	settings := map[string]chaser.Settings{}
	for _, ev := range evs {
		settings[ev.ID] = settingsOf(ev)
	}
	items := map[string][]dueItem{}
	err = eachRowArgs(ctx, r.sql(ctx), chaserDueSQL, []any{events, now}, func(scan func(...any) error) error {
		var it dueItem
		var eventID string
		var anchor time.Time
		if err := scan(&eventID, &it.kind, &it.to, &it.name, &it.contactID, &it.count, &anchor, &it.deadline, &it.round); err != nil {
			return err
		}
		rule, ok := settings[eventID].Rule(it.kind)
		if !ok {
			return nil
		}
		offset := time.Duration(rule.OffsetHours) * time.Hour
		if it.kind == chaser.Confirmation {
			it.start = anchor.Add(offset)
		} else {
			it.start = anchor.Add(-offset)
		}
		items[eventID] = append(items[eventID], it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string][]plannedChaser, len(events))
	for _, id := range events {
		out[id] = nil
	}
	if len(items) == 0 {
		return out, nil
	}
	rows, err := c.EmailLog.Query().
		Where(emaillog.EventIDIn(slices.Collect(maps.Keys(items))...),
			emaillog.TemplateIn(email.ChaserConfirmation, email.ChaserDeliverables, email.ReviewReminder)).
		Select(emaillog.FieldEventID, emaillog.FieldTemplate, emaillog.FieldRecipient, emaillog.FieldCreatedAt).All(ctx)
	if err != nil {
		return nil, err
	}
	history := map[string][]sent{}
	for _, e := range rows {
		history[e.EventID] = append(history[e.EventID], sent{template: *e.Template, to: e.Recipient, at: e.CreatedAt})
	}
	for _, ev := range evs {
		if len(items[ev.ID]) > 0 {
			out[ev.ID] = planChasers(settings[ev.ID], EventLocation(ev.Timezone), items[ev.ID], history[ev.ID])
		}
	}
	return out, nil
}

// ChaserPreview answers Event.chaserPreview: the chasers that will leave within the next hours,
// to whom and when, as things stand now.
func (r *Service) ChaserPreview(ctx context.Context, ev *ent.Event, hours int) ([]*model.PlannedChaser, error) {
	if hours < 1 || hours > 24*31 {
		return nil, apperr.Invalid("hours must be between 1 and 744")
	}
	now := time.Now()
	plan, err := r.loaders(ctx).chaserPlans.Load(ctx, ev.ID)
	if err != nil {
		return nil, err
	}
	until := now.Add(time.Duration(hours) * time.Hour)
	out := []*model.PlannedChaser{}
	for _, p := range plan {
		if p.at.After(until) {
			break
		}
		at := p.at
		if at.Before(now) {
			at = now // overdue: it leaves at the next run
		}
		out = append(out, &model.PlannedChaser{Kind: model.ChaserKind(p.item.kind), To: p.item.to, Name: p.item.name,
			ContactID: p.item.contactID, Count: p.item.count, At: at})
	}
	return out, nil
}

// SendChasers sends the chasers of event eventID due at now, once: the event is locked while its
// chasers are planned and queued, so two runs at once send each chaser once (docs/chasers.md).
// It returns how many it queued.
func (r *Service) SendChasers(ctx context.Context, eventID string, now time.Time) (int, error) {
	return inTx(ctx, r, func(ctx context.Context) (int, error) {
		c := r.ClientOf(ctx)
		ev, err := c.Event.Query().Where(event.ID(eventID)).ForUpdate().Only(ctx)
		if err != nil {
			return 0, err
		}
		plans, err := r.chaserPlansOf(ctx, []string{ev.ID}, now)
		if err != nil {
			return 0, err
		}
		plan := plans[ev.ID]
		loc := EventLocation(ev.Timezone)
		var batch []email.Email
		for _, p := range plan {
			if p.at.After(now) {
				break
			}
			it := p.item
			e := email.Email{EventID: ev.ID, ContactID: it.contactID, To: it.to, Type: emaillog.TypeTaskReminder,
				Template: chaserTemplates[it.kind], Data: email.Data{EventName: ev.Name, FirstName: it.name, Count: it.count, Path: "/portal"}}
			if it.deadline != nil {
				e.Data.When = it.deadline.In(loc).Format("Jan 2, 2006 at 3:04 PM MST")
			}
			if it.kind == chaser.Reviews {
				e.Type, e.Data.RoundName, e.Data.Path = emaillog.TypeCustom, it.round, reviewerPath
			}
			batch = append(batch, e)
		}
		rows, err := r.Outbox.Queue(ctx, batch...)
		return len(rows), err
	})
}

// ChaseEvents lists the events with an enabled chaser rule, with their organizations, for the
// periodic job to run SendChasers in each (system work: across organizations).
func (r *Service) ChaseEvents(ctx context.Context) (events, organizations []string, err error) {
	err = eachRowArgs(ctx, r.DB.System, `SELECT id, organization_id FROM events
WHERE chasers -> 'rules' @> '[{"enabled": true}]' AND ends_at > now() - interval '1 day'
ORDER BY id`, nil, func(scan func(...any) error) error {
		var e, o string
		if err := scan(&e, &o); err != nil {
			return err
		}
		events, organizations = append(events, e), append(organizations, o)
		return nil
	})
	return events, organizations, err
}
