package rest

import (
	"context"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph"
)

// Sessions: accepted submissions and sessions added directly, their cancellation and speakers
// (docs/rest-api.md §4 "Sessions"). Their tasks and deliverables are in readiness.go.

func (a *API) listSessions(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	var state *graph.SessionState
	if s := graph.SessionState(q.URL.Query().Get("state")); s.IsValid() {
		state = &s
	}
	conn, err := a.res.Event().Sessions(ctx, ev, state, nil, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	sessions := mapSlice(conn.Edges, func(e *graph.SessionEdge) *graph.Session { return e.Node })
	return SessionList{Sessions: sessions, Tracks: conn.Tracks, Formats: conn.Formats}, nil
}

func (a *API) createSession(ctx context.Context, q *request) (any, error) {
	in, err := bind[graph.CreateSessionInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().CreateSession(ctx, q.param("eventId"), in)
}

func (a *API) deleteSession(ctx context.Context, q *request) (any, error) {
	return a.res.Mutation().DeleteSession(ctx, q.param("eventId"), q.param("submissionId"))
}

func (a *API) cancelSession(ctx context.Context, q *request) (any, error) {
	in, err := bind[graph.CancelSessionInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().CancelSession(ctx, q.param("eventId"), q.param("submissionId"), in)
}

func (a *API) reinstateSession(ctx context.Context, q *request) (any, error) {
	in, err := bind[graph.ReinstateSessionInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().ReinstateSession(ctx, q.param("eventId"), q.param("submissionId"), in)
}

func (a *API) getSessionTimeline(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	sub, err := a.res.Event().Submission(ctx, ev, q.param("submissionId"))
	if err != nil {
		return nil, err
	}
	return a.res.Submission().Activity(ctx, sub)
}

func (a *API) setSessionSpeakers(ctx context.Context, q *request) (any, error) {
	in, err := bind[graph.SetSessionSpeakersInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().SetSessionSpeakers(ctx, q.param("eventId"), q.param("submissionId"), in)
}

// SessionList is GET E/sessions.
type SessionList struct {
	Sessions []*graph.Session `json:"sessions"`
	Tracks   []agenda.Track   `json:"tracks"`
	Formats  []string         `json:"formats"`
}
