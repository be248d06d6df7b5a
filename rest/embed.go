package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent/schema/agenda"

	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/calendar"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/graph/scalar"
	"github.com/podium/podium/rest/web"
)

// Widgets as anyone sees them (docs/widgets.md), without a key:
//
//	GET /embed/{widgetId}              the HTML page an iframe shows (query overrides apply)
//	GET /embed/{widgetId}/json         the sessions it shows, as JSON (saved filters only)
//	GET /embed/{widgetId}/ics          the same as an iCalendar feed; ?session= one of them
//	GET /embed/{widgetId}/custom.css   the widget's custom CSS, as its own stylesheet
//	GET /embed/{widgetId}/embed.js     a script that inserts the iframe where it stands
//	POST /embed/{widgetId}/calendar    the sessions a visitor picked (form, session=…): the page
//	                                   of their personal calendar (docs/agenda.md)
//
// Every answer carries an ETag made from its bytes and Cache-Control: public, max-age=60, and a
// request whose If-None-Match still matches gets 304. Last-Modified is the widget's or its event's
// last change; it is informative only: the program also follows live changes (a cancelled session,
// a speaker removed) that touch neither, so only the ETag decides a 304.

// embedMaxAge is how long browsers and CDNs may keep a widget's answers without asking again.
const embedMaxAge = 60 * time.Second

func (a *API) mountEmbed(r chi.Router) {
	r.Get(web.EmbedStylesheetPath, web.EmbedStylesheet)
	r.Get("/embed/{widgetId}", a.embedPage)
	r.Get("/embed/{widgetId}/json", a.embedJSON)
	r.Get("/embed/{widgetId}/ics", a.embedICS)
	r.Get("/embed/{widgetId}/custom.css", a.embedCustomCSS)
	r.Get("/embed/{widgetId}/embed.js", a.embedScript)
	r.Post("/embed/{widgetId}/calendar", a.embedCalendar)
}

// publicWidget reads the widget of the request; the error is nil, errUnknownWidget or a failure.
func (a *API) publicWidget(r *http.Request, program bool) (*model.PublicWidget, error) {
	pw, err := a.ops.PublicWidget(r.Context(), chi.URLParam(r, "widgetId"), program)
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil, errUnknownWidget
	}
	return pw, err
}

var errUnknownWidget = errors.New("rest: unknown widget")

// embedFailed answers a feed that cannot be served: plain text, as the original's feeds answer.
func (a *API) embedFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errUnknownWidget) {
		http.Error(w, "Widget not found", http.StatusNotFound)
		return
	}
	a.log.ErrorContext(r.Context(), "widget: serving failed", "path", r.URL.Path, "error", err.Error())
	http.Error(w, "Something went wrong", http.StatusInternalServerError)
}

// serveCached writes body with its validators, or 304 when the client's copy is current.
func serveCached(w http.ResponseWriter, r *http.Request, body []byte, contentType string, modified time.Time) {
	sum := sha256.Sum256(body)
	etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(embedMaxAge.Seconds())))
	if !modified.IsZero() {
		h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	if notModified(r, etag, time.Time{}) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// widgetPage reads the widget of the request and lays out its page with the request's query
// overrides: the page of an unknown (404) or disabled widget says so; err is a failure.
func (a *API) widgetPage(r *http.Request) (page web.EmbedPage, pw *model.PublicWidget, status int, err error) {
	pw, err = a.publicWidget(r, true)
	switch {
	case errors.Is(err, errUnknownWidget):
		return web.EmbedMessagePage("This embed is unavailable."), nil, http.StatusNotFound, nil
	case err != nil:
		return page, nil, 0, err
	case !pw.Widget.Enabled:
		return web.EmbedMessagePage("Embed disabled"), pw, http.StatusOK, nil
	}
	q := r.URL.Query()
	s := web.Settings(pw.Widget, q)
	custom := ""
	if css := pw.Widget.Options.CustomCSS; css != "" {
		sum := sha256.Sum256([]byte(css))
		custom = "/embed/" + pw.Widget.ID + "/custom.css?v=" + hex.EncodeToString(sum[:6])
	}
	page = web.BuildEmbedPage(pw, s, operation.FilterProgram(pw.Program, &s.Options),
		web.EmbedParams{Base: a.publicURL(), CustomHref: custom, Query: q})
	return page, pw, http.StatusOK, nil
}

func (a *API) embedPage(w http.ResponseWriter, r *http.Request) {
	web.EmbedHeaders(w.Header())
	page, pw, status, err := a.widgetPage(r)
	if err != nil {
		a.embedFailed(w, r, err)
		return
	}
	body, err := web.RenderEmbed(page)
	if err != nil {
		a.embedFailed(w, r, err)
		return
	}
	if status != http.StatusOK {
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	modified := time.Time{}
	if pw != nil {
		modified = pw.Modified
	}
	serveCached(w, r, body, "text/html; charset=utf-8", modified)
}

// embedCalendar makes a personal calendar of the sessions a visitor picked in a widget's form
// (session=…, form-encoded), with the operation the JSON API's createPersonalCalendar calls, and
// answers the page of its addresses. A refusal (none picked, one not in the published agenda) is
// the widget's page again with the reason in an alert, 400, and nothing written.
//
// There is no CSRF token, and none is needed: the form is embedded on other sites, so cross-site
// posts are what it is for, and it acts on nothing of the visitor's: no cookie, no session, no
// key. A forged post can only make a new, unguessable calendar that its maker alone learns.
func (a *API) embedCalendar(w http.ResponseWriter, r *http.Request) {
	web.EmbedHeaders(w.Header())
	w.Header().Set("Cache-Control", "no-store") // the calendar's address is shown once
	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	formErr := r.ParseForm()
	page, pw, status, err := a.widgetPage(r)
	if err != nil {
		a.embedFailed(w, r, err)
		return
	}
	if status == http.StatusOK && pw.Widget.Enabled {
		var link *operation.PersonalCalendarLink
		switch ids := r.PostForm["session"]; {
		case formErr != nil:
			page.Alert, status = "Your choice could not be read. Please pick your sessions again.", http.StatusBadRequest
		case len(ids) == 0:
			page.Alert, status = "Pick at least one session to subscribe to.", http.StatusBadRequest
		default:
			err = a.db.InTx(r.Context(), func(ctx context.Context) error {
				link, err = a.ops.CreatePersonalCalendar(ctx, pw.Widget.ID, ids)
				return err
			})
			var ae *apperr.Error
			switch {
			case errors.As(err, &ae) && ae.Status == http.StatusBadRequest:
				page.Alert, status = "Some of the sessions you picked are not in the published program. "+
					"Please pick your sessions again.", http.StatusBadRequest
			case err != nil:
				a.embedFailed(w, r, err)
				return
			default:
				webcal := template.URL(link.WebcalURL) //nolint:gosec // Podium's own address; the page checks its scheme
				page = web.EmbedSubscriptionPage(page, web.EmbedSubscription{URL: link.URL, WebcalURL: webcal,
					BackHref: web.EmbedPath(pw.Widget.ID, "", r.URL.Query())})
			}
		}
	}
	body, err := web.RenderEmbed(page)
	if err != nil {
		a.embedFailed(w, r, err)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// enabledWidget reads the widget of a feed, answering unknown and disabled widgets itself.
func (a *API) enabledWidget(w http.ResponseWriter, r *http.Request, program bool) *model.PublicWidget {
	pw, err := a.publicWidget(r, program)
	if err != nil {
		a.embedFailed(w, r, err)
		return nil
	}
	if !pw.Widget.Enabled {
		http.Error(w, "Embed disabled", http.StatusNotFound)
		return nil
	}
	return pw
}

// embedFeed is the JSON feed of a widget: the sessions its saved filters let through, with
// public fields only (no biography, no photo, whatever the options say).
type embedFeed struct {
	Widget   embedFeedWidget    `json:"widget"`
	Event    embedFeedEvent     `json:"event"`
	Sessions []embedFeedSession `json:"sessions"`
	// Blocks are the published blocks (breaks, meals, registration, socials) on the widget's
	// days, by start time.
	Blocks []agenda.Block `json:"blocks"`
}

type embedFeedWidget struct {
	ID   string           `json:"id"`
	Name string           `json:"name"`
	View model.WidgetView `json:"view"`
}

type embedFeedEvent struct {
	Name     string           `json:"name"`
	Slug     string           `json:"slug"`
	Timezone string           `json:"timezone"`
	StartsAt scalar.Timestamp `json:"startsAt"`
	EndsAt   scalar.Timestamp `json:"endsAt"`
	URL      string           `json:"url"`
}

type embedFeedSession struct {
	ID          string             `json:"id"`
	Code        string             `json:"code"`
	Title       string             `json:"title"`
	Description string             `json:"description"`
	StartsAt    scalar.Timestamp   `json:"startsAt"`
	EndsAt      scalar.Timestamp   `json:"endsAt"`
	Room        string             `json:"room"`
	Format      *string            `json:"format"`
	Level       *string            `json:"level"`
	Tracks      []string           `json:"tracks"`
	Tags        []string           `json:"tags"`
	URL         string             `json:"url"`
	Speakers    []embedFeedSpeaker `json:"speakers"`
}

type embedFeedSpeaker struct {
	Name    string  `json:"name"`
	Title   *string `json:"title"`
	Company *string `json:"company"`
}

func (a *API) embedJSON(w http.ResponseWriter, r *http.Request) {
	pw := a.enabledWidget(w, r, true)
	if pw == nil {
		return
	}
	ev, page := pw.Program.Event, a.publicURL()+"/embed/"+pw.Widget.ID
	feed := embedFeed{Widget: embedFeedWidget{ID: pw.Widget.ID, Name: pw.Widget.Name, View: pw.Widget.View},
		Event: embedFeedEvent{Name: ev.Name, Slug: ev.Slug, Timezone: ev.Timezone, StartsAt: ev.StartsAt,
			EndsAt: ev.EndsAt, URL: page},
		Sessions: []embedFeedSession{}, Blocks: operation.FilterBlocks(pw.Program, pw.Widget.Options)}
	for _, s := range operation.FilterProgram(pw.Program, pw.Widget.Options) {
		fs := embedFeedSession{ID: s.ID, Code: s.Code, Title: s.Title, Description: s.Description,
			StartsAt: s.StartsAt, EndsAt: s.EndsAt, Room: s.RoomName, Tracks: []string{}, Tags: []string{},
			URL: page + "#session-" + s.Code, Speakers: []embedFeedSpeaker{}}
		if s.Format != nil {
			fs.Format = &s.Format.Name
		}
		if s.Level != nil {
			fs.Level = &s.Level.Name
		}
		for _, t := range s.Tracks {
			fs.Tracks = append(fs.Tracks, t.Name)
		}
		for _, t := range s.Tags {
			fs.Tags = append(fs.Tags, t.Name)
		}
		for _, sp := range s.Speakers {
			fs.Speakers = append(fs.Speakers, embedFeedSpeaker{Name: strings.TrimSpace(sp.FirstName + " " + sp.LastName),
				Title: sp.Title, Company: sp.Company})
		}
		feed.Sessions = append(feed.Sessions, fs)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(feed); err != nil {
		a.embedFailed(w, r, err)
		return
	}
	serveCached(w, r, b.Bytes(), "application/json; charset=utf-8", pw.Modified)
}

// embedICS is the widget's sessions as an iCalendar feed, or one session (?session=id, the
// page's add-to-calendar link). Entries carry the UIDs of the agenda feed and the speakers'
// invitations, so a calendar holding one of them updates it instead of adding another.
func (a *API) embedICS(w http.ResponseWriter, r *http.Request) {
	pw := a.enabledWidget(w, r, true)
	if pw == nil {
		return
	}
	ev := pw.Program.Event
	feed := calendar.Feed{Name: ev.Name + " — " + pw.Widget.Name, Timezone: ev.Timezone,
		URL: a.publicURL() + "/embed/" + pw.Widget.ID}
	if ev.AgendaPublishedAt != nil {
		feed.PublishedAt = ev.AgendaPublishedAt.Time
	}
	one := r.URL.Query().Get("session")
	for _, s := range operation.FilterProgram(pw.Program, pw.Widget.Options) {
		if one != "" && s.ID != one {
			continue
		}
		fs := calendar.FeedSession{ID: s.ID, Code: s.Code, Title: s.Title, Description: s.Description,
			Room: s.RoomName, StartsAt: s.StartsAt.Time, EndsAt: s.EndsAt.Time}
		for _, sp := range s.Speakers {
			fs.Speakers = append(fs.Speakers, strings.TrimSpace(sp.FirstName+" "+sp.LastName))
		}
		for _, t := range s.Tracks {
			fs.Tracks = append(fs.Tracks, t.Name)
		}
		feed.Sessions = append(feed.Sessions, fs)
	}
	if one != "" && len(feed.Sessions) == 0 {
		http.Error(w, "Session not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.ics"`, ev.Slug, pw.Widget.ID))
	serveCached(w, r, []byte(feed.Serialize()), calendarContentType, pw.Modified)
}

// embedCustomCSS serves the widget's custom CSS. updateWidget refused anything but plain CSS;
// "<" is dropped again here, so no stored value can ever end an element around it.
func (a *API) embedCustomCSS(w http.ResponseWriter, r *http.Request) {
	pw := a.enabledWidget(w, r, false)
	if pw == nil {
		return
	}
	css := strings.ReplaceAll(pw.Widget.Options.CustomCSS, "<", "")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	serveCached(w, r, []byte(css), "text/css; charset=utf-8", pw.Modified)
}

// embedScriptJS inserts, where its <script> element stands, an iframe of the widget page with the
// script's own query string (the page's overrides): a site pastes one line.
const embedScriptJS = `(function () {
  var s = document.currentScript;
  if (!s) return;
  var u = new URL(s.src);
  u.pathname = u.pathname.replace(/\/embed\.js$/, "");
  var f = document.createElement("iframe");
  f.src = u.toString();
  f.title = s.getAttribute("data-title") || "Event program";
  f.width = "100%";
  f.height = s.getAttribute("data-height") || "640";
  f.loading = "lazy";
  f.style.border = "0";
  s.parentNode.insertBefore(f, s.nextSibling);
})();
`

func (a *API) embedScript(w http.ResponseWriter, r *http.Request) {
	if pw := a.enabledWidget(w, r, false); pw == nil {
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	serveCached(w, r, []byte(embedScriptJS), "text/javascript; charset=utf-8", time.Time{})
}

// publicURL is Podium's public address, for links in what widgets serve.
func (a *API) publicURL() string {
	if a.ops != nil && a.ops.Outbox != nil {
		return a.ops.Outbox.PublicURL
	}
	return ""
}
