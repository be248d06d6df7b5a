package operation

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/vikstrous/dataloadgen"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/speakeravailability"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
)

// Speaker availability (docs/agenda.md "Speaker availability"): the stretches of time a speaker
// can speak at an event. A speaker with none is available throughout the event; conflict
// detection and auto-schedule read the rows. Organizers read and replace any speaker's of their
// event; a speaker reads and replaces their own from the portal, found as the portal finds
// everything of theirs (a contact of the event with their address, speakingOf). Rows are stored
// in UTC and presented in the event's time zone. Availability is not part of the published
// agenda: replacing it records a change for subscriptions, nothing else.

// MaxAvailabilityIntervals bounds the intervals of one speaker at one event: a week of
// conference days with several windows each fits well inside it, and it keeps a replacement one
// short statement.
const MaxAvailabilityIntervals = 50

// availabilityStep is the mark every interval starts and ends on, as the agenda's slots do.
const availabilityStep = 5 * time.Minute

// changeSpeakerAvailability is the change recorded when a speaker's availability is replaced.
const changeSpeakerAvailability = "speaker.availability_changed"

var errMyEventNotFound = apperr.NotFound("Event")

// SpeakerAvailability reads the availability of the speaker contactID of the event eventID, for
// its organizers.
func (r *Service) SpeakerAvailability(ctx context.Context, eventID, contactID string) (*model.Availability, error) {
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	ct, err := SpeakerOf(ctx, c, ev.ID, contactID)
	if err != nil {
		return nil, err
	}
	return r.availabilityOf(ctx, ct)
}

// availabilityOf reads one contact's availability without the request's loader, whose batches
// run in the scope of the request rather than of ctx.
func (r *Service) availabilityOf(ctx context.Context, ct *ent.Contact) (*model.Availability, error) {
	m, err := r.availabilityRows(ctx, []string{ct.EventID}, []string{ct.ID})
	if err != nil {
		return nil, err
	}
	return m[ct.EventID].of(ct.EventID, ct.ID), nil
}

// ContactAvailability is the availability of the contact ct at its event (Contact.availability).
// The request's loader reads whole events, so the contacts of one request cost two statements
// whatever their number, and however the contacts' fields are scheduled: a contact asking after
// its event was read finds it in the loader's cache.
func (r *Service) ContactAvailability(ctx context.Context, ct *ent.Contact) (*model.Availability, error) {
	l := &r.loaders(ctx).availability
	l.once.Do(func() {
		l.loader = dataloadgen.NewMappedLoader(r.eventsAvailability, dataloadgen.WithWait(loaderWait))
	})
	ea, err := l.loader.Load(ctx, ct.EventID)
	if err != nil {
		return nil, err
	}
	return ea.of(ct.EventID, ct.ID), nil
}

// eventAvailability is the availability of every speaker of an event.
type eventAvailability struct {
	timezone string
	rows     map[string][]*ent.SpeakerAvailability
}

// of is the availability of one contact of the event.
func (ea *eventAvailability) of(eventID, contactID string) *model.Availability {
	a := &model.Availability{EventID: eventID, ContactID: contactID, Timezone: ea.timezone, AvailableThroughout: true,
		Intervals: []*model.AvailabilityInterval{}}
	loc := EventLocation(ea.timezone)
	for _, row := range ea.rows[contactID] {
		a.AvailableThroughout = false
		a.Intervals = append(a.Intervals, toAvailabilityInterval(row.StartsAt, row.EndsAt, loc))
	}
	return a
}

// eventsAvailability reads the time zones of events and the availability of all their speakers.
func (r *Service) eventsAvailability(ctx context.Context, events []string) (map[string]*eventAvailability, error) {
	return r.availabilityRows(ctx, events, nil)
}

// availabilityRows reads the time zones of events and the availability rows of their speakers, of
// the contacts given only when contacts is not nil.
func (r *Service) availabilityRows(ctx context.Context, events, contacts []string) (map[string]*eventAvailability, error) {
	c := r.ClientOf(ctx)
	evs, err := c.Event.Query().Where(event.IDIn(events...)).Select(event.FieldID, event.FieldTimezone).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*eventAvailability, len(events))
	for _, id := range events {
		out[id] = &eventAvailability{rows: map[string][]*ent.SpeakerAvailability{}}
	}
	for _, ev := range evs {
		out[ev.ID].timezone = ev.Timezone
	}
	q := c.SpeakerAvailability.Query().Where(speakeravailability.EventIDIn(events...))
	if contacts != nil {
		q = q.Where(speakeravailability.ContactIDIn(contacts...))
	}
	rows, err := q.Order(ent.Asc(speakeravailability.FieldStartsAt), ent.Asc(speakeravailability.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		if ea := out[row.EventID]; ea != nil {
			ea.rows[row.ContactID] = append(ea.rows[row.ContactID], row)
		}
	}
	return out, nil
}

// SetSpeakerAvailability replaces the availability of the speaker contactID of the event eventID
// with in's intervals, for its organizers (rules in checkAvailability).
func (r *Service) SetSpeakerAvailability(ctx context.Context, eventID, contactID string, in model.SpeakerAvailabilityInput) (*model.Availability, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Availability, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		ct, err := SpeakerOf(ctx, c, ev.ID, contactID)
		if err != nil {
			return nil, err
		}
		return r.replaceAvailability(ctx, ev, ct, in)
	})
}

// MyAvailability reads the caller's own availability at the event eventID, where they speak.
func (r *Service) MyAvailability(ctx context.Context, eventID string) (*model.Availability, error) {
	var out *model.Availability
	err := r.onMyContact(ctx, eventID, func(ctx context.Context, _ *ent.Event, ct *ent.Contact) (err error) {
		out, err = r.availabilityOf(ctx, ct)
		return err
	})
	return out, err
}

// SetMyAvailability replaces the caller's own availability at the event eventID, where they
// speak, by the organizers' rules.
func (r *Service) SetMyAvailability(ctx context.Context, eventID string, in model.SpeakerAvailabilityInput) (*model.Availability, error) {
	if err := alone(ctx); err != nil {
		return nil, err
	}
	var out *model.Availability
	err := r.onMyContact(ctx, eventID, func(ctx context.Context, ev *ent.Event, ct *ent.Contact) (err error) {
		out, err = r.replaceAvailability(ctx, ev, ct, in)
		return err
	})
	return out, err
}

// onMyContact runs fn in one transaction of the organization of the caller's contact at the
// event eventID (checked again against their address); not found when they do not speak there.
func (r *Service) onMyContact(ctx context.Context, eventID string, fn func(ctx context.Context, ev *ent.Event, ct *ent.Contact) error) error {
	for _, c := range speakingOf(ctx) {
		if c.EventID != eventID {
			continue
		}
		return r.DB.InTx(inOrganization(ctx, c.OrganizationID), func(ctx context.Context) error {
			ct, err := r.OwnContact(ctx, c.ContactID)
			if err != nil {
				return err
			}
			ev, err := r.ClientOf(ctx).Event.Get(ctx, ct.EventID)
			if err != nil {
				return err
			}
			return fn(ctx, ev, ct)
		})
	}
	return errMyEventNotFound
}

// replaceAvailability checks in against the event ev and replaces ct's rows with it, in the
// transaction of ctx; the contact's row is locked so that two replacements apply one after the
// other.
func (r *Service) replaceAvailability(ctx context.Context, ev *ent.Event, ct *ent.Contact, in model.SpeakerAvailabilityInput) (*model.Availability, error) {
	spans, err := checkAvailability(ev, in.Intervals)
	if err != nil {
		return nil, err
	}
	c := r.ClientOf(ctx)
	if _, err := c.Contact.Query().Where(contact.ID(ct.ID)).ForUpdate().Only(ctx); err != nil {
		return nil, err
	}
	if _, err := c.SpeakerAvailability.Delete().Where(speakeravailability.EventID(ev.ID),
		speakeravailability.ContactID(ct.ID)).Exec(ctx); err != nil {
		return nil, err
	}
	creates := make([]*ent.SpeakerAvailabilityCreate, len(spans))
	for i, s := range spans {
		creates[i] = c.SpeakerAvailability.Create().SetEventID(ev.ID).SetContactID(ct.ID).
			SetStartsAt(s.start).SetEndsAt(s.end)
	}
	if len(creates) > 0 {
		if _, err := c.SpeakerAvailability.CreateBulk(creates...).Save(ctx); err != nil {
			return nil, err
		}
	}
	if err := r.change(ctx, changeSpeakerAvailability, ev.ID, map[string]string{"speakerId": ct.ID}); err != nil {
		return nil, err
	}
	loc := EventLocation(ev.Timezone)
	out := &model.Availability{EventID: ev.ID, ContactID: ct.ID, Timezone: ev.Timezone,
		AvailableThroughout: len(spans) == 0, Intervals: make([]*model.AvailabilityInterval, len(spans))}
	for i, s := range spans {
		out.Intervals[i] = toAvailabilityInterval(s.start, s.end, loc)
	}
	return out, nil
}

// IntervalError refuses one interval of an availability (400 invalid_input): Index is its
// position in the input, from 0, so that a form can point at the row.
type IntervalError struct {
	Index int
	Err   *apperr.Error
}

func (e *IntervalError) Error() string { return e.Err.Message }

// Unwrap gives the error vocabulary's error, which the transports present.
func (e *IntervalError) Unwrap() error { return e.Err }

func intervalError(i int, why string) error {
	return &IntervalError{Index: i, Err: apperr.Invalid("Interval %d: %s", i+1, why)}
}

// span is one checked interval, in UTC.
type span struct{ start, end time.Time }

// checkAvailability checks the intervals of an availability for the event ev and returns them in
// UTC, by start, overlapping and touching ones merged. Every interval must end after it starts,
// lie within the event's days (from midnight of its first day to midnight after its last, in its
// time zone) and start and end on a 5-minute mark; there may be at most
// MaxAvailabilityIntervals. Errors name the interval by its position (1 for the first).
func checkAvailability(ev *ent.Event, in []*model.AvailabilityIntervalInput) ([]span, error) {
	if len(in) > MaxAvailabilityIntervals {
		return nil, apperr.Invalid("Give at most %d availability intervals (got %d)", MaxAvailabilityIntervals, len(in))
	}
	loc := EventLocation(ev.Timezone)
	first, last := EventDays(ev)
	out := make([]span, 0, len(in))
	for i, x := range in {
		if x == nil {
			return nil, intervalError(i, "give a start and an end")
		}
		s, e := x.StartsAt.UTC(), x.EndsAt.UTC()
		switch {
		case !e.After(s):
			return nil, intervalError(i, "the end must be after the start")
		case !onStep(s) || !onStep(e):
			return nil, intervalError(i, "start and end must be on a 5-minute mark, such as 09:00 or 09:05")
		case s.Before(first) || e.After(last):
			return nil, intervalError(i, fmt.Sprintf("it must be within the event's days, %s to %s (%s)",
				first.In(loc).Format("Mon 2 Jan 2006"), last.In(loc).AddDate(0, 0, -1).Format("Mon 2 Jan 2006"), ev.Timezone))
		}
		out = append(out, span{s, e})
	}
	slices.SortFunc(out, func(a, b span) int { return a.start.Compare(b.start) })
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 && !s.start.After(merged[n-1].end) {
			if s.end.After(merged[n-1].end) {
				merged[n-1].end = s.end
			}
			continue
		}
		merged = append(merged, s)
	}
	return merged, nil
}

// EventDays are the bounds of the event ev's days in its time zone: midnight of the day it
// starts, and midnight after the day it ends (its end itself when that is a midnight).
func EventDays(ev *ent.Event) (first, last time.Time) {
	loc := EventLocation(ev.Timezone)
	s, e := ev.StartsAt.In(loc), ev.EndsAt.In(loc)
	first = time.Date(s.Year(), s.Month(), s.Day(), 0, 0, 0, 0, loc)
	last = time.Date(e.Year(), e.Month(), e.Day(), 0, 0, 0, 0, loc)
	if last.Before(e) {
		last = time.Date(e.Year(), e.Month(), e.Day()+1, 0, 0, 0, 0, loc)
	}
	return first.UTC(), last.UTC()
}

// onStep tells whether t is on a 5-minute mark. Zone offsets are whole quarters of an hour, so a
// mark in UTC is one in the event's zone.
func onStep(t time.Time) bool {
	return t.Equal(t.Truncate(availabilityStep))
}

// localLayout writes an instant in the event's time zone with its offset.
const localLayout = "2006-01-02T15:04:05-07:00"

func toAvailabilityInterval(start, end time.Time, loc *time.Location) *model.AvailabilityInterval {
	return &model.AvailabilityInterval{StartsAt: start.UTC(), EndsAt: end.UTC(),
		LocalStart: start.In(loc).Format(localLayout), LocalEnd: end.In(loc).Format(localLayout)}
}

// availabilityLoaders read the availability of the events of one request's contacts together;
// the zero value is ready, the loader made on first use.
type availabilityLoaders struct {
	once   sync.Once
	loader *dataloadgen.Loader[string, *eventAvailability]
}
