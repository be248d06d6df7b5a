package rest

import (
	"context"
	"net/http"

	"github.com/podium/podium/graph"
)

func (a *API) resourceRoutes() []route {
	m := func() graph.MutationResolver { return a.res.Mutation() }
	return []route{
		{
			method: http.MethodGet, path: "/events/{eventId}/resources", operationID: "listResources", tag: "Resources",
			summary: "List resources",
			description: "Draft and published speaker resources in manual order, with their audience (trackIds, " +
				"contactIds). File resources, uploaded in the organizer app, are listed too.",
			output: []*graph.ResourceRecord{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				return a.res.Event().Resources(ctx, ev)
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/resources", operationID: "createResource", tag: "Resources",
			summary: "Create a resource",
			description: "A draft or published resource with no attachment, an https link, or an embed from YouTube, " +
				"Vimeo, Loom, Google Docs, Google Drive or Figma (those hosts exactly, with or without www.). It goes last.",
			input: "ResourceInput", output: graph.ResourceRecord{}, status: http.StatusCreated,
			handle: withBody(func(ctx context.Context, q *request, in graph.ResourceInput) (any, error) {
				return m().CreateResource(ctx, q.param("eventId"), in)
			}),
		},
		{
			method: http.MethodPatch, path: "/events/{eventId}/resources/{resourceId}", operationID: "updateResource",
			tag: "Resources", summary: "Update a resource",
			description: "A full replace of text, publication, attachment and audience. A file resource keeps its file " +
				"when attachmentKind is null; files are replaced or removed only in the organizer app.",
			input: "ResourceInput", output: graph.ResourceRecord{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.ResourceInput) (any, error) {
				return m().UpdateResource(ctx, q.param("eventId"), q.param("resourceId"), in)
			}),
		},
		{
			method: http.MethodDelete, path: "/events/{eventId}/resources/{resourceId}", operationID: "deleteResource",
			tag: "Resources", summary: "Delete a resource", status: http.StatusNoContent,
			handle: func(ctx context.Context, q *request) (any, error) {
				_, err := m().DeleteResource(ctx, q.param("eventId"), q.param("resourceId"))
				return nil, err
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/resources/reorder", operationID: "reorderResources",
			tag: "Resources", summary: "Reorder resources",
			description: "The given resources (duplicates and ids of other events ignored) take positions 1..n in that " +
				"order; the others follow in their previous order.",
			input: "ReorderResourcesInput", status: http.StatusNoContent,
			handle: withBody(func(ctx context.Context, q *request, in graph.ReorderResourcesInput) (any, error) {
				_, err := m().ReorderResources(ctx, q.param("eventId"), in)
				return nil, err
			}),
		},
	}
}

func (a *API) agendaRoutes() []route {
	m := func() graph.MutationResolver { return a.res.Mutation() }
	return []route{
		{
			method: http.MethodGet, path: "/events/{eventId}/agenda", operationID: "getAgenda", tag: "Agenda",
			summary:     "Get the agenda",
			description: "Rooms, the tracks of active sessions, and every active session, scheduled or not, with the publication state.",
			output:      graph.Agenda{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				return a.res.Event().Agenda(ctx, ev)
			},
		},
		{
			method: http.MethodPut, path: "/events/{eventId}/agenda/schedule", operationID: "scheduleSession", tag: "Agenda",
			summary: "Place or clear a session on the schedule",
			description: "roomId, startsAt and endsAt all set to schedule (a room of the event, within one event day), " +
				"all null to unschedule. A change marks the session's invites out of date (scheduleDirty) and the " +
				"published agenda stale (agendaDirty).",
			input: "ScheduleSessionInput", output: graph.Agenda{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.ScheduleSessionInput) (any, error) {
				return m().ScheduleSession(ctx, q.param("eventId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/agenda/publish", operationID: "publishAgenda", tag: "Agenda",
			summary: "Publish the agenda",
			description: "Freezes the active sessions that have a room, a start and an end, by start time, as the " +
				"event's publishedAgenda; agendaDirty becomes false.",
			output: graph.Agenda{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				return m().PublishAgenda(ctx, q.param("eventId"))
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/agenda/unpublish", operationID: "unpublishAgenda", tag: "Agenda",
			summary:     "Unpublish the agenda",
			description: "publishedAgenda becomes empty, agendaPublishedAt null and agendaDirty true.",
			output:      graph.Agenda{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				return m().UnpublishAgenda(ctx, q.param("eventId"))
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/agenda/invites", operationID: "sendCalendarInvites", tag: "Agenda",
			summary: "Send calendar invitations (ext)",
			description: "Each speaker of a scheduled active session (all, or submissionIds) whose invitation is missing " +
				"or out of date gets an email with an iCalendar REQUEST: one UID per session, SEQUENCE raised when a " +
				"sent invitation changes. A session taken off the schedule after its invitations went out sends a " +
				"CANCEL. The body may be left out.",
			input: "SendCalendarInvitesInput", optionalBody: true, output: graph.CalendarInvitesResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.SendCalendarInvitesInput) (any, error) {
				return m().SendCalendarInvites(ctx, q.param("eventId"), &in)
			}),
		},
		{
			method: http.MethodGet, path: "/public/events/{eventId}/agenda.json", operationID: "getPublicAgenda",
			tag: "Public", summary: "Get the published agenda (ext, no key)",
			description: "The published agenda only — nothing before the first publish, nothing edited since the last. " +
				"Addressed by event id, since slugs are unique only within an organization.",
			public: true, output: graph.PublicAgenda{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				return a.res.PublicAgenda(ctx, q.param("eventId"))
			},
		},
		{
			method: http.MethodGet, path: "/public/events/{eventId}/agenda.ics", operationID: "getPublicAgendaCalendar",
			tag: "Public", summary: "Subscribe to the published agenda (ext, no key)",
			description: "The published agenda as an iCalendar feed (METHOD:PUBLISH), each session under the UID of its " +
				"speakers' invitations.",
			public: true, contentType: "text/calendar; charset=utf-8", status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				return a.res.PublicCalendar(ctx, q.param("eventId"))
			},
		},
	}
}
