package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/operation"
)

// The speaker's availability page (docs/portal.md, docs/agenda.md "Speaker availability"):
//
//	GET  /portal/availability   when I can speak at the event, a row per time (?event= picks it)
//	POST /portal/availability   save the rows (setMyAvailability); add=1 adds a row, clear=1 says
//	                            any time, a row's remove box drops it
//
// Times are typed in the event's time zone, a day and two clock times per row; the page turns
// them into instants and calls the operation GraphQL calls (graph/operation/availability.go),
// holding no rule of its own. Adding or removing a row is a post that shows the form again, so
// no JavaScript is needed.

// MountAvailability adds the availability page to r. Every POST is refused from another origin.
func MountAvailability(r chi.Router, d *Desk) {
	p := &availabilityPage{d}
	r.Get("/portal/availability", p.show)
	r.Post("/portal/availability", Protect(p.post))
}

type availabilityPage struct{ *Desk }

// availabilityForm is what template availability-form draws.
type availabilityForm struct {
	EventID, Timezone string
	// Zone is the zone's abbreviation and offset on the event's first day, such as CEST, UTC+02:00.
	Zone string
	// Days are the event's days, for each row's day select.
	Days []availabilityDay
	Rows []availabilityRow
	// Saved are the stored intervals, written in the event's zone; Throughout says there are none.
	Saved      []string
	Throughout bool
}

type availabilityDay struct{ Value, Label string }

// availabilityRow is one row of the form: a day and two clock times, as typed.
type availabilityRow struct {
	Day, Start, End string
	// N numbers the row from 1, for its legend.
	N int
	// Err is why the row was refused; Field the input it points at (day, start or end; both
	// times when empty).
	Err, Field string
}

var availabilityNotices = map[string]string{
	"saved":   "Your availability was saved.",
	"cleared": "Saved: you can speak at any time during the event.",
}

// maxAvailabilityRows bounds the rows the form draws, whatever a post asks.
const maxAvailabilityRows = operation.MaxAvailabilityIntervals + 1

// eventOf picks the person's event: want when it is theirs, else the portal's pinned one, else
// their first; ok is false when want is given and is not theirs, or they speak nowhere.
func eventOf(r *http.Request, p *viewer.Person, want string) (contactID, eventID string, ok bool) {
	if want == "" {
		if c, err := r.Cookie(portalEventCookie); err == nil {
			want = c.Value
		}
		for _, c := range p.Contacts {
			if c.EventID == want {
				return c.ContactID, c.EventID, true
			}
		}
		if len(p.Contacts) > 0 {
			return p.Contacts[0].ContactID, p.Contacts[0].EventID, true
		}
		return "", "", false
	}
	for _, c := range p.Contacts {
		if c.EventID == want {
			return c.ContactID, c.EventID, true
		}
	}
	return "", "", false
}

// show draws the form with the stored availability.
func (p *availabilityPage) show(w http.ResponseWriter, r *http.Request) {
	person, ctx, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	contactID, eventID, ok := eventOf(r, person, r.URL.Query().Get("event"))
	if !ok {
		p.fail(w, r, person, nil, apperr.NotFound("Event"))
		return
	}
	ev, err := p.Ops.OwnContactEvent(ctx, person, contactID)
	if err != nil {
		p.fail(w, r, person, nil, err)
		return
	}
	a, err := p.Ops.MyAvailability(ctx, eventID)
	if err != nil {
		p.fail(w, r, person, ev, err)
		return
	}
	f := newAvailabilityForm(ev, a)
	for _, x := range a.Intervals {
		f.Rows = append(f.Rows, rowsOf(x, operation.EventLocation(ev.Timezone))...)
	}
	f.Rows = append(f.Rows, availabilityRow{})
	p.render(w, http.StatusOK, person, ev, f, availabilityNotices[r.URL.Query().Get("done")], "")
}

// post saves the rows, or draws the form again with a row added or the reason it was refused.
func (p *availabilityPage) post(w http.ResponseWriter, r *http.Request) {
	person, ctx, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	eventID := firstLine(r.PostFormValue("event"))
	contactID, _, ok := eventOf(r, person, eventID)
	if !ok || eventID == "" {
		p.fail(w, r, person, nil, apperr.NotFound("Event"))
		return
	}
	ev, err := p.Ops.OwnContactEvent(ctx, person, contactID)
	if err != nil {
		p.fail(w, r, person, nil, err)
		return
	}
	if r.PostFormValue("clear") != "" {
		if _, err := p.Ops.SetMyAvailability(ctx, eventID, model.SpeakerAvailabilityInput{}); err != nil {
			p.fail(w, r, person, ev, err)
			return
		}
		http.Redirect(w, r, "/portal/availability?event="+eventID+"&done=cleared", http.StatusSeeOther)
		return
	}
	rows, err := formRows(r)
	if err == nil && r.PostFormValue("add") != "" {
		p.again(w, r, ctx, person, ev, append(rows, availabilityRow{}, availabilityRow{}), http.StatusOK, "")
		return
	}
	var in model.SpeakerAvailabilityInput
	var rowOf []int // the row of each interval of in
	if err == nil {
		in, rowOf = intervalsOf(rows, operation.EventLocation(ev.Timezone))
		for _, row := range rows {
			if row.Err != "" {
				err = apperr.Invalid("%s", row.Err)
				break
			}
		}
	}
	if err == nil {
		_, err = p.Ops.SetMyAvailability(ctx, eventID, in)
		var ie *operation.IntervalError
		if errors.As(err, &ie) && ie.Index < len(rowOf) {
			rows[rowOf[ie.Index]].Err = ie.Err.Message
		}
	}
	if err == nil {
		http.Redirect(w, r, "/portal/availability?event="+eventID+"&done=saved", http.StatusSeeOther)
		return
	}
	e, ok := apperr.As(err)
	if !ok {
		p.fail(w, r, person, ev, err)
		return
	}
	p.again(w, r, ctx, person, ev, append(rows, availabilityRow{}), e.Status, e.Message)
}

// again draws the form with rows as typed (blank ones dropped; the caller adds those it wants).
func (p *availabilityPage) again(w http.ResponseWriter, r *http.Request, ctx context.Context, person *viewer.Person, ev *ent.Event,
	rows []availabilityRow, status int, errMsg string) {
	a, err := p.Ops.MyAvailability(ctx, ev.ID)
	if err != nil {
		p.fail(w, r, person, ev, err)
		return
	}
	f := newAvailabilityForm(ev, a)
	f.Rows = rows
	if len(f.Rows) > maxAvailabilityRows {
		f.Rows = f.Rows[:maxAvailabilityRows]
	}
	p.render(w, status, person, ev, f, "", errMsg)
}

// formRows reads the posted rows: day, start and end come once per row, in order. A row whose
// remove box is ticked, or whose times are both blank, is dropped.
func formRows(r *http.Request) ([]availabilityRow, error) {
	days, starts, ends := r.PostForm["day"], r.PostForm["start"], r.PostForm["end"]
	if len(days) != len(starts) || len(days) != len(ends) {
		return nil, apperr.Invalid("The form's rows are incomplete: open the page again")
	}
	if len(days) > maxAvailabilityRows {
		return nil, apperr.Invalid("Give at most %d times", operation.MaxAvailabilityIntervals)
	}
	rows := []availabilityRow{}
	for i := range days {
		if slices.Contains(r.PostForm["remove"], strconv.Itoa(i)) {
			continue
		}
		row := availabilityRow{Day: firstLine(days[i]), Start: firstLine(starts[i]), End: firstLine(ends[i])}
		if row.Start == "" && row.End == "" {
			continue
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// intervalsOf turns the rows into intervals in the zone loc, marking the rows it cannot read;
// rowOf is the row of each interval. An end of 00:00 is midnight at the end of the day.
func intervalsOf(rows []availabilityRow, loc *time.Location) (in model.SpeakerAvailabilityInput, rowOf []int) {
	in.Intervals = []*model.AvailabilityIntervalInput{}
	for i := range rows {
		row := &rows[i]
		day, err := time.ParseInLocation(time.DateOnly, row.Day, loc)
		if err != nil {
			row.Err, row.Field = "Choose one of the event's days", "day"
			continue
		}
		start, okStart := clock(row.Start)
		end, okEnd := clock(row.End)
		switch {
		case row.Start == "":
			row.Err, row.Field = "Give the time you are available from", "start"
			continue
		case row.End == "":
			row.Err, row.Field = "Give the time you are available until", "end"
			continue
		case !okStart:
			row.Err, row.Field = "Enter the start as hours and minutes, such as 09:30", "start"
			continue
		case !okEnd:
			row.Err, row.Field = "Enter the end as hours and minutes, such as 17:00", "end"
			continue
		}
		if end == 0 {
			end = 24 * time.Hour
		}
		y, m, d := day.Date()
		in.Intervals = append(in.Intervals, &model.AvailabilityIntervalInput{
			StartsAt: time.Date(y, m, d, 0, 0, 0, 0, loc).Add(start),
			EndsAt:   time.Date(y, m, d, int(end/time.Hour), int(end%time.Hour/time.Minute), 0, 0, loc)})
		rowOf = append(rowOf, i)
	}
	return in, rowOf
}

// clock reads a time of day written HH:MM (as a time input sends it) as a duration since midnight.
func clock(s string) (time.Duration, bool) {
	t, err := time.Parse("15:04", s)
	if err != nil || len(s) != 5 {
		return 0, false
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, true
}

// rowsOf writes an interval as rows of the form, one per day it touches.
func rowsOf(x *model.AvailabilityInterval, loc *time.Location) []availabilityRow {
	var out []availabilityRow
	s, e := x.StartsAt.In(loc), x.EndsAt.In(loc)
	for s.Before(e) {
		next := time.Date(s.Year(), s.Month(), s.Day()+1, 0, 0, 0, 0, loc)
		end := e
		if next.Before(e) {
			end = next
		}
		out = append(out, availabilityRow{Day: s.Format(time.DateOnly), Start: s.Format("15:04"), End: end.Format("15:04")})
		s = end
	}
	return out
}

func newAvailabilityForm(ev *ent.Event, a *model.Availability) availabilityForm {
	loc := operation.EventLocation(ev.Timezone)
	first, last := operation.EventDays(ev)
	f := availabilityForm{EventID: ev.ID, Timezone: ev.Timezone, Throughout: a.AvailableThroughout}
	at := first.In(loc)
	name, offset := at.Zone()
	f.Zone = name + ", UTC" + at.Format("-07:00")
	if offset == 0 {
		f.Zone = "UTC"
	}
	for d := at; d.Before(last); d = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc) {
		f.Days = append(f.Days, availabilityDay{Value: d.Format(time.DateOnly), Label: d.Format("Monday 2 January 2006")})
	}
	for _, x := range a.Intervals {
		s, e := x.StartsAt.In(loc), x.EndsAt.In(loc)
		until := e.Format("15:04")
		if e.YearDay() != s.YearDay() || e.Year() != s.Year() {
			until = e.Format("Mon 2 Jan 2006, 15:04")
		}
		f.Saved = append(f.Saved, s.Format("Mon 2 Jan 2006, 15:04")+"–"+until)
	}
	return f
}

func (p *availabilityPage) render(w http.ResponseWriter, status int, person *viewer.Person, ev *ent.Event,
	f availabilityForm, notice, errMsg string) {
	for i := range f.Rows {
		f.Rows[i].N = i + 1
	}
	Render(w, status, Page{Title: "My availability", Theme: themeOfEvent(ev), Person: person, Notice: notice, Error: errMsg,
		Content: "availability-form", Data: f})
}

// fail renders an operation's refusal, or a generic page for anything else (logged).
func (p *availabilityPage) fail(w http.ResponseWriter, r *http.Request, person *viewer.Person, ev *ent.Event, err error) {
	e, ok := apperr.As(err)
	if !ok {
		p.Log(r.Context(), "availability page failed", "path", r.URL.Path, "err", err)
		e = apperr.Internal()
	}
	var t Theme
	if ev != nil {
		t = themeOfEvent(ev)
	}
	Render(w, e.Status, Page{Title: "Not available", Theme: t, Person: person, Error: e.Message, Content: "link",
		Data: &Link{Href: "/portal", Text: "Back to your speaker portal"}})
}
