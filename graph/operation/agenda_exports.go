package operation

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/embed"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/personalcalendar"
	"github.com/podium/podium/ent/room"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/calendar"
	"github.com/podium/podium/graph/scalar"
)

// Feeds, calendars and exports of the published agenda (docs/agenda.md): the full iCalendar
// feed with its blocks, visitors' personal calendars of starred sessions, and the frab/c3voc
// schedule exports conference apps read. All of them serve published data only, to anyone.

// PublishedSchedule is an event's published agenda with what the exports need of the event.
type PublishedSchedule struct {
	EventID, Slug, Name, Timezone string
	StartsAt, EndsAt              time.Time
	// PublishedAt is nil while the agenda is not published; Sessions and Blocks are then empty.
	PublishedAt *time.Time
	Sessions    []agenda.Entry
	Blocks      []agenda.Block
	// Rooms are the names of the event's rooms by position, then those of published entries no
	// longer among them (a room renamed or deleted since the publish).
	Rooms []string
}

// publishedSchedule reads the published agenda of any event, for anyone: published fields only,
// and the rooms' names for their order.
func (r *Service) publishedSchedule(ctx context.Context, eventID string) (*PublishedSchedule, error) {
	notFound := apperr.NotFound("Event")
	if !pid.Plausible(eventID) {
		return nil, notFound
	}
	ctx = viewer.System(ctx, "agenda exports: the published agenda of any event, without a key")
	ev, err := r.Client.Event.Query().Where(event.ID(eventID)).
		Select(event.FieldID, event.FieldSlug, event.FieldName, event.FieldTimezone, event.FieldStartsAt, event.FieldEndsAt,
			event.FieldAgendaPublishedAt, event.FieldPublishedAgenda, event.FieldPublishedBlocks).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	out := &PublishedSchedule{EventID: ev.ID, Slug: ev.Slug, Name: ev.Name, Timezone: ev.Timezone, StartsAt: ev.StartsAt,
		EndsAt: ev.EndsAt, Sessions: []agenda.Entry{}, Blocks: []agenda.Block{}, Rooms: []string{}}
	if ev.AgendaPublishedAt == nil {
		return out, nil
	}
	out.PublishedAt = ev.AgendaPublishedAt
	if ev.PublishedAgenda != nil {
		out.Sessions = ev.PublishedAgenda
	}
	if ev.PublishedBlocks != nil {
		out.Blocks = ev.PublishedBlocks
	}
	rooms, err := r.Client.Room.Query().Where(room.EventID(ev.ID)).
		Order(ent.Asc(room.FieldPosition), ent.Asc(room.FieldName), ent.Asc(room.FieldID)).Select(room.FieldName).Strings(ctx)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, s := range out.Sessions {
		used[s.RoomName] = true
	}
	for _, b := range out.Blocks {
		if b.RoomName != nil {
			used[*b.RoomName] = true
		}
	}
	for _, name := range rooms {
		if !slices.Contains(out.Rooms, name) {
			out.Rooms = append(out.Rooms, name)
		}
	}
	var extra []string
	for name := range used {
		if !slices.Contains(out.Rooms, name) {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	out.Rooms = append(out.Rooms, extra...)
	return out, nil
}

// PublicCalendar is the published agenda as an iCalendar feed: its sessions and its blocks.
func (r *Service) PublicCalendar(ctx context.Context, eventID string) (string, error) {
	s, err := r.publishedSchedule(ctx, eventID)
	if err != nil {
		return "", err
	}
	feed := s.feed(s.Name, r.Outbox.PublicURL)
	feed.Sessions = feedSessions(s.Sessions)
	for _, b := range s.Blocks {
		start, err1 := scalar.ParseTime(b.StartsAt)
		end, err2 := scalar.ParseTime(b.EndsAt)
		if err1 != nil || err2 != nil {
			continue
		}
		fb := calendar.FeedBlock{ID: b.ID, Title: b.Title, Kind: b.Kind, StartsAt: start, EndsAt: end}
		if b.RoomName != nil {
			fb.Room = *b.RoomName
		}
		feed.Blocks = append(feed.Blocks, fb)
	}
	return feed.Serialize(), nil
}

func (s *PublishedSchedule) feed(name, url string) calendar.Feed {
	f := calendar.Feed{Name: name, Timezone: s.Timezone, URL: url}
	if s.PublishedAt != nil {
		f.PublishedAt = *s.PublishedAt
	}
	return f
}

// feedSessions are published entries as feed entries; an entry whose times do not parse is left
// out rather than served wrong.
func feedSessions(entries []agenda.Entry) []calendar.FeedSession {
	var out []calendar.FeedSession
	for _, e := range entries {
		start, err1 := scalar.ParseTime(e.StartsAt)
		end, err2 := scalar.ParseTime(e.EndsAt)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, calendar.FeedSession{ID: e.ID, Code: e.Code, Title: e.Title, Description: e.Description,
			Room: e.RoomName, StartsAt: start, EndsAt: end,
			Speakers: mapAll(e.Speakers, func(sp agenda.Speaker) string { return sp.Name }),
			Tracks:   mapAll(e.Tracks, func(t agenda.Track) string { return t.Name })})
	}
	return out
}

// maxCalendarSessions bounds a personal calendar: a widget's visitor stars a few sessions, and
// every read of the calendar walks them.
const maxCalendarSessions = 200

// PersonalCalendarLink is where a personal calendar is read: URL over https (or http), and the
// same as webcal:, which calendar apps open as a subscription.
type PersonalCalendarLink struct {
	URL       string `json:"url"`
	WebcalURL string `json:"webcalUrl"`
}

// PersonalCalendarPath is the path, under the public address, of the calendar of token.
func PersonalCalendarPath(token string) string { return "/api/v1/public/calendars/" + token + ".ics" }

// CreatePersonalCalendar makes a calendar of the sessions a visitor starred in a widget, for
// anyone (no key). Every id must be a session of the widget's event's published agenda. The
// address holds a random token of 32 bytes; only its SHA-256 is stored, so the address is shown
// once and cannot be recovered.
func (r *Service) CreatePersonalCalendar(ctx context.Context, widgetID string, sessionIDs []string) (*PersonalCalendarLink, error) {
	if !pid.Plausible(widgetID) {
		return nil, errWidgetNotFound
	}
	// A visitor has no organization: the route's transaction is unscoped, so the widget is found
	// as the system and the calendar written as the widget's organization, outside it. It is the
	// one write, after every check, so nothing is ever half written.
	w, err := r.Client.Embed.Query().Where(embed.ID(widgetID)).
		Only(viewer.System(ctx, "personal calendars: find a public widget by its id, without a key"))
	if ent.IsNotFound(err) || (err == nil && !w.Enabled) {
		return nil, errWidgetNotFound
	}
	if err != nil {
		return nil, err
	}
	ids, err := checkCalendarSessions(sessionIDs)
	if err != nil {
		return nil, err
	}
	s, err := r.publishedSchedule(ctx, w.EventID)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if !slices.ContainsFunc(s.Sessions, func(e agenda.Entry) bool { return e.ID == id }) {
			return nil, apperr.Invalid("sessionIds holds %q, which is not a session of the published agenda", id)
		}
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	err = r.Client.PersonalCalendar.Create().SetEventID(w.EventID).SetTokenHash(tokenHash(token)).SetSessionIds(ids).
		Exec(viewer.WithOrganization(ctx, w.OrganizationID))
	if err != nil {
		return nil, err
	}
	url := r.Outbox.PublicURL + PersonalCalendarPath(token)
	webcal := url
	for _, scheme := range []string{"https://", "http://"} {
		if rest, ok := strings.CutPrefix(url, scheme); ok {
			webcal = "webcal://" + rest
		}
	}
	return &PersonalCalendarLink{URL: url, WebcalURL: webcal}, nil
}

// checkCalendarSessions checks the count of a personal calendar's ids and drops repeats.
func checkCalendarSessions(in []string) ([]string, error) {
	out := []string{}
	for _, id := range in {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 || len(out) > maxCalendarSessions {
		return nil, apperr.Invalid("sessionIds must hold 1 to %d session ids", maxCalendarSessions)
	}
	return out, nil
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// calendarReadEvery is how often a personal calendar's last_read_at moves: it tells organizers
// (and a future clean-up) which calendars are still subscribed without a write per poll.
const calendarReadEvery = time.Hour

// PersonalCalendar is the personal calendar of token as iCalendar, and its event's id: the
// starred sessions as they stand in the current published agenda, under the UIDs of the full
// feed, so a calendar app moves a moved session and drops a removed one.
func (r *Service) PersonalCalendar(ctx context.Context, token string) (string, string, error) {
	notFound := apperr.NotFound("Calendar")
	if raw, err := base64.RawURLEncoding.DecodeString(token); err != nil || len(raw) != 32 {
		return "", "", notFound
	}
	sys := viewer.System(ctx, "personal calendars: find a calendar by its token, without a key")
	pc, err := r.Client.PersonalCalendar.Query().Where(personalcalendar.TokenHash(tokenHash(token))).Only(sys)
	if ent.IsNotFound(err) {
		return "", "", notFound
	}
	if err != nil {
		return "", "", err
	}
	if pc.LastReadAt == nil || time.Since(*pc.LastReadAt) >= calendarReadEvery {
		now := time.Now()
		err := r.Client.PersonalCalendar.Update().Where(personalcalendar.ID(pc.ID),
			personalcalendar.Or(personalcalendar.LastReadAtIsNil(), personalcalendar.LastReadAtLT(now.Add(-calendarReadEvery)))).
			SetLastReadAt(now).Exec(viewer.WithOrganization(ctx, pc.OrganizationID))
		if err != nil {
			return "", "", err
		}
	}
	s, err := r.publishedSchedule(ctx, pc.EventID)
	if err != nil {
		return "", "", err
	}
	starred := slices.DeleteFunc(slices.Clone(s.Sessions), func(e agenda.Entry) bool { return !slices.Contains(pc.SessionIds, e.ID) })
	feed := s.feed(s.Name+" — my sessions", r.Outbox.PublicURL)
	feed.Sessions = feedSessions(starred)
	return feed.Serialize(), pc.EventID, nil
}

// Exports conference apps read (docs/agenda.md): frab's schedule.xml and the c3voc
// schedule.json. Every guid is a name-based UUID (version 5) of the event's id and the thing's
// own (a session's or block's id, a room's name, a contact's id), so it stays the same across
// publishes and apps update what they have; a numeric id, which both formats require, is made
// from the guid's first bits.

// exportNamespace is the UUID namespace of Podium's export guids (itself uuid5 of the URL
// namespace and "https://podium.example/schedule").
var exportNamespace = nameUUID([16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4,
	0x30, 0xc8}, "https://podium.example/schedule")

// nameUUID is RFC 9562's version 5 UUID of name in namespace ns.
func nameUUID(ns [16]byte, name string) [16]byte {
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = (u[6] & 0x0f) | 0x50
	u[8] = (u[8] & 0x3f) | 0x80
	return u
}

func uuidString(u [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// ExportGUID is the guid of one thing of an event in the exports: kind ("session", "block",
// "room", "person") and its id or name.
func ExportGUID(eventID, kind, id string) string {
	return uuidString(nameUUID(exportNamespace, eventID+"/"+kind+"/"+id))
}

// exportNumber is the positive integer both formats want as an id, from a guid.
func exportNumber(guid string) int {
	b, _ := hex.DecodeString(strings.ReplaceAll(guid, "-", "")[:8])
	return max(int(binary.BigEndian.Uint32(b)&0x7fffffff), 1)
}

// ScheduleExport is the published schedule laid out by day and room, as both exports write it.
type ScheduleExport struct {
	EventID, Title, Acronym, Timezone, URL, Version string
	Start, End                                      string // dates, YYYY-MM-DD
	Rooms                                           []ExportRoom
	Days                                            []ExportDay
}

// ExportRoom is a room with its guid.
type ExportRoom struct{ Name, GUID string }

// ExportDay is one day of the event in its time zone, 1-based, from midnight to midnight.
type ExportDay struct {
	Index      int
	Date       string
	Start, End time.Time
	// Rooms are the day's rooms with their events by start, in the order of ScheduleExport.Rooms;
	// a room without an event that day is left out.
	Rooms []ExportDayRoom
}

// ExportDayRoom is one room of one day.
type ExportDayRoom struct {
	ExportRoom
	Events []ExportEvent
}

// ExportEvent is a session, or a block (Type its kind: break, meal, registration, social, other).
type ExportEvent struct {
	GUID, Slug, Title, Type, Abstract, Track, Room, URL string
	ID                                                  int
	Start                                               time.Time
	Duration                                            time.Duration
	Persons                                             []ExportPerson
}

// ExportPerson is a speaker: guid and id from the contact's id, and the name.
type ExportPerson struct {
	GUID, Name string
	ID         int
}

// ScheduleExport lays out an event's published schedule for the exports. An event whose agenda is
// not published exports its days with no rooms, as the public agenda answers with no sessions.
func (r *Service) ScheduleExport(ctx context.Context, eventID string) (*ScheduleExport, error) {
	s, err := r.publishedSchedule(ctx, eventID)
	if err != nil {
		return nil, err
	}
	loc := EventLocation(s.Timezone)
	out := &ScheduleExport{EventID: s.EventID, Title: s.Name, Acronym: exportAcronym(s.Slug, s.EventID), Timezone: s.Timezone,
		URL: r.Outbox.PublicURL + "/api/v1/public/events/" + s.EventID + "/agenda.json", Version: "unpublished"}
	if s.PublishedAt != nil {
		out.Version = s.PublishedAt.UTC().Format(time.RFC3339)
	}
	for _, name := range s.Rooms {
		out.Rooms = append(out.Rooms, ExportRoom{Name: name, GUID: ExportGUID(s.EventID, "room", name)})
	}
	var events []ExportEvent
	for _, e := range s.Sessions {
		start, err1 := scalar.ParseTime(e.StartsAt)
		end, err2 := scalar.ParseTime(e.EndsAt)
		if err1 != nil || err2 != nil {
			continue
		}
		ev := out.event("session", e.ID, e.Title, "talk", e.RoomName, start, end)
		ev.Abstract = e.Description
		if len(e.Tracks) > 0 {
			ev.Track = e.Tracks[0].Name
		}
		ev.URL = out.URL + "#" + e.ID
		for _, sp := range e.Speakers {
			guid := ExportGUID(s.EventID, "person", sp.ID)
			ev.Persons = append(ev.Persons, ExportPerson{GUID: guid, ID: exportNumber(guid), Name: sp.Name})
		}
		events = append(events, ev)
	}
	for _, b := range s.Blocks {
		start, err1 := scalar.ParseTime(b.StartsAt)
		end, err2 := scalar.ParseTime(b.EndsAt)
		if err1 != nil || err2 != nil {
			continue
		}
		// A block of every room is an event in each room, each with a guid of its own: both
		// formats place an event in one room, and guids must be unique in the document.
		if b.RoomName != nil {
			ev := out.event("block", b.ID, b.Title, b.Kind, *b.RoomName, start, end)
			ev.URL = out.URL
			events = append(events, ev)
			continue
		}
		for _, rm := range out.Rooms {
			ev := out.event("block", b.ID+"/"+rm.Name, b.Title, b.Kind, rm.Name, start, end)
			ev.URL = out.URL
			events = append(events, ev)
		}
	}
	slices.SortStableFunc(events, func(a, b ExportEvent) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.Room, b.Room), cmp.Compare(a.GUID, b.GUID))
	})
	out.layDays(s, events, loc)
	return out, nil
}

func (x *ScheduleExport) event(kind, id, title, typ, roomName string, start, end time.Time) ExportEvent {
	guid := ExportGUID(x.EventID, kind, id)
	return ExportEvent{GUID: guid, ID: exportNumber(guid), Slug: exportSlug(x.Acronym, guid, title), Title: title, Type: typ,
		Room: roomName, Start: start, Duration: end.Sub(start), Persons: []ExportPerson{}}
}

// layDays makes a day for every date from the event's start to its end, and for any date an event
// falls on outside them, each with its rooms' events.
func (x *ScheduleExport) layDays(s *PublishedSchedule, events []ExportEvent, loc *time.Location) {
	first, last := dateOf(s.StartsAt.In(loc)), dateOf(s.EndsAt.In(loc))
	for _, e := range events {
		d := dateOf(e.Start.In(loc))
		if d.Before(first) {
			first = d
		}
		if d.After(last) {
			last = d
		}
	}
	x.Start, x.End = first.Format(time.DateOnly), last.Format(time.DateOnly)
	for d, i := first, 1; !d.After(last); d, i = d.AddDate(0, 0, 1), i+1 {
		day := ExportDay{Index: i, Date: d.Format(time.DateOnly),
			Start: time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc),
			End:   time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc)}
		for _, rm := range x.Rooms {
			dr := ExportDayRoom{ExportRoom: rm}
			for _, e := range events {
				if e.Room == rm.Name && dateOf(e.Start.In(loc)).Equal(d) {
					dr.Events = append(dr.Events, e)
				}
			}
			if len(dr.Events) > 0 {
				day.Rooms = append(day.Rooms, dr)
			}
		}
		x.Days = append(x.Days, day)
	}
}

func dateOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// exportAcronym is the event's slug as both formats' acronym allows it: lower-case letters,
// digits and underscores, at least four characters.
func exportAcronym(slug, eventID string) string {
	a := slugPart(slug, '_')
	if len(a) < 4 {
		a = slugPart(eventID, '_')
	}
	return a
}

// exportSlug is an event's slug: the acronym, the guid's first eight digits, and the title.
func exportSlug(acronym, guid, title string) string {
	s := acronym + "-" + guid[:8]
	if t := slugPart(title, '-'); t != "" {
		s += "-" + t
	}
	return s
}

// slugPart keeps the lower-case ASCII letters and digits of s, with sep between words, and no sep
// at either end.
func slugPart(s string, sep rune) string {
	var b strings.Builder
	gap := false
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			if gap && b.Len() > 0 {
				b.WriteRune(sep)
			}
			b.WriteRune(c)
			gap = false
		default:
			gap = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	return b.String()
}
