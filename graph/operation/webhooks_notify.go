package operation

import (
	"context"
	"log/slog"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
)

var _ jobs.WebhookNotifier = (*Service)(nil)

// WebhookDisabled queues, in the transaction of ctx, an email to each owner and admin of the
// organization saying that Podium disabled the endpoint and why (docs/webhooks.md). The email log
// keeps every email under an event, so these are logged under the organization's newest event,
// as invitations are; an organization with no event left gets no email (the endpoint's
// disabledReason and the log still tell).
func (r *Service) WebhookDisabled(ctx context.Context, endpointID, reason string, failingSince time.Time) error {
	c := r.ClientOf(ctx)
	e, err := c.WebhookEndpoint.Get(ctx, endpointID)
	if err != nil {
		return err
	}
	ev, err := newestEvent(ctx, c, e.OrganizationID)
	if ent.IsNotFound(err) {
		slog.WarnContext(ctx, "webhook endpoint disabled: no event to log the admins' email under", "endpoint_id", endpointID)
		return nil
	}
	if err != nil {
		return err
	}
	return r.emailOrganizers(ctx, ev, email.WebhookDisabled, email.Data{URL: e.URL, Reason: reason,
		When: FormatLocal(failingSince, ev.Timezone), Path: "/webhooks/" + e.ID + "?organization=" + e.OrganizationID})
}

// newestEvent is the organization's newest event (not found when it has none): the event its
// own emails, such as this one, are logged under, and whose time zone they and its pages outside
// any one event write times in.
func newestEvent(ctx context.Context, c *ent.Client, orgID string) (*ent.Event, error) {
	return c.Event.Query().Where(event.OrganizationID(orgID)).Order(ent.Desc(event.FieldCreatedAt)).First(ctx)
}

// OrganizationTimezone is the time zone the caller's organization's pages outside any one event
// (the webhook endpoint's) write times in: its newest event's, as its emails do; UTC when it has
// no event.
func (r *Service) OrganizationTimezone(ctx context.Context) (string, error) {
	v, err := access.Viewer(ctx)
	if err != nil {
		return "", err
	}
	ev, err := newestEvent(ctx, r.ClientOf(ctx), v.OrganizationID)
	if ent.IsNotFound(err) {
		return "UTC", nil
	}
	if err != nil {
		return "", err
	}
	return ev.Timezone, nil
}
