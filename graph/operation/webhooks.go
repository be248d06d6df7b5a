package operation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/riverqueue/river"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/webhookdelivery"
	"github.com/podium/podium/ent/webhookendpoint"
	"github.com/podium/podium/ent/webhookmessage"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/jobs"
)

// Webhooks (docs/webhooks.md). An operation that changes something integrators hear about calls
// emit in its transaction: the message commits or rolls back with the change (the outbox);
// jobs.DispatchWebhooksWorker then delivers it to each subscribed endpoint, and
// jobs.DeliverWebhookWorker retries the deliveries that failed.

// The event types, each with the payload documented in docs/webhooks.md. A type's payload only
// grows (new keys); a change that would break receivers gets a new type name.
const (
	hookSessionCreated         = "session.created"
	hookSessionCancelled       = "session.cancelled"
	hookSessionReinstated      = "session.reinstated"
	hookSessionDeleted         = "session.deleted"
	hookSessionScheduled       = "session.scheduled"
	hookSubmissionSubmitted    = "submission.submitted"
	hookSubmissionDecided      = "submission.decided"
	hookSubmissionInformed     = "submission.informed"
	hookDecisionsScheduled     = "decisions.scheduled"
	hookDecisionsCancelled     = "decisions.cancelled"
	hookDecisionsSent          = "decisions.sent"
	hookTemplateSaved          = "template.saved"
	hookTemplateReset          = "template.reset"
	hookChasersUpdated         = "chasers.updated"
	hookContactAccessRevoked   = "contact.access_revoked"
	hookEmailUnsuppressed      = "email.unsuppressed"
	hookSpeakerWorkflowChanged = "speaker.workflow_changed"
	hookSpeakerConfirmed       = "speaker.confirmed"
	hookReviewCompleted        = "review.completed"
	hookAgendaPublished        = "agenda.published"
	hookAgendaUnpublished      = "agenda.unpublished"
	hookEmailFailed            = jobs.HookEmailFailed
	hookEmailSuppressed        = jobs.HookEmailSuppressed
	hookResourcePublished      = "resource.published"
)

// WebhookEventTypes lists every event type, as endpoints subscribe to them.
var WebhookEventTypes = []string{hookSessionCreated, hookSessionCancelled, hookSessionReinstated,
	hookSessionDeleted, hookSessionScheduled, hookSubmissionSubmitted, hookSubmissionDecided,
	hookSubmissionInformed, hookSpeakerWorkflowChanged, hookSpeakerConfirmed, hookReviewCompleted, hookAgendaPublished,
	hookAgendaUnpublished, hookEmailFailed, hookResourcePublished, hookEmailSuppressed, hookDecisionsScheduled,
	hookDecisionsCancelled, hookDecisionsSent, hookTemplateSaved, hookTemplateReset, hookChasersUpdated,
	hookContactAccessRevoked, hookEmailUnsuppressed}

// hookData is an event's data: the ids of what changed and its new state. Payloads are thin on
// purpose: a receiver fetches the rest over the API, so a delayed or redelivered message never
// carries stale detail.
type hookData map[string]any

// maxWebhooks bounds an organization's endpoints: each one multiplies the rows every change writes.
const maxWebhooks = jobs.MaxWebhookEndpoints

// emit records an event for the organization's endpoints subscribed to its type, in the
// transaction of ctx (jobs.EmitWebhook): one statement, which writes the message when an endpoint
// is subscribed and nothing when none is. An event's change is recorded too, for subscriptions,
// in the same statement (jobs.EmitWebhookWithChange). System work (seeds, migrations)
// has no organization and emits nothing.
func (r *Service) emit(ctx context.Context, eventType string, data hookData) error {
	org, tx, err := recordingTx(ctx)
	if org == "" || err != nil {
		return err
	}
	if event, ids := changeOfHook(data); event != "" {
		return jobs.EmitWebhookWithChange(ctx, tx, org, eventType, map[string]any(data), event, ids)
	}
	return jobs.EmitWebhook(ctx, tx, org, eventType, map[string]any(data))
}

// emitWhen is emit when cond holds.
func (r *Service) emitWhen(ctx context.Context, cond bool, eventType string, data hookData) error {
	if !cond {
		return nil
	}
	return r.emit(ctx, eventType, data)
}

// speakerHook is the event type of a speaker's workflow change: speaker.confirmed when it
// confirms the speaker.
func speakerHook(confirmed bool) string {
	if confirmed {
		return hookSpeakerConfirmed
	}
	return hookSpeakerWorkflowChanged
}

// queueDeliveries inserts the delivery jobs, in the transaction of ctx.
func (r *Service) queueDeliveries(ctx context.Context, deliveries []*ent.WebhookDelivery) error {
	tx, err := r.tx(ctx)
	if err != nil {
		return err
	}
	params := make([]river.InsertManyParams, len(deliveries))
	for i, d := range deliveries {
		params[i] = river.InsertManyParams{Args: jobs.DeliverWebhookArgs{DeliveryID: d.ID, OrganizationID: d.OrganizationID}}
	}
	if len(params) == 0 {
		return nil
	}
	if _, err := r.Outbox.Jobs.InsertManyFastTx(ctx, tx, params); err != nil {
		return fmt.Errorf("graph: queue webhook deliveries: %w", err)
	}
	return nil
}

func toWebhook(e *ent.WebhookEndpoint) *model.Webhook {
	types := e.EventTypes
	if types == nil {
		types = []string{}
	}
	return &model.Webhook{ID: e.ID, URL: e.URL, Description: e.Description, EventTypes: types, Enabled: e.Enabled,
		DisabledReason: e.DisabledReason, FailingSince: e.FailingSince,
		PreviousSecretExpiresAt: e.PreviousSecretExpiresAt, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

// webhookEventTypes checks a list of event types and returns it without duplicates.
func webhookEventTypes(types []string) ([]string, error) {
	out := []string{}
	for _, t := range types {
		if !slices.Contains(WebhookEventTypes, t) {
			return nil, apperr.Invalid("Unknown event type %q: the types are %s", t, strings.Join(WebhookEventTypes, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// checkWebhookURL answers a URL webhooks may not use with 400 invalid_input.
func (r *Service) checkWebhookURL(ctx context.Context, u string) error {
	if len(u) > 2048 {
		return apperr.Invalid("The URL is longer than 2048 characters")
	}
	if err := r.Webhooks.CheckURL(ctx, u); err != nil {
		return apperr.Invalid("The webhook URL is refused: %s", err.Error())
	}
	return nil
}

func (r *Service) ListWebhooks(ctx context.Context) ([]*model.Webhook, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	rows, err := r.ClientOf(ctx).WebhookEndpoint.Query().Order(ent.Asc(webhookendpoint.FieldCreatedAt),
		ent.Asc(webhookendpoint.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Webhook, len(rows))
	for i, e := range rows {
		out[i] = toWebhook(e)
	}
	return out, nil
}

// endpoint returns the organization's endpoint id, or 404.
func (r *Service) endpoint(ctx context.Context, id string) (*ent.WebhookEndpoint, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	e, err := r.ClientOf(ctx).WebhookEndpoint.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("Webhook")
	}
	return e, err
}

func (r *Service) Webhook(ctx context.Context, id string) (*model.Webhook, error) {
	e, err := r.endpoint(ctx, id)
	if err != nil {
		return nil, err
	}
	return toWebhook(e), nil
}

func (r *Service) CreateWebhook(ctx context.Context, in model.CreateWebhookInput) (*model.WebhookWithSecret, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.WebhookWithSecret, error) {
		if _, err := access.Viewer(ctx); err != nil {
			return nil, err
		}
		if err := r.checkWebhookURL(ctx, in.URL); err != nil {
			return nil, err
		}
		types, err := webhookEventTypes(in.EventTypes)
		if err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		if n, err := c.WebhookEndpoint.Query().Count(ctx); err != nil {
			return nil, err
		} else if n >= maxWebhooks {
			return nil, apperr.Invalid("An organization has at most %d webhook endpoints", maxWebhooks)
		}
		secret := jobs.NewWebhookSecret()
		e, err := c.WebhookEndpoint.Create().SetURL(in.URL).SetNillableDescription(in.Description).
			SetEventTypes(types).SetSecret(secret).Save(ctx)
		if err != nil {
			return nil, err
		}
		return &model.WebhookWithSecret{Webhook: toWebhook(e), Secret: secret}, nil
	})
}

func (r *Service) UpdateWebhook(ctx context.Context, id string, in model.UpdateWebhookInput) (*model.Webhook, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Webhook, error) {
		e, err := r.endpoint(ctx, id)
		if err != nil {
			return nil, err
		}
		u := r.ClientOf(ctx).WebhookEndpoint.UpdateOne(e)
		if in.URL != nil {
			if err := r.checkWebhookURL(ctx, *in.URL); err != nil {
				return nil, err
			}
			u.SetURL(*in.URL)
		}
		if in.Description != nil {
			u.SetDescription(*in.Description)
		}
		if in.EventTypes != nil {
			types, err := webhookEventTypes(in.EventTypes)
			if err != nil {
				return nil, err
			}
			u.SetEventTypes(types)
		}
		if in.Enabled != nil {
			u.SetEnabled(*in.Enabled)
			if *in.Enabled {
				u.ClearDisabledReason().ClearFailingSince()
			}
		}
		e, err = u.Save(ctx)
		if err != nil {
			return nil, err
		}
		return toWebhook(e), nil
	})
}

func (r *Service) DeleteWebhook(ctx context.Context, id string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		e, err := r.endpoint(ctx, id)
		if err != nil {
			return "", err
		}
		// The delivery log has no foreign keys (see the WebhookDelivery schema): the endpoint's
		// deliveries go with it here.
		c := r.ClientOf(ctx)
		if _, err := c.WebhookDelivery.Delete().Where(webhookdelivery.EndpointID(e.ID)).Exec(ctx); err != nil {
			return "", err
		}
		return e.ID, c.WebhookEndpoint.DeleteOne(e).Exec(ctx)
	})
}

// defaultGraceHours is how long a rotated secret keeps signing by default: a day, so a receiver
// deployed daily picks up the new one in time.
const defaultGraceHours = 24

func (r *Service) RotateWebhookSecret(ctx context.Context, id string, in *model.RotateWebhookSecretInput) (*model.WebhookWithSecret, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.WebhookWithSecret, error) {
		grace := defaultGraceHours
		if in != nil && in.GraceHours != nil {
			grace = *in.GraceHours
		}
		if grace < 0 || grace > 168 {
			return nil, apperr.Invalid("graceHours must be between 0 and 168")
		}
		e, err := r.endpoint(ctx, id)
		if err != nil {
			return nil, err
		}
		secret := jobs.NewWebhookSecret()
		u := r.ClientOf(ctx).WebhookEndpoint.UpdateOne(e).SetSecret(secret)
		if grace > 0 {
			u.SetPreviousSecret(e.Secret).SetPreviousSecretExpiresAt(time.Now().Add(time.Duration(grace) * time.Hour))
		} else {
			u.ClearPreviousSecret().ClearPreviousSecretExpiresAt()
		}
		e, err = u.Save(ctx)
		if err != nil {
			return nil, err
		}
		return &model.WebhookWithSecret{Webhook: toWebhook(e), Secret: secret}, nil
	})
}

// maxDeliveryLog bounds one read of the delivery log.
const maxDeliveryLog = 500

func (r *Service) WebhookDeliveries(ctx context.Context, webhookID string, status *model.WebhookDeliveryState, first *int) ([]*model.WebhookDeliveryEntry, error) {
	if _, err := r.endpoint(ctx, webhookID); err != nil {
		return nil, err
	}
	n := 100
	if first != nil {
		n = *first
	}
	if n < 1 || n > maxDeliveryLog {
		return nil, apperr.Invalid("first must be between 1 and %d", maxDeliveryLog)
	}
	q := r.ClientOf(ctx).WebhookDelivery.Query().Where(webhookdelivery.EndpointID(webhookID))
	if status != nil {
		if !status.IsValid() {
			return nil, apperr.Invalid("Unknown delivery status %q", status.String())
		}
		q.Where(webhookdelivery.StatusEQ(webhookdelivery.Status(*status)))
	}
	rows, err := q.Order(ent.Desc(webhookdelivery.FieldCreatedAt), ent.Desc(webhookdelivery.FieldID)).
		Limit(n).All(ctx)
	if err != nil {
		return nil, err
	}
	return r.deliveryEntries(ctx, rows)
}

// deliveryEntries returns the log entries of rows, with their messages' event types.
func (r *Service) deliveryEntries(ctx context.Context, rows []*ent.WebhookDelivery) ([]*model.WebhookDeliveryEntry, error) {
	ids := make([]string, 0, len(rows))
	for _, d := range rows {
		ids = append(ids, d.MessageID)
	}
	messages, err := r.ClientOf(ctx).WebhookMessage.Query().Where(webhookmessage.IDIn(ids...)).
		Select(webhookmessage.FieldID, webhookmessage.FieldEventType).All(ctx)
	if err != nil {
		return nil, err
	}
	types := make(map[string]string, len(messages))
	for _, m := range messages {
		types[m.ID] = m.EventType
	}
	out := make([]*model.WebhookDeliveryEntry, len(rows))
	for i, d := range rows {
		out[i] = &model.WebhookDeliveryEntry{ID: d.ID, WebhookID: d.EndpointID, MessageID: d.MessageID, EventType: types[d.MessageID],
			Status: model.WebhookDeliveryState(d.Status), Attempts: d.Attempts, ResponseCode: d.ResponseCode,
			LatencyMs: d.LatencyMs, Error: d.Error, DeliveredAt: d.DeliveredAt, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
	}
	return out, nil
}

func (r *Service) RedeliverWebhook(ctx context.Context, webhookID, deliveryID string) (*model.WebhookDeliveryEntry, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.WebhookDeliveryEntry, error) {
		if _, err := r.endpoint(ctx, webhookID); err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		d, err := c.WebhookDelivery.Query().Where(webhookdelivery.ID(deliveryID), webhookdelivery.EndpointID(webhookID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("Delivery")
		}
		if err != nil {
			return nil, err
		}
		if _, err := c.WebhookDelivery.UpdateOne(d).SetStatus(webhookdelivery.StatusPending).Save(ctx); err != nil {
			return nil, err
		}
		if err := r.queueDeliveries(ctx, []*ent.WebhookDelivery{d}); err != nil {
			return nil, err
		}
		d.Status = webhookdelivery.StatusPending
		entries, err := r.deliveryEntries(ctx, []*ent.WebhookDelivery{d})
		if err != nil {
			return nil, err
		}
		return entries[0], nil
	})
}

// maxRedeliver bounds one redelivery of everything since a time.
const maxRedeliver = 10000

func (r *Service) RedeliverWebhooks(ctx context.Context, webhookID string, in model.RedeliverWebhooksInput) (int, error) {
	return inTx(ctx, r, func(ctx context.Context) (int, error) {
		if _, err := r.endpoint(ctx, webhookID); err != nil {
			return 0, err
		}
		c := r.ClientOf(ctx)
		q := c.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(webhookID), webhookdelivery.CreatedAtGTE(in.Since))
		n, err := q.Clone().Count(ctx)
		if err != nil {
			return 0, err
		}
		if n > maxRedeliver {
			return 0, apperr.Invalid("%d messages were sent since then; at most %d can be redelivered at once: choose a later time", n, maxRedeliver)
		}
		rows, err := q.Order(ent.Asc(webhookdelivery.FieldCreatedAt), ent.Asc(webhookdelivery.FieldID)).All(ctx)
		if err != nil {
			return 0, err
		}
		if len(rows) == 0 {
			return 0, nil
		}
		ids := make([]string, len(rows))
		for i, d := range rows {
			ids[i] = d.ID
		}
		if err := c.WebhookDelivery.Update().Where(webhookdelivery.IDIn(ids...)).
			SetStatus(webhookdelivery.StatusPending).Exec(ctx); err != nil {
			return 0, err
		}
		if err := r.queueDeliveries(ctx, rows); err != nil {
			return 0, err
		}
		return len(rows), nil
	})
}
