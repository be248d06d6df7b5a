package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Campaigns (docs/campaigns.md): an email an organizer sends to many speakers of an event at
// once, and who it went to. Each recipient's email is an email log row written in the same
// transaction as the campaign (the outbox), so a campaign and its emails commit or roll back
// together; where delivery stands is read from those rows, never copied here.

func init() {
	// The campaign types are tenant data; tenantColumn is built before init functions run.
	for name, t := range map[string]ent.Interface{"EmailCampaign": EmailCampaign{}, "EmailCampaignRecipient": EmailCampaignRecipient{}} {
		for _, m := range t.Mixin() {
			if _, ok := m.(tenantMixin); ok {
				tenantColumn[name] = "organization_id"
			}
		}
	}
}

// EmailCampaign is one sending of an organizer's message to speakers of an event.
type EmailCampaign struct{ ent.Schema }

// Mixin of the EmailCampaign.
func (EmailCampaign) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "cmp"}, timeMixin{}, eventScoped()}
}

// Fields of the EmailCampaign.
func (EmailCampaign) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		// template_id is what the caller said the text came from; Podium has no template table, so
		// it is recorded as given and never applied.
		field.String("template_id").Optional().Nillable().Immutable().Validate(text("templateId", 200)),
		field.Text("subject_snapshot").Immutable(),
		field.Text("body_snapshot").Immutable(),
		// recipient_filter is the audience as asked: {} for explicit contacts only, else
		// {workflowStatuses, segmentId} as sent.
		field.JSON("recipient_filter", map[string]any{}).Default(map[string]any{}).Immutable(),
		field.String("created_by_user_id").Optional().Nillable().Immutable(),
		field.String("created_by_api_key_id").Optional().Nillable().Immutable(),
		field.Int("recipient_count").Default(0).Immutable(),
		// reply_to is the campaign's Reply-To, copied to each of its emails; null uses the event's.
		field.String("reply_to").Optional().Nillable().Immutable().Validate(email),
	}
}

// Edges of the EmailCampaign.
func (EmailCampaign) Edges() []ent.Edge {
	return []ent.Edge{
		// Deleting the event deletes its campaigns.
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("recipients", EmailCampaignRecipient.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the EmailCampaign.
func (EmailCampaign) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "created_at")}
}

// Annotations of the EmailCampaign.
func (EmailCampaign) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("email_campaigns")}
}

// EmailCampaignRecipient is one speaker a campaign was sent to, with the text as resolved for
// them and the email log row that carries it.
type EmailCampaignRecipient struct{ ent.Schema }

// Mixin of the EmailCampaignRecipient.
func (EmailCampaignRecipient) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "cmr"}, timeMixin{}, childScoped()}
}

// Fields of the EmailCampaignRecipient.
func (EmailCampaignRecipient) Fields() []ent.Field {
	return []ent.Field{
		ref("campaign_id"),
		// contact_id becomes null when the contact is deleted; the row stays as history.
		field.String("contact_id").Optional().Nillable(),
		field.String("recipient_name"),
		field.String("recipient_email"),
		field.Text("resolved_subject"),
		field.Text("resolved_body"),
		// email_log_id is the email carrying the message; null when none was queued (a suppressed
		// address) or the email log row is gone.
		field.String("email_log_id").Optional().Nillable(),
	}
}

// Edges of the EmailCampaignRecipient.
func (EmailCampaignRecipient) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("campaign", EmailCampaign.Type).Ref("recipients").Field("campaign_id").Unique().Required().Immutable(),
		edge.To("contact", Contact.Type).Field("contact_id").Unique().Annotations(entsql.OnDelete(entsql.SetNull)),
		edge.To("email", EmailLog.Type).Field("email_log_id").Unique().Annotations(entsql.OnDelete(entsql.SetNull)),
	}
}

// Indexes of the EmailCampaignRecipient.
func (EmailCampaignRecipient) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("campaign_id", "recipient_email").Unique(),
		index.Fields("contact_id"),
		index.Fields("email_log_id"),
	}
}

// Annotations of the EmailCampaignRecipient.
func (EmailCampaignRecipient) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("email_campaign_recipients")}
}
