package rest

import (
	"context"
	"strconv"
)

// The agenda's published versions and their public changelog (docs/agenda.md "Published
// versions").

func (a *API) listAgendaVersions(ctx context.Context, q *request) (any, error) {
	return a.ops.AgendaVersions(ctx, q.param("eventId"))
}

func (a *API) getAgendaVersion(ctx context.Context, q *request) (any, error) {
	// Not a version number is no version: 0, which the operation answers not found once the
	// caller may see the event.
	number, err := strconv.Atoi(q.param("number"))
	if err != nil || number < 0 {
		number = 0
	}
	return a.ops.AgendaVersion(ctx, q.param("eventId"), number)
}

func (a *API) getPublicAgendaChanges(ctx context.Context, q *request) (any, error) {
	changes, err := a.ops.PublicAgendaChangelog(ctx, q.param("eventId"))
	if err != nil {
		return nil, err
	}
	return a.publicJSON(ctx, q, q.param("eventId"), changes)
}
