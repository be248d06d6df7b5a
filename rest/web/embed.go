package web

import (
	"bytes"
	_ "embed"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"

	"github.com/podium/podium/graph/operation"
)

// The widget page (docs/widgets.md): one view of an event's public program, drawn for an iframe
// on any site. Unlike the other pages it has no layout, may be framed by anyone, and is cached
// briefly (rest/embed.go adds the validators). Its CSS is its own stylesheet, the accent colour
// rule (AccentPath) and, when the widget has custom CSS, a stylesheet of that alone: the
// Content-Security-Policy allows no inline style and no script.

//go:embed static/embed.css
var embedStylesheet []byte

// EmbedStylesheetPath is where the widget page's stylesheet is served.
var EmbedStylesheetPath = "/static/embed-" + shortHash(embedStylesheet) + ".css"

// EmbedStylesheet serves the widget page's stylesheet at EmbedStylesheetPath.
func EmbedStylesheet(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = w.Write(embedStylesheet)
}

// EmbedCSP is the widget page's Content-Security-Policy: framed by any site, loading only its
// own stylesheets and images over https, posting its one form (the sessions a visitor picks for a
// personal calendar) to Podium only.
const EmbedCSP = "default-src 'none'; style-src 'self'; img-src 'self' https: data:; form-action 'self'; " +
	"frame-ancestors *; base-uri 'none'"

// EmbedHeaders sets the widget page's security headers: no X-Frame-Options, so that any site may
// frame it (frame-ancestors says so for browsers that read CSP).
func EmbedHeaders(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	h.Set("Content-Security-Policy", EmbedCSP)
}

// EmbedSettings are what one rendering of a widget applies: its saved options, then the page's
// query overrides.
type EmbedSettings struct {
	View    model.WidgetView
	Options model.WidgetOptions
}

// Settings applies the widget page's query parameters over the saved view and options: view;
// theme (light, dark, auto); color (#rrggbb, or default for none); time (12h, 24h); tracks,
// formats, days, tags (comma-separated); company, title, bio, description, level, format,
// calendar (1 or 0). Values that mean nothing are ignored.
func Settings(w *model.Widget, q url.Values) EmbedSettings {
	s := EmbedSettings{View: w.View, Options: *w.Options}
	o := &s.Options
	if v := model.WidgetView(q.Get("view")); v.IsValid() {
		s.View = v
	}
	if t := model.WidgetTheme(q.Get("theme")); t.IsValid() {
		o.Theme = t
	}
	if c := q.Get("color"); c == "default" {
		o.PrimaryColor = nil
	} else if operation.HexColour.MatchString(c) {
		c = strings.ToLower(c)
		o.PrimaryColor = &c
	}
	if t := q.Get("time"); t == "12h" || t == "24h" {
		o.DateFormat = t
	}
	for key, into := range map[string]*[]string{"tracks": &o.TrackIds, "formats": &o.FormatIds, "days": &o.DayKeys, "tags": &o.TagIds} {
		if q.Has(key) {
			*into = splitList(q.Get(key))
		}
	}
	for key, into := range map[string]*bool{"company": &o.ShowSpeakerCompany, "title": &o.ShowSpeakerTitle,
		"bio": &o.ShowSpeakerBio, "description": &o.ShowSessionDescription, "level": &o.ShowSessionLevel,
		"format": &o.ShowSessionFormat, "calendar": &o.ShowAddToCalendar} {
		switch q.Get(key) {
		case "1":
			*into = true
		case "0":
			*into = false
		}
	}
	return s
}

func splitList(s string) []string {
	out := []string{}
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// EmbedPage is what templates/embed.html draws.
type EmbedPage struct {
	Title, Subtitle string
	// Mode is light, dark or auto.
	Mode string
	// AccentHref and CustomHref are the accent and custom stylesheets; empty for none.
	AccentHref, CustomHref string
	Stylesheet             string
	// Message replaces the view: "Embed disabled", "This embed is unavailable."
	Message string
	View    string
	// Empty is shown when the view has nothing to show.
	Empty string
	Days  []embedDay
	// People are the speakers views' speakers.
	People []embedPerson
	// CalendarAction is where the form of the sessions a visitor picks for a personal calendar
	// posts (the agenda, itinerary and sessions views, when they show sessions); empty for none.
	CalendarAction string
	// Alert is why the picked sessions were refused, shown above the view.
	Alert string
	// Subscription is the personal calendar just made, shown instead of the view.
	Subscription *EmbedSubscription
}

// EmbedSubscription is the page a visitor sees after picking sessions: the calendar's address
// over https and as webcal:, and the way back to the widget.
type EmbedSubscription struct {
	URL, BackHref string
	// WebcalURL is Podium's own webcal: address, which html/template would otherwise refuse as
	// an unknown scheme; EmbedSubscriptionPage checks the scheme.
	WebcalURL template.URL
}

type embedDay struct {
	Heading string
	Slots   []embedSlot
}

type embedSlot struct {
	Time string
	// Blocks are the agenda's blocks starting at Time (agenda and itinerary views), before its
	// sessions.
	Blocks   []embedBlock
	Sessions []embedSession
}

// embedBlock is a published block: a break, a meal, registration, a social.
type embedBlock struct {
	Title, Kind, KindLabel, When, Room string
}

// blockKindLabels name the kinds of block as the page shows them.
var blockKindLabels = map[string]string{"break": "Break", "meal": "Meal", "registration": "Registration",
	"social": "Social", "other": "Other"}

type embedSession struct {
	ID, Anchor, Title, When, Room, Description string
	Format, Level                              string
	Tracks, Tags                               []string
	Speakers                                   []embedPerson
	ICSHref, GoogleHref                        string
	// Pick draws the session's checkbox of the calendar form.
	Pick bool
}

type embedPerson struct {
	Name, Role, Bio, Photo, Initials string
	Sessions                         []string
}

// EmbedParams are what a widget page needs besides the widget.
type EmbedParams struct {
	// Base is Podium's public URL, for the add-to-calendar links.
	Base string
	// Query is the page's query overrides, kept by the calendar form's action.
	Query url.Values
	// CustomHref is the custom stylesheet's URL, when the widget has custom CSS.
	CustomHref string
}

// BuildEmbedPage lays out the sessions a widget shows.
func BuildEmbedPage(pw *model.PublicWidget, s EmbedSettings, sessions []*model.ProgramSession, p EmbedParams) EmbedPage {
	o := s.Options
	ev := pw.Program.Event
	page := EmbedPage{Title: ev.Name, Subtitle: pw.Widget.Name, Mode: string(o.Theme), Stylesheet: EmbedStylesheetPath,
		View: string(s.View), CustomHref: p.CustomHref}
	if o.PrimaryColor != nil {
		page.AccentHref = AccentPath + strings.TrimPrefix(*o.PrimaryColor, "#") + ".css"
	}
	loc := operation.EventLocation(ev.Timezone)
	clock := "3:04 PM"
	if o.DateFormat == "24h" {
		clock = "15:04"
	}
	// The agenda and the itinerary show the blocks of the widget's days among the sessions.
	var blocks []agenda.Block
	if s.View == model.WidgetViewAgenda || s.View == model.WidgetViewItinerary {
		blocks = operation.FilterBlocks(pw.Program, &o)
	}
	if ev.AgendaPublishedAt == nil {
		page.Empty = "The program has not been published yet."
	} else if len(sessions) == 0 && len(blocks) == 0 {
		page.Empty = "No sessions to show."
	}
	// slotOf is the slot starting at start, added after the last one when it is new: blocks and
	// sessions come in time order, a block before a session starting with it.
	slotOf := func(start time.Time) *embedSlot {
		day := start.Format("Monday 2 January 2006")
		if n := len(page.Days); n == 0 || page.Days[n-1].Heading != day {
			page.Days = append(page.Days, embedDay{Heading: day})
		}
		d := &page.Days[len(page.Days)-1]
		slot := start.Format(clock)
		if n := len(d.Slots); n == 0 || d.Slots[n-1].Time != slot {
			d.Slots = append(d.Slots, embedSlot{Time: slot})
		}
		return &d.Slots[len(d.Slots)-1]
	}
	next := 0 // the first block not laid out yet
	addBlocks := func(until *time.Time) {
		for ; next < len(blocks); next++ {
			b := blocks[next]
			start, err1 := scalar.ParseTime(b.StartsAt)
			end, err2 := scalar.ParseTime(b.EndsAt)
			if err1 != nil || err2 != nil {
				continue
			}
			if until != nil && start.After(*until) {
				return
			}
			start, end = start.In(loc), end.In(loc)
			eb := embedBlock{Title: b.Title, Kind: b.Kind, KindLabel: blockKindLabels[b.Kind], Room: "All rooms",
				When: start.Format("Mon 2 Jan, "+clock) + "–" + end.Format(clock)}
			if b.RoomName != nil {
				eb.Room = *b.RoomName
			}
			sl := slotOf(start)
			sl.Blocks = append(sl.Blocks, eb)
		}
	}
	// The views listing sessions let a visitor pick some for a personal calendar, in a form
	// posted without script (rest/embed.go's embedCalendar).
	pick := ev.AgendaPublishedAt != nil && len(sessions) > 0 && (s.View == model.WidgetViewAgenda ||
		s.View == model.WidgetViewItinerary || s.View == model.WidgetViewSessions)
	if pick {
		page.CalendarAction = EmbedPath(pw.Widget.ID, "/calendar", p.Query)
	}
	people := map[string]int{}
	for _, ps := range sessions {
		addBlocks(&ps.StartsAt.Time)
		start, end := ps.StartsAt.In(loc), ps.EndsAt.In(loc)
		es := embedSession{ID: ps.ID, Anchor: "session-" + ps.Code, Title: ps.Title, Room: ps.RoomName, Pick: pick,
			When: start.Format("Mon 2 Jan, "+clock) + "–" + end.Format(clock)}
		if o.ShowSessionDescription {
			es.Description = ps.Description
		}
		if o.ShowSessionFormat && ps.Format != nil {
			es.Format = ps.Format.Name
		}
		if o.ShowSessionLevel && ps.Level != nil {
			es.Level = ps.Level.Name
		}
		for _, t := range ps.Tracks {
			es.Tracks = append(es.Tracks, t.Name)
		}
		for _, t := range ps.Tags {
			es.Tags = append(es.Tags, t.Name)
		}
		if o.ShowAddToCalendar {
			es.ICSHref = p.Base + "/embed/" + pw.Widget.ID + "/ics?session=" + url.QueryEscape(ps.ID)
			es.GoogleHref = googleCalendarURL(ps, ev.Name)
		}
		for _, sp := range ps.Speakers {
			person := embedPerson{Name: strings.TrimSpace(sp.FirstName + " " + sp.LastName), Initials: initials(sp)}
			person.Role = role(sp, o)
			if o.ShowSpeakerBio && sp.Bio != nil {
				person.Bio = *sp.Bio
			}
			if sp.HeadshotURL != nil && strings.HasPrefix(*sp.HeadshotURL, "https://") {
				person.Photo = *sp.HeadshotURL
			}
			es.Speakers = append(es.Speakers, embedPerson{Name: person.Name, Role: person.Role})
			if i, ok := people[sp.ID]; ok {
				page.People[i].Sessions = append(page.People[i].Sessions, ps.Title)
				continue
			}
			person.Sessions = []string{ps.Title}
			people[sp.ID] = len(page.People)
			page.People = append(page.People, person)
		}
		sl := slotOf(start)
		sl.Sessions = append(sl.Sessions, es)
	}
	addBlocks(nil)
	if (s.View == model.WidgetViewSpeakers || s.View == model.WidgetViewSpeakerGallery) && len(page.People) == 0 && page.Empty == "" {
		page.Empty = "No speakers to show."
	}
	return page
}

func role(sp *model.ProgramSpeaker, o model.WidgetOptions) string {
	var parts []string
	if o.ShowSpeakerTitle && sp.Title != nil && *sp.Title != "" {
		parts = append(parts, *sp.Title)
	}
	if o.ShowSpeakerCompany && sp.Company != nil && *sp.Company != "" {
		parts = append(parts, *sp.Company)
	}
	return strings.Join(parts, ", ")
}

func initials(sp *model.ProgramSpeaker) string {
	var b strings.Builder
	for _, n := range []string{sp.FirstName, sp.LastName} {
		for _, r := range n {
			b.WriteRune(r)
			break
		}
	}
	return strings.ToUpper(b.String())
}

// googleCalendarURL opens Google Calendar's new-event form filled with the session.
func googleCalendarURL(s *model.ProgramSession, eventName string) string {
	const stamp = "20060102T150405Z"
	q := url.Values{"action": {"TEMPLATE"}, "text": {s.Title},
		"dates":    {s.StartsAt.UTC().Format(stamp) + "/" + s.EndsAt.UTC().Format(stamp)},
		"details":  {eventName},
		"location": {s.RoomName}}
	return "https://calendar.google.com/calendar/render?" + q.Encode()
}

// EmbedPath is the path of a widget's page (suffix "") or of one of its routes, with the page's
// query overrides, if any.
func EmbedPath(widgetID, suffix string, q url.Values) string {
	path := "/embed/" + widgetID + suffix
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path
}

// EmbedSubscriptionPage is the page of a personal calendar just made from a widget: base is the
// widget's page, for its title, mode and stylesheets.
func EmbedSubscriptionPage(base EmbedPage, sub EmbedSubscription) EmbedPage {
	if !strings.HasPrefix(string(sub.WebcalURL), "webcal://") {
		sub.WebcalURL = template.URL(sub.URL) //nolint:gosec // Podium's own https address
	}
	return EmbedPage{Title: base.Title, Subtitle: "Your calendar", Mode: base.Mode, Stylesheet: base.Stylesheet,
		AccentHref: base.AccentHref, CustomHref: base.CustomHref, View: base.View, Subscription: &sub}
}

// EmbedMessagePage is the page of a widget that shows nothing: disabled, or unknown.
func EmbedMessagePage(message string) EmbedPage {
	return EmbedPage{Title: message, Message: message, Mode: "auto", Stylesheet: EmbedStylesheetPath}
}

// RenderEmbed returns the widget page's HTML.
func RenderEmbed(p EmbedPage) ([]byte, error) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, "embed", p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
