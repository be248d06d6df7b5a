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

// Block is an agenda block as frozen in the published agenda: a break, meal, registration or
// social in one room (RoomName) or in every room (RoomName null). Times are ISO 8601 UTC strings
// with milliseconds, as Entry's.
type Block struct {
	ID       string  `json:"id"`
	Title    string  `json:"title"`
	Kind     string  `json:"kind" enum:"break,meal,registration,social,other"`
	RoomName *string `json:"roomName"`
	StartsAt string  `json:"startsAt"`
	EndsAt   string  `json:"endsAt"`
}

// Change is how one session or block differs between a published version of the agenda and the
// version before it. Kinds say what changed: "added" or "removed" alone, or any of "moved" (a new
// room and a new time), "retimed" (a new time, same room), "re-roomed" (a new room, same time),
// "retitled" and "speakers". Before and After are the session as each version froze it (Before
// null when added, After null when removed); for a block, BeforeBlock and AfterBlock.
type Change struct {
	SessionID   string   `json:"sessionId,omitempty"`
	BlockID     string   `json:"blockId,omitempty"`
	Code        string   `json:"code,omitempty"`
	Title       string   `json:"title"`
	Kinds       []string `json:"kinds"`
	Before      *Entry   `json:"before,omitempty"`
	After       *Entry   `json:"after,omitempty"`
	BeforeBlock *Block   `json:"beforeBlock,omitempty"`
	AfterBlock  *Block   `json:"afterBlock,omitempty"`
}
