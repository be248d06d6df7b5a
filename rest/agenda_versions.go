package rest

import (
	"bytes"
	"context"
	"encoding/json"
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
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(changes); err != nil {
		return nil, err
	}
	return a.publicFeed(ctx, q, b.Bytes(), "application/json; charset=utf-8")
}
