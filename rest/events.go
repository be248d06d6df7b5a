package rest

import (
	"context"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/graph/scalar"
)

// The organization, its events and each event's library (docs/rest-api.md §4 "Events", "Library").

func (a *API) getOrganization(ctx context.Context, _ *request) (any, error) {
	org, err := a.ops.Organization(ctx)
	if err != nil {
		return nil, err
	}
	members, err := a.ops.OrganizationMembers(ctx, org.ID)
	if err != nil {
		return nil, err
	}
	invitations, err := a.ops.PendingInvitations(ctx, org.ID)
	if err != nil {
		return nil, err
	}
	role, err := a.ops.ViewerRole(ctx, org)
	if err != nil {
		return nil, err
	}
	return Organization{
		Organization:       OrganizationProfile{ID: org.ID, Name: org.Name, Slug: org.Slug, Logo: org.Logo},
		ViewerRole:         string(role),
		Members:            mapSlice(members, toRESTMember),
		PendingInvitations: mapSlice(invitations, toRESTInvitation),
	}, nil
}

func (a *API) listEvents(ctx context.Context, _ *request) (any, error) {
	conn, err := a.ops.Events(ctx, operation.Page{}, nil, nil)
	if err != nil {
		return nil, err
	}
	return mapSlice(conn.Edges, func(e *ent.EventEdge) Event { return toRESTEvent(e.Node) }), nil
}

func (a *API) createEvent(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.CreateEventInput](q)
	if err != nil {
		return nil, err
	}
	ev, err := a.ops.CreateEvent(ctx, in)
	if err != nil {
		return nil, err
	}
	return toRESTEvent(ev), nil
}

func (a *API) getEvent(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	return toRESTEvent(ev), nil
}

func (a *API) updateEvent(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.UpdateEventInput](q)
	if err != nil {
		return nil, err
	}
	ev, err := a.ops.UpdateEvent(ctx, q.param("eventId"), in)
	if err != nil {
		return nil, err
	}
	return toRESTEvent(ev), nil
}

func (a *API) getEventLibrary(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	lib, err := a.ops.EventLibrary(ctx, ev)
	if err != nil {
		return nil, err
	}
	return toRESTLibrary(lib), nil
}

func (a *API) saveLibraryItem(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SaveLibraryItemInput](q)
	if err != nil {
		return nil, err
	}
	item, err := a.ops.SaveLibraryItem(ctx, q.param("eventId"), in)
	if err != nil {
		return nil, err
	}
	return toRESTLibraryItem(item), nil
}

func (a *API) deleteLibraryItem(ctx context.Context, q *request) (any, error) {
	return a.ops.DeleteLibraryItem(ctx, q.param("eventId"), model.LibraryKind(q.param("kind")), q.param("itemId"))
}

// event loads the event of the path. The resolver checks that the key's organization owns it, so
// every handler under /events/{eventId} starts here or with a mutation that does the same.
func (a *API) event(ctx context.Context, q *request) (*ent.Event, error) {
	return a.ops.Event(ctx, q.param("eventId"))
}

// Event is the event record.
type Event struct {
	ID                         string         `json:"id"`
	CreatedAt                  string         `json:"createdAt"`
	UpdatedAt                  string         `json:"updatedAt"`
	OrganizationID             string         `json:"organizationId"`
	Name                       string         `json:"name"`
	Slug                       string         `json:"slug"`
	Tagline                    *string        `json:"tagline"`
	Description                *string        `json:"description"`
	Type                       string         `json:"type" enum:"conference,summit,meetup"`
	WebsiteURL                 *string        `json:"websiteUrl"`
	Location                   *string        `json:"location"`
	Timezone                   string         `json:"timezone"`
	StartsAt                   string         `json:"startsAt"`
	EndsAt                     string         `json:"endsAt"`
	Theme                      *string        `json:"theme"`
	LogoURL                    *string        `json:"logoUrl"`
	LogoKey                    *string        `json:"logoKey"`
	BackgroundURL              *string        `json:"backgroundUrl"`
	DefaultSubmissionLimit     int            `json:"defaultSubmissionLimit"`
	SpeakerConfirmationEnabled bool           `json:"speakerConfirmationEnabled"`
	AgendaPublishedAt          *string        `json:"agendaPublishedAt"`
	PublishedAgenda            []agenda.Entry `json:"publishedAgenda"`
	PublishedBlocks            []agenda.Block `json:"publishedBlocks"`
	AgendaDirty                bool           `json:"agendaDirty"`
	// ReplyToEmail is the Reply-To of the event's emails (docs/deliverability.md); null for none.
	ReplyToEmail *string `json:"replyToEmail"`
}

func toRESTEvent(e *ent.Event) Event {
	published := e.PublishedAgenda
	if published == nil {
		published = []agenda.Entry{}
	}
	blocks := e.PublishedBlocks
	if blocks == nil {
		blocks = []agenda.Block{}
	}
	return Event{
		ID: e.ID, CreatedAt: scalar.FormatTime(e.CreatedAt), UpdatedAt: scalar.FormatTime(e.UpdatedAt),
		OrganizationID: e.OrganizationID, Name: e.Name, Slug: e.Slug, Tagline: e.Tagline,
		Description: e.Description, Type: string(e.Type), WebsiteURL: e.WebsiteURL, Location: e.Location,
		Timezone: e.Timezone, StartsAt: scalar.FormatTime(e.StartsAt), EndsAt: scalar.FormatTime(e.EndsAt),
		Theme: e.Theme, LogoURL: e.LogoURL, LogoKey: e.LogoKey, BackgroundURL: e.BackgroundURL,
		DefaultSubmissionLimit: e.DefaultSubmissionLimit, SpeakerConfirmationEnabled: e.SpeakerConfirmationEnabled,
		AgendaPublishedAt: scalar.FormatTimePtr(e.AgendaPublishedAt), PublishedAgenda: published,
		PublishedBlocks: blocks, AgendaDirty: e.AgendaDirty, ReplyToEmail: e.ReplyToEmail,
	}
}

// LibraryItem holds the fields every library item has.
type LibraryItem struct {
	ID        string `json:"id"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
	EventID   string `json:"eventId"`
	Name      string `json:"name"`
	Position  int    `json:"position"`
}

// Track is a library track.
type Track struct {
	LibraryItem
	Color string `json:"color"`
}

// Format is a library format.
type Format struct {
	LibraryItem
	DurationMinutes int `json:"durationMinutes"`
}

// Room is a library room.
type Room struct {
	LibraryItem
	Capacity *int `json:"capacity"`
}

// Library is GET E/library.
type Library struct {
	Tracks  []Track        `json:"tracks"`
	Formats []Format       `json:"formats"`
	Rooms   []Room         `json:"rooms"`
	Tags    []LibraryItem  `json:"tags"`
	Levels  []LibraryItem  `json:"levels"`
	Admins  []*model.Admin `json:"admins"`
}

func toRESTTrack(t *ent.Track) Track {
	return Track{LibraryItem{t.ID, scalar.FormatTime(t.CreatedAt), scalar.FormatTime(t.UpdatedAt), t.EventID, t.Name, t.Position}, t.Color}
}

func toRESTFormat(f *ent.Format) Format {
	return Format{LibraryItem{f.ID, scalar.FormatTime(f.CreatedAt), scalar.FormatTime(f.UpdatedAt), f.EventID, f.Name, f.Position}, f.DurationMinutes}
}

func toRESTRoom(r *ent.Room) Room {
	return Room{LibraryItem{r.ID, scalar.FormatTime(r.CreatedAt), scalar.FormatTime(r.UpdatedAt), r.EventID, r.Name, r.Position}, r.Capacity}
}

func toRESTTag(t *ent.Tag) LibraryItem {
	return LibraryItem{t.ID, scalar.FormatTime(t.CreatedAt), scalar.FormatTime(t.UpdatedAt), t.EventID, t.Name, t.Position}
}

func toRESTLevel(l *ent.Level) LibraryItem {
	return LibraryItem{l.ID, scalar.FormatTime(l.CreatedAt), scalar.FormatTime(l.UpdatedAt), l.EventID, l.Name, l.Position}
}

// toRESTLibraryItem presents what saveLibraryItem returned, whichever kind it is.
func toRESTLibraryItem(n ent.Noder) any {
	switch v := n.(type) {
	case *ent.Track:
		return toRESTTrack(v)
	case *ent.Format:
		return toRESTFormat(v)
	case *ent.Room:
		return toRESTRoom(v)
	case *ent.Tag:
		return toRESTTag(v)
	case *ent.Level:
		return toRESTLevel(v)
	}
	panic("rest: unexpected library item type")
}

func toRESTLibrary(l *model.Library) Library {
	return Library{
		Tracks:  mapSlice(l.Tracks, toRESTTrack),
		Formats: mapSlice(l.Formats, toRESTFormat),
		Rooms:   mapSlice(l.Rooms, toRESTRoom),
		Tags:    mapSlice(l.Tags, toRESTTag),
		Levels:  mapSlice(l.Levels, toRESTLevel),
		Admins:  l.Admins, // never nil: the operation answers [] for none
	}
}

// OrganizationProfile is the organization itself in GET /organization.
type OrganizationProfile struct {
	ID   string  `json:"id"`
	Name string  `json:"name"`
	Slug string  `json:"slug"`
	Logo *string `json:"logo"`
}

// Member is a member of the organization.
type Member struct {
	ID        string  `json:"id"`
	UserID    string  `json:"userId"`
	Name      string  `json:"name"`
	Email     string  `json:"email"`
	Image     *string `json:"image"`
	Role      string  `json:"role" enum:"owner,admin,member"`
	CreatedAt string  `json:"createdAt"`
}

// Invitation is a pending invitation to the organization.
type Invitation struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	Role      string `json:"role" enum:"owner,admin,member"`
	ExpiresAt string `json:"expiresAt"`
	CreatedAt string `json:"createdAt"`
}

// Organization is GET /organization.
type Organization struct {
	Organization       OrganizationProfile `json:"organization"`
	ViewerRole         string              `json:"viewerRole" enum:"owner,admin,member"`
	Members            []Member            `json:"members"`
	PendingInvitations []Invitation        `json:"pendingInvitations"`
}

func toRESTMember(m *model.Member) Member {
	return Member{m.ID, m.UserID, m.Name, m.Email, m.Image, string(m.Role), scalar.FormatTime(m.CreatedAt)}
}

func toRESTInvitation(i *model.Invitation) Invitation {
	return Invitation{i.ID, i.Email, string(i.Role), scalar.FormatTime(i.ExpiresAt), scalar.FormatTime(i.CreatedAt)}
}

// mapSlice converts every element; the result is never nil, so empty lists encode as [].
func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
