package model

import (
	"time"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/scalar"
)

// Program is GET E/program and Query.program.
type Program struct {
	Event    *ProgramEvent     `json:"event"`
	Tracks   []agenda.Track    `json:"tracks"`
	Formats  []*ProgramLabel   `json:"formats"`
	Tags     []*ProgramLabel   `json:"tags"`
	Sessions []*ProgramSession `json:"sessions"`
	// Blocks are the published blocks, by start time.
	Blocks []agenda.Block `json:"blocks"`
}

// ProgramEvent is the event as its program shows it.
type ProgramEvent struct {
	ID                string            `json:"id"`
	Slug              string            `json:"slug"`
	Name              string            `json:"name"`
	Tagline           *string           `json:"tagline"`
	Description       *string           `json:"description"`
	LogoURL           *string           `json:"logoUrl"`
	Location          *string           `json:"location"`
	Timezone          string            `json:"timezone"`
	StartsAt          scalar.Timestamp  `json:"startsAt"`
	EndsAt            scalar.Timestamp  `json:"endsAt"`
	AgendaPublishedAt *scalar.Timestamp `json:"agendaPublishedAt"`
}

// ProgramLabel is a format, level or tag.
type ProgramLabel struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ProgramSession is a session of the program.
type ProgramSession struct {
	ID          string            `json:"id"`
	Code        string            `json:"code"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Format      *ProgramLabel     `json:"format"`
	Level       *ProgramLabel     `json:"level"`
	Tracks      []agenda.Track    `json:"tracks"`
	Tags        []*ProgramLabel   `json:"tags"`
	Speakers    []*ProgramSpeaker `json:"speakers"`
	StartsAt    scalar.Timestamp  `json:"startsAt"`
	EndsAt      scalar.Timestamp  `json:"endsAt"`
	RoomName    string            `json:"roomName"`
}

// ProgramSpeaker is a speaker as the public sees them.
type ProgramSpeaker struct {
	ID          string  `json:"id"`
	FirstName   string  `json:"firstName"`
	LastName    string  `json:"lastName"`
	Title       *string `json:"title"`
	Company     *string `json:"company"`
	Bio         *string `json:"bio"`
	HeadshotURL *string `json:"headshotUrl"`
	// HeadshotKey is the approved uploaded photo, if any: getProgram links it with a signed URL;
	// the public widgets leave it out (docs/widgets.md).
	HeadshotKey *string `json:"-"`
}

// Widget is a widget as both transports show it, its options normalised.
type Widget struct {
	ID        string           `json:"id"`
	CreatedAt scalar.Timestamp `json:"createdAt"`
	UpdatedAt scalar.Timestamp `json:"updatedAt"`
	EventID   string           `json:"eventId"`
	Name      string           `json:"name"`
	View      WidgetView       `json:"view"`
	Enabled   bool             `json:"enabled"`
	Options   *WidgetOptions   `json:"options"`
}

// WidgetOptions are a widget's filters and display options, every key present.
type WidgetOptions struct {
	TrackIds               []string    `json:"trackIds"`
	FormatIds              []string    `json:"formatIds"`
	TagIds                 []string    `json:"tagIds"`
	DayKeys                []string    `json:"dayKeys"`
	Theme                  WidgetTheme `json:"theme"`
	PrimaryColor           *string     `json:"primaryColor"`
	DateFormat             string      `json:"dateFormat"`
	ShowSpeakerCompany     bool        `json:"showSpeakerCompany"`
	ShowSpeakerTitle       bool        `json:"showSpeakerTitle"`
	ShowSpeakerBio         bool        `json:"showSpeakerBio"`
	ShowSessionDescription bool        `json:"showSessionDescription"`
	ShowSessionLevel       bool        `json:"showSessionLevel"`
	ShowSessionFormat      bool        `json:"showSessionFormat"`
	ShowAddToCalendar      bool        `json:"showAddToCalendar"`
	CustomCSS              string      `json:"customCss"`
}

// PublicWidget is a widget as anyone may read it: the widget, and its event's program with the
// speakers' uploaded photos left out (their links are signed for minutes, which would defeat the
// feeds' caching). Disabled is reported, not refused: the page says "Embed disabled".
type PublicWidget struct {
	Widget  *Widget
	Program *Program
	// Modified is the latest of the widget's and the event's last change.
	Modified time.Time
}
