package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/model"
)

// The agenda: scheduling sessions, publishing, calendar invitations, and the published agenda
// anyone may read (docs/rest-api.md §4 "Agenda").

func (a *API) getAgenda(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.ops.EventAgenda(ctx, ev)
}

func (a *API) scheduleSession(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ScheduleSessionInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.ScheduleSession(ctx, q.param("eventId"), in)
}

// publishAgenda publishes as v1 always has, whatever the conflicts (forced): the publish gate is
// GraphQL's (force: false by default) until a versioned REST surface carries it.
func (a *API) publishAgenda(ctx context.Context, q *request) (any, error) {
	return a.ops.PublishAgenda(ctx, q.param("eventId"), true)
}

func (a *API) unpublishAgenda(ctx context.Context, q *request) (any, error) {
	return a.ops.UnpublishAgenda(ctx, q.param("eventId"))
}

func (a *API) sendCalendarInvites(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SendCalendarInvitesInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SendCalendarInvites(ctx, q.param("eventId"), &in)
}

func (a *API) getPublicAgenda(ctx context.Context, q *request) (any, error) {
	pub, err := a.ops.PublicAgenda(ctx, q.param("eventId"))
	if err != nil {
		return nil, err
	}
	return a.publicJSON(ctx, q, q.param("eventId"), pub)
}

func (a *API) getPublicAgendaCalendar(ctx context.Context, q *request) (any, error) {
	ics, err := a.ops.PublicCalendar(ctx, q.param("eventId"))
	if err != nil {
		return nil, err
	}
	return a.publicFeed(ctx, q, q.param("eventId"), []byte(ics), calendarContentType)
}

// publicJSON answers a public feed of JSON (HTML characters unescaped) with publicFeed's validators.
func (a *API) publicJSON(ctx context.Context, q *request, eventID string, v any) (*response, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return a.publicFeed(ctx, q, eventID, b.Bytes(), "application/json; charset=utf-8")
}

// publicFeedMaxAge is how long a cache may serve a public feed without asking again. Calendar
// apps and event sites poll the feeds; a minute keeps a republished agenda visible quickly while
// sparing the server most of the polls, and the validators make the rest cheap.
const publicFeedMaxAge = 60 * time.Second

// publicFeed answers a public agenda feed with validators: an ETag derived from the body (weak,
// because the compression middleware may send other bytes for the same content) and the event's
// last change as Last-Modified — publishing, unpublishing and renaming the event all change it.
// A conditional request whose validator still matches gets 304 without a body; If-None-Match,
// when present, decides alone (RFC 9110 §13.2.2), so clients that keep the ETag never depend on
// the one-second precision of dates. eventID is the event the feed shows.
func (a *API) publicFeed(ctx context.Context, q *request, eventID string, body []byte, contentType string) (*response, error) {
	sum := sha256.Sum256(body)
	etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
	h := http.Header{}
	h.Set("ETag", etag)
	h.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(publicFeedMaxAge.Seconds())))
	var modified time.Time
	ev, err := a.db.Ent.Event.Query().Where(event.ID(eventID)).Select(event.FieldUpdatedAt).
		Only(viewer.System(ctx, "public agenda: when the event last changed, for Last-Modified"))
	if err == nil {
		modified = ev.UpdatedAt.UTC().Truncate(time.Second)
		h.Set("Last-Modified", modified.Format(http.TimeFormat))
	} else if !ent.IsNotFound(err) {
		return nil, err
	}
	if notModified(q.Request, etag, modified) {
		return &response{status: http.StatusNotModified, header: h}, nil
	}
	return &response{status: http.StatusOK, body: body, contentType: contentType, header: h}, nil
}

// notModified reports whether a GET's conditional headers show that the client's copy is current.
func notModified(r *http.Request, etag string, modified time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, tag := range strings.Split(inm, ",") {
			tag = strings.TrimSpace(tag)
			// Weak comparison: W/"x" and "x" name the same content.
			if tag == "*" || strings.TrimPrefix(tag, "W/") == strings.TrimPrefix(etag, "W/") {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" && !modified.IsZero() {
		since, err := http.ParseTime(ims)
		return err == nil && !modified.After(since)
	}
	return false
}

// calendarFeed is an iCalendar document: a handler returning one answers text/calendar instead
// of JSON.
type calendarFeed string

const calendarContentType = "text/calendar; charset=utf-8"
