package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/podium/podium/graph/model"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/calendar"
	"github.com/podium/podium/graph/files"
	"github.com/podium/podium/graph/operation"
)

// The speaker portal (docs/portal.md):
//
//	GET  /portal                          Home: confirm or decline, what is outstanding
//	GET  /portal/submissions              every session and submission of mine, with its status
//	GET  /portal/sessions                 my accepted sessions: schedule, room, co-speakers, readiness
//	GET  /portal/tasks                    my tasks (mark done) and the files I owe (upload, replace, remove)
//	GET  /portal/resources                the resources meant for me, downloadable
//	GET  /portal/calendar.ics             my scheduled sessions as a calendar
//	POST /portal/event                    show another event of mine (pinned in a cookie)
//	POST /portal/confirm, /portal/decline my answer (confirmMyParticipation, declineMyParticipation)
//	POST /portal/tasks/{id}               done=1 or done=0 (setMyTaskDone)
//	POST /portal/deliverables/{id}        a multipart upload (uploadMyDeliverable)
//	POST /portal/deliverables/{id}/remove removeMyDeliverable
//
// The portal shows one event at a time: the one pinned in a cookie, else the first; a speaker of
// several events switches with a form on every page. The pages call the operations GraphQL calls
// (graph/operation/portal.go, graph/operation/portal_actions.go) and hold no rule of their own. The profile page and
// session content pages are served elsewhere; the portal links to them.
// It has the reviewer desk's dependencies.
type Portal Desk

// portalEventCookie pins the event the portal shows.
const portalEventCookie = "podium_portal_event"

// Mount adds the portal's pages to r. Every POST is refused from another origin.
func (p *Portal) Mount(r chi.Router) {
	r.Get("/portal", p.page("home"))
	r.Get("/portal/submissions", p.page("submissions"))
	r.Get("/portal/sessions", p.page("sessions"))
	r.Get("/portal/tasks", p.page("tasks"))
	r.Get("/portal/resources", p.page("resources"))
	r.Get("/portal/calendar.ics", p.calendar)
	r.Post("/portal/event", Protect(p.pick))
	r.Post("/portal/confirm", Protect(p.answer(true)))
	r.Post("/portal/decline", Protect(p.answer(false)))
	r.Post("/portal/tasks/{id}", Protect(p.task))
	r.Post("/portal/deliverables/{id}", Protect(p.upload))
	r.Post("/portal/deliverables/{id}/remove", Protect(p.remove))
	r.Get("/portal/*", p.notFound)
}

// portalView is what the portal's templates draw.
type portalView struct {
	Section string
	// Events are all the events where the person speaks (the switcher lists them when several).
	Events []*model.SpeakerEvent
	// Event is the one shown; nil when the person speaks nowhere.
	Event    *model.SpeakerEvent
	Sessions []portalSession
	// Reviews says the person is also a reviewer somewhere: the page links to their reviews.
	Reviews bool
	// Errors are messages by deliverable id (an upload refused); the file input points at it.
	Errors map[string]string
	// UploadLimitMB is the server's upload limit, said next to each file input.
	UploadLimitMB int64
	// Downloads are signed links to the files the person uploaded, by deliverable id: they get
	// back what they sent.
	Downloads map[string]string
}

// portalSession is a session with its slot written in the event's time zone and its counts.
type portalSession struct {
	*model.SpeakerSession
	When                        string
	TasksDone, FilesUploaded    int
	Active, Accepted, Scheduled bool
}

// Active are the accepted, uncancelled sessions: those with tasks and files.
func (v portalView) Active() []portalSession {
	return slices.DeleteFunc(slices.Clone(v.Sessions), func(s portalSession) bool { return !s.Active })
}

// Accepted are the accepted sessions, cancelled ones included.
func (v portalView) Accepted() []portalSession {
	return slices.DeleteFunc(slices.Clone(v.Sessions), func(s portalSession) bool { return !s.Accepted })
}

// Outstanding counts the tasks to do and the files to upload on active sessions.
func (v portalView) Outstanding() (n int) {
	for _, s := range v.Active() {
		n += len(s.Tasks) - s.TasksDone + len(s.Deliverables) - s.FilesUploaded
	}
	return n
}

// AskConfirmation says the home page asks the speaker to confirm: the event asks for it, they have
// an active session, and they have neither confirmed nor declined.
func (v portalView) AskConfirmation() bool {
	return v.Event != nil && v.Event.SpeakerConfirmationEnabled && v.Event.Contact.ConfirmedAt == nil &&
		v.Event.Contact.WorkflowStatus != "declined" && len(v.Active()) > 0
}

// Scheduled says some active session has a slot (the calendar has something).
func (v portalView) Scheduled() bool {
	return slices.ContainsFunc(v.Active(), func(s portalSession) bool { return s.Scheduled })
}

// portalNotices are the messages a page shows after a change (?done=…), so that a reload does not
// post again.
var portalNotices = map[string]string{
	"confirmed": "Thank you: your participation is confirmed.",
	"declined":  "You declined taking part. The organizers have been told.",
	"task":      "Your task was updated.",
	"uploaded":  "Your file was uploaded.",
	"removed":   "Your file was removed.",
}

// load reads the person's events and picks the one to show: want, else the pinned one, else the
// first.
func (p *Portal) load(ctx context.Context, r *http.Request, person *viewer.Person, section, want string) (portalView, error) {
	events, err := p.Ops.Speaking(ctx)
	if err != nil {
		return portalView{}, err
	}
	v := portalView{Section: section, Events: events, Errors: map[string]string{}, Downloads: map[string]string{},
		Reviews: slices.ContainsFunc(person.EventRoles, func(e viewer.EventRole) bool { return e.Role == "reviewer" })}
	if want == "" {
		if c, err := r.Cookie(portalEventCookie); err == nil {
			want = c.Value
		}
	}
	for _, ev := range events {
		if v.Event == nil || ev.EventID == want {
			v.Event = ev
		}
		if ev.EventID == want {
			break
		}
	}
	if p.Ops.Files != nil {
		v.UploadLimitMB = p.Ops.Files.Limit() >> 20
	}
	if v.Event == nil {
		return v, nil
	}
	loc := operation.EventLocation(v.Event.Timezone)
	for _, s := range v.Event.Sessions {
		ps := portalSession{SpeakerSession: s, Accepted: s.Status == model.SubmissionStatusAccepted}
		ps.Active = ps.Accepted && s.CancelledAt == nil
		ps.Scheduled = s.StartsAt != nil && s.EndsAt != nil
		if ps.Scheduled {
			ps.When = s.StartsAt.In(loc).Format("Mon 2 Jan 2006, 15:04") + "–" + s.EndsAt.In(loc).Format("15:04 MST")
		}
		for _, t := range s.Tasks {
			if t.Status != model.TaskStatusTodo {
				ps.TasksDone++
			}
		}
		for _, d := range s.Deliverables {
			if d.Status == model.DeliverableStatusUploaded {
				ps.FilesUploaded++
			}
			if u := p.Ops.DownloadLink(d.StorageKey); u != "" {
				v.Downloads[d.ID] = u
			}
		}
		v.Sessions = append(v.Sessions, ps)
	}
	return v, nil
}

// page serves one of the portal's pages.
func (p *Portal) page(section string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		person, ctx, ok := p.signedIn(w, r)
		if !ok {
			return
		}
		v, err := p.load(ctx, r, person, section, "")
		if err != nil {
			p.failed(w, r, person, err)
			return
		}
		p.render(w, http.StatusOK, person, v, portalNotices[r.URL.Query().Get("done")], "")
	}
}

var portalTitles = map[string]string{"home": "Your speaker portal", "submissions": "My submissions",
	"sessions": "My sessions", "tasks": "Tasks", "resources": "Resources"}

func (p *Portal) render(w http.ResponseWriter, status int, person *viewer.Person, v portalView, notice, errMsg string) {
	page := Page{Title: portalTitles[v.Section], Person: person, Notice: notice, Error: errMsg,
		Content: "portal-page", Data: v}
	if v.Event != nil {
		page.Theme = ThemeOf(v.Event.EventName, deref(v.Event.Theme), deref(v.Event.LogoURL))
	}
	Render(w, status, page)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// signedIn returns the person of r and a context acting as them, or sends them to sign in.
func (p *Portal) signedIn(w http.ResponseWriter, r *http.Request) (*viewer.Person, context.Context, bool) {
	return (*Desk)(p).signedIn(w, r)
}

// failed renders an operation's refusal, or a generic page for anything else (logged).
func (p *Portal) failed(w http.ResponseWriter, r *http.Request, person *viewer.Person, err error) {
	(*Desk)(p).failedBack(w, r, person, err, Link{Href: "/portal", Text: "Back to your portal"})
}

// notFound answers any other /portal/… address.
func (p *Portal) notFound(w http.ResponseWriter, r *http.Request) {
	Render(w, http.StatusNotFound, Page{Title: "Portal page not found", Person: p.Person(r),
		Error: "There is no such page in the speaker portal.", Content: "link",
		Data: &Link{Href: "/portal", Text: "Back to your portal"}})
}

// pick pins the event the portal shows, when it is one of the person's.
func (p *Portal) pick(w http.ResponseWriter, r *http.Request) {
	person, ctx, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	want := firstLine(r.PostFormValue("event"))
	v, err := p.load(ctx, r, person, "home", want)
	if err != nil {
		p.failed(w, r, person, err)
		return
	}
	if v.Event == nil || v.Event.EventID != want {
		p.render(w, http.StatusBadRequest, person, v, "", "Choose one of your events.")
		return
	}
	PinPortalEvent(w, r, want)
	http.Redirect(w, r, "/portal", http.StatusSeeOther)
}

// PinPortalEvent pins the event the portal shows, for a sign-in that knows it (a contact's access
// link, docs/portal.md).
func PinPortalEvent(w http.ResponseWriter, r *http.Request, eventID string) {
	http.SetCookie(w, &http.Cookie{Name: portalEventCookie, Value: eventID, Path: "/portal", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
}

// after answers a change: back to the page with its notice, or the page again with the refusal.
func (p *Portal) after(w http.ResponseWriter, r *http.Request, person *viewer.Person, ctx context.Context,
	section, done string, err error, fieldID string) {
	if err == nil {
		path := "/portal"
		if section != "home" {
			path += "/" + section
		}
		http.Redirect(w, r, path+"?done="+done, http.StatusSeeOther)
		return
	}
	e, ok := apperr.As(err)
	if !ok {
		p.failed(w, r, person, err)
		return
	}
	v, lerr := p.load(ctx, r, person, section, "")
	if lerr != nil {
		p.failed(w, r, person, lerr)
		return
	}
	if fieldID != "" {
		v.Errors[fieldID] = e.Message
	}
	p.render(w, e.Status, person, v, "", e.Message)
}

// answer confirms or declines taking part in the event of the form's contact.
func (p *Portal) answer(confirm bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		person, ctx, ok := p.signedIn(w, r)
		if !ok {
			return
		}
		contactID := r.PostFormValue("contact")
		var err error
		done := "confirmed"
		if confirm {
			_, err = p.Ops.ConfirmMyParticipation(ctx, contactID)
		} else {
			done = "declined"
			_, err = p.Ops.DeclineMyParticipation(ctx, contactID)
		}
		p.after(w, r, person, ctx, "home", done, err, "")
	}
}

// task marks a task done (done=1) or back to do (done=0).
func (p *Portal) task(w http.ResponseWriter, r *http.Request) {
	person, ctx, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	var err error
	switch r.PostFormValue("done") {
	case "1":
		_, err = p.Ops.SetMyTaskDone(ctx, chi.URLParam(r, "id"), true)
	case "0":
		_, err = p.Ops.SetMyTaskDone(ctx, chi.URLParam(r, "id"), false)
	default:
		err = apperr.Invalid("Say whether the task is done")
	}
	p.after(w, r, person, ctx, "tasks", "task", err, "")
}

// maxFormPart bounds the form's fields other than the file in an upload's body.
const maxFormPart = 64 << 10

// upload stores the form's file as one of the person's deliverables.
func (p *Portal) upload(w http.ResponseWriter, r *http.Request) {
	person, ctx, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	id := chi.URLParam(r, "id")
	svc := p.Ops.Files
	if svc == nil {
		p.after(w, r, person, ctx, "tasks", "", apperr.New(http.StatusServiceUnavailable, apperr.CodeUnavailable,
			"File uploads are not available on this server"), id)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, svc.Limit()+maxFormPart)
	err := r.ParseMultipartForm(1 << 20)
	if r.MultipartForm != nil {
		defer func() { _ = r.MultipartForm.RemoveAll() }()
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		err = files.TooLarge(svc.Limit())
		// The rest of the body is not read: the connection closes after the answer.
		w.Header().Set("Connection", "close")
	case err != nil:
		err = apperr.Invalid("Choose a file to upload")
	}
	if err != nil {
		p.after(w, r, person, ctx, "tasks", "", err, id)
		return
	}
	f, h, err := r.FormFile("file")
	if err != nil {
		p.after(w, r, person, ctx, "tasks", "", apperr.Invalid("Choose a file to upload"), id)
		return
	}
	defer func() { _ = f.Close() }()
	tctx, tracker := files.Track(ctx)
	_, err = p.Ops.UploadMyDeliverable(tctx, id, files.Upload{Name: h.Filename, File: f, Size: h.Size})
	svc.Settle(ctx, tracker)
	p.after(w, r, person, ctx, "tasks", "uploaded", err, id)
}

// remove removes the file of one of the person's deliverables.
func (p *Portal) remove(w http.ResponseWriter, r *http.Request) {
	person, ctx, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	_, err := p.Ops.RemoveMyDeliverable(ctx, chi.URLParam(r, "id"))
	p.after(w, r, person, ctx, "tasks", "removed", err, "")
}

// calendar downloads the person's scheduled, active sessions of the event shown as an iCalendar
// file.
func (p *Portal) calendar(w http.ResponseWriter, r *http.Request) {
	person, ctx, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	v, err := p.load(ctx, r, person, "sessions", "")
	if err != nil {
		p.failed(w, r, person, err)
		return
	}
	if v.Event == nil {
		p.notFound(w, r)
		return
	}
	feed := calendar.Feed{Name: v.Event.EventName + " — my sessions", Timezone: v.Event.Timezone}
	me := strings.TrimSpace(v.Event.Contact.FirstName + " " + v.Event.Contact.LastName)
	for _, s := range v.Active() {
		if !s.Scheduled {
			continue
		}
		feed.Sessions = append(feed.Sessions, calendar.FeedSession{ID: s.ID, Code: s.Code, Title: s.Title,
			Description: s.Description, Room: deref(s.Room), StartsAt: *s.StartsAt, EndsAt: *s.EndsAt,
			Speakers: append([]string{me}, s.CoSpeakers...)})
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", "my-sessions.ics"))
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(feed.Serialize()))
}
