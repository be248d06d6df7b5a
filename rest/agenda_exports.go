package rest

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"regexp"
	"time"

	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/operation"
)

// Feeds, calendars and exports of the published agenda (docs/agenda.md): visitors' personal
// calendars, and the frab schedule.xml and c3voc schedule.json conference apps read. The
// full-agenda iCalendar feed is agenda.go's.

func (a *API) createPersonalCalendar(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.CreatePersonalCalendarInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.CreatePersonalCalendar(ctx, q.param("widgetId"), in.SessionIds)
}

func (a *API) getPersonalCalendar(ctx context.Context, q *request) (any, error) {
	ics, eventID, err := a.ops.PersonalCalendar(ctx, q.param("token"))
	if err != nil {
		return nil, err
	}
	return a.publicFeed(ctx, q, eventID, []byte(ics), calendarContentType)
}

func (a *API) getScheduleJSON(ctx context.Context, q *request) (any, error) {
	x, err := a.ops.ScheduleExport(ctx, q.param("eventId"))
	if err != nil {
		return nil, err
	}
	return a.publicJSON(ctx, q, x.EventID, toScheduleJSON(x))
}

func (a *API) getScheduleXML(ctx context.Context, q *request) (any, error) {
	x, err := a.ops.ScheduleExport(ctx, q.param("eventId"))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(toScheduleXML(x)); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return a.publicFeed(ctx, q, x.EventID, b.Bytes(), "application/xml; charset=utf-8")
}

// exportDocument documents a route answering a document of another format (routes_doc.go): its
// media type, the OpenAPI type of its schema, and the format's own schema.
type exportDocument struct{ mediaType, schemaType, format string }

// exportDuration writes a duration as both formats do: hh:mm.
func exportDuration(d time.Duration) string {
	m := int(d.Round(time.Minute).Minutes())
	return fmt.Sprintf("%02d:%02d", m/60, m%60)
}

// c3vocTimezone is the time zone names the c3voc schema accepts; others are left out.
var c3vocTimezone = regexp.MustCompile(`^([A-Z][a-z]+/[A-Z][a-z]+)|UTC$`)

// scheduleJSON is the c3voc schedule.json (https://c3voc.de/schedule/schema.json).
type scheduleJSON struct {
	Schema    string            `json:"$schema"`
	Generator map[string]string `json:"generator"`
	Schedule  struct {
		Version    string         `json:"version"`
		Conference conferenceJSON `json:"conference"`
	} `json:"schedule"`
}

type conferenceJSON struct {
	Acronym          string            `json:"acronym"`
	Title            string            `json:"title"`
	Start            string            `json:"start"`
	End              string            `json:"end"`
	DaysCount        int               `json:"daysCount"`
	TimeslotDuration string            `json:"timeslot_duration"`
	TimeZoneName     string            `json:"time_zone_name,omitempty"`
	URL              string            `json:"url,omitempty"`
	Rooms            []roomJSON        `json:"rooms"`
	Days             []dayJSON         `json:"days"`
	Meta             map[string]string `json:"meta"`
}

type roomJSON struct {
	Name string `json:"name"`
	GUID string `json:"guid"`
}

type dayJSON struct {
	Index    int                    `json:"index"`
	Date     string                 `json:"date"`
	DayStart string                 `json:"day_start"`
	DayEnd   string                 `json:"day_end"`
	Rooms    map[string][]eventJSON `json:"rooms"`
}

type eventJSON struct {
	GUID        string       `json:"guid"`
	ID          int          `json:"id"`
	Date        string       `json:"date"`
	Start       string       `json:"start"`
	Duration    string       `json:"duration"`
	Room        string       `json:"room"`
	Slug        string       `json:"slug"`
	URL         string       `json:"url"`
	Title       string       `json:"title"`
	Subtitle    *string      `json:"subtitle"`
	Track       *string      `json:"track"`
	Type        string       `json:"type"`
	Language    *string      `json:"language"`
	Abstract    string       `json:"abstract"`
	Description *string      `json:"description"`
	Persons     []personJSON `json:"persons"`
	Links       []any        `json:"links"`
}

type personJSON struct {
	GUID string `json:"guid"`
	Name string `json:"name"`
}

// exportTimeslot is the grid the exports announce: five minutes, the finest step of the agenda.
const exportTimeslot = "00:05"

func toScheduleJSON(x *operation.ScheduleExport) scheduleJSON {
	out := scheduleJSON{Schema: "https://c3voc.de/schedule/schema.json", Generator: map[string]string{"name": "Podium"}}
	out.Schedule.Version = x.Version
	c := conferenceJSON{Acronym: x.Acronym, Title: x.Title, Start: x.Start, End: x.End, DaysCount: len(x.Days),
		TimeslotDuration: exportTimeslot, URL: x.URL, Rooms: []roomJSON{}, Days: []dayJSON{},
		Meta: map[string]string{"eventId": x.EventID}}
	if c3vocTimezone.MatchString(x.Timezone) {
		c.TimeZoneName = x.Timezone
	}
	for _, rm := range x.Rooms {
		c.Rooms = append(c.Rooms, roomJSON{Name: rm.Name, GUID: rm.GUID})
	}
	for _, d := range x.Days {
		dj := dayJSON{Index: d.Index, Date: d.Date, DayStart: d.Start.Format(time.RFC3339), DayEnd: d.End.Format(time.RFC3339),
			Rooms: map[string][]eventJSON{}}
		loc := d.Start.Location()
		for _, rm := range d.Rooms {
			events := []eventJSON{}
			for _, e := range rm.Events {
				start := e.Start.In(loc)
				ej := eventJSON{GUID: e.GUID, ID: e.ID, Date: start.Format(time.RFC3339), Start: start.Format("15:04"),
					Duration: exportDuration(e.Duration), Room: e.Room, Slug: e.Slug, URL: e.URL, Title: e.Title,
					Type: e.Type, Abstract: e.Abstract, Persons: []personJSON{}, Links: []any{}}
				if e.Track != "" {
					ej.Track = &e.Track
				}
				for _, p := range e.Persons {
					ej.Persons = append(ej.Persons, personJSON{GUID: p.GUID, Name: p.Name})
				}
				events = append(events, ej)
			}
			dj.Rooms[rm.Name] = events
		}
		c.Days = append(c.Days, dj)
	}
	out.Schedule.Conference = c
	return out
}

// scheduleXML is the frab/pentabarf schedule.xml (https://c3voc.de/schedule/schema.xsd).
type scheduleXML struct {
	XMLName   xml.Name `xml:"schedule"`
	Generator struct {
		Name string `xml:"name,attr"`
	} `xml:"generator"`
	Version    string `xml:"version"`
	Conference struct {
		Title            string `xml:"title"`
		Acronym          string `xml:"acronym"`
		Start            string `xml:"start"`
		End              string `xml:"end"`
		Days             int    `xml:"days"`
		TimeslotDuration string `xml:"timeslot_duration"`
		URL              string `xml:"url,omitempty"`
		TimeZoneName     string `xml:"time_zone_name,omitempty"`
	} `xml:"conference"`
	Days []dayXML `xml:"day"`
}

type dayXML struct {
	Index int       `xml:"index,attr"`
	Date  string    `xml:"date,attr"`
	Start string    `xml:"start,attr"`
	End   string    `xml:"end,attr"`
	Rooms []roomXML `xml:"room"`
}

type roomXML struct {
	Name   string     `xml:"name,attr"`
	GUID   string     `xml:"guid,attr"`
	Events []eventXML `xml:"event"`
}

type eventXML struct {
	ID       int         `xml:"id,attr"`
	GUID     string      `xml:"guid,attr"`
	Date     string      `xml:"date"`
	Start    string      `xml:"start"`
	Duration string      `xml:"duration"`
	Room     string      `xml:"room"`
	Slug     string      `xml:"slug"`
	URL      string      `xml:"url,omitempty"`
	Title    string      `xml:"title"`
	Track    string      `xml:"track"`
	Type     string      `xml:"type"`
	Abstract string      `xml:"abstract"`
	Persons  []personXML `xml:"persons>person"`
}

type personXML struct {
	ID   int    `xml:"id,attr"`
	GUID string `xml:"guid,attr"`
	Name string `xml:",chardata"`
}

func toScheduleXML(x *operation.ScheduleExport) scheduleXML {
	out := scheduleXML{Version: x.Version}
	out.Generator.Name = "Podium"
	c := &out.Conference
	c.Title, c.Acronym, c.Start, c.End, c.Days, c.TimeslotDuration = x.Title, x.Acronym, x.Start, x.End, len(x.Days), exportTimeslot
	c.URL, c.TimeZoneName = x.URL, x.Timezone
	for _, d := range x.Days {
		dx := dayXML{Index: d.Index, Date: d.Date, Start: d.Start.Format(time.RFC3339), End: d.End.Format(time.RFC3339)}
		loc := d.Start.Location()
		for _, rm := range d.Rooms {
			rx := roomXML{Name: rm.Name, GUID: rm.GUID}
			for _, e := range rm.Events {
				start := e.Start.In(loc)
				ex := eventXML{ID: e.ID, GUID: e.GUID, Date: start.Format(time.RFC3339), Start: start.Format("15:04"),
					Duration: exportDuration(e.Duration), Room: e.Room, Slug: e.Slug, URL: e.URL, Title: e.Title,
					Track: e.Track, Type: e.Type, Abstract: e.Abstract}
				for _, p := range e.Persons {
					ex.Persons = append(ex.Persons, personXML{ID: p.ID, GUID: p.GUID, Name: p.Name})
				}
				rx.Events = append(rx.Events, ex)
			}
			dx.Rooms = append(dx.Rooms, rx)
		}
		out.Days = append(out.Days, dx)
	}
	return out
}
