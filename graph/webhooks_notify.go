package graph

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
)

var _ jobs.WebhookNotifier = (*Resolver)(nil)

// WebhookDisabled queues, in the transaction of ctx, an email to each owner and admin of the
// organization saying that Podium disabled the endpoint and why (docs/webhooks.md). The email log
// keeps every email under an event, so these are logged under the organization's newest event,
// as invitations are; an organization with no event left gets no email (the endpoint's
// disabledReason and the log still tell).
func (r *Resolver) WebhookDisabled(ctx context.Context, endpointID, reason string, failingSince time.Time) error {
	c := r.client(ctx)
	e, err := c.WebhookEndpoint.Get(ctx, endpointID)
	if err != nil {
		return err
	}
	ev, err := c.Event.Query().Where(event.OrganizationID(e.OrganizationID)).Order(ent.Desc(event.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		slog.WarnContext(ctx, "webhook endpoint disabled: no event to log the admins' email under", "endpoint_id", endpointID)
		return nil
	}
	if err != nil {
		return err
	}
	members, err := c.OrganizationMember.Query().
		Where(organizationmember.RoleIn(organizationmember.RoleOwner, organizationmember.RoleAdmin)).
		WithUser().All(ctx)
	if err != nil {
		return err
	}
	var emails []email.Email
	for _, m := range members {
		u := m.Edges.User
		if u == nil {
			continue
		}
		first := strings.Fields(u.Name)
		name := strings.SplitN(u.Email, "@", 2)[0]
		if len(first) > 0 {
			name = first[0]
		}
		emails = append(emails, email.Email{EventID: ev.ID, Type: emaillog.TypeCustom, To: u.Email,
			Template: email.WebhookDisabled,
			Data: email.Data{EventName: ev.Name, FirstName: name, URL: e.URL, Reason: reason,
				When: failingSince.UTC().Format("2 January 2006, 15:04 MST"), Path: "/webhooks/" + e.ID + "?organization=" + e.OrganizationID}})
	}
	if len(emails) == 0 {
		return nil
	}
	_, err = r.Outbox.Queue(ctx, emails...)
	return err
}
