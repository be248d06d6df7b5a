package rest

import (
	"context"
	"net/http"

	"github.com/podium/podium/graph"
)

// route is one REST operation. The table below is the single description of the API: the router
// serves it and the OpenAPI document is generated from it, so the two cannot drift apart.
type route struct {
	method, path string
	operationID  string
	summary      string
	description  string
	tag          string
	// input names the GraphQL input type the body must match ("" for no body).
	input string
	// output is a value of the success body's Go type, for the OpenAPI document; nil for 204.
	output any
	status int
	query  []queryParam
	handle func(ctx context.Context, q *request) (any, error)
	// public routes need no API key (published data only).
	public bool
	// contentType, when set, is the success body's type: handle returns its bytes as a string.
	contentType string
	// optionalBody lets a body whose keys are all optional be left out entirely.
	optionalBody bool
}

// queryParam documents a query-string parameter.
type queryParam struct {
	name, description string
	enum              []string
}

// oneOf documents a body that is one of several shapes.
type oneOf []any

func (a *API) routeTable() []route {
	var routes []route
	routes = append(routes, a.eventRoutes()...)
	routes = append(routes, a.speakerRoutes()...)
	routes = append(routes, a.submissionRoutes()...)
	routes = append(routes, a.sessionRoutes()...)
	routes = append(routes, a.readinessRoutes()...)
	routes = append(routes, a.reviewRoutes()...)
	routes = append(routes, a.resourceRoutes()...)
	routes = append(routes, a.agendaRoutes()...)
	routes = append(routes, a.emailRoutes()...)
	return routes
}

func (a *API) eventRoutes() []route {
	return []route{
		{
			method: http.MethodGet, path: "/organization", operationID: "getOrganization", tag: "Organization",
			summary:     "Get the organization",
			description: "The organization the API key belongs to, with its members and pending invitations.",
			output:      Organization{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				org, err := a.res.Query().Organization(ctx)
				if err != nil {
					return nil, err
				}
				members, err := a.res.Organization().Members(ctx, org)
				if err != nil {
					return nil, err
				}
				invitations, err := a.res.Organization().PendingInvitations(ctx, org)
				if err != nil {
					return nil, err
				}
				role, err := a.res.Organization().ViewerRole(ctx, org)
				if err != nil {
					return nil, err
				}
				return Organization{
					Organization:       OrganizationProfile{ID: org.ID, Name: org.Name, Slug: org.Slug, Logo: org.Logo},
					ViewerRole:         string(role),
					Members:            mapSlice(members, toRESTMember),
					PendingInvitations: mapSlice(invitations, toRESTInvitation),
				}, nil
			},
		},
		{
			method: http.MethodGet, path: "/events", operationID: "listEvents", tag: "Events",
			summary: "List events", description: "Every event of the organization, by start date.",
			output: []Event{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				conn, err := a.res.Query().Events(ctx, nil, nil, nil, nil, nil, nil)
				if err != nil {
					return nil, err
				}
				out := make([]Event, 0, len(conn.Edges))
				for _, e := range conn.Edges {
					out = append(out, toRESTEvent(e.Node))
				}
				return out, nil
			},
		},
		{
			method: http.MethodPost, path: "/events", operationID: "createEvent", tag: "Events",
			summary: "Create an event",
			description: "The slug is made from the name, unique within the organization. endsAt must be after " +
				"startsAt; timezone is an IANA zone.",
			input: "CreateEventInput", output: Event{}, status: http.StatusCreated,
			handle: func(ctx context.Context, q *request) (any, error) {
				var in graph.CreateEventInput
				if err := q.bind(&in); err != nil {
					return nil, err
				}
				ev, err := a.res.Mutation().CreateEvent(ctx, in)
				if err != nil {
					return nil, err
				}
				return toRESTEvent(ev), nil
			},
		},
		{
			method: http.MethodGet, path: "/events/{eventId}", operationID: "getEvent", tag: "Events",
			summary: "Get an event", output: Event{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				return toRESTEvent(ev), nil
			},
		},
		{
			method: http.MethodPatch, path: "/events/{eventId}", operationID: "updateEvent", tag: "Events",
			summary:     "Update an event",
			description: "Partial update: omitted fields keep their current value; nullable fields sent as null are cleared.",
			input:       "UpdateEventInput", output: Event{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				var in graph.UpdateEventInput
				if err := q.bind(&in); err != nil {
					return nil, err
				}
				ev, err := a.res.Mutation().UpdateEvent(ctx, q.param("eventId"), in)
				if err != nil {
					return nil, err
				}
				return toRESTEvent(ev), nil
			},
		},
		{
			method: http.MethodGet, path: "/events/{eventId}/library", operationID: "getEventLibrary", tag: "Events",
			summary:     "Get the event library",
			description: "Tracks, formats, rooms, tags and levels, each by position, and the event's admins.",
			output:      Library{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				lib, err := a.res.Event().Library(ctx, ev)
				if err != nil {
					return nil, err
				}
				return toRESTLibrary(lib), nil
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/library", operationID: "saveLibraryItem", tag: "Events",
			summary:     "Create or update a library item",
			description: "id null creates an item at the end of its list; an existing id of that kind updates the item.",
			input:       "SaveLibraryItemInput", output: oneOf{Track{}, Format{}, Room{}, LibraryItem{}}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				var in graph.SaveLibraryItemInput
				if err := q.bind(&in); err != nil {
					return nil, err
				}
				item, err := a.res.Mutation().SaveLibraryItem(ctx, q.param("eventId"), in)
				if err != nil {
					return nil, err
				}
				return toRESTLibraryItem(item), nil
			},
		},
		{
			method: http.MethodDelete, path: "/events/{eventId}/library/{kind}/{itemId}", operationID: "deleteLibraryItem",
			tag: "Events", summary: "Delete a library item",
			description: "kind is track, format, room, tag or level. An item a submission or session uses cannot be " +
				"deleted (409 resource_in_use).",
			status: http.StatusNoContent,
			handle: func(ctx context.Context, q *request) (any, error) {
				_, err := a.res.Mutation().DeleteLibraryItem(ctx, q.param("eventId"),
					graph.LibraryKind(q.param("kind")), q.param("itemId"))
				return nil, err
			},
		},
	}
}
