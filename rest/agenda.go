package rest

import (
	"context"

	"github.com/podium/podium/graph"
)

// The agenda: scheduling sessions, publishing, calendar invitations, and the published agenda
// anyone may read (docs/rest-api.md §4 "Agenda").

func (a *API) getAgenda(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.res.Event().Agenda(ctx, ev)
}

func (a *API) scheduleSession(ctx context.Context, q *request) (any, error) {
	in, err := bind[graph.ScheduleSessionInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().ScheduleSession(ctx, q.param("eventId"), in)
}

func (a *API) publishAgenda(ctx context.Context, q *request) (any, error) {
	return a.res.Mutation().PublishAgenda(ctx, q.param("eventId"))
}

func (a *API) unpublishAgenda(ctx context.Context, q *request) (any, error) {
	return a.res.Mutation().UnpublishAgenda(ctx, q.param("eventId"))
}

func (a *API) sendCalendarInvites(ctx context.Context, q *request) (any, error) {
	in, err := bind[graph.SendCalendarInvitesInput](q)
	if err != nil {
		return nil, err
	}
	return a.res.Mutation().SendCalendarInvites(ctx, q.param("eventId"), &in)
}

func (a *API) getPublicAgenda(ctx context.Context, q *request) (any, error) {
	return a.res.PublicAgenda(ctx, q.param("eventId"))
}

func (a *API) getPublicAgendaCalendar(ctx context.Context, q *request) (any, error) {
	ics, err := a.res.PublicCalendar(ctx, q.param("eventId"))
	return calendarFeed(ics), err
}

// calendarFeed is an iCalendar document: a handler returning one answers text/calendar instead
// of JSON.
type calendarFeed string

const calendarContentType = "text/calendar; charset=utf-8"
