// Package calendar writes the iCalendar objects Podium emails to speakers. A session keeps one
// UID for life, so calendar clients update or remove the entry they already have instead of
// adding another; SEQUENCE orders the versions (RFC 5546).
package calendar

import (
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"
)

// Session is what an invitation says about a session.
type Session struct {
	// ID is the session's id; the UID is made from it.
	ID          string
	Title       string
	Description string
	Room        string
	StartsAt    time.Time
	EndsAt      time.Time
	// Sequence is the session's icsSequence for this version.
	Sequence int
	// URL links to the speaker portal.
	URL string
}

// Party is the organizer or an attendee.
type Party struct {
	Name, Email string
}

// UID is the stable identifier of a session's calendar entry.
func UID(sessionID string) string { return sessionID + "@podium" }

// Request is an invitation (METHOD:REQUEST) for attendee, or its update when Sequence is higher
// than the last one sent.
func Request(s Session, organizer, attendee Party, now time.Time) string {
	return build(ics.MethodRequest, ics.ObjectStatusConfirmed, s, organizer, attendee, now)
}

// Cancel withdraws the invitation (METHOD:CANCEL, STATUS:CANCELLED); Sequence must be higher than
// the last invitation's.
func Cancel(s Session, organizer, attendee Party, now time.Time) string {
	return build(ics.MethodCancel, ics.ObjectStatusCancelled, s, organizer, attendee, now)
}

func build(method ics.Method, status ics.ObjectStatus, s Session, organizer, attendee Party, now time.Time) string {
	cal := ics.NewCalendarFor("Podium")
	cal.SetMethod(method)
	ev := cal.AddEvent(UID(s.ID))
	ev.SetDtStampTime(now.UTC())
	ev.SetSequence(s.Sequence)
	ev.SetStatus(status)
	// A cancellation may not know the slot (RFC 5546 makes DTSTART optional in CANCEL).
	if !s.StartsAt.IsZero() {
		ev.SetStartAt(s.StartsAt.UTC())
		ev.SetEndAt(s.EndsAt.UTC())
	}
	ev.SetSummary(s.Title)
	if s.Description != "" {
		ev.SetDescription(s.Description)
	}
	if s.Room != "" {
		ev.SetLocation(s.Room)
	}
	if s.URL != "" {
		ev.SetURL(s.URL)
	}
	if organizer.Email != "" {
		ev.SetOrganizer("mailto:"+organizer.Email, ics.WithCN(organizer.Name))
	}
	ev.AddAttendee("mailto:"+attendee.Email, ics.WithCN(attendee.Name), ics.ParticipationStatusNeedsAction,
		ics.WithRSVP(false))
	return cal.Serialize()
}

// Feed is a published agenda as a subscribable calendar (METHOD:PUBLISH). Its entries carry the
// same UIDs as the speakers' invitations.
type Feed struct {
	Name, Timezone string
	// URL is the event's public address, if any.
	URL string
	// PublishedAt stamps every entry; calendar clients refresh entries whose stamp moved.
	PublishedAt time.Time
	Sessions    []FeedSession
	Blocks      []FeedBlock
}

// FeedSession is one entry of a feed.
type FeedSession struct {
	ID, Code, Title, Description, Room string
	StartsAt, EndsAt                   time.Time
	Speakers, Tracks                   []string
}

// FeedBlock is a block of the agenda (a break, a meal, …) in a feed: Room is its room's name, ""
// for a block of every room. Its UID is made from its id as a session's is, so it stays the same
// across publishes.
type FeedBlock struct {
	ID, Title, Kind, Room string
	StartsAt, EndsAt      time.Time
}

// Serialize writes the feed.
func (f Feed) Serialize() string {
	cal := ics.NewCalendarFor("Podium")
	cal.SetMethod(ics.MethodPublish)
	cal.SetName(f.Name)
	cal.SetXWRCalName(f.Name)
	if f.Timezone != "" {
		cal.SetXWRTimezone(f.Timezone)
	}
	stamp := f.PublishedAt
	if stamp.IsZero() {
		stamp = time.Now()
	}
	for _, s := range f.Sessions {
		ev := cal.AddEvent(UID(s.ID))
		ev.SetDtStampTime(stamp.UTC())
		ev.SetLastModifiedAt(stamp.UTC())
		ev.SetStartAt(s.StartsAt.UTC())
		ev.SetEndAt(s.EndsAt.UTC())
		ev.SetSummary(s.Title)
		description := s.Description
		if len(s.Speakers) > 0 {
			if description != "" {
				description += "\n\n"
			}
			description += "Speakers: " + strings.Join(s.Speakers, ", ")
		}
		if description != "" {
			ev.SetDescription(description)
		}
		if s.Room != "" {
			ev.SetLocation(s.Room)
		}
		for _, t := range s.Tracks {
			ev.AddCategory(t)
		}
		if f.URL != "" {
			ev.SetURL(f.URL)
		}
	}
	for _, b := range f.Blocks {
		ev := cal.AddEvent(UID(b.ID))
		ev.SetDtStampTime(stamp.UTC())
		ev.SetLastModifiedAt(stamp.UTC())
		ev.SetStartAt(b.StartsAt.UTC())
		ev.SetEndAt(b.EndsAt.UTC())
		ev.SetSummary(b.Title)
		if b.Room != "" {
			ev.SetLocation(b.Room)
		}
		if b.Kind != "" {
			ev.AddCategory(b.Kind)
		}
		// Nobody attends a break: it does not make the subscriber busy.
		ev.SetTimeTransparency(ics.TransparencyTransparent)
		if f.URL != "" {
			ev.SetURL(f.URL)
		}
	}
	return cal.Serialize()
}
