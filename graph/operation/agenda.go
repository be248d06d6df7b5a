package operation

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/room"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/timelineentry"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/agenda/solver"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/calendar"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/scalar"
)

// PublicAgenda is the published agenda as anyone may read it.
type PublicAgenda struct {
	Event    PublicAgendaEvent `json:"event"`
	Sessions []agenda.Entry    `json:"sessions"`
	// Blocks are the published blocks (breaks, meals, registration, socials), by start time.
	Blocks []agenda.Block `json:"blocks"`
}

// PublicAgendaEvent is what the public agenda says of its event.
type PublicAgendaEvent struct {
	ID                string            `json:"id"`
	Name              string            `json:"name"`
	Timezone          string            `json:"timezone"`
	AgendaPublishedAt *scalar.Timestamp `json:"agendaPublishedAt"`
}

// The agenda reads six queries besides the event, whatever its size — and whatever the number
// of events read together: each query takes the events as $1. Active sessions are accepted and
// not cancelled.
const (
	agendaSessionsSQL = `
SELECT s.event_id, s.id, s.code, s.title, s.description, s.starts_at, s.ends_at, s.room_id, s.schedule_dirty,
       COALESCE(f.duration_minutes, 30), f.name
FROM submissions s LEFT JOIN formats f ON f.id = s.format_id
WHERE s.event_id = ANY($1) AND s.status = 'accepted' AND s.cancelled_at IS NULL
ORDER BY s.number, s.id`

	agendaTracksSQL = `
SELECT st.submission_id, t.id, t.name, t.color
FROM submission_tracks st JOIN tracks t ON t.id = st.track_id JOIN submissions s ON s.id = st.submission_id
WHERE s.event_id = ANY($1) AND s.status = 'accepted' AND s.cancelled_at IS NULL
ORDER BY t.position, t.name, t.id`

	agendaSpeakersSQL = `
SELECT p.submission_id, c.id, c.first_name, c.last_name
FROM submission_participants p JOIN contacts c ON c.id = p.contact_id JOIN submissions s ON s.id = p.submission_id
WHERE s.event_id = ANY($1) AND s.status = 'accepted' AND s.cancelled_at IS NULL
ORDER BY p.submission_id, p.position, c.id`

	agendaRoomsSQL = `SELECT event_id, id, name, position FROM rooms WHERE event_id = ANY($1) ORDER BY position, name, id`

	agendaBlocksSQL = `
SELECT event_id, id, title, kind, room_id, starts_at, ends_at FROM agenda_blocks
WHERE event_id = ANY($1) ORDER BY starts_at, ends_at, id`

	// The availability of every speaker of the events at once, for Conflicts.
	agendaAvailabilitySQL = `
SELECT event_id, contact_id, starts_at, ends_at FROM speaker_availabilities
WHERE event_id = ANY($1) ORDER BY contact_id, starts_at, id`
)

// agenda loads the agenda of an event whose access was checked.
func (r *Service) agenda(ctx context.Context, ev *ent.Event) (*model.Agenda, error) {
	out, err := r.agendas(ctx, []*ent.Event{ev})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// agendas loads the agendas of events whose access was checked, in their order (Event.agenda for
// a page of events).
func (r *Service) agendas(ctx context.Context, evs []*ent.Event) ([]*model.Agenda, error) {
	q := r.sql(ctx)
	ids := eventIDs(evs)
	byEvent := make(map[string]*model.Agenda, len(ids))
	for _, id := range ids {
		byEvent[id] = &model.Agenda{Rooms: []*model.AgendaRoom{}, Tracks: []agenda.Track{}, Sessions: []*model.AgendaSession{},
			Blocks: []*model.AgendaBlock{}, AiConfigured: r.AI != nil}
	}
	err := eachRow(ctx, q, agendaRoomsSQL, ids, func(scan func(...any) error) error {
		var event string
		rm := &model.AgendaRoom{}
		if err := scan(&event, &rm.ID, &rm.Name, &rm.Position); err != nil {
			return err
		}
		byEvent[event].Rooms = append(byEvent[event].Rooms, rm)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, q, agendaBlocksSQL, ids, func(scan func(...any) error) error {
		var event string
		var starts, ends time.Time
		b := &model.AgendaBlock{}
		if err := scan(&event, &b.ID, &b.Title, &b.Kind, &b.RoomID, &starts, &ends); err != nil {
			return err
		}
		b.StartsAt, b.EndsAt = scalar.At(starts), scalar.At(ends)
		byEvent[event].Blocks = append(byEvent[event].Blocks, b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, q, agendaAvailabilitySQL, ids, func(scan func(...any) error) error {
		var event string
		var av model.SpeakerAvailability
		if err := scan(&event, &av.ContactID, &av.StartsAt, &av.EndsAt); err != nil {
			return err
		}
		byEvent[event].Availability = append(byEvent[event].Availability, av)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A session's tracks and speakers find it by id, and the agenda's tracks through its event.
	byID := map[string]*model.AgendaSession{}
	eventOf := map[string]string{}
	err = eachRow(ctx, q, agendaSessionsSQL, ids, func(scan func(...any) error) error {
		var event string
		s := &model.AgendaSession{Tracks: []agenda.Track{}, Speakers: []agenda.Speaker{}}
		var starts, ends *time.Time
		if err := scan(&event, &s.ID, &s.Code, &s.Title, &s.Description, &starts, &ends, &s.RoomID, &s.ScheduleDirty,
			&s.DurationMinutes, &s.FormatName); err != nil {
			return err
		}
		s.StartsAt, s.EndsAt = scalar.AtPtr(starts), scalar.AtPtr(ends)
		byEvent[event].Sessions = append(byEvent[event].Sessions, s)
		byID[s.ID], eventOf[s.ID] = s, event
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(byID) > 0 {
		if err := r.agendaSessionLinks(ctx, q, ids, byEvent, byID, eventOf); err != nil {
			return nil, err
		}
	}
	out := make([]*model.Agenda, len(evs))
	for i, ev := range evs {
		a := *byEvent[ev.ID]
		a.Event = agendaEvent(ev)
		out[i] = &a
	}
	return out, nil
}

// agendaSessionLinks adds the tracks and speakers of the sessions read, and each agenda's tracks:
// those of its sessions, each once, by position.
func (r *Service) agendaSessionLinks(ctx context.Context, q querier, ids []string, byEvent map[string]*model.Agenda,
	byID map[string]*model.AgendaSession, eventOf map[string]string) error {
	seen := map[[2]string]bool{}
	err := eachRow(ctx, q, agendaTracksSQL, ids, func(scan func(...any) error) error {
		var id string
		var t agenda.Track
		if err := scan(&id, &t.ID, &t.Name, &t.Color); err != nil {
			return err
		}
		byID[id].Tracks = append(byID[id].Tracks, t)
		if key := [2]string{eventOf[id], t.ID}; !seen[key] {
			seen[key] = true
			byEvent[key[0]].Tracks = append(byEvent[key[0]].Tracks, t)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return eachRow(ctx, q, agendaSpeakersSQL, ids, func(scan func(...any) error) error {
		var id, first, last string
		var sp agenda.Speaker
		if err := scan(&id, &sp.ID, &first, &last); err != nil {
			return err
		}
		sp.Name = fullName(first, last)
		byID[id].Speakers = append(byID[id].Speakers, sp)
		return nil
	})
}

// errNotActiveSession answers a schedule change for anything but an active session of the event.
var errNotActiveSession = apperr.Invalid("Choose an accepted session")

// ScheduleSession places a session in a room and slot, or takes it off the schedule (docs/rest-api.md:
// PUT E/agenda/schedule). When the slot changes, the session's invites are out of date
// (scheduleDirty) and so is the published agenda (agendaDirty).
func (r *Service) ScheduleSession(ctx context.Context, eventID string, in model.ScheduleSessionInput) (*model.Agenda, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Agenda, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if !pid.Plausible(in.SubmissionID) {
			return nil, errNotActiveSession
		}
		s, err := c.Submission.Query().Where(submission.ID(in.SubmissionID), submission.EventID(ev.ID),
			submission.StatusEQ(submission.StatusAccepted), submission.CancelledAtIsNil()).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return nil, errNotActiveSession
		}
		if err != nil {
			return nil, err
		}
		roomName, err := checkSlot(ctx, c, ev, in)
		if err != nil {
			return nil, err
		}
		if sameTime(s.StartsAt, in.StartsAt) && sameTime(s.EndsAt, in.EndsAt) && equalPtr(s.RoomID, in.RoomID) {
			return r.agenda(ctx, ev)
		}
		if err := r.moveSession(ctx, c, ev, s, in, roomName); err != nil {
			return nil, err
		}
		if ev, err = ev.Update().SetAgendaDirty(true).Save(ctx); err != nil {
			return nil, err
		}
		return r.agenda(ctx, ev)
	})
}

// moveSession writes a checked schedule change of a session — the slot, scheduleDirty, a
// timeline line, the session.scheduled webhook — leaving the event's agendaDirty to the caller.
// Accepting an agenda draft moves its sessions the same way (agenda_drafts.go).
func (r *Service) moveSession(ctx context.Context, c *ent.Client, ev *ent.Event, s *ent.Submission, in model.ScheduleSessionInput, roomName string) error {
	u := s.Update().SetScheduleDirty(true)
	if in.RoomID == nil {
		u.ClearRoomID().ClearStartsAt().ClearEndsAt()
	} else {
		u.SetRoomID(*in.RoomID).SetStartsAt(*in.StartsAt).SetEndsAt(*in.EndsAt)
	}
	if err := u.Exec(ctx); err != nil {
		return err
	}
	label := "Removed from the schedule"
	if in.RoomID != nil {
		label = fmt.Sprintf("Scheduled in %s, %s", roomName, slotText(*in.StartsAt, *in.EndsAt, ev.Timezone))
	}
	if err := record(ctx, c, timelineentry.KindScheduled, label, nil, s.ID); err != nil {
		return err
	}
	return r.emit(ctx, hookSessionScheduled, hookData{"eventId": ev.ID, "sessionId": s.ID, "roomId": in.RoomID, "startsAt": in.StartsAt, "endsAt": in.EndsAt})
}

// checkSlot checks a schedule change: a room, a start and an end, or none of them; the room of the
// event; the end after the start; the whole session within one day of the event, in its time
// zone. It returns the room's name.
func checkSlot(ctx context.Context, c *ent.Client, ev *ent.Event, in model.ScheduleSessionInput) (string, error) {
	if in.RoomID == nil && in.StartsAt == nil && in.EndsAt == nil {
		return "", nil
	}
	if in.RoomID == nil || in.StartsAt == nil || in.EndsAt == nil {
		return "", apperr.Invalid("Choose a room, start time, and end time")
	}
	var rm *ent.Room
	var err error
	if pid.Plausible(*in.RoomID) {
		rm, err = c.Room.Query().Where(room.ID(*in.RoomID), room.EventID(ev.ID)).Only(ctx)
	}
	if rm == nil || ent.IsNotFound(err) {
		return "", apperr.Invalid("Choose a room from this event")
	}
	if err != nil {
		return "", err
	}
	// The rule of a slot is the agenda drafts' too (package solver).
	if err := solver.EventOf(ev.Timezone, ev.StartsAt, ev.EndsAt).CheckSlot(*in.StartsAt, *in.EndsAt); err != nil {
		return "", apperr.Invalid("%s", err.Error())
	}
	return rm.Name, nil
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// slotText describes a slot in the event's time zone: "Fri, Sep 10, 2027, 11:00 AM–11:45 AM CEST".
func slotText(start, end time.Time, tz string) string {
	loc := EventLocation(tz)
	start, end = start.In(loc), end.In(loc)
	return start.Format("Mon, Jan 2, 2006, 3:04 PM") + "–" + end.Format("3:04 PM MST")
}

// PublishAgenda freezes the scheduled active sessions — start, end and room set — as the
// published agenda, by start time (docs/rest-api.md: "Publish"). Each entry is the session's
// public view (public_view.go): its approved content and the speakers with an approved name; a
// session with nothing approved is left out. The public agenda feeds serve this snapshot.
// Unless forced, an agenda with blocking conflicts is refused (docs/agenda.md: the publish gate).
func (r *Service) PublishAgenda(ctx context.Context, eventID string, force bool) (*model.Agenda, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Agenda, error) {
		c := r.ClientOf(ctx)
		ev, err := lockedEvent(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		current, err := r.agenda(ctx, ev)
		if err != nil {
			return nil, err
		}
		if err := publishGate(current, force); err != nil {
			return nil, err
		}
		rooms := map[string]string{}
		for _, rm := range current.Rooms {
			rooms[rm.ID] = rm.Name
		}
		public, err := r.publicSessions(ctx, ev.ID, nil)
		if err != nil {
			return nil, err
		}
		entries := []agenda.Entry{}
		for _, s := range current.Sessions {
			ps, approved := public[s.ID]
			if !approved || s.StartsAt == nil || s.EndsAt == nil || s.RoomID == nil {
				continue
			}
			name, ok := rooms[*s.RoomID]
			if !ok {
				continue
			}
			speakers := mapAll(ps.Speakers, func(sp *model.ProgramSpeaker) agenda.Speaker {
				return agenda.Speaker{ID: sp.ID, Name: fullName(sp.FirstName, sp.LastName)}
			})
			entries = append(entries, agenda.Entry{ID: s.ID, Code: s.Code, Title: ps.Title, Description: ps.Description,
				StartsAt: scalar.FormatTime(s.StartsAt.Time), EndsAt: scalar.FormatTime(s.EndsAt.Time), RoomName: name,
				Tracks: s.Tracks, Speakers: speakers})
		}
		slices.SortStableFunc(entries, func(a, b agenda.Entry) int { return cmp.Compare(a.StartsAt, b.StartsAt) })
		ev, err = ev.Update().SetPublishedAgenda(entries).SetPublishedBlocks(publishedBlocks(current)).
			SetAgendaPublishedAt(time.Now()).SetAgendaDirty(false).Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.recordAgendaVersion(ctx, ev, entries, ev.PublishedBlocks); err != nil {
			return nil, err
		}
		current.Event = agendaEvent(ev)
		return current, nil
	})
}

// UnpublishAgenda withdraws the published agenda: none, no publication time, and dirty.
func (r *Service) UnpublishAgenda(ctx context.Context, eventID string) (*model.Agenda, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Agenda, error) {
		c := r.ClientOf(ctx)
		ev, err := lockedEvent(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		ev, err = ev.Update().SetPublishedAgenda([]agenda.Entry{}).SetPublishedBlocks([]agenda.Block{}).
			ClearAgendaPublishedAt().SetAgendaDirty(true).Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.emit(ctx, hookAgendaUnpublished, hookData{"eventId": ev.ID}); err != nil {
			return nil, err
		}
		return r.agenda(ctx, ev)
	})
}

func agendaEvent(ev *ent.Event) *model.AgendaEvent {
	return &model.AgendaEvent{ID: ev.ID, Slug: ev.Slug, Name: ev.Name, Timezone: ev.Timezone, StartsAt: scalar.At(ev.StartsAt),
		EndsAt: scalar.At(ev.EndsAt), AgendaPublishedAt: scalar.AtPtr(ev.AgendaPublishedAt), AgendaDirty: ev.AgendaDirty}
}

// lockedEvent checks access to the event and locks its row for the transaction.
func lockedEvent(ctx context.Context, c *ent.Client, eventID string) (*ent.Event, error) {
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	return lockEvent(ctx, c, ev.ID)
}

// PublicAgenda is the published agenda of any event, for anyone (no key): published data only.
func (r *Service) PublicAgenda(ctx context.Context, eventID string) (*PublicAgenda, error) {
	notFound := apperr.NotFound("Event")
	if !pid.Plausible(eventID) {
		return nil, notFound
	}
	// Anyone may read any event's published agenda: the read spans organizations, and selects
	// published fields only.
	ev, err := r.Client.Event.Query().Where(event.ID(eventID)).
		Select(event.FieldID, event.FieldName, event.FieldTimezone, event.FieldAgendaPublishedAt, event.FieldPublishedAgenda,
			event.FieldPublishedBlocks).
		Only(viewer.System(ctx, "public agenda: the published agenda of any event, without a key"))
	if ent.IsNotFound(err) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	sessions := ev.PublishedAgenda
	if sessions == nil || ev.AgendaPublishedAt == nil {
		sessions = []agenda.Entry{}
	}
	return &PublicAgenda{Event: PublicAgendaEvent{ID: ev.ID, Name: ev.Name, Timezone: ev.Timezone,
		AgendaPublishedAt: scalar.AtPtr(ev.AgendaPublishedAt)}, Sessions: sessions, Blocks: eventBlocks(ev)}, nil
}

// SendCalendarInvites emails calendar invitations for scheduled active sessions (docs/rest-api.md:
// POST E/agenda/invites): a session whose slot changed since its invites (scheduleDirty) sends
// every speaker an update — its SEQUENCE raised when invites had gone out before — and otherwise
// only speakers without an invitation get one. An active session taken off the schedule after its
// invites went out sends a cancellation. scheduleDirty is cleared.
func (r *Service) SendCalendarInvites(ctx context.Context, eventID string, in *model.SendCalendarInvitesInput) (*model.CalendarInvitesResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CalendarInvitesResult, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		// An acceptance not yet announced gets no invitation: its speakers do not know of it
		// (docs/decisions.md); the next send after informSubmissions invites them.
		q := c.Submission.Query().Where(submission.EventID(ev.ID), submission.StatusEQ(submission.StatusAccepted),
			submission.CancelledAtIsNil(), submission.Or(submission.SourceFormIDIsNil(), submission.NotifiedAtNotNil()))
		if in != nil && in.SubmissionIds != nil {
			ids := unique(in.SubmissionIds)
			if err := submissionsOf(ctx, c, ev.ID, ids); err != nil {
				return nil, err
			}
			q = q.Where(submission.IDIn(ids...))
		}
		sessions, err := q.Order(ent.Asc(submission.FieldNumber)).ForUpdate().All(ctx)
		if err != nil {
			return nil, err
		}
		ids := mapAll(sessions, func(s *ent.Submission) string { return s.ID })
		people, err := participants(ctx, c, ids...)
		if err != nil {
			return nil, err
		}
		invited := map[[2]string]bool{}
		sent, err := c.EmailLog.Query().Where(emaillog.SubmissionIDIn(ids...), emaillog.TypeEQ(emaillog.TypeCalendarInvite)).
			Select(emaillog.FieldSubmissionID, emaillog.FieldContactID).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, e := range sent {
			if e.SubmissionID != nil && e.ContactID != nil {
				invited[[2]string{*e.SubmissionID, *e.ContactID}] = true
			}
		}
		res := &model.CalendarInvitesResult{}
		now := time.Now()
		var batch []email.Email
		for _, s := range sessions {
			anySent := slices.ContainsFunc(people[s.ID], func(p speaker) bool { return invited[[2]string{s.ID, p.ContactID}] })
			scheduled := s.StartsAt != nil && s.EndsAt != nil
			var targets []speaker
			sequence := s.IcsSequence
			switch {
			case !scheduled && s.ScheduleDirty && anySent:
				// Taken off the schedule after invites went out: withdraw them.
				sequence++
				targets = slices.DeleteFunc(slices.Clone(people[s.ID]), func(p speaker) bool { return !invited[[2]string{s.ID, p.ContactID}] })
			case !scheduled:
				continue
			case s.ScheduleDirty:
				if anySent {
					sequence++
				}
				targets = people[s.ID]
			default:
				targets = slices.DeleteFunc(slices.Clone(people[s.ID]), func(p speaker) bool { return invited[[2]string{s.ID, p.ContactID}] })
			}
			if len(targets) > 0 {
				emails, err := r.calendarEmails(ctx, c, ev, s, targets, sequence, scheduled, now)
				if err != nil {
					return nil, err
				}
				batch = append(batch, emails...)
				res.Sessions++
			}
			if sequence != s.IcsSequence || s.ScheduleDirty {
				if err := s.Update().SetIcsSequence(sequence).SetScheduleDirty(false).Exec(ctx); err != nil {
					return nil, err
				}
			}
		}
		rows, err := r.Outbox.Queue(ctx, batch...)
		if err != nil {
			return nil, err
		}
		res.CreatedEmails = len(rows)
		return res, nil
	})
}

// calendarEmails makes the invitation emails of a session, or its cancellations when it is no
// longer scheduled.
func (r *Service) calendarEmails(ctx context.Context, c *ent.Client, ev *ent.Event, s *ent.Submission, to []speaker,
	sequence int, scheduled bool, now time.Time) ([]email.Email, error) {
	title, description := invitationContent(s.Title, s.Description, s.ApprovedSnapshot)
	entry := calendar.Session{ID: s.ID, Title: title, Description: description, Sequence: sequence,
		URL: r.Outbox.PublicURL + "/portal"}
	data := email.Data{EventName: ev.Name, Path: "/portal", SessionTitle: title, Calendar: true}
	ics, template := calendar.Request, email.CalendarInvite
	if scheduled {
		var err error
		if entry, err = r.calendarEntry(ctx, c, s, sequence); err != nil {
			return nil, err
		}
		data.When, data.Room = slotText(*s.StartsAt, *s.EndsAt, ev.Timezone), entry.Room
	} else {
		// The cancellation names no slot; calendar clients match it by UID.
		ics, template = calendar.Cancel, email.SessionUnscheduled
	}
	out := make([]email.Email, len(to))
	for i, p := range to {
		d := data
		d.FirstName = p.FirstName
		out[i] = email.Email{EventID: ev.ID, ContactID: new(p.ContactID), SubmissionID: new(s.ID), Type: emaillog.TypeCalendarInvite,
			To: p.Email, Template: template, Data: d, ICSSequence: new(sequence),
			ICS: ics(entry, calendar.Party{Name: ev.Name}, calendar.Party{Name: fullName(p.FirstName, p.LastName), Email: p.Email}, now)}
	}
	return out, nil
}
