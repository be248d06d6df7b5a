package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// What organizers own in the emails Podium sends for an event (docs/emails.md): their wording of
// each email, and the access links that every email to a contact carries into the portal.

func init() {
	// These types are tenant data; tenantColumn is built before init functions run.
	for name, t := range map[string]ent.Interface{"EmailOverride": EmailOverride{}, "ContactAccessLink": ContactAccessLink{}} {
		for _, m := range t.Mixin() {
			if _, ok := m.(tenantMixin); ok {
				tenantColumn[name] = "organization_id"
			}
		}
	}
}

// EmailOverride (table email_templates) is an event's own wording of one of Podium's emails: its
// subject and plain-text body, with {{placeholders}} from the fixed list of that email
// (graph/email). Without a row the email keeps Podium's wording; deleting the row resets it.
type EmailOverride struct{ ent.Schema }

// Mixin of the EmailOverride.
func (EmailOverride) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "eov"}, timeMixin{}, eventScoped()}
}

// Fields of the EmailOverride.
func (EmailOverride) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.String("template").Immutable().Validate(requiredText("Template", 64)),
		field.String("subject").Validate(requiredText("Subject", 300)),
		field.Text("body").Validate(requiredText("Body", 20000)),
		// updated_by names who saved it last: a person's name, or "API key: name".
		field.String("updated_by").Default(""),
	}
}

// Edges of the EmailOverride.
func (EmailOverride) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the EmailOverride.
func (EmailOverride) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "template").Unique()}
}

// Annotations of the EmailOverride.
func (EmailOverride) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("email_templates")}
}

// ContactAccessLink is a link into the speaker portal that an email to a contact carries
// (/portal/access/<token>): it signs the contact's address in, pinned to the contact's event, as
// often as it is opened until it expires or organizers revoke it. The row holds the SHA-256 of the
// token, never the token. It is tenant data, found by its hash as system work before anyone is
// signed in, like a sign-in token.
type ContactAccessLink struct{ ent.Schema }

// Mixin of the ContactAccessLink.
func (ContactAccessLink) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "cal"}, eventScoped()}
}

// Fields of the ContactAccessLink.
func (ContactAccessLink) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		ref("contact_id"),
		field.String("hash").Unique().Immutable().Sensitive().Validate(requiredText("Link hash", 64)),
		field.Time("created_at").Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the ContactAccessLink.
func (ContactAccessLink) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("contact", Contact.Type).Field("contact_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the ContactAccessLink.
func (ContactAccessLink) Indexes() []ent.Index {
	return []ent.Index{index.Fields("contact_id"), index.Fields("expires_at")}
}

// Annotations of the ContactAccessLink.
func (ContactAccessLink) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("contact_access_links")}
}
