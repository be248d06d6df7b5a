package operation

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/resource"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

var errResourceNotFound = apperr.NotFound("Resource")

// embedHosts is the allowlist of embed addresses: these hosts exactly, with or without www.
// It is a security boundary for iframes organizers author, so no other subdomain passes.
var embedHosts = []string{"youtube.com", "youtube-nocookie.com", "vimeo.com", "loom.com", "docs.google.com",
	"drive.google.com", "figma.com"}

// resourceOrder is the list order: manual position, then creation.
var resourceOrder = []resource.OrderOption{
	ent.Asc(resource.FieldPosition), ent.Asc(resource.FieldCreatedAt), ent.Asc(resource.FieldID),
}

// Resources lists an event's resources, drafts included; the events of one request are read
// together (loaders).
func (r *Service) Resources(ctx context.Context, eventID string) ([]*model.ResourceRecord, error) {
	return r.loaders(ctx).resources.Load(ctx, eventID)
}

// eventResources reads the resources of the events, each event's in order, drafts included.
func (r *Service) eventResources(ctx context.Context, events ...string) ([]*model.ResourceRecord, error) {
	rows, err := withAudience(r.ClientOf(ctx).Resource.Query().Where(resource.EventIDIn(events...))).
		Order(resourceOrder...).All(ctx)
	return mapAll(rows, toResource), err
}

// ContactResources lists the published resources a contact sees: those for everyone, those for a
// track of one of their active sessions, and those naming them. The contacts of one request are
// read together (contactsResources).
func (r *Service) ContactResources(ctx context.Context, ct *ent.Contact) ([]*model.ResourceRecord, error) {
	return r.loaders(ctx).contactResources.Load(ctx, eventItem{ct.EventID, ct.ID})
}

// contactsResources lists the resources each contact sees in the event of its key, in two
// statements whatever the number of contacts and events.
func (r *Service) contactsResources(ctx context.Context, keys []eventItem) (map[eventItem][]*model.ResourceRecord, error) {
	seen := map[string][]eventItem{} // resource id → the contacts who see it, in its event
	err := eachRowArgs(ctx, r.sql(ctx), `
SELECT c.event_id, c.id, r.id FROM unnest($1::text[], $2::text[]) AS c(event_id, id)
JOIN resources r ON r.event_id = c.event_id
WHERE r.published AND (
  r.audience_mode = 'all'
  OR (r.audience_mode = 'contacts' AND EXISTS (
    SELECT 1 FROM resource_contacts rc WHERE rc.resource_id = r.id AND rc.contact_id = c.id))
  OR (r.audience_mode = 'tracks' AND EXISTS (
    SELECT 1 FROM resource_tracks rt
    JOIN submission_tracks st ON st.track_id = rt.track_id
    JOIN submissions s ON s.id = st.submission_id
    JOIN submission_participants p ON p.submission_id = s.id
    WHERE rt.resource_id = r.id AND p.contact_id = c.id AND s.event_id = c.event_id
      AND s.status = 'accepted' AND s.cancelled_at IS NULL)))`,
		[]any{mapAll(keys, func(k eventItem) string { return k.event }), mapAll(keys, func(k eventItem) string { return k.id })},
		func(scan func(...any) error) error {
			var k eventItem
			var id string
			err := scan(&k.event, &k.id, &id)
			seen[id] = append(seen[id], k)
			return err
		})
	out := map[eventItem][]*model.ResourceRecord{}
	if err != nil || len(seen) == 0 {
		return out, err
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	rows, err := withAudience(r.ClientOf(ctx).Resource.Query().Where(resource.IDIn(ids...))).
		Order(resourceOrder...).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, row := range rows { // in resourceOrder, which each contact's list keeps
		for _, k := range seen[row.ID] {
			out[k] = append(out[k], toResource(row))
		}
	}
	return out, nil
}

// withAudience loads the ids of the resources' audience tracks and contacts along.
func withAudience(q *ent.ResourceQuery) *ent.ResourceQuery {
	return q.WithTracks(func(q *ent.TrackQuery) { q.Select("id") }).
		WithContacts(func(q *ent.ContactQuery) { q.Select("id") })
}

func toResource(res *ent.Resource) *model.ResourceRecord {
	out := &model.ResourceRecord{ID: res.ID, CreatedAt: scalar.At(res.CreatedAt), UpdatedAt: scalar.At(res.UpdatedAt),
		EventID: res.EventID, Title: res.Title, Subtitle: res.Subtitle, Body: res.Body, Position: res.Position,
		Published: res.Published, AudienceMode: model.ResourceAudienceMode(res.AudienceMode), LinkURL: res.LinkURL,
		EmbedURL: res.EmbedURL, FileStorageKey: res.FileStorageKey, FileName: res.FileName,
		FileContentType: res.FileContentType, FileSize: res.FileSize, TrackIds: []string{}, ContactIds: []string{}}
	if res.AttachmentKind != nil {
		out.AttachmentKind = new(model.ResourceAttachmentKind(*res.AttachmentKind))
	}
	for _, t := range res.Edges.Tracks {
		out.TrackIds = append(out.TrackIds, t.ID)
	}
	for _, c := range res.Edges.Contacts {
		out.ContactIds = append(out.ContactIds, c.ID)
	}
	slices.Sort(out.TrackIds)
	slices.Sort(out.ContactIds)
	return out
}

// checkResource applies the rules of a resource body (docs/rest-api.md: "Resources") and returns it
// normalized: texts trimmed, ids de-duplicated, the URL and the ids of what is not in use dropped.
func checkResource(in model.ResourceInput) (model.ResourceInput, error) {
	in.Title, in.Subtitle, in.Body = strings.TrimSpace(in.Title), strings.TrimSpace(in.Subtitle), strings.TrimSpace(in.Body)
	if in.Title == "" {
		return in, apperr.Invalid("Enter a resource title")
	}
	in.TrackIds, in.ContactIds = unique(in.TrackIds), unique(in.ContactIds)
	switch in.AudienceMode {
	case model.ResourceAudienceModeTracks:
		if len(in.TrackIds) == 0 {
			return in, apperr.Invalid("Select at least one track")
		}
		in.ContactIds = nil
	case model.ResourceAudienceModeContacts:
		if len(in.ContactIds) == 0 {
			return in, apperr.Invalid("Select at least one speaker")
		}
		in.TrackIds = nil
	default:
		in.TrackIds, in.ContactIds = nil, nil
	}
	var kind model.ResourceInputAttachmentKind
	if in.AttachmentKind != nil {
		kind = *in.AttachmentKind
	}
	switch kind {
	case model.ResourceInputAttachmentKindLink:
		if in.LinkURL == nil || !httpsURL(*in.LinkURL) {
			return in, apperr.Invalid("Enter a valid HTTPS link URL")
		}
		in.EmbedURL = nil
	case model.ResourceInputAttachmentKindEmbed:
		if in.EmbedURL == nil {
			return in, apperr.Invalid("Enter an embed URL")
		}
		if err := checkEmbed(*in.EmbedURL); err != nil {
			return in, err
		}
		in.LinkURL = nil
	default:
		in.LinkURL, in.EmbedURL = nil, nil
	}
	return in, nil
}

// httpsURL accepts an absolute https URL with a host.
func httpsURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Hostname() != ""
}

// checkEmbed accepts an https URL whose host is on the allowlist.
func checkEmbed(s string) error {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || !u.IsAbs() || u.Host == "" {
		return apperr.Invalid("Enter a valid HTTPS embed URL")
	}
	if u.Scheme != "https" {
		return apperr.Invalid("Embed URLs must use HTTPS")
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if !slices.Contains(embedHosts, host) {
		return apperr.Invalid("Embed host is not allowed. Use YouTube, Vimeo, Loom, Google Docs, Google Drive, or Figma")
	}
	return nil
}

// audienceOf checks that the audience ids belong to the event.
func audienceOf(ctx context.Context, c *ent.Client, eventID string, in model.ResourceInput) error {
	if _, err := tracksOf(ctx, c, eventID, in.TrackIds); err != nil {
		return err
	}
	ids := in.ContactIds
	if len(ids) == 0 {
		return nil
	}
	n, err := c.Contact.Query().Where(contact.IDIn(ids...), contact.EventID(eventID)).Count(ctx)
	if err != nil {
		return err
	}
	if n != len(ids) {
		return apperr.Invalid("Choose speakers from this event")
	}
	return nil
}

// CreateResource adds a resource at the end of the list (docs/rest-api.md: POST E/resources).
func (r *Service) CreateResource(ctx context.Context, eventID string, in model.ResourceInput) (*model.ResourceRecord, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ResourceRecord, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if in, err = checkResource(in); err != nil {
			return nil, err
		}
		if err := audienceOf(ctx, c, ev.ID, in); err != nil {
			return nil, err
		}
		// The event row is locked so that two resources created at once do not share a position.
		if _, err := lockEvent(ctx, c, ev.ID); err != nil {
			return nil, err
		}
		var last []struct {
			Max *int `json:"max"`
		}
		if err := c.Resource.Query().Where(resource.EventID(ev.ID)).Aggregate(ent.Max(resource.FieldPosition)).Scan(ctx, &last); err != nil {
			return nil, err
		}
		position := 1
		if len(last) > 0 && last[0].Max != nil {
			position = *last[0].Max + 1
		}
		b := c.Resource.Create().SetEventID(ev.ID).SetPosition(position)
		if err := applyResource(b.Mutation(), in, nil); err != nil {
			return nil, err
		}
		res, err := b.Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.emitWhen(ctx, in.Published, hookResourcePublished, hookData{"eventId": ev.ID, "resourceId": res.ID}); err != nil {
			return nil, err
		}
		return r.resource(ctx, res.ID)
	})
}

// UpdateResource replaces a resource's content, publication, attachment and audience (docs/rest-api.md:
// PATCH E/resources/{id}). A file resource keeps its file when attachmentKind is null; its file
// can be replaced or removed only in the organizer app.
func (r *Service) UpdateResource(ctx context.Context, eventID, resourceID string, in model.ResourceInput) (*model.ResourceRecord, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ResourceRecord, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		res, err := ResourceOf(ctx, c, ev.ID, resourceID)
		if err != nil {
			return nil, err
		}
		if in, err = checkResource(in); err != nil {
			return nil, err
		}
		if err := audienceOf(ctx, c, ev.ID, in); err != nil {
			return nil, err
		}
		u := res.Update().ClearTracks().ClearContacts()
		if err := applyResource(u.Mutation(), in, res); err != nil {
			return nil, err
		}
		if err := u.Exec(ctx); err != nil {
			return nil, err
		}
		if err := r.emitWhen(ctx, in.Published && !res.Published, hookResourcePublished, hookData{"eventId": ev.ID, "resourceId": res.ID}); err != nil {
			return nil, err
		}
		return r.resource(ctx, res.ID)
	})
}

// applyResource writes a checked body into a create or update of a resource (current is nil when
// creating).
func applyResource(m *ent.ResourceMutation, in model.ResourceInput, current *ent.Resource) error {
	m.SetTitle(in.Title)
	m.SetSubtitle(in.Subtitle)
	m.SetBody(in.Body)
	m.SetPublished(in.Published)
	m.SetAudienceMode(resource.AudienceMode(in.AudienceMode))
	m.AddTrackIDs(in.TrackIds...)
	m.AddContactIDs(in.ContactIds...)
	hasFile := current != nil && current.AttachmentKind != nil && *current.AttachmentKind == resource.AttachmentKindFile
	switch {
	case in.AttachmentKind == nil && hasFile:
		// The file stays as it is.
	case hasFile:
		return apperr.Invalid("This resource has a file, which can be replaced or removed only in the organizer app")
	case in.AttachmentKind == nil:
		m.ClearAttachmentKind()
		m.ClearLinkURL()
		m.ClearEmbedURL()
	case *in.AttachmentKind == model.ResourceInputAttachmentKindLink:
		m.SetAttachmentKind(resource.AttachmentKindLink)
		m.SetLinkURL(strings.TrimSpace(*in.LinkURL))
		m.ClearEmbedURL()
	default:
		m.SetAttachmentKind(resource.AttachmentKindEmbed)
		m.SetEmbedURL(strings.TrimSpace(*in.EmbedURL))
		m.ClearLinkURL()
	}
	return nil
}

// ResourceOf returns a resource of the event.
func ResourceOf(ctx context.Context, c *ent.Client, eventID, id string) (*ent.Resource, error) {
	if !pid.Plausible(id) {
		return nil, errResourceNotFound
	}
	res, err := c.Resource.Query().Where(resource.ID(id), resource.EventID(eventID)).ForUpdate().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errResourceNotFound
	}
	return res, err
}

// resource loads one resource with its audience.
func (r *Service) resource(ctx context.Context, id string) (*model.ResourceRecord, error) {
	res, err := withAudience(r.ClientOf(ctx).Resource.Query().Where(resource.ID(id))).Only(ctx)
	if err != nil {
		return nil, err
	}
	return toResource(res), nil
}

// DeleteResource deletes a resource of the event.
func (r *Service) DeleteResource(ctx context.Context, eventID, resourceID string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return "", err
		}
		res, err := ResourceOf(ctx, c, ev.ID, resourceID)
		if err != nil {
			return "", err
		}
		return res.ID, c.Resource.DeleteOne(res).Exec(ctx)
	})
}

// ReorderResources gives the listed resources positions 1..n in the order given (de-duplicated;
// ids of other events ignored); the others follow in their previous order (docs/rest-api.md: POST
// E/resources/reorder).
func (r *Service) ReorderResources(ctx context.Context, eventID string, in model.ReorderResourcesInput) ([]*model.ResourceRecord, error) {
	return inTx(ctx, r, func(ctx context.Context) ([]*model.ResourceRecord, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		current, err := c.Resource.Query().Where(resource.EventID(ev.ID)).Order(resourceOrder...).ForUpdate().All(ctx)
		if err != nil {
			return nil, err
		}
		var order []string
		for _, id := range unique(in.ResourceIds) {
			if slices.ContainsFunc(current, func(res *ent.Resource) bool { return res.ID == id }) {
				order = append(order, id)
			}
		}
		for _, res := range current {
			if !slices.Contains(order, res.ID) {
				order = append(order, res.ID)
			}
		}
		now := time.Now()
		for i, id := range order {
			res := current[slices.IndexFunc(current, func(res *ent.Resource) bool { return res.ID == id })]
			if res.Position == i+1 {
				continue
			}
			if err := c.Resource.UpdateOne(res).SetPosition(i + 1).SetUpdatedAt(now).Exec(ctx); err != nil {
				return nil, err
			}
		}
		return r.eventResources(ctx, ev.ID) // read anew: the request's loader may hold the order before
	})
}
