package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Webhooks (docs/webhooks.md): an organization's endpoints, the messages its changes produce and
// each message's delivery to each endpoint. The three tables are tenant data. Their
// organization_id has no foreign key to organizations, like the other denormalized copies: the
// tenant filter fills it from the context on insert, and row-level security checks it.

func init() {
	// The webhook types are tenant data; tenantColumn is built before init functions run.
	for name, t := range map[string]ent.Interface{
		"WebhookEndpoint": WebhookEndpoint{}, "WebhookMessage": WebhookMessage{}, "WebhookDelivery": WebhookDelivery{},
	} {
		for _, m := range t.Mixin() {
			if _, ok := m.(tenantMixin); ok {
				tenantColumn[name] = "organization_id"
			}
		}
	}
}

// WebhookEndpoint is a URL an organization asked Podium to send events to.
type WebhookEndpoint struct{ ent.Schema }

// Mixin of the WebhookEndpoint.
func (WebhookEndpoint) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "whep"}, timeMixin{}, tenantMixin{}}
}

// Fields of the WebhookEndpoint.
func (WebhookEndpoint) Fields() []ent.Field {
	return []ent.Field{
		field.String("url").Validate(requiredText("URL", 2048)).
			Comment("Where events are POSTed: https, or http when the operator allows it."),
		field.String("description").Default("").Validate(text("Description", 500)).
			Comment("What the endpoint is for, in the organization's words."),
		field.Strings("event_types").
			Comment("The event types sent to the endpoint; empty means every type."),
		field.Bool("enabled").Default(true).
			Comment("Whether events are sent; Podium disables an endpoint that has failed for days."),
		// secret signs every message ("whsec_" and base64 of 24 random bytes). It is shown once,
		// when it is made.
		field.String("secret").Sensitive(),
		// previous_secret still signs messages, beside secret, until previous_secret_expires_at:
		// receivers switch to a rotated secret at their own pace.
		field.String("previous_secret").Optional().Nillable().Sensitive(),
		field.Time("previous_secret_expires_at").Optional().Nillable(),
		// failing_since is when the endpoint's current run of failed attempts began; null after a
		// success. It decides when the endpoint is disabled.
		field.Time("failing_since").Optional().Nillable(),
		field.String("disabled_reason").Optional().Nillable().
			Comment("Why Podium disabled the endpoint; null when it did not."),
	}
}

// Indexes of the WebhookEndpoint.
func (WebhookEndpoint) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id")}
}

// Annotations of the WebhookEndpoint.
func (WebhookEndpoint) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("webhook_endpoints")}
}

// WebhookMessage is one event as sent: its type and the exact body every endpoint receives. It is
// written in the transaction of the change it reports (the outbox), so a change that rolls back
// sends nothing.
type WebhookMessage struct{ ent.Schema }

// Mixin of the WebhookMessage.
func (WebhookMessage) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "msg"}, timeMixin{}, tenantMixin{}}
}

// Fields of the WebhookMessage.
func (WebhookMessage) Fields() []ent.Field {
	return []ent.Field{
		field.String("event_type").Immutable().NotEmpty(),
		// payload is the body, signed and sent byte for byte on every attempt.
		field.Text("payload").Immutable(),
		// dispatched_at is when a dispatch run (jobs.DispatchWebhooksWorker) took the message to
		// make its first attempts; dispatch_job_id is that run's River job, which finishes the
		// message if the run dies before it is done. Both are unset until then: the outbox's
		// queue is the messages not dispatched yet.
		field.Time("dispatched_at").Optional().Nillable(),
		field.Int64("dispatch_job_id").Optional().Nillable(),
	}
}

// Indexes of the WebhookMessage.
func (WebhookMessage) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "created_at"),
		// The outbox's queue, kept small: only the messages waiting for dispatch are in it.
		index.Fields("created_at").Annotations(entsql.IndexWhere("dispatched_at IS NULL")).StorageKey("webhookmessage_undispatched"),
		index.Fields("dispatch_job_id")}
}

// Annotations of the WebhookMessage.
func (WebhookMessage) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("webhook_messages")}
}

// WebhookDelivery is one message's delivery to one endpoint: the delivery log.
//
// Its endpoint_id and message_id have no foreign keys, unlike other references. A delivery row is
// written for every message and endpoint, several thousand a second under load, and a foreign
// key's check costs each insert two lookups that lock the endpoint's and the message's rows: about
// a third of the row's cost, measured (docs/webhooks.md). The rows are written only by the delivery
// worker, from an endpoint and a message it has just read; deleting an endpoint deletes its
// deliveries (messages are never deleted). A delivery in flight when its endpoint is deleted may
// still be written afterwards: no read shows it, since the log is read per endpoint.
type WebhookDelivery struct{ ent.Schema }

// Mixin of the WebhookDelivery.
func (WebhookDelivery) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "whdl"}, timeMixin{}, childScoped()}
}

// Fields of the WebhookDelivery.
func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		ref("endpoint_id"),
		ref("message_id"),
		field.Enum("status").Values("pending", "succeeded", "failed").Default("pending"),
		field.Int("attempts").Default(0),
		field.Int("response_code").Optional().Nillable(),
		field.Int("latency_ms").Optional().Nillable(),
		field.String("error").Optional().Nillable(),
		field.Time("delivered_at").Optional().Nillable(),
	}
}

// Indexes of the WebhookDelivery.
func (WebhookDelivery) Indexes() []ent.Index {
	// One delivery per message and endpoint: a dispatch run done again (a job rescued after a
	// crash) writes none twice; a retry's success updates its row (jobs.DeliverWebhookWorker).
	return []ent.Index{index.Fields("endpoint_id", "created_at"), index.Fields("message_id", "endpoint_id").Unique()}
}

// Annotations of the WebhookDelivery.
func (WebhookDelivery) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("webhook_deliveries")}
}
