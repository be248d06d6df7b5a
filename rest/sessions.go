package rest

import (
	"context"
	"slices"

	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/operation"

	"github.com/podium/podium/ent/schema/agenda"
)

// Sessions: accepted submissions and sessions added directly, their cancellation and speakers
// (docs/rest-api.md §4 "Sessions"). Their tasks and deliverables are in readiness.go.

func (a *API) listSessions(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	var state *model.SessionState
	if s := model.SessionState(q.URL.Query().Get("state")); s.IsValid() {
		state = &s
	}
	conn, err := a.ops.Sessions(ctx, ev, state, operation.Page{})
	if err != nil {
		return nil, err
	}
	sessions := mapSlice(conn.Edges, func(e *model.SessionEdge) *model.Session { return e.Node })
	return SessionList{Sessions: sessions, Tracks: conn.Tracks, Formats: conn.Formats}, nil
}

func (a *API) createSession(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.CreateSessionInput](q)
	if err != nil {
		return nil, err
	}
	rec, err := a.ops.CreateSession(ctx, q.param("eventId"), in)
	if err != nil || !current(ctx) {
		return rec, err
	}
	return SessionCreated{SessionRecord: *rec, AskedFields: []AskedField{}}, nil
}

// SessionCreated is POST E/sessions' answer in API version 2026-08-21: the session and the form
// fields it was asked with. A session made by organizers comes through no form, so the list is
// empty.
type SessionCreated struct {
	model.SessionRecord
	AskedFields []AskedField `json:"askedFields"`
}

// AskedField is a form field a submission was asked with, in the original's shape.
type AskedField struct {
	ID        string  `json:"id"`
	Section   string  `json:"section" enum:"abstract,participant"`
	Label     string  `json:"label"`
	FieldType string  `json:"fieldType"`
	Position  int     `json:"position"`
	MapsTo    *string `json:"mapsTo"`
}

func (a *API) deleteSession(ctx context.Context, q *request) (any, error) {
	return a.ops.DeleteSession(ctx, q.param("eventId"), q.param("submissionId"))
}

func (a *API) cancelSession(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.CancelSessionInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.CancelSession(ctx, q.param("eventId"), q.param("submissionId"), in)
}

func (a *API) reinstateSession(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ReinstateSessionInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.ReinstateSession(ctx, q.param("eventId"), q.param("submissionId"), in)
}

func (a *API) getSessionTimeline(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	sub, err := a.ops.Submission(ctx, ev.ID, q.param("submissionId"))
	if err != nil {
		return nil, err
	}
	return a.timeline(ctx, sub.EventID, sub.ID)
}

// timeline is a submission's timeline in the contract's kinds: the kinds Podium records beyond
// the contract's enum are answered as its nearest kind, their label saying what happened —
// informed (the decision email went out) as email, speaker_declined as status_changed. GraphQL
// keeps the kinds as recorded.
func (a *API) timeline(ctx context.Context, eventID, submissionID string) ([]*model.TimelineItem, error) {
	items, err := a.ops.Timeline(ctx, eventID, submissionID)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		switch it.Kind {
		case "informed":
			it.Kind = "email"
		case "speaker_declined":
			it.Kind = "status_changed"
		}
	}
	return items, nil
}

func (a *API) setSessionSpeakers(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SetSessionSpeakersInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SetSessionSpeakers(ctx, q.param("eventId"), q.param("submissionId"), in)
}

// SessionList is GET E/sessions.
type SessionList struct {
	Sessions []*model.Session `json:"sessions"`
	Tracks   []agenda.Track   `json:"tracks"`
	Formats  []string         `json:"formats"`
}

// AppendJSON appends l as the route's encoder writes it, newline included, without reflection
// (graph/model/sessions_json.go says why).
func (l SessionList) AppendJSON(b []byte) []byte {
	// Grown once to about the answer's size: growing a two-megabyte buffer by doubling cost more
	// CPU than writing it.
	size := 64
	for _, s := range l.Sessions {
		if s != nil {
			size += 700 + len(s.Title) + len(s.Description) + 200*len(s.Speakers) + 80*len(s.Tracks)
		}
	}
	b = slices.Grow(b, size)
	b = append(b, `{"sessions":`...)
	if l.Sessions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, s := range l.Sessions {
			if i > 0 {
				b = append(b, ',')
			}
			if s == nil {
				b = append(b, "null"...)
			} else {
				b = s.AppendJSON(b)
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"tracks":`...)
	b = model.AppendTracksJSON(b, l.Tracks)
	b = append(b, `,"formats":`...)
	if l.Formats == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, f := range l.Formats {
			if i > 0 {
				b = append(b, ',')
			}
			b = model.AppendJSONString(b, f)
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...)
}
