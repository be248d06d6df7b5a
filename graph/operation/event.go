package operation

import (
	"context"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/eventmember"
	"github.com/podium/podium/ent/organization"
	"github.com/podium/podium/ent/organizationinvitation"
	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/slug"
)

// noKeyUpdate makes ent's ForUpdate lock FOR NO KEY UPDATE. A parent row is locked to serialize
// what is allocated under it (a number, a position, a slug) until the transaction ends; FOR
// UPDATE would also hold up, for as long, every insert elsewhere that merely refers to the row,
// since its foreign-key check takes KEY SHARE. FOR NO KEY UPDATE is what an UPDATE of the row
// takes: it serializes the lockers and updates and lets references through.
func noKeyUpdate(o *sql.LockOptions) { o.Strength = sql.LockNoKeyUpdate }

// lockEvent locks the event's row for the rest of the transaction (see noKeyUpdate).
func lockEvent(ctx context.Context, c *ent.Client, eventID string) (*ent.Event, error) {
	return c.Event.Query().Where(event.ID(eventID)).ForUpdate(noKeyUpdate).Only(ctx)
}

// CreateEvent makes an event in the caller's organization (docs/rest-api.md §4 Events).
func (r *Service) CreateEvent(ctx context.Context, in model.CreateEventInput) (*ent.Event, error) {
	return inTx(ctx, r, func(ctx context.Context) (*ent.Event, error) {
		v, err := access.Viewer(ctx)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSpace(in.Name)
		if name == "" {
			return nil, apperr.Invalid("Enter an event name")
		}
		if !in.EndsAt.After(in.StartsAt) {
			return nil, apperr.Invalid("Event end must be after start")
		}
		c := r.ClientOf(ctx)
		// Taking the organization's row lock makes concurrent creations pick slugs one at a time.
		if _, err := c.Organization.Query().Where(organization.ID(v.OrganizationID)).ForUpdate(noKeyUpdate).Only(ctx); err != nil {
			return nil, err
		}
		var lookupErr error
		s := slug.Unique(slug.Make(name, "event"), func(s string) bool {
			taken, err := c.Event.Query().Where(event.OrganizationID(v.OrganizationID), event.Slug(s)).Exist(ctx)
			if err != nil {
				lookupErr = err
				return false
			}
			return taken
		})
		if lookupErr != nil {
			return nil, lookupErr
		}
		return c.Event.Create().
			SetOrganizationID(v.OrganizationID).
			SetName(name).
			SetSlug(s).
			SetType(in.Type).
			SetTimezone(in.Timezone).
			SetStartsAt(in.StartsAt).
			SetEndsAt(in.EndsAt).
			Save(ctx)
	})
}

// UpdateEvent applies a partial update: fields left out keep their value; nullable fields set to
// null are cleared; null for a field that cannot be empty is refused.
func (r *Service) UpdateEvent(ctx context.Context, id string, in model.UpdateEventInput) (*ent.Event, error) {
	return inTx(ctx, r, func(ctx context.Context) (*ent.Event, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, id)
		if err != nil {
			return nil, err
		}
		u := ev.Update()
		if v, set := in.Name.ValueOK(); set {
			if v == nil {
				return nil, notNull("name")
			}
			name := strings.TrimSpace(*v)
			if name == "" {
				return nil, apperr.Invalid("Enter an event name")
			}
			u.SetName(name)
		}
		if v, set := in.Type.ValueOK(); set {
			if v == nil {
				return nil, notNull("type")
			}
			u.SetType(*v)
		}
		if v, set := in.Timezone.ValueOK(); set {
			if v == nil {
				return nil, notNull("timezone")
			}
			u.SetTimezone(*v)
		}
		startsAt, endsAt := ev.StartsAt, ev.EndsAt
		if v, set := in.StartsAt.ValueOK(); set {
			if v == nil {
				return nil, notNull("startsAt")
			}
			startsAt = *v
			u.SetStartsAt(startsAt)
		}
		if v, set := in.EndsAt.ValueOK(); set {
			if v == nil {
				return nil, notNull("endsAt")
			}
			endsAt = *v
			u.SetEndsAt(endsAt)
		}
		if !endsAt.After(startsAt) {
			return nil, apperr.Invalid("Event end must be after start")
		}
		if v, set := in.DefaultSubmissionLimit.ValueOK(); set {
			if v == nil {
				return nil, notNull("defaultSubmissionLimit")
			}
			if *v < 1 {
				return nil, apperr.Invalid("defaultSubmissionLimit must be a whole number of at least 1")
			}
			u.SetDefaultSubmissionLimit(*v)
		}
		setOrClear(in.Tagline, u.SetTagline, u.ClearTagline)
		setOrClear(in.Description, u.SetDescription, u.ClearDescription)
		setOrClear(in.WebsiteURL, u.SetWebsiteURL, u.ClearWebsiteURL)
		setOrClear(in.Location, u.SetLocation, u.ClearLocation)
		if v, set := in.ReplyToEmail.ValueOK(); set && v != nil {
			address, err := replyToAddress("replyToEmail", *v)
			if err != nil {
				return nil, err
			}
			u.SetReplyToEmail(address)
		} else if set {
			u.ClearReplyToEmail()
		}
		return u.Save(ctx)
	})
}

// SetSpeakerContentLocked locks or unlocks the content of the event's accepted sessions for
// their speakers (docs/profile-review.md). The speakers' edits read the flag under the event's
// lock, so an edit in flight either lands before the lock or is refused after it.
func (r *Service) SetSpeakerContentLocked(ctx context.Context, eventID string, locked bool) (*ent.Event, error) {
	return inTx(ctx, r, func(ctx context.Context) (*ent.Event, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if ev.SpeakerContentLocked == locked {
			return ev, nil
		}
		return ev.Update().SetSpeakerContentLocked(locked).Save(ctx)
	})
}

// setOrClear applies an optional nullable field of a partial update.
func setOrClear[B any](v graphql.Omittable[*string], set func(string) B, unset func() B) {
	if p, ok := v.ValueOK(); ok {
		if p == nil {
			unset()
		} else {
			set(*p)
		}
	}
}

// notNull refuses a null for a key that accepts only values (docs/rest-api.md §1: null only where
// listed).
func notNull(field string) *apperr.Error {
	return apperr.InvalidBody("%s must not be null", field)
}

// eventsAdmins lists the people administering each of evs, in their order: the organization's
// owners and admins, then the event's admins, each once — four statements whatever the number
// of events.
func (r *Service) eventsAdmins(ctx context.Context, evs []*ent.Event) ([][]*model.Admin, error) {
	c := r.ClientOf(ctx)
	orgMembers, err := c.OrganizationMember.Query().
		Where(organizationmember.OrganizationIDIn(unique(mapAll(evs, func(ev *ent.Event) string { return ev.OrganizationID }))...),
			organizationmember.RoleIn(organizationmember.RoleOwner, organizationmember.RoleAdmin)).
		WithUser().
		Order(ent.Asc("created_at")).
		All(ctx)
	if err != nil {
		return nil, err
	}
	eventMembers, err := c.EventMember.Query().
		Where(eventmember.EventIDIn(eventIDs(evs)...), eventmember.RoleEQ(eventmember.RoleAdmin)).
		WithUser().
		Order(ent.Asc("created_at")).
		All(ctx)
	if err != nil {
		return nil, err
	}
	byOrg := group(orgMembers, func(m *ent.OrganizationMember) string { return m.OrganizationID })
	byEvent := group(eventMembers, func(m *ent.EventMember) string { return m.EventID })
	out := make([][]*model.Admin, len(evs))
	for i, ev := range evs {
		seen := map[string]bool{}
		admins := []*model.Admin{}
		add := func(u *ent.User) {
			if u != nil && !seen[u.ID] {
				seen[u.ID] = true
				admins = append(admins, &model.Admin{ID: u.ID, Name: u.Name, Email: u.Email})
			}
		}
		for _, m := range byOrg[ev.OrganizationID] {
			add(m.Edges.User)
		}
		for _, m := range byEvent[ev.ID] {
			add(m.Edges.User)
		}
		out[i] = admins
	}
	return out, nil
}

// PendingInvitations lists an organization's invitations still waiting for an answer.
func (r *Service) PendingInvitations(ctx context.Context, orgID string) ([]*model.Invitation, error) {
	rows, err := r.ClientOf(ctx).OrganizationInvitation.Query().
		Where(organizationinvitation.OrganizationID(orgID),
			organizationinvitation.StatusEQ(organizationinvitation.StatusPending),
			organizationinvitation.ExpiresAtGT(time.Now())).
		Order(ent.Asc("created_at")).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Invitation, len(rows))
	for i, inv := range rows {
		out[i] = &model.Invitation{ID: inv.ID, Email: inv.Email, Role: model.OrganizationRole(inv.Role),
			ExpiresAt: inv.ExpiresAt, CreatedAt: inv.CreatedAt}
	}
	return out, nil
}

// Organization returns the caller's organization.
func (r *Service) Organization(ctx context.Context) (*ent.Organization, error) {
	v, err := access.Viewer(ctx)
	if err != nil {
		return nil, err
	}
	return r.ClientOf(ctx).Organization.Get(ctx, v.OrganizationID)
}

// OrganizationMembers lists an organization's members with their users, oldest first.
func (r *Service) OrganizationMembers(ctx context.Context, orgID string) ([]*model.Member, error) {
	rows, err := r.ClientOf(ctx).OrganizationMember.Query().
		Where(organizationmember.OrganizationID(orgID)).
		WithUser().
		Order(ent.Asc(organizationmember.FieldCreatedAt)).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Member, 0, len(rows))
	for _, m := range rows {
		u := m.Edges.User
		out = append(out, &model.Member{ID: m.ID, UserID: u.ID, Name: u.Name, Email: u.Email, Image: u.Image,
			Role: model.OrganizationRole(m.Role), CreatedAt: m.CreatedAt})
	}
	return out, nil
}

// Events lists the caller's events as a connection, by start date unless asked otherwise.
func (r *Service) Events(ctx context.Context, page Page, orderBy *ent.EventOrder, where *ent.EventWhereInput) (*ent.EventConnection, error) {
	after, first, before, last := page.After, page.First, page.Before, page.Last
	v, err := access.Viewer(ctx)
	if err != nil {
		return nil, err
	}
	if orderBy == nil {
		orderBy = &ent.EventOrder{Direction: entgql.OrderDirectionAsc, Field: ent.EventOrderFieldStartsAt}
	}
	q := r.ClientOf(ctx).Event.Query()
	if v.APIKeyEventID != "" { // a key confined to one event lists that event alone
		q = q.Where(event.ID(v.APIKeyEventID))
	}
	return q.
		Paginate(ctx, after, first, before, last, ent.WithEventOrder(orderBy), ent.WithEventFilter(where.Filter))
}

// omit turns a nullable field of a full update into a set-or-clear.
func omit[T any](v *T) graphql.Omittable[*T] { return graphql.OmittableOf(v) }
