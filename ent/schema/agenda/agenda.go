// Package agenda holds the shape of a published agenda, stored as JSON on the event. It is its own
// package because the generated ent code imports it, and the ent schema package must not be
// imported by generated code.
package agenda

// Entry is one session of an event's published agenda, frozen at publication: later edits to the
// session do not change what attendees see until the organizers publish again.
type Entry struct {
	ID          string    `json:"id"`
	Code        string    `json:"code"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	StartsAt    string    `json:"startsAt"`
	EndsAt      string    `json:"endsAt"`
	RoomName    string    `json:"roomName"`
	Tracks      []Track   `json:"tracks"`
	Speakers    []Speaker `json:"speakers"`
}

// Track is a track as shown next to a session.
type Track struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// Speaker is a speaker as shown next to a session: the contact id and "first last".
type Speaker struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}
