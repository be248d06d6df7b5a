package operation

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/embed"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

// Widgets (docs/widgets.md): named views of the public program with their filters and display
// options. Organizers manage them here; rest/embed.go serves them to anyone through PublicWidget.

// DefaultWidgetOptions are a new widget's options, and what a missing or unreadable stored value
// reads as.
func DefaultWidgetOptions() model.WidgetOptions {
	return model.WidgetOptions{TrackIds: []string{}, FormatIds: []string{}, TagIds: []string{}, DayKeys: []string{},
		Theme: model.WidgetThemeAuto, DateFormat: "12h", ShowSpeakerCompany: true, ShowSpeakerTitle: true,
		ShowSpeakerBio: true, ShowSessionDescription: true, ShowSessionLevel: true, ShowSessionFormat: true,
		ShowAddToCalendar: true}
}

// HexColour is the only form a widget's colour takes: #rrggbb.
var HexColour = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// normalizeOptions reads stored options: each key of the wrong type or value reads as its
// default, so every reader sees every key (stored options may predate a key, or come from a
// writer other than updateWidget).
func normalizeOptions(m map[string]any) *model.WidgetOptions {
	o := DefaultWidgetOptions()
	ids := func(key string) []string {
		out := []string{}
		list, _ := m[key].([]any)
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	flag := func(key string) bool {
		b, ok := m[key].(bool)
		return !ok || b
	}
	o.TrackIds, o.FormatIds, o.TagIds, o.DayKeys = ids("trackIds"), ids("formatIds"), ids("tagIds"), ids("dayKeys")
	if t := model.WidgetTheme(stringValue(m["theme"])); t.IsValid() {
		o.Theme = t
	}
	if c := stringValue(m["primaryColor"]); HexColour.MatchString(c) {
		o.PrimaryColor = &c
	}
	if stringValue(m["dateFormat"]) == "24h" {
		o.DateFormat = "24h"
	}
	o.ShowSpeakerCompany, o.ShowSpeakerTitle, o.ShowSpeakerBio = flag("showSpeakerCompany"), flag("showSpeakerTitle"), flag("showSpeakerBio")
	o.ShowSessionDescription, o.ShowSessionLevel = flag("showSessionDescription"), flag("showSessionLevel")
	o.ShowSessionFormat, o.ShowAddToCalendar = flag("showSessionFormat"), flag("showAddToCalendar")
	o.CustomCSS = stringValue(m["customCss"])
	return &o
}

func stringValue(v any) string {
	s, _ := v.(string)
	return s
}

// storedOptions is o as the options column holds it.
func storedOptions(o model.WidgetOptions) map[string]any {
	b, _ := json.Marshal(o)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func toWidget(e *ent.Embed) *model.Widget {
	return &model.Widget{ID: e.ID, CreatedAt: scalar.At(e.CreatedAt), UpdatedAt: scalar.At(e.UpdatedAt), EventID: e.EventID,
		Name: e.Name, View: model.WidgetView(e.View), Enabled: e.Enabled, Options: normalizeOptions(e.Options)}
}

// Limits on what a widget stores: its options travel in every public answer.
const (
	maxWidgetName    = 200
	maxWidgetIDs     = 200
	maxWidgetID      = 100
	maxCustomCSS     = 20000
	maxWidgetsPerEvt = 100
)

var errWidgetNotFound = apperr.NotFound("model.Widget")

// checkWidget refuses a name that is too long or not typed text (it is stored untrimmed, as the
// original API stores it), and an unknown view.
func checkWidget(name string, view model.WidgetView) error {
	if !view.IsValid() {
		return apperr.Invalid("view must be one of sessions, speakers, speaker_gallery, agenda, itinerary")
	}
	if !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
		return apperr.Invalid("name must be one line of text")
	}
	if utf8.RuneCountInString(name) > maxWidgetName {
		return apperr.Invalid("name must be at most %d characters", maxWidgetName)
	}
	return nil
}

// checkOptions checks options to store and returns them cleaned: lists without duplicates, the
// colour in lower case.
func checkOptions(in model.WidgetOptionsInput) (model.WidgetOptions, error) {
	o := model.WidgetOptions{Theme: in.Theme, DateFormat: in.DateFormat, ShowSpeakerCompany: in.ShowSpeakerCompany,
		ShowSpeakerTitle: in.ShowSpeakerTitle, ShowSpeakerBio: in.ShowSpeakerBio,
		ShowSessionDescription: in.ShowSessionDescription, ShowSessionLevel: in.ShowSessionLevel,
		ShowSessionFormat: in.ShowSessionFormat, ShowAddToCalendar: in.ShowAddToCalendar}
	var err error
	for _, l := range []struct {
		key  string
		in   []string
		into *[]string
	}{{"trackIds", in.TrackIds, &o.TrackIds}, {"formatIds", in.FormatIds, &o.FormatIds},
		{"tagIds", in.TagIds, &o.TagIds}, {"dayKeys", in.DayKeys, &o.DayKeys}} {
		if *l.into, err = checkIDList(l.key, l.in); err != nil {
			return o, err
		}
	}
	for _, d := range o.DayKeys {
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			return o, apperr.Invalid("dayKeys must be dates written YYYY-MM-DD, not %q", d)
		}
	}
	if !o.Theme.IsValid() {
		return o, apperr.Invalid("theme must be light, dark or auto")
	}
	if in.PrimaryColor != nil {
		if !HexColour.MatchString(*in.PrimaryColor) {
			return o, apperr.Invalid("primaryColor must be a colour written #rrggbb, or null")
		}
		o.PrimaryColor = new(strings.ToLower(*in.PrimaryColor))
	}
	if o.DateFormat != "12h" && o.DateFormat != "24h" {
		return o, apperr.Invalid("dateFormat must be 12h or 24h")
	}
	if in.CustomCSS != nil {
		o.CustomCSS = *in.CustomCSS
	}
	return o, checkCustomCSS(o.CustomCSS)
}

func checkIDList(key string, in []string) ([]string, error) {
	if len(in) > maxWidgetIDs {
		return nil, apperr.Invalid("%s holds at most %d values", key, maxWidgetIDs)
	}
	out := []string{}
	for _, s := range in {
		if s == "" || len(s) > maxWidgetID || !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
			return nil, apperr.Invalid("%s must hold ids of at most %d characters", key, maxWidgetID)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// checkCustomCSS refuses custom CSS that could do more than style the widget's own page. It is
// served as a stylesheet of its own (never inside a <style> element), and it is refused when it
// holds "<" (so it can never close an element, wherever it is put), a backslash (CSS escapes
// could spell what is refused), "@import" (another stylesheet), or a control character other
// than tab and line breaks. The page's Content-Security-Policy limits what url() can load.
func checkCustomCSS(css string) error {
	if utf8.RuneCountInString(css) > maxCustomCSS {
		return apperr.Invalid("customCss must be at most %d characters", maxCustomCSS)
	}
	if !utf8.ValidString(css) {
		return apperr.Invalid("customCss must be valid UTF-8")
	}
	if strings.ContainsAny(css, "<\\") {
		return apperr.Invalid(`customCss must not contain "<" or "\"`)
	}
	if strings.Contains(strings.ToLower(css), "@import") {
		return apperr.Invalid("customCss must not import other stylesheets")
	}
	if strings.ContainsFunc(css, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }) {
		return apperr.Invalid("customCss must not contain control characters")
	}
	return nil
}

// Widgets lists the event's widgets by name.
func (r *Service) Widgets(ctx context.Context, eventID string) ([]*model.Widget, error) {
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	rows, err := c.Embed.Query().Where(embed.EventID(ev.ID)).Order(ent.Asc(embed.FieldName), ent.Asc(embed.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	return mapAll(rows, toWidget), nil
}

// CreateWidget makes an enabled widget with the default options: it is live at once.
func (r *Service) CreateWidget(ctx context.Context, eventID string, in model.CreateWidgetInput) (*model.Widget, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Widget, error) {
		c := r.ClientOf(ctx)
		ev, err := lockedEvent(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if err := checkWidget(in.Name, in.View); err != nil {
			return nil, err
		}
		if n, err := c.Embed.Query().Where(embed.EventID(ev.ID)).Count(ctx); err != nil {
			return nil, err
		} else if n >= maxWidgetsPerEvt {
			return nil, apperr.Invalid("An event has at most %d widgets", maxWidgetsPerEvt)
		}
		e, err := c.Embed.Create().SetEventID(ev.ID).SetName(in.Name).SetView(embed.View(in.View)).
			SetOptions(storedOptions(DefaultWidgetOptions())).Save(ctx)
		if err != nil {
			return nil, err
		}
		return toWidget(e), nil
	})
}

// UpdateWidget replaces a widget's name, view, enabled flag and options.
func (r *Service) UpdateWidget(ctx context.Context, eventID, widgetID string, in model.UpdateWidgetInput) (*model.Widget, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Widget, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if !pid.Plausible(widgetID) {
			return nil, errWidgetNotFound
		}
		e, err := c.Embed.Query().Where(embed.ID(widgetID), embed.EventID(ev.ID)).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return nil, errWidgetNotFound
		}
		if err != nil {
			return nil, err
		}
		if err := checkWidget(in.Name, in.View); err != nil {
			return nil, err
		}
		if in.Options == nil {
			return nil, apperr.Invalid("options are required")
		}
		opts, err := checkOptions(*in.Options)
		if err != nil {
			return nil, err
		}
		e, err = e.Update().SetName(in.Name).SetView(embed.View(in.View)).SetEnabled(in.Enabled).
			SetOptions(storedOptions(opts)).Save(ctx)
		if err != nil {
			return nil, err
		}
		return toWidget(e), nil
	})
}

// PublicWidget reads a widget by id, for anyone (no key), and its event; with program, the
// event's program too (what the page and the feeds show; the script and the custom CSS need only
// the widget). Only the widget's own lookup spans organizations; the rest is then read as its
// organization, like any of its reads.
func (r *Service) PublicWidget(ctx context.Context, widgetID string, program bool) (*model.PublicWidget, error) {
	if !pid.Plausible(widgetID) {
		return nil, errWidgetNotFound
	}
	e, err := r.Client.Embed.Query().Where(embed.ID(widgetID)).
		Only(viewer.System(ctx, "widgets: find a public widget's organization by its id, without a key"))
	if ent.IsNotFound(err) {
		return nil, errWidgetNotFound
	}
	if err != nil {
		return nil, err
	}
	ctx = viewer.WithOrganization(ctx, e.OrganizationID)
	ev, err := r.Client.Event.Query().Where(event.ID(e.EventID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	out := &model.PublicWidget{Widget: toWidget(e), Modified: e.UpdatedAt}
	if ev.UpdatedAt.After(out.Modified) {
		out.Modified = ev.UpdatedAt
	}
	if !e.Enabled || !program {
		out.Program = &model.Program{Event: programEvent(ev)}
		return out, nil
	}
	if out.Program, err = r.programOf(ctx, ev); err != nil {
		return nil, err
	}
	for _, s := range out.Program.Sessions {
		for _, sp := range s.Speakers {
			if sp.HeadshotKey != nil {
				// An uploaded photo's headshotUrl is the API's download route, which needs a key.
				sp.HeadshotURL = nil
			}
		}
	}
	return out, nil
}

// FilterProgram is the program's sessions a widget with options o shows: any of its tracks, one of its
// formats, any of its tags, starting on one of its days in the event's time zone (an empty list
// lets every session through).
func FilterProgram(p *model.Program, o *model.WidgetOptions) []*model.ProgramSession {
	out := []*model.ProgramSession{}
	anyOf := func(want []string, have []string) bool {
		return len(want) == 0 || slices.ContainsFunc(have, func(id string) bool { return slices.Contains(want, id) })
	}
	for _, s := range p.Sessions {
		tracks := mapAll(s.Tracks, func(t agenda.Track) string { return t.ID })
		tags := mapAll(s.Tags, func(t *model.ProgramLabel) string { return t.ID })
		format := []string{}
		if s.Format != nil {
			format = append(format, s.Format.ID)
		}
		if anyOf(o.TrackIds, tracks) && anyOf(o.FormatIds, format) && anyOf(o.TagIds, tags) &&
			(len(o.DayKeys) == 0 || slices.Contains(o.DayKeys, DayKey(s.StartsAt.Time, p.Event.Timezone))) {
			out = append(out, s)
		}
	}
	return out
}

// FilterBlocks is the program's published blocks a widget with options o shows: those starting on
// one of its days in the event's time zone (all when it names none). Tracks, formats and tags do
// not filter blocks: a break is everyone's.
func FilterBlocks(p *model.Program, o *model.WidgetOptions) []agenda.Block {
	out := []agenda.Block{}
	for _, b := range p.Blocks {
		start, err := scalar.ParseTime(b.StartsAt)
		if err != nil {
			continue
		}
		if len(o.DayKeys) == 0 || slices.Contains(o.DayKeys, DayKey(start, p.Event.Timezone)) {
			out = append(out, b)
		}
	}
	return out
}
