package rest

import (
	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/scalar"
)

// The REST shapes of docs/rest-api.md. Every key is always present (nullable ones as null, never
// omitted), timestamps are ISO 8601 UTC with milliseconds, and the fields come in the order the
// original API documents them. GraphQL exposes the same fields under the same names.

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
	AgendaDirty                bool           `json:"agendaDirty"`
}

func toRESTEvent(e *ent.Event) Event {
	published := e.PublishedAgenda
	if published == nil {
		published = []agenda.Entry{}
	}
	return Event{
		ID: e.ID, CreatedAt: scalar.FormatTime(e.CreatedAt), UpdatedAt: scalar.FormatTime(e.UpdatedAt),
		OrganizationID: e.OrganizationID, Name: e.Name, Slug: e.Slug, Tagline: e.Tagline,
		Description: e.Description, Type: string(e.Type), WebsiteURL: e.WebsiteURL, Location: e.Location,
		Timezone: e.Timezone, StartsAt: scalar.FormatTime(e.StartsAt), EndsAt: scalar.FormatTime(e.EndsAt),
		Theme: e.Theme, LogoURL: e.LogoURL, LogoKey: e.LogoKey, BackgroundURL: e.BackgroundURL,
		DefaultSubmissionLimit: e.DefaultSubmissionLimit, SpeakerConfirmationEnabled: e.SpeakerConfirmationEnabled,
		AgendaPublishedAt: scalar.FormatTimePtr(e.AgendaPublishedAt), PublishedAgenda: published,
		AgendaDirty: e.AgendaDirty,
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
	Admins  []*graph.Admin `json:"admins"`
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

func toRESTLibrary(l *graph.Library) Library {
	return Library{
		Tracks:  mapSlice(l.Tracks, toRESTTrack),
		Formats: mapSlice(l.Formats, toRESTFormat),
		Rooms:   mapSlice(l.Rooms, toRESTRoom),
		Tags:    mapSlice(l.Tags, toRESTTag),
		Levels:  mapSlice(l.Levels, toRESTLevel),
		Admins:  nonNil(l.Admins),
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

func toRESTMember(m *graph.Member) Member {
	return Member{m.ID, m.UserID, m.Name, m.Email, m.Image, string(m.Role), scalar.FormatTime(m.CreatedAt)}
}

func toRESTInvitation(i *graph.Invitation) Invitation {
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

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
