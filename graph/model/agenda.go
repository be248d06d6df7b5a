package model

import (
	"time"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/scalar"
)

// Agenda is GET E/agenda and Event.agenda (docs/rest-api.md §4 "Agenda").
type Agenda struct {
	Event    *AgendaEvent     `json:"event"`
	Rooms    []*AgendaRoom    `json:"rooms"`
	Tracks   []agenda.Track   `json:"tracks"`
	Sessions []*AgendaSession `json:"sessions"`
	Blocks   []*AgendaBlock   `json:"blocks"`
	// AiConfigured says an AI provider is configured for the server (auto-schedule asks it).
	AiConfigured bool `json:"aiConfigured"`
	// Availability is when the speakers of the event's sessions said they can speak, read with the
	// agenda for its conflicts; REST does not show it.
	Availability []SpeakerAvailability `json:"-"`
}

// SpeakerAvailability is a stretch of time a speaker can speak. A speaker with none is available
// throughout the event.
type SpeakerAvailability struct {
	ContactID        string
	StartsAt, EndsAt time.Time
}

// AgendaEvent is the event as the agenda shows it.
type AgendaEvent struct {
	ID                string            `json:"id"`
	Slug              string            `json:"slug"`
	Name              string            `json:"name"`
	Timezone          string            `json:"timezone"`
	StartsAt          scalar.Timestamp  `json:"startsAt"`
	EndsAt            scalar.Timestamp  `json:"endsAt"`
	AgendaPublishedAt *scalar.Timestamp `json:"agendaPublishedAt"`
	AgendaDirty       bool              `json:"agendaDirty"`
}

// AgendaRoom is a room of the agenda.
type AgendaRoom struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Position int    `json:"position"`
}

// AgendaSession is an active session on the agenda, scheduled or not.
type AgendaSession struct {
	ID              string            `json:"id"`
	Code            string            `json:"code"`
	Title           string            `json:"title"`
	Description     string            `json:"description"`
	StartsAt        *scalar.Timestamp `json:"startsAt"`
	EndsAt          *scalar.Timestamp `json:"endsAt"`
	RoomID          *string           `json:"roomId"`
	ScheduleDirty   bool              `json:"scheduleDirty"`
	DurationMinutes int               `json:"durationMinutes"`
	FormatName      *string           `json:"formatName"`
	Tracks          []agenda.Track    `json:"tracks"`
	Speakers        []agenda.Speaker  `json:"speakers"`
}

// AgendaBlock is a stretch of the agenda that is not a session (a break, a meal, registration, a
// social or other), in one room or (RoomID nil) in every room.
type AgendaBlock struct {
	ID       string           `json:"id"`
	Title    string           `json:"title"`
	Kind     string           `json:"kind" enum:"break,meal,registration,social,other"`
	RoomID   *string          `json:"roomId"`
	StartsAt scalar.Timestamp `json:"startsAt"`
	EndsAt   scalar.Timestamp `json:"endsAt"`
}

// AgendaConflict is two scheduled sessions overlapping on a speaker or a room, a session
// overlapping a block, or a session outside a speaker's availability.
type AgendaConflict struct {
	Kind       AgendaConflictKind     `json:"kind"`
	Severity   AgendaConflictSeverity `json:"severity"`
	SessionIds []string               `json:"sessionIds"`
	ContactID  *string                `json:"contactId"`
	RoomID     *string                `json:"roomId"`
	BlockID    *string                `json:"blockId"`
	Name       string                 `json:"name"`
	StartsAt   scalar.Timestamp       `json:"startsAt"`
	EndsAt     scalar.Timestamp       `json:"endsAt"`
}
